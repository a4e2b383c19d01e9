"""`run start`, `run todo`, `run phase`, `run status`: the run's life, one transition at a time."""

from __future__ import annotations

import argparse
import json
import shutil
import uuid
from pathlib import Path
from typing import Any

from zodyssey import __version__
from zodyssey.core import paths
from zodyssey.core.atomic import write_atomic
from zodyssey.core.exits import Exit
from zodyssey.core.files import read_regular_text
from zodyssey.core.paths import archive_dir, plan_path, reviews_dir, verify_dir
from zodyssey.core.store import RunStore, StateError, dump_json, now_iso, read_json
from zodyssey.core.vocabulary import (
    GATE_CONFIG,
    GENESIS_HASH,
    HALTED_PHASES,
    PHASE_MOVES,
    TERMINAL_PHASES,
    move_refusal,
)
from zodyssey.errors import UsageError, ZodysseyError
from zodyssey.runs import evidence as chain
from zodyssey.runs.checks import load_checks
from zodyssey.runs.context import LoadedPlan, RunContext, RunRefused, gate_entry
from zodyssey.runs.preconditions import (
    check_chain,
    note_evidence_head,
    require_active,
    require_bound_plan,
    require_todo,
    stamp_override,
)
from zodyssey.runs.verification import run_quality_checks

PLAN_TEMPLATE = """\
# {title}

## Todos
<!-- One row per todo, for example:
- [ ] 1. Add the route
  - Files: [`src/server.py`, `tests/test_server.py`]
  - Acceptance criteria:
    - `python -m pytest -q tests/test_server.py` exits 0
-->

## Final verification wave
"""


def _gate_config(root: Path) -> dict[str, str]:
    """The configuration the gate will judge this run by (see core.vocabulary.GATE_CONFIG)."""
    from zodyssey.config import config_digest

    digest, source = config_digest(root)
    return {"sha256": digest, "source": source}


def new_state(root: Path, slug: str, title: str, plan_file: Path) -> dict[str, Any]:
    from zodyssey.runs.worktree import snapshot

    snap = snapshot(root)
    started = now_iso()
    return {
        "slug": slug,
        "run_id": uuid.uuid4().hex,
        "title": title,
        "phase": "plan",
        "started_at": started,
        "updated_at": started,
        "run_start_sha": (snap.get("head") or "") if snap["ok"] else "",
        "dirty_at_start": bool(snap.get("files")) if snap["ok"] else None,
        "plan_path": paths.stored(plan_file, root),
        "project_dir": str(root),
        GATE_CONFIG: _gate_config(root),
        "review": {
            "round": 0,
            "max_rounds": 3,
            "verdict": None,
            "plan_sha256": None,
            "history": [],
            "blockers": [],
            "pending_nonce": None,
            "consumed_nonces": {},
        },
        "todos": {},
        "file_locks": {},
        "active_todos": {},
        "verify": {"total": 0, "passed": 0, "failed": 0, "flaky": 0, "history": []},
        "acceptance": {},
        "gate_log": [],
        "phase_history": [{"from": None, "to": "plan", "at": started, "note": "run started"}],
        "windows": [],
        "evidence": {
            "count": 0,
            "head": GENESIS_HASH,
            "path": paths.stored(paths.evidence_path(root, slug), root),
        },
        "created_by": f"zodyssey {__version__}",
    }


def _archive_previous(root: Path, slug: str) -> Path | None:
    """Move a finished run's artifacts aside so the new run starts a fresh chain."""
    store = RunStore(root, slug)
    if not store.exists():
        return None
    try:
        old = read_json(store.path)
    except (StateError, FileNotFoundError):
        old = None
    if isinstance(old, dict) and old.get("phase") not in TERMINAL_PHASES:
        return None  # active: create() refuses it with the proper message
    stamp = str(old.get("started_at", "unknown") if isinstance(old, dict) else "unknown")
    target = archive_dir(root) / f"{slug}-{stamp.replace(':', '')}"
    target.mkdir(parents=True, exist_ok=True)
    moved = _move_artifacts(root, slug, target)
    if isinstance(old, dict):
        write_atomic(target / f"{slug}.json", dump_json(_repoint(old, moved)))
    else:
        shutil.copy2(store.path, target / f"{slug}.json")
    return target


