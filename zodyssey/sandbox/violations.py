"""The post-call effect check in the hook: which changes a call was not allowed
to make, recorded in the run's evidence, undone, and told to the agent.

pre-tool (after the gate allowed a call that is not a native read), only where
a snapshot is due: the run has none yet, or the call is a `zodyssey` command
(`run todo ... done` must not decide on a tree changed since the last call): a
snapshot (`zodyssey/sandbox/effects.py`), compared first with the snapshot
left by the previous call's post-tool, so a change made between calls (a
background process) is caught and blocks the call; then kept under the call's
`tool_use_id` in `.zcode/state/<slug>.effects` (run state: no agent tool can
write it). Every other call takes no snapshot of its own: the one the previous
post-tool left is its "before", so each call costs one snapshot, not two.

post-tool: a new snapshot compared with the call's own, else with the last
one (then a change made between the calls is caught here, named as "the call
or something since the previous call"). A change is allowed when the run's
allowance allows its path at that moment (`zodyssey/core/allowance.py`, the
rule the gate and the kernel grants ask too): bookkeeping
(`.zcode/notepads|staging`, `.zcode/plans` and the plan until OKAY and while
no review of it is pending) in every phase; after OKAY (phase not `blocked`,
plan still bound) a path in the plan's scope (not a test file in
`verify`/`final`). Anything else (product before OKAY, out of scope after, any
protected file, the plan while it is frozen) is a violation: one `violation` record in the evidence chain
(tool_use_id, tool, command, paths with before/after blob ids, what was done),
the path restored from git's objects or moved to `.zcode/quarantine/`, and a
message for the agent. Only paths git does not ignore count: build outputs and
caches in ignored folders are not product.

Several active runs in one repository: one snapshot, kept in each run's
effects file; a change is a violation when any of them did not allow it (as
the gate allows a call only when every run's policy allows it), restored once
and recorded in the evidence of each run that did not allow it.

Outside git the check is skipped. Inside a run it fails closed: a check that
cannot run in pre-tool (git failing, an exception, the hook's deadline) blocks
the call with the reason (`pre_check`); one that fails in post-tool leaves a
mark (`.zcode/state/<slug>.effects-failed`, `post_failed`), and the next call's
pre-tool runs the check again against the snapshot taken before the failed
call (undoing what that call changed, protected files included) and blocks
once with the reason, whatever it finds.
"""

import os

from zodyssey.core.allowance import PROTECTED_RULES
from zodyssey.core.vocabulary import STATE
from zodyssey.sandbox import effects
from zodyssey.sandbox.byproducts import is_byproduct

TYPE_CHECKING = False
if TYPE_CHECKING:  # the pre-tool check runs in the hook process: no typing at run time
    from typing import Any

QUARANTINE = ".zcode/quarantine"
BETWEEN = "something between tool calls"  # what a change caught in pre-tool is named


def effects_file(root: str, slug: str) -> str:
    return os.path.join(root, STATE, slug + ".effects")


def failed_file(root: str, slug: str) -> str:
    """The mark a failed post-tool check leaves: the next pre-tool blocks."""
    return os.path.join(root, STATE, slug + ".effects-failed")


def _view(root: str, slug: str, state: "dict[str, Any]") -> "tuple[Any, list[str]]":
    """(the run's allowance now, the files the check watches by path): the
    repository's protected configuration, git's metadata and the home
    directory's harness and shell configuration (zodyssey/sandbox/watch.py),
    and the plan (its changes are judged by the allowance: the agent's to write
    until a review of it is pending)."""
    from zodyssey.core.allowance import PROTECTED_CONFIG, Allowance, Layout
    from zodyssey.core.hermetic import git_dir
    from zodyssey.core.vocabulary import CONFIG_FILES
    from zodyssey.sandbox.watch import watched

    allowance = Allowance.of(Layout(root), slug, state)
    root = allowance.root
    protected = [os.path.join(root, f) for f in (*PROTECTED_CONFIG, *CONFIG_FILES)]
    protected += watched(root, git_dir(root), os.path.expanduser("~"), PROTECTED_CONFIG)
    plan = allowance.plan().path
    if plan and plan not in protected:
        protected.append(plan)
    return allowance, protected


def judge(
    root: str, slug: str, state: "dict[str, Any]", changes: "list[dict[str, Any]]"
) -> "list[dict[str, Any]]":
    """The changes the run did not allow (see the module docstring)."""
    allowance, _ = _view(root, slug, state)
    return [c for c in changes if not _allowed(c, allowance)]


