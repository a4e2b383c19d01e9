"""The post-call effect check in the hook: which changes a call was not allowed
to make, recorded in the run's evidence, undone, and told to the agent.

pre-tool (every call but native reads, after the gate allowed it): a snapshot
(`zodyssey/sandbox/effects.py`), compared first with the snapshot left by the
previous call's post-tool, so a change made between calls (a background
process) is caught here; then kept under the call's `tool_use_id` in
`.zcode/state/<slug>.effects` (run state: no agent tool can write it).

post-tool: a new snapshot compared with the call's own. A change is allowed
when the run allowed it at that moment: bookkeeping (`.zcode/notepads|staging`,
`.zcode/plans` and the plan until OKAY) in every phase; after OKAY (phase not
`blocked`, plan still bound) a path in the plan's scope (not a test file in
`verify`/`final`). Anything else (product before OKAY, out of scope after, any
protected file) is a violation: one `violation` record in the evidence chain
(tool_use_id, tool, command, paths with before/after blob ids, what was done),
the path restored from git's objects or moved to `.zcode/quarantine/`, and a
message for the agent. Only paths git does not ignore count: build outputs and
caches in ignored folders are not product.

Outside git, with several active runs, or when git fails in pre-tool, the
check is skipped (silently in pre-tool: an allowed call stays silent; said in
post-tool).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from zodyssey.core.vocabulary import BLOCKED, STATE, TEST_FROZEN_PHASES, ZCODE
from zodyssey.sandbox import effects

QUARANTINE = ".zcode/quarantine"


def effects_file(root: str, slug: str) -> str:
    return os.path.join(root, STATE, slug + ".effects")


def _view(root: str, slug: str, state: dict[str, Any]) -> tuple[Any, Any, bool, list[str]]:
    """(layout, plan, product open, protected files) as the run stands now."""
    from zodyssey.gate.context import load_plan
    from zodyssey.gate.paths import GATE_CONFIG_FILES, Layout

    layout = Layout(root)
    plan = load_plan(layout, slug, state)
    raw = state.get("review")
    review: dict[str, Any] = raw if isinstance(raw, dict) else {}
    okay = review.get("verdict") == "OKAY"
    bound = review.get("plan_sha256")
    open_ = (
        okay
        and state.get("phase") != BLOCKED
        and plan.text is not None
        and not plan.error
        and isinstance(bound, str)
        and plan.sha256 == bound
    )
    protected = [os.path.join(layout.root, f) for f in GATE_CONFIG_FILES]
    protected += [os.path.join(layout.root, f) for f in (".zodyssey.toml", "pyproject.toml")]
    if okay and plan.path:
        protected.append(plan.path)
    return layout, plan, bool(open_), protected


def judge(
    root: str, slug: str, state: dict[str, Any], changes: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The changes the run did not allow (see the module docstring)."""
    from zodyssey.gate.paths import is_test_file
    from zodyssey.gate.policy import in_scope

    layout, plan, open_, _ = _view(root, slug, state)
    frozen = state.get("phase") in TEST_FROZEN_PHASES
    out = []
    for change in changes:
        if change.get("protected"):
            out.append(change)
            continue
        rel = change["path"]
        path = os.path.join(layout.root, rel)
        if rel.startswith(ZCODE + "/") and layout.bookkeeping(path) and path != plan.path:
            continue
        scoped = open_ and in_scope(path, plan.files, plan.dirs, layout.root)
        if scoped and not (frozen and is_test_file(rel)):
            continue
        out.append(change)
    return out


def _load(root: str, slug: str) -> dict[str, Any]:
    from zodyssey.core.store import read_json

    try:
        value = read_json(effects_file(root, slug))
    except (FileNotFoundError, ValueError, OSError):
        return {}
    return value if isinstance(value, dict) else {}


def _store(root: str, slug: str, mutate: Any) -> Any:
    from zodyssey.core.store import update_json

    return update_json(effects_file(root, slug), mutate, dict)


def _key(call: Any) -> str:
    return str(call.tool_use_id or "anon")


def _handle(
    root: str,
    slug: str,
    state: dict[str, Any],
    call: Any,
    before: dict[str, Any],
    after: dict[str, Any],
    when: str,
) -> list[dict[str, Any]]:
    """Judge, undo and record; returns the violations (with what was done to each)."""
    changes = effects.compare(root, before, after)
    if not changes:
        return []
    found = judge(root, slug, state, changes)
    if not found:
        return []
    quarantine = os.path.join(root, QUARANTINE, slug, _safe(_key(call)))
    for change in found:
        try:
            change["action"] = effects.restore(root, change, quarantine)
        except OSError as exc:
            change["action"] = f"not restored ({exc})"
    record_violation(root, slug, call, found, when)
    return found