def _move_artifacts(root: Path, slug: str, target: Path) -> dict[str, str]:
    """Move (the plan: copy) a finished run's files to `target`: {old path: new path}.

    Whatever the state names (the plan, the chain, the review artifacts) moves with
    it, and the archived state names the archived copies: it audits as it did.
    """
    moved: dict[str, str] = {}

    def note(old: Path, new: Path) -> None:
        # The state names it relative to the root (older states: absolute).
        moved[str(old)] = moved[paths.stored(old, root)] = paths.stored(new, root)

    plan_file = plan_path(root, slug)
    if plan_file.is_file():
        shutil.copy2(plan_file, target / "plan.md")
        note(plan_file, target / "plan.md")
    evidence_dir = verify_dir(root, slug)
    if evidence_dir.is_dir():
        shutil.move(str(evidence_dir), str(target / "verify"))
        note(paths.evidence_path(root, slug), target / "verify" / "evidence.jsonl")
    # The post-call effect check's snapshots belong to the old run: a new run
    # starts from no snapshot rather than blaming the old run's changes on itself.
    # So do the gate's decision lines of its calls (the audit's gate-ran proof).
    for suffix in (".effects", ".decisions"):
        kept = paths.state_path(root, slug).with_suffix(suffix)
        if kept.is_file():
            shutil.move(str(kept), str(target / kept.name))
    for review in sorted(reviews_dir(root).glob(f"{slug}-r*.json")):
        (target / "reviews").mkdir(exist_ok=True)
        shutil.move(str(review), str(target / "reviews" / review.name))
        note(review, target / "reviews" / review.name)
    return moved


def _repoint(value: Any, moved: dict[str, str]) -> Any:
    """`value` with every string naming a moved file replaced by its new place."""
    if isinstance(value, str):
        return moved.get(value, value)
    if isinstance(value, list):
        return [_repoint(item, moved) for item in value]
    if isinstance(value, dict):
        return {key: _repoint(item, moved) for key, item in value.items()}
    return value


def _plan_and_title(args: argparse.Namespace, slug: str) -> tuple[str, str]:
    """The new run's plan text (--plan, else the template) and title (--title, the
    plan's, else the slug)."""
    if not args.plan:
        title = args.title or slug
        return PLAN_TEMPLATE.format(title=title), title
    try:
        text = read_regular_text(args.plan, "--plan")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read --plan {args.plan}: {exc}") from exc
    if args.title:
        return text, args.title
    from zodyssey.core.plan import parse_plan

    return text, parse_plan(text).title or slug


def _aliasing_trees(abi: int) -> dict[str, str]:
    """The trees the sandbox would grant that alias the gate's own files (hard links
    from a package cache, the interpreter inside a cache): never granted in this run."""
    if abi < 1:
        return {}
    import os

    from zodyssey.sandbox.aliases import candidates, find

    return find(candidates(os.path.expanduser("~")))


def _print_containment(root: Path, args: argparse.Namespace, abi: int) -> None:
    """Per harness and platform, which calls the kernel contains in this run."""
    from zodyssey.gate.wiring import declared_harnesses
    from zodyssey.sandbox.contain import containment
    from zodyssey.sandbox.shell_prefix import configured

    try:
        harnesses = getattr(args, "harness", None) or declared_harnesses(root)[0]
    except Exception:  # a malformed declaration was refused by the wiring check already
        harnesses = []
    for line in containment(list(harnesses), abi, configured(str(root))):
        print(f"write sandbox: {line}")