def _allowed(change: "dict[str, Any]", allowance: "Any") -> bool:
    """Whether the run allows this change now: the allowance's answer for its path
    (`zodyssey/core/allowance.py`), by-products of ordinary tools aside."""
    rel = change["path"]
    if change.get("protected"):
        # a watched file: only the plan may change, while the run lets the agent write it
        return bool(rel == allowance.plan().path and allowance.judge(rel, links=False) is None)
    # `.zodyssey.toml` and `pyproject.toml` are watched by name as well: that entry
    # says what the gate's configuration is; this one is judged as a file
    found = allowance.judge(os.path.join(allowance.root, rel), links=False, config=False)
    if found is None:
        return True
    if found[0] in PROTECTED_RULES:
        return False  # never writable, as before the call
    # bytecode, test and coverage caches: what ordinary tools leave
    return is_byproduct(allowance.root, rel, str(change.get("after")))


def _load(root: str, slug: str) -> "dict[str, Any]":
    from zodyssey.core.store import read_json

    try:
        value = read_json(effects_file(root, slug))
    except (FileNotFoundError, ValueError, OSError):
        return {}
    return value if isinstance(value, dict) else {}


def _store(root: str, slug: str, mutate: "Any") -> "Any":
    from zodyssey.core.store import update_json

    return update_json(effects_file(root, slug), mutate, dict)


def _key(call: "Any") -> str:
    return str(call.tool_use_id or "anon")


def _handle(
    root: str,
    runs: "list[tuple[str, dict[str, Any], dict[str, Any]]]",
    call: "Any",
    after: "dict[str, Any]",
    when: str,
    by_call: bool = True,
) -> "list[dict[str, Any]]":
    """Judge, undo and record; returns the violations (with what was done to each).
    `by_call`: the changes are a call's (protected files are put back too), not
    made between calls (protected files are recorded and kept, but for the
    plan while a review of it is pending, which is put back: the verdict is on
    the plan the reviewer was sent).

    `runs`: (slug, state, snapshot before) of every active run of the
    repository. A change is a violation when any run did not allow it (the
    gate's own rule for several runs: every run's policy must allow a call);
    it is undone once and recorded in the evidence of each run that did not
    allow it."""
    per_run: list[tuple[str, list[dict[str, Any]]]] = []
    undo: dict[str, dict[str, Any]] = {}
    reviewed: set[str] = set()  # the plan under review is put back whoever changed it
    for slug, state, before in runs:
        changes = effects.compare(root, before, after)
        if not changes:
            continue
        allowance, _ = _view(root, slug, state)
        found = [c for c in changes if not _allowed(c, allowance)]
        if found:
            per_run.append((slug, found))
            if not allowance.okay and allowance.reviewing():
                reviewed.add(allowance.plan().path)
            for change in found:
                undo.setdefault(change["path"], change)
    if not undo:
        return []
    quarantine = os.path.join(root, QUARANTINE, runs[0][0], _safe(_key(call)))
    for change in undo.values():
        try:
            again = by_call or change["path"] in reviewed
            change["action"] = effects.restore(root, change, quarantine, again)
        except OSError as exc:
            change["action"] = f"not restored ({exc})"
    for slug, found in per_run:
        for change in found:
            change["action"] = undo[change["path"]].get("action", "kept")
        record_violation(root, slug, call, found, when)
    return list(undo.values())


def _safe(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)[:80] or "call"


def record_violation(
    root: str, slug: str, call: "Any", found: "list[dict[str, Any]]", when: str
) -> "dict[str, Any]":
    from pathlib import Path

    from zodyssey.core.store import RunStore, now_iso
    from zodyssey.runs import evidence as chain
    from zodyssey.runs.preconditions import note_evidence_head

    at = now_iso()
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
            "started_at": at,  # when the check caught it (the schema's common fields)
            "finished_at": at,
            "duration_s": 0.0,
            "passed": False,
        },
    )
    RunStore(Path(root), slug).update(lambda st: note_evidence_head(st, record))
    return record


def message(found: "list[dict[str, Any]]", when: str) -> str:
    shown = "; ".join(f"{c['path']} ({c.get('action', 'kept')})" for c in found[:10])
    more = f" and {len(found) - 10} more" if len(found) > 10 else ""
    return (
        f"zodyssey gate: {when} changed what the run does not allow: {shown}{more}. "
        "Recorded as a violation in the run's evidence; restored files hold their content "
        "from before, new files are in .zcode/quarantine/. `run todo ... done` and "
        "`run phase ... done` are refused until the user resolves it."
    )


def _protected(root: str, runs: "list[tuple[str, dict[str, Any]]]") -> list[str]:
    """The protected files of every run (their union)."""
    out: list[str] = []
    for slug, state in runs:
        out.extend(p for p in _view(root, slug, state)[1] if p not in out)
    return out


def _lasts(
    root: str, runs: "list[tuple[str, dict[str, Any]]]"
) -> "list[tuple[str, dict[str, Any], dict[str, Any]]]":
    """(slug, state, the snapshot it kept last) of each run that has one of this form."""
    out = []
    for slug, state in runs:
        last = _load(root, slug).get("last")
        if isinstance(last, dict) and "stamp" in last:  # not one of an older form
            out.append((slug, state, last))
    return out