def _safe(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)[:80] or "call"


def record_violation(
    root: str, slug: str, call: Any, found: list[dict[str, Any]], when: str
) -> dict[str, Any]:
    from zodyssey.core.store import RunStore, now_iso
    from zodyssey.runs import evidence as chain
    from zodyssey.runs.preconditions import note_evidence_head

    record = chain.append_record(
        Path(root),
        slug,
        {
            "kind": chain.VIOLATION,
            "slug": slug,
            "when": when,
            "tool_use_id": call.tool_use_id,
            "tool_name": call.tool_name,
            "command": call.command or None,
            "changes": found,
            "at": now_iso(),
            "passed": False,
        },
    )
    RunStore(Path(root), slug).update(lambda st: note_evidence_head(st, record))
    return record


def message(found: list[dict[str, Any]], when: str) -> str:
    shown = "; ".join(f"{c['path']} ({c.get('action', 'kept')})" for c in found[:10])
    more = f" and {len(found) - 10} more" if len(found) > 10 else ""
    return (
        f"zodyssey gate: {when} changed what the run does not allow: {shown}{more}. "
        "Recorded as a violation in the run's evidence; restored files hold their content "
        "from before, new files are in .zcode/quarantine/. `run todo ... done` and "
        "`run phase ... done` are refused until the user resolves it."
    )


def pre_tool(root: str, slug: str, state: dict[str, Any], call: Any) -> str | None:
    """Snapshot before the call; a message when changes between calls were caught."""
    if not os.path.exists(os.path.join(root, ".git")):
        return None
    _, _, _, protected = _view(root, slug, state)
    stored = _load(root, slug)
    last = stored.get("last") if isinstance(stored.get("last"), dict) else None
    try:
        now = effects.snapshot(root, protected, previous=last)
    except (OSError, ValueError):
        return None
    note = None
    if last is not None:
        found = _handle(root, slug, state, call, last, now, "something between tool calls")
        if found:
            note = message(found, "something between tool calls")
            now = effects.snapshot(root, protected, previous=now)
    key = _key(call)

    def put(value: dict[str, Any]) -> None:
        calls = value.setdefault("calls", {})
        calls[key] = now
        value["last"] = now

    _store(root, slug, put)
    return note


def post_tool(root: str, slug: str, state: dict[str, Any], call: Any) -> str | None:
    """Compare with the call's own snapshot; the message for the agent, or None."""
    if not os.path.exists(os.path.join(root, ".git")):
        return None
    key = _key(call)
    stored = _load(root, slug)
    raw = stored.get("calls")
    calls: dict[str, Any] = raw if isinstance(raw, dict) else {}
    before = calls.get(key)
    if not isinstance(before, dict):
        return None  # no pre-tool snapshot (a read, or the hook was not wired before)
    _, _, _, protected = _view(root, slug, state)
    after = effects.snapshot(root, protected, previous=before)
    what = f"the {call.tool_name} call" + (f" {call.tool_use_id}" if call.tool_use_id else "")
    found = _handle(root, slug, state, call, before, after, what)
    if found:
        after = effects.snapshot(root, protected, previous=after)

    def put(value: dict[str, Any]) -> None:
        value.setdefault("calls", {}).pop(key, None)
        value["last"] = after

    _store(root, slug, put)
    return message(found, what) if found else None


class _Call:
    """The fields of a tool call the check records (the hook passes them as argv)."""

    def __init__(self, tool_use_id: str, tool_name: str, command: str) -> None:
        self.tool_use_id = tool_use_id or None
        self.tool_name = tool_name
        self.command = command


def main(argv: list[str]) -> int:
    """`hook_entry.py effects-pre ROOT SLUG TOOL_USE_ID TOOL_NAME COMMAND`: the
    pre-tool snapshot; prints the message for the agent when a change made
    between calls was caught. Exit 0 always (best effort)."""
    import sys

    if len(argv) != 5:
        return 0
    root, slug, tool_use_id, tool_name, command = argv
    try:
        from zodyssey.core.paths import state_path
        from zodyssey.core.store import read_json

        state = read_json(state_path(root, slug))
        if not isinstance(state, dict):
            return 0
        note = pre_tool(root, slug, state, _Call(tool_use_id, tool_name, command))
    except Exception:
        return 0
    if note:
        sys.stdout.write(note + "\n")
    return 0