def cmd_start(args: argparse.Namespace) -> int:
    ctx = RunContext.open(args.repo, args.slug)
    from zodyssey.sandbox.contain import planted_root

    planted = planted_root(ctx.root)
    if planted is not None:  # before anything in the folder is read or run
        raise RunRefused(
            f"run start refuses this folder, nothing in it was run: {planted}; start a run "
            "at a repository's top level from your own terminal",
            Exit.REFUSED_STATE,
        )
    text, title = _plan_and_title(args, ctx.slug)
    if args.max_rounds is not None and args.max_rounds < 1:
        raise UsageError("--max-rounds must be at least 1")
    archived = _archive_previous(ctx.root, ctx.slug)
    target_plan = plan_path(ctx.root, ctx.slug)
    state = new_state(ctx.root, ctx.slug, title, target_plan)
    if args.max_rounds is not None:
        state["review"]["max_rounds"] = args.max_rounds
    from zodyssey.sandbox.landlock import abi_version, sandbox_status

    # The gate wraps shell calls in the sandbox only for runs that recorded it here.
    state["sandbox"] = {"landlock_abi": abi_version()}
    aliasing = _aliasing_trees(state["sandbox"]["landlock_abi"])
    if aliasing:
        state["sandbox"]["dropped"] = aliasing
    from zodyssey.gate.wiring import holding_problems

    problems = holding_problems(ctx.root, getattr(args, "harness", None))
    if problems:
        raise RunRefused(
            "the gate would not hold, so the run is not started: "
            + "; ".join(problems)
            + " (fix the wiring, then start the run again; `zodyssey check` shows the same)",
            Exit.REFUSED_STATE,
        )
    gate_entry(state, "start", "allow", subject=ctx.slug, reason="run created")
    try:
        ctx.store.create(state)
    except StateError as exc:
        raise RunRefused(exc.message, exc.exit_code) from exc
    write_atomic(target_plan, text)
    from zodyssey.runs.anchor import note_start

    note_start(ctx.root, ctx.slug, state["run_id"])
    print(f"started run {ctx.slug!r} (phase plan); plan: {target_plan}")
    if archived:
        print(f"the previous run {ctx.slug!r} was archived to {archived}")
    print(sandbox_status())
    for tree, why in state["sandbox"].get("dropped", {}).items():
        print(
            f"write sandbox: {tree} is not writable in this run: {why} (reinstall with "
            "copies, e.g. UV_LINK_MODE=copy, to have it granted)"
        )
    _print_containment(ctx.root, args, state["sandbox"]["landlock_abi"])
    from zodyssey.sandbox.byproducts import unignored_advice

    advice = unignored_advice(str(ctx.root))
    if advice:
        print(advice)
    from zodyssey.runs.review import verdict_sources

    print(verdict_sources(ctx.root, ctx.slug))
    return 0


# --------------------------------------------------------------------------- todo


def _release(state: dict[str, Any], todo_id: str) -> list[str]:
    released: list[str] = []
    locks = state.get("file_locks")
    if isinstance(locks, dict):
        for path in [p for p, lock in locks.items() if isinstance(lock, dict)]:
            if str(locks[path].get("todo")) == todo_id:
                del locks[path]
                released.append(path)
    active = state.get("active_todos")
    if isinstance(active, dict):
        for owner in [o for o, t in active.items() if str(t) == todo_id]:
            del active[owner]
    return released


def _refuse_open_violations(ctx: RunContext, records: list[dict[str, Any]], command: str) -> None:
    """No step counts as done while a change the gate caught is unresolved."""
    found = chain.open_violations(records)
    if found:
        seqs = ", ".join(str(r.get("seq")) for r in found[:10])
        ctx.refuse(
            command,
            f"the post-call check recorded {len(found)} unresolved violation(s) "
            f"(evidence seq {seqs}); ask the user to inspect them (.zcode/quarantine/ holds "
            "moved files) and decide in their own terminal (`--force-done` / `--force` with "
            "`--reason`, stamped into the evidence)",
            Exit.REFUSED_STATE,
        )


def _todo_gaps(records: list[dict[str, Any]], todo: Any, plan_sha256: str) -> list[str]:
    """What the evidence lacks for `todo` to be done (its criteria, or a final row's)."""
    gaps = chain.criterion_gaps(records, todo, plan_sha256)
    if todo.final and not todo.criteria:
        gaps += chain.final_row_gaps(records, todo)
    return gaps