def _same(
    root: str, lasts: "list[Any]", count: int, protected: "list[str]", now: "Any" = None
) -> bool:
    """Every one of the `count` runs has a last snapshot and nothing changed since:
    its stat data proves it (`now` None: a small tree, no git), or the snapshot
    `now` has the same content."""
    if len(lasts) != count:
        return False
    if now is None:
        return all(effects.unchanged(root, last, protected) for *_, last in lasts)
    return not any(effects.compare(root, last, now) for *_, last in lasts)


def _keep(root: str, runs: "list[tuple[str, dict[str, Any]]]", key: str, now: "Any") -> None:
    """The snapshot becomes the call's own "before" and each run's last."""

    def put(value: "dict[str, Any]") -> None:
        value.setdefault("calls", {})[key] = now
        value["last"] = now

    for slug, _ in runs:
        _store(root, slug, put)


def pre_tool(root: str, runs: "list[tuple[str, dict[str, Any]]]", call: "Any") -> str | None:
    """Snapshot before the call; a message when changes between calls were caught,
    or when the previous call's post-tool check failed (then the changes since
    the last snapshot are that call's, and the call blocks once in any case).

    `runs`: (slug, state) of each active run of the repository. The snapshot
    is kept in each run's effects file (only when something changed since the
    last one); each run compares it with the snapshot it kept last (a run
    started since has none). Raises when the check cannot run."""
    if not os.path.exists(os.path.join(root, ".git")) or not runs:
        return None
    failed = _failures(root, runs)
    protected = _protected(root, runs)
    lasts = _lasts(root, runs)
    if not failed and _same(root, lasts, len(runs), protected):
        return None  # a small tree whose stat data proves nothing changed: no git
    last = lasts[0][2] if lasts else None
    now = effects.snapshot(root, protected, previous=last, refresh=False)
    if not failed and _same(root, lasts, len(runs), protected, now):
        return None  # nothing changed since the last snapshot: it stays this call's "before"
    when = BETWEEN if not failed else f"the call whose post-call check failed ({failed[0]})"
    found = _handle(root, lasts, call, now, when, by_call=bool(failed)) if lasts else []
    if found:
        now = effects.snapshot(root, protected, previous=now)
    _keep(root, runs, _key(call), now)
    if failed:
        for slug, _ in runs:
            _forget(failed_file(root, slug))
        return _failed_message(failed[0], found, when)
    return message(found, BETWEEN) if found else None


def _failed_message(reason: str, found: "list[dict[str, Any]]", when: str) -> str:
    seen = message(found, when) if found else "It ran again now and found nothing to undo."
    return (
        f"zodyssey gate: the post-call effect check of the previous call failed ({reason}). "
        f"{seen} Repeat this call if it is still needed."
    )


def _failures(root: str, runs: "list[tuple[str, dict[str, Any]]]") -> "list[str]":
    """The reasons failed post-tool checks left (`post_failed`), if any."""
    from zodyssey.core.files import read_regular

    out = []
    for slug, _ in runs:
        path = failed_file(root, slug)
        try:
            text = read_regular(path)[:2000].decode("utf-8", "replace").strip()
        except FileNotFoundError:
            continue
        except OSError as exc:  # a mark that cannot be read still marks
            text = f"unreadable mark {path}: {exc}"
        out.append(text or "no reason recorded")
    return out


def _forget(path: str) -> None:
    if os.path.lexists(path):
        os.unlink(path)


