"""`run window`: run an auditor command that must not change anything, and prove it didn't.

Snapshots before and after (HEAD, branch, index digest, porcelain v2 status,
content hashes of changed and untracked paths). `readOnlyViolation` is true
when anything differs, false when the snapshots are identical, and null when
git state could not be read: null is never a pass, so the command fails.
"""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path
from typing import Any

from zodyssey.core.exits import Exit
from zodyssey.errors import UsageError
from zodyssey.runs import evidence as chain
from zodyssey.runs.context import RunContext, gate_entry
from zodyssey.runs.execution import execute
from zodyssey.runs.preconditions import note_evidence_head
from zodyssey.runs.verification import configured_timeout, execution_fields
from zodyssey.runs.worktree import changed_paths, read_only_violation, snapshot

USAGE = "zodyssey run window [--repo DIR] SLUG --label L [--timeout S] -- CMD..."


def _window_options(head: list[str]) -> argparse.Namespace:
    """The slug and options given before `--`."""
    options = argparse.ArgumentParser(prog="zodyssey run window", add_help=False)
    options.add_argument("slug")
    options.add_argument("--label")
    options.add_argument("--timeout", type=float)
    options.add_argument("--repo")
    try:
        parsed, unknown = options.parse_known_args(head)
    except SystemExit as exc:  # argparse already printed why
        raise UsageError(f"bad window arguments; usage: {USAGE}") from exc
    if unknown:
        raise UsageError(f"unrecognized window arguments {' '.join(unknown)}; usage: {USAGE}")
    return parsed


def split_window_args(args: argparse.Namespace) -> tuple[str, list[str]]:
    """Fill slug/label/timeout/repo from `rest` (everything after the first positional)."""
    rest: list[str] = list(args.rest or [])
    if "--" not in rest:
        raise UsageError(f"put the auditor command after `--`: {USAGE}")
    split = rest.index("--")
    head, argv = rest[:split], rest[split + 1 :]
    parsed = _window_options(head)
    for name in ("label", "timeout", "repo"):
        if getattr(parsed, name) is not None:
            setattr(args, name, getattr(parsed, name))
    if not argv:
        raise UsageError(f"give the auditor command after `--`: {USAGE}")
    if not (args.label or "").strip():
        raise UsageError(f"--label is required and must not be empty: {USAGE}")
    if args.timeout is not None and args.timeout <= 0:
        raise UsageError("--timeout must be a positive number of seconds")
    return str(parsed.slug), argv


def _plan_sha(ctx: RunContext, state: dict[str, Any]) -> str | None:
    """The bound plan's digest, None when there is none to load."""
    try:
        return ctx.load_plan(state).sha256
    except Exception:
        return None


def cmd_window(args: argparse.Namespace) -> int:
    slug, argv = split_window_args(args)
    ctx = RunContext.open(args.repo, slug)
    timeout_s = args.timeout or configured_timeout(ctx.root)
    state = ctx.state()  # the run must exist; any phase may hold a window (audits come late)
    plan_sha = _plan_sha(ctx, state)
    before = snapshot(ctx.root, keep_status=True)
    run = execute(argv, ctx.root, timeout_s)
    after = snapshot(ctx.root, keep_status=True)
    violation = read_only_violation(before, after)
    changed = changed_paths(before, after) if violation else []
    record: dict[str, Any] = chain.append_record(
        ctx.root,
        ctx.slug,
        {
            "kind": "window",
            "slug": ctx.slug,
            "label": args.label,
            "argv": argv,
            "command": shlex.join(argv),
            **execution_fields(ctx, run, timeout_s, before, after),
            "plan_sha256": plan_sha,
            "passed": violation is False and run.passed,
            "readOnlyViolation": violation,
            "snapshot_before": before,
            "snapshot_after": after,
            "changed_paths": changed,
        },
    )

    def mutate(st: dict[str, Any]) -> None:
        note_evidence_head(st, record)
        windows = st.get("windows")
        if not isinstance(windows, list):
            windows = st["windows"] = []
        windows.append(
            {
                "label": args.label,
                "at": record["finished_at"],
                "readOnlyViolation": violation,
                "exit_code": run.exit_code,
                "seq": record["seq"],
            }
        )
        decision = "pass" if violation is False else "fail"
        why = {
            True: f"read-only window violated: {', '.join(changed[:10]) or 'snapshot differs'}",
            False: "read-only: snapshots identical",
            None: "read-only state unknown (git state unreadable): not a pass",
        }[violation]
        gate_entry(
            st, "window", decision, subject=args.label, reason=f"{why} (seq {record['seq']})"
        )

    ctx.store.update(mutate)
    flag = {True: "true", False: "false", None: "null"}[violation]
    print(
        f"window {args.label!r}: readOnlyViolation={flag}; auditor exit "
        f"{run.exit_code if not run.timed_out else 'timeout'}; evidence seq {record['seq']}"
    )
    if violation:
        print(f"  changed: {', '.join(changed)}")
        _hint_home_ignored(ctx.root, changed)
    if violation is None:
        reason = after.get("error") or before.get("error")
        print(f"  git state could not be read ({reason}): the window is not verified")
    if violation is not False or not run.passed:
        return Exit.FAILED
    return 0


def _hint_home_ignored(root: Path, changed: list[str]) -> None:
    """Say which changed paths only the user's own excludes file ignores: the
    snapshot reads no configuration from the home directory (the agent can write
    there), so only the repository's `.gitignore` files and `.git/info/exclude`
    leave a file out. A hint only: the verdict does not depend on it."""
    from zodyssey import git

    shown = [p for p in changed[:50] if p and not p.startswith("<")]
    if not shown:
        return
    try:
        out = git.run(
            root, ["check-ignore", "--no-index", "-z", "--stdin"], stdin="\0".join(shown).encode()
        )
    except git.GitError:
        return  # exit 1: nothing ignored
    home_only = [p for p in out.decode("utf-8", "replace").split("\0") if p]
    if home_only:
        print(
            f"  {', '.join(home_only)}: ignored only by an excludes file "
            "(`core.excludesFile`), which the snapshot does not read (the agent could "
            "write it); list them in .gitignore or .git/info/exclude"
        )