def _check_done(
    ctx: RunContext, args: argparse.Namespace, state: dict[str, Any], loaded: LoadedPlan, todo: Any
) -> dict[str, Any] | None:
    """`todo ... done`: refused while the evidence does not prove it, unless
    --force-done, which stamps the override into the evidence (returned)."""
    records = check_chain(ctx, state, "todo")
    if args.force_done:
        return stamp_override(
            ctx, "todo", f"todo {todo.id} done", args.reason.strip(), loaded.sha256
        )
    _refuse_open_violations(ctx, records, "todo")
    gaps = _todo_gaps(records, todo, loaded.sha256)
    if gaps:
        ctx.refuse(
            "todo",
            f"todo {todo.id} cannot be done: {'; '.join(gaps)}; "
            f"run `zodyssey run verify {ctx.slug} {todo.id}`",
            Exit.REFUSED_STATE,
            subject=todo.id,
        )
    return None


def _require_force_done_args(args: argparse.Namespace) -> None:
    if args.status != "done":
        raise UsageError("--force-done only applies to status done")
    if not (args.reason or "").strip():
        raise UsageError("--force-done needs --reason saying why the evidence is missing")


def cmd_todo(args: argparse.Namespace) -> int:
    ctx = RunContext.open(args.repo, args.slug)
    if args.force_done:
        _require_force_done_args(args)
    state = ctx.state()
    require_active(ctx, state, "todo")
    loaded = require_bound_plan(ctx, state, "todo")
    todo = require_todo(loaded, args.todo)
    override = _check_done(ctx, args, state, loaded, todo) if args.status == "done" else None

    def mutate(current: dict[str, Any]) -> list[str]:
        if current.get("phase") in HALTED_PHASES:
            raise RunRefused(
                f"run {ctx.slug!r} became {current.get('phase')} meanwhile", Exit.REFUSED_STATE
            )
        todos = current.setdefault("todos", {})
        entry = todos.setdefault(todo.id, {"status": "pending", "attempts": 0})
        previous = entry.get("status")
        entry["status"] = args.status
        entry["updated_at"] = now_iso()
        if args.status == "in_flight":
            entry["attempts"] = int(entry.get("attempts", 0) or 0) + 1
            if args.owner:
                current.setdefault("active_todos", {})[args.owner] = todo.id
        released: list[str] = []
        if args.status in ("done", "failed"):
            released = _release(current, todo.id)
        if override is not None:
            entry["forced"] = True
            entry["forced_reason"] = args.reason.strip()
            entry["forced_at"] = override["finished_at"]
            note_evidence_head(current, override)
            gate_entry(
                current,
                "todo",
                "override",
                subject=todo.id,
                reason=f"{previous} -> done without complete evidence (seq {override['seq']})",
                override_reason=args.reason.strip(),
            )
        else:
            gate_entry(
                current, "todo", "allow", subject=todo.id, reason=f"{previous} -> {args.status}"
            )
        return released

    released = ctx.store.update(mutate)
    suffix = f"; released locks: {', '.join(released)}" if released else ""
    forced = " (FORCED, recorded as an override)" if override else ""
    print(f"todo {todo.id}: {args.status}{forced}{suffix}")
    return 0


# --------------------------------------------------------------------------- phase


def _check_move(ctx: RunContext, args: argparse.Namespace, current: object, reason: str) -> None:
    """The rules of `PHASE_MOVES` that need nothing but the phases and the arguments."""
    target: str = args.phase
    move = PHASE_MOVES[target]
    if move.get("reason") and not reason:
        raise UsageError(f"moving to {target} needs --reason (or --note) saying why")
    if args.force and not move.get("complete"):
        raise UsageError("--force only overrides the preconditions of `done`")
    refusal = move_refusal(current, target, run=f"run {ctx.slug!r}")
    if refusal is not None:
        ctx.refuse("phase", refusal, Exit.REFUSED_STATE, subject=target)


def _unproven(
    state: dict[str, Any], loaded: LoadedPlan, records: list[dict[str, Any]]
) -> list[str]:
    """Done (not forced) todos whose latest evidence no longer proves them."""
    todos = state.get("todos") or {}
    unproven = []
    for todo in loaded.plan.todos:
        entry = todos.get(todo.id) or {}
        if entry.get("status") != "done" or entry.get("forced"):
            continue
        gaps = _todo_gaps(records, todo, loaded.sha256)
        if gaps:
            unproven.append(f"{todo.id} ({'; '.join(gaps)})")
    return unproven