def post_failed(
    root: str, runs: "list[tuple[str, dict[str, Any]]]", call: "Any", exc: BaseException
) -> str:
    """The post-tool check failed: leave the mark that blocks the next call (which
    runs the check again, `pre_tool`); the message for the agent."""
    what = f"the {call.tool_name} call" + (f" {call.tool_use_id}" if call.tool_use_id else "")
    reason = f"{what}: {exc.__class__.__name__}: {exc}"
    for slug, _ in runs:
        try:
            fd = os.open(failed_file(root, slug), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            try:
                os.write(fd, reason.encode("utf-8", "replace"))
            finally:
                os.close(fd)
        except OSError:
            pass  # the last snapshot stays the one before the call: pre-tool still compares
    return (
        f"zodyssey gate: the post-call effect check failed ({reason}); what the call changed "
        "is not judged yet. The next call is blocked while the check runs again."
    )


def pre_check(root: str, runs: "list[tuple[str, dict[str, Any]]]", call: "Any") -> str:
    """The hook's pre-tool check (`pre_tool`): "" when the call may run, else why it
    is blocked. Inside a run the check fails closed: a check that cannot run (git
    failing, an exception, a limit) blocks the call with the reason. The hook's
    deadline (a BaseException) passes through to the hook, which blocks too."""
    try:
        return pre_tool(root, runs, call) or ""
    except Exception as exc:
        return (
            f"zodyssey gate: the post-call effect check cannot run ({exc.__class__.__name__}: "
            f"{exc}), and inside a run a call it cannot check is blocked. Ask the user to "
            "look at the work tree (a FIFO, device or unreadable file where a file was?)."
        )


def _befores(
    root: str, runs: "list[tuple[str, dict[str, Any]]]", key: str
) -> "tuple[list[tuple[str, dict[str, Any], dict[str, Any]]], bool]":
    """(slug, state, the snapshot before the call) of each run that has one (the
    call's own, else the last), and whether any of them is the last one."""
    judged = []
    since_last = False
    for slug, state in runs:
        stored = _load(root, slug)
        raw = stored.get("calls")
        before = raw.get(key) if isinstance(raw, dict) else None
        if not isinstance(before, dict):  # no snapshot of its own: the last one is "before"
            before = stored.get("last")
            since_last = True
        if isinstance(before, dict) and "stamp" in before:  # else none (or an older form)
            judged.append((slug, state, before))
    return judged, since_last


def post_tool(root: str, runs: "list[tuple[str, dict[str, Any]]]", call: "Any") -> str | None:
    """Compare with the call's own snapshot; the message for the agent, or None."""
    if not os.path.exists(os.path.join(root, ".git")) or not runs:
        return None
    key = _key(call)
    judged, since_last = _befores(root, runs, key)
    if not judged:
        return None
    protected = _protected(root, runs)
    after = effects.snapshot(root, protected, previous=judged[0][2])
    what = f"the {call.tool_name} call" + (f" {call.tool_use_id}" if call.tool_use_id else "")
    if since_last:
        what += " (or something since the previous call)"
    found = _handle(root, judged, call, after, what)
    if found:
        after = effects.snapshot(root, protected, previous=after)

    def put(value: "dict[str, Any]") -> None:
        value.setdefault("calls", {}).pop(key, None)
        value["last"] = after

    for slug, _ in runs:
        _store(root, slug, put)
    return message(found, what) if found else None


def native_swaps(
    root: str, runs: "list[tuple[str, dict[str, Any]]]", call: "Any", rejudge: "Any"
) -> str | None:
    """After a native write (Write, Edit, apply_patch, ...): each path it names must
    still be the file judged at pre-tool. A link now on the way (the name itself,
    or a folder above it, swapped for a symbolic link by a process the agent left
    running) is judged again by every run's policy; when one of them would block
    the call now, that is a violation: the link at the name is moved to the
    quarantine and recorded with where it led. What was written through it is
    put back by the snapshot comparison where that file is compared (the work
    tree, git's metadata, the home directory's configuration); run state is not
    compared, so the record says where the write went. `rejudge()`: the reasons
    each run's policy blocks the call with now (the hook's, none when allowed)."""
    if call.kind not in ("edit", "patch") or call.error or not call.targets:
        return None
    home = os.path.expanduser("~")
    cwd = call.cwd or root
    swapped = []
    for target in call.targets:
        named = os.path.normpath(_absolute(target.path, cwd, home))
        if os.path.realpath(named) != named:
            swapped.append(named)
    if not swapped:
        return None
    blocked = rejudge()  # each run's policy on the call, now: the reasons it blocks
    if not blocked:
        return None
    quarantine = os.path.join(root, QUARANTINE, runs[0][0], _safe(_key(call)))
    found = [_unlink_swap(root, path, quarantine) for path in swapped]
    what = f"the {call.tool_name} call" + (f" {call.tool_use_id}" if call.tool_use_id else "")
    when = f"{what} (its path was swapped for a link after it was judged)"
    for slug, _ in runs:
        record_violation(root, slug, call, found, when)
    return message(found, when) + f" Judged again now: {blocked[0]}"


def _absolute(path: str, cwd: str, home: str) -> str:
    if path == "~" or path.startswith("~/"):
        path = home + path[1:]
    return path if os.path.isabs(path) else os.path.join(cwd, path)


def _unlink_swap(root: str, named: str, quarantine: str) -> "dict[str, Any]":
    """Move the link at `named` (if the name itself is one) into the quarantine."""
    real = os.path.realpath(named)
    change: dict[str, Any] = {"path": named, "before": "judged", "after": "link:" + real}
    if not os.path.islink(named):
        change["action"] = "kept (a folder above it is the link)"
        return change
    rel = os.path.relpath(named, root)
    target = os.path.join(quarantine, rel if not rel.startswith(os.pardir) else "_outside" + named)
    try:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        os.replace(named, target)
        change["action"] = "quarantined"
    except OSError as exc:
        change["action"] = f"not removed ({exc})"
    return change