def _stale_todos(ctx: RunContext, records: list[dict[str, Any]]) -> list[str]:
    """Todos with a criterion whose latest record passed on another work tree than now's
    (its `worktree_digest`, as the audit's evidence-stale judges it)."""
    from zodyssey.runs.worktree import content_digest

    latest: dict[tuple[str, int], dict[str, Any]] = {}
    for record in records:
        if record.get("kind") == "criterion":
            latest[(str(record.get("todo")), int(record.get("criterion_index") or 0))] = record
    recorded = {k: r.get("worktree_digest") for k, r in latest.items() if r.get("passed")}
    if not any(recorded.values()):
        return []
    now = content_digest(ctx.root)
    if now is None:
        return []
    return sorted({todo for (todo, _), was in recorded.items() if was and was != now})


def _incomplete(
    ctx: RunContext, args: argparse.Namespace, state: dict[str, Any], loaded: LoadedPlan
) -> list[str]:
    """A `complete` move: what is not complete (refused unless --force overrides it)."""
    target: str = args.phase
    overrides: list[str] = []

    def refuse_or_override(problem: str, override: str) -> None:
        if not args.force:
            ctx.refuse(
                "phase",
                f"run {ctx.slug!r} cannot be done: {problem}",
                Exit.REFUSED_STATE,
                subject=target,
            )
        overrides.append(override)

    records = check_chain(ctx, state, "phase")
    if not args.force:
        _refuse_open_violations(ctx, records, "phase")
    todos = state.get("todos") or {}
    undone = [t.id for t in loaded.plan.todos if (todos.get(t.id) or {}).get("status") != "done"]
    if undone:
        refuse_or_override(
            f"todos not done: {', '.join(undone)}", f"todos not done: {', '.join(undone)}"
        )
    unproven = _unproven(state, loaded, records)
    if unproven:
        refuse_or_override(
            f"done todos whose evidence no longer passes: {', '.join(unproven)}",
            f"done todos without passing evidence: {', '.join(unproven)}",
        )
    # Judged before the checks run (they may write files), said after them.
    stale = _stale_todos(ctx, records)
    # The blocking checks run last: only once everything before them held (or was forced).
    check_failures = _blocking_failures(ctx, loaded)
    if check_failures:
        joined = ", ".join(check_failures)
        refuse_or_override(
            f"blocking quality checks failed: {joined}", f"blocking checks failed: {joined}"
        )
    if stale:
        # What the audit calls evidence-stale; once done, verify is refused, so the
        # audit's "verify again" could no longer be followed (issue 36).
        refuse_or_override(
            "the work tree changed after the last passing verify of "
            f"{', '.join(f'todo {t}' for t in stale)} (the audit would call that evidence "
            f"stale): run `zodyssey run verify {ctx.slug} {stale[0]}` again first",
            f"stale evidence: todos {', '.join(stale)}",
        )
    return overrides


def _blocking_failures(ctx: RunContext, loaded: LoadedPlan) -> list[str]:
    results = run_quality_checks(ctx, load_checks(ctx.root), loaded.sha256, todo=None, stage="done")
    return [r.name for r in results if r.blocking_failure]


def _overrides(
    ctx: RunContext, args: argparse.Namespace, state: dict[str, Any], reason: str
) -> tuple[list[str], dict[str, Any] | None]:
    """The plan and completion rules of the move (`PHASE_MOVES`): what --force
    overrides, and the override record stamped into the evidence for it."""
    move = PHASE_MOVES[args.phase]
    if not move.get("plan"):
        return [], None
    loaded = require_bound_plan(ctx, state, "phase")
    overrides = _incomplete(ctx, args, state, loaded) if move.get("complete") else []
    if not overrides:
        return [], None
    record = stamp_override(
        ctx, "phase", f"phase done ({'; '.join(overrides)})", reason, loaded.sha256
    )
    return overrides, record


def cmd_phase(args: argparse.Namespace) -> int:
    ctx = RunContext.open(args.repo, args.slug)
    target: str = args.phase
    if args.force and not (args.reason or "").strip():
        raise UsageError("--force needs --reason saying why the preconditions are overridden")
    reason = (args.reason or args.note or "").strip()
    state = ctx.state()
    current = state.get("phase")
    if current == target:
        print(f"run {ctx.slug!r} is already in phase {target}")
        return 0
    _check_move(ctx, args, current, reason)
    overrides, override_record = _overrides(ctx, args, state, reason)

    def mutate(st: dict[str, Any]) -> bool:
        before = st.get("phase")
        invalidated = before in HALTED_PHASES and target not in HALTED_PHASES
        review = st.setdefault("review", {})
        if invalidated and review.get("verdict") is not None:
            review["verdict"] = None
            review["invalidated_at"] = now_iso()
        st["phase"] = target
        st.setdefault("phase_history", []).append(
            {
                "from": before,
                "to": target,
                "at": now_iso(),
                "note": args.note,
                "forced": bool(overrides),
                "reason": reason or None,
                "verdict_invalidated": invalidated,
            }
        )
        if override_record is not None:
            note_evidence_head(st, override_record)
            gate_entry(
                st,
                "phase",
                "override",
                subject=target,
                reason="; ".join(overrides),
                override_reason=reason,
            )
        else:
            gate_entry(st, "phase", "allow", subject=target, reason=f"{before} -> {target}")
        return invalidated

    invalidated = ctx.store.update(mutate)
    extra = " (the review verdict is invalidated: review again)" if invalidated else ""
    forced = f" (FORCED: {'; '.join(overrides)})" if overrides else ""
    print(f"run {ctx.slug!r}: {current} -> {target}{forced}{extra}")
    return 0


# --------------------------------------------------------------------------- status


def _chain_problems(ctx: RunContext, state: dict[str, Any]) -> tuple[int, list[Any]]:
    """(records in the evidence chain, what is wrong with it against the state's head)."""
    result = chain.read_evidence(paths.evidence_path(ctx.root, ctx.slug))
    head = state.get("evidence")
    head = head if isinstance(head, dict) else {}
    problems = list(result.problems) + chain.verify_chain(
        result.records,
        lines=result.lines,
        expected_count=head.get("count"),
        expected_head=head.get("head"),
    )
    return len(result.records), problems


def _plan_or_none(ctx: RunContext, state: dict[str, Any]) -> LoadedPlan | None:
    try:
        return ctx.load_plan(state)
    except StateError:
        return None


def _plan_summary(
    loaded: LoadedPlan | None, review: dict[str, Any], todos: dict[str, Any]
) -> dict[str, Any]:
    """The plan's digest, whether review approved that plan, and its todos' statuses."""
    if loaded is None:
        return {"plan_sha256": None, "plan_matches_review": False, "todos": {}}
    return {
        "plan_sha256": loaded.sha256,
        "plan_matches_review": loaded.sha256 == review.get("plan_sha256"),
        "todos": {t.id: todos.get(t.id, {}).get("status", "pending") for t in loaded.plan.todos},
    }


def summarize(ctx: RunContext, state: dict[str, Any]) -> dict[str, Any]:
    records, problems = _chain_problems(ctx, state)
    review = state.get("review") or {}
    return {
        "slug": ctx.slug,
        "phase": state.get("phase"),
        "verdict": review.get("verdict"),
        "verdict_source": review.get("source"),
        "round": review.get("round", 0),
        "max_rounds": review.get("max_rounds", 3),
        **_plan_summary(_plan_or_none(ctx, state), review, state.get("todos") or {}),
        "evidence_records": records,
        "chain_ok": not problems,
        "chain_problems": [p.message for p in problems],
        "windows": state.get("windows") or [],
        "verify": {k: v for k, v in (state.get("verify") or {}).items() if k != "history"},
    }


def json_details(args: argparse.Namespace, document: dict[str, Any]) -> dict[str, Any]:
    """What `--json` of a run verb adds (zodyssey/json_out.py): `slug` and `run`, the
    run's summary afterwards (null when there is no readable run state)."""
    summary: dict[str, Any] | None
    try:
        ctx = RunContext.open(args.repo, args.slug)
        summary = summarize(ctx, ctx.state())
    except (ZodysseyError, OSError, ValueError):
        summary = None
    return {"slug": args.slug, "run": summary}


def cmd_status(args: argparse.Namespace) -> int:
    ctx = RunContext.open(args.repo, args.slug)
    state = ctx.state()
    summary = summarize(ctx, state)
    if args.json:
        print(json.dumps({"summary": summary, "state": state}, indent=2, ensure_ascii=False))
        return 0
    who = f" ({summary['verdict_source']})" if summary["verdict_source"] == "human" else ""
    print(f"run {ctx.slug}: phase {summary['phase']}")
    print(
        f"  review: {summary['verdict']}{who}, round {summary['round']}/{summary['max_rounds']}"
        + (
            ""
            if summary["plan_matches_review"] or summary["verdict"] != "OKAY"
            else " (PLAN CHANGED since OKAY)"
        )
    )
    for todo_id, status in summary["todos"].items():
        print(f"  todo {todo_id}: {status}")
    v = summary["verify"]
    print(
        f"  verify: {v.get('passed', 0)} passed, {v.get('failed', 0)} failed of {v.get('total', 0)}"
    )
    print(
        f"  evidence: {summary['evidence_records']} records, chain "
        + ("intact" if summary["chain_ok"] else "BROKEN: " + summary["chain_problems"][0])
    )
    for window in summary["windows"]:
        print(
            f"  window {window.get('label')}: readOnlyViolation={json.dumps(window.get('readOnlyViolation'))}"
        )
    return 0


# --------------------------------------------------------------------------- list


def _age(stamp: object, now: float) -> str:
    from datetime import datetime

    if not isinstance(stamp, str):
        return "?"
    try:
        seconds = now - datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return "?"
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit}"
    return f"{max(int(seconds), 0)}s"


def _list_row(slug: str, state: dict[str, Any], now: float) -> dict[str, Any]:
    raw_review = state.get("review")
    review: dict[str, Any] = raw_review if isinstance(raw_review, dict) else {}
    return {
        "slug": slug,
        "phase": state.get("phase"),
        "active": state.get("phase") not in TERMINAL_PHASES,
        "verdict": review.get("verdict"),
        "round": review.get("round", 0),
        "max_rounds": review.get("max_rounds", 3),
        "started_at": state.get("started_at"),
        "updated_at": state.get("updated_at"),
        "age": _age(state.get("started_at"), now),
        "idle": _age(state.get("updated_at"), now),
    }


def _print_runs(rows: list[dict[str, Any]]) -> None:
    print(f"{'SLUG':<24} {'PHASE':<10} {'VERDICT':<8} {'ROUND':<6} {'AGE':>5} {'IDLE':>5}")
    for row in rows:
        if "error" in row:
            print(f"{row['slug']:<24} UNREADABLE (gates as active): {row['error']}")
            continue
        print(
            f"{row['slug']:<24} {row['phase']!s:<10} {row['verdict'] or '-':<8} "
            f"{row['round']}/{row['max_rounds']:<4} {row['age']:>5} {row['idle']:>5}"
        )


def _list_rows(root: Path, everything: bool) -> tuple[list[dict[str, Any]], int]:
    """The rows of `run list` (terminal runs only with `everything`), and how many
    states could not be read (listed too: the gate treats them as active)."""
    import time

    from zodyssey.core.store import list_runs

    now = time.time()
    rows: list[dict[str, Any]] = []
    unreadable = 0
    for slug, state in list_runs(root):
        if not isinstance(state, dict):
            unreadable += 1
            rows.append({"slug": slug, "phase": None, "error": state.message, "active": True})
            continue
        row = _list_row(slug, state, now)
        if row["active"] or everything:
            rows.append(row)
    return rows, unreadable


def cmd_list(args: argparse.Namespace) -> int:
    root = Path(args.repo or ".").resolve()
    if not root.is_dir():
        raise UsageError(f"--repo {args.repo}: not a directory")
    rows, unreadable = _list_rows(root, bool(args.all))
    if args.json:
        print(json.dumps({"root": str(root), "runs": rows}, indent=2, ensure_ascii=False))
    elif not rows:
        print(f"no {'' if args.all else 'active '}runs under {root}")
    else:
        _print_runs(rows)
    return 2 if unreadable else 0
