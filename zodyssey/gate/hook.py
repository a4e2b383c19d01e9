"""`zodyssey hook pre-tool|post-tool`: the process around the pure policy.

stdin -> harness adapter -> ToolCall -> policy(ToolCall, RunContext) ->
Decision -> adapter -> exit code / stdout / stderr.

This module is on the hot path of every tool call an agent makes, so it
imports nothing at the top that the interpreter has not already loaded (`os`,
`sys`): no `typing`, no `__future__` (annotations naming `typing` are strings
for the type checker), no `json` (payloads and state files go through
`zodyssey.core.jsontext`); the shell parser, the plan parser and the state
store are imported when a decision needs them.

Failure rules: outside a run the hook never blocks (exit 0, no output,
whatever the input). Inside a run it fails CLOSED: malformed stdin, an
unreadable state file or plan, or any internal exception blocks with a reason
naming the cause, because for Claude Code any exit code but 2 lets the call
through.
"""

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

USAGE = "usage: zodyssey hook pre-tool|post-tool [--harness claude-code|zcode|codex|gemini|cursor]"
# Read for every harness, first; then the harness's own `project_vars` (its module).
PROJECT_ENV = ("CLAUDE_PROJECT_DIR", "ZCODE_PROJECT_DIR")


def _parse_argv(argv: list[str]) -> tuple[str, str, str | None]:
    """(event, harness, problem) without argparse: this runs on every tool call."""
    event = argv[0] if argv else ""
    harness = "claude-code"
    problem: str | None = None
    rest = argv[1:]
    i = 0
    while i < len(rest):
        arg = rest[i]
        if arg == "--harness" and i + 1 < len(rest):
            harness = rest[i + 1]
            i += 2
        elif arg.startswith("--harness="):
            harness = arg.split("=", 1)[1]
            i += 1
        else:
            problem = f"unknown argument {arg!r} ({USAGE})"
            i += 1
    return event, harness, problem


def _write(reply: "Any") -> int:
    if reply.stdout:
        sys.stdout.write(reply.stdout)
        sys.stdout.flush()
    if reply.stderr:
        sys.stderr.write(reply.stderr)
        sys.stderr.flush()
    return int(reply.exit_code)


def _fail_closed(harness_name: str, reason: str, slug: str) -> int:
    """Block in the harness's protocol; fall back to Claude Code's when even that fails."""
    try:
        from zodyssey.gate.harness import get_harness

        try:
            adapter = get_harness(harness_name)
        except KeyError:
            adapter = get_harness("claude-code")
        return _write(adapter.block(reason, slug))
    except BaseException:
        sys.stderr.write(f"zodyssey gate (run {slug}): {reason}\n")
        return 2


def _env_dir(harness_name: str) -> str | None:
    for name in PROJECT_ENV:
        value = os.environ.get(name)
        if value:
            return value
    # Only now the harness module: with CLAUDE_PROJECT_DIR set it is never loaded here.
    from zodyssey.gate.harness import get_harness

    try:
        own = get_harness(harness_name).project_vars
    except KeyError:
        return None
    for name in own:
        value = os.environ.get(name)
        if value:
            return value
    return None


def _payload_dir(payload: "Any") -> str:
    dirs = _payload_dirs(payload)
    return dirs[0] if dirs else os.getcwd()


def _payload_dirs(payload: "Any") -> "list[str]":
    """Where the payload says the call runs: its cwd and every Cursor workspace root."""
    out: list[str] = []
    if isinstance(payload, dict):
        roots = payload.get("workspace_roots")  # Cursor (multi-root: every one)
        if isinstance(roots, list):
            out.extend(r for r in roots[:16] if isinstance(r, str) and r)
        cwd = payload.get("cwd")
        if isinstance(cwd, str) and cwd:
            out.append(cwd)
    return out


# The largest payload the hook decodes (a Write of a 16 MiB file fits).
MAX_STDIN = 16 * 1024 * 1024


def _load_payload(raw: bytes) -> "tuple[Any, str | None]":
    from zodyssey.core.jsontext import loads

    if len(raw) > MAX_STDIN:
        return None, (
            f"blocks: too large to judge (stdin is {len(raw)} bytes, over the {MAX_STDIN} "
            "the gate decodes; write the data in smaller calls)"
        )
    try:
        payload = loads(raw)
    except ValueError as exc:
        return None, f"stdin is not valid JSON ({exc})"
    except (RecursionError, MemoryError) as exc:
        return None, f"blocks: too large to judge (stdin nests too deep: {exc.__class__.__name__})"
    if not isinstance(payload, dict):
        return payload, "stdin is not a JSON object"
    return payload, None


def main(argv: list[str]) -> int:
    if "-h" in argv or "--help" in argv:
        print(USAGE + "\n(see `zodyssey hook --help`)")
        return 0
    event, harness_name, problem = _parse_argv(list(argv))
    try:
        raw = sys.stdin.buffer.read()
    except BaseException:
        raw = b""
    in_run = False  # becomes True once an active run (or unreadable state) is found
    slug = "?"
    judged: list[Any] = []  # the active runs, once found: each decision is noted for them
    payload: Any = None
    try:
        from zodyssey.gate.discovery import locate_all, state_files

        # Cheapest first: with the project dir in the environment, a project
        # without run state is recognised by a few stat calls, before stdin is
        # even parsed.
        payload_error: str | None = None
        parsed = False
        start = _env_dir(harness_name)
        if start is None:
            payload, payload_error = _load_payload(raw)
            parsed = True
            start = _payload_dir(payload)
        found, in_repo = locate_all(start)
        roots = list(found)
        if not parsed:
            payload, payload_error = _load_payload(raw)
            parsed = True
        # The project dir is the harness's word, not the call's: a sibling or a
        # parent of the repository the call runs in must not hide its run.
        for other in _payload_dirs(payload):
            more, _ = locate_all(other)
            roots.extend(r for r in more if r not in roots)
        if not roots and in_repo:
            # Nothing found from where the call says it runs: its paths may still
            # reach a repository with a run (a Codex cwd above it, say).
            from zodyssey.gate.workspace import reached

            roots.extend(reached(payload, start, roots))
        if not in_repo:
            # A project dir above repositories (a workspace): every repository
            # the call reaches into is guarded by its own run, found by walking
            # up from the call's paths. (With a run at the project dir the same
            # search runs later, once the call is known not to be a plain read.)
            if not parsed:
                payload, payload_error = _load_payload(raw)
                parsed = True
            from zodyssey.gate.workspace import reached, unattributed

            roots.extend(reached(payload, start, roots))
            for other in unattributed(payload, start, harness_name, roots):
                roots.append(other)
        groups = []
        for candidate in roots:
            files = state_files(candidate)
            if files:
                groups.append((candidate, files))
        if not groups:
            return 0
        # From here the layout says a run may exist: an error while reading
        # its state (a phase of the wrong type, say) blocks rather than opens.
        in_run = True
        from zodyssey.gate.discovery import is_active, read_states

        runs = []
        for candidate, files in groups:
            discovered = read_states(candidate, files)
            active_here = [(s, state) for s, state in discovered.runs if is_active(state)]
            if active_here:
                runs.append((candidate, active_here))
        if not runs:
            return 0  # no active run: never block, say nothing
        slug = runs[0][1][0][0]
        active = [pair for _, pairs in runs for pair in pairs]
        if not parsed:
            payload, payload_error = _load_payload(raw)
        adapter = None
        try:
            from zodyssey.gate.harness import get_harness

            adapter = get_harness(harness_name)
        except KeyError:
            problem = problem or f"unknown harness {harness_name!r} ({USAGE})"
        judged = runs
        if event == "post-tool":
            _noted(runs, payload, "post", 0)
            return _post_tool(runs, payload, adapter)
        for s, state in active:
            if isinstance(state, str):
                slug = s
                return _noted(runs, payload, "pre", _fail_closed(harness_name, state, s))
        if event != "pre-tool":
            return _fail_closed(harness_name, f"unknown hook event {event!r} ({USAGE})", slug)
        if problem:
            return _noted(runs, payload, "pre", _fail_closed(harness_name, problem, slug))
        if payload_error or adapter is None:
            reason = f"cannot read the hook payload: {payload_error}"
            return _noted(runs, payload, "pre", _fail_closed(harness_name, reason, slug))
        call = adapter.to_call(payload)
        code = _pre_tool(runs, call, adapter, (payload, start) if in_repo else None, payload)
        return _noted(runs, payload, "pre", code)
    except BaseException as exc:  # fail closed inside a run, stay open outside
        if isinstance(exc, KeyboardInterrupt | SystemExit) and not in_run:
            return 0
        if not in_run and not _maybe_in_run(raw):
            return 0
        if event == "post-tool":
            sys.stderr.write(
                f"zodyssey gate post-tool: internal error {exc.__class__.__name__}: {exc}\n"
            )
            return 1  # post-tool cannot undo a call; report, do not block
        code = _fail_closed(
            harness_name, f"internal gate error {exc.__class__.__name__}: {exc}", slug
        )
        return _noted(judged, payload, "pre", code) if event == "pre-tool" else code


def _noted(runs: "list[Any]", payload: "Any", event: str, code: int) -> int:
    """Record the decision for the audit's proof that the gate ran
    (zodyssey/audit/transcript.py); returns `code`."""
    try:
        from zodyssey.audit.transcript import note

        note(runs, payload, event, code)
    except Exception:
        pass
    return code


def _maybe_in_run(raw: bytes) -> bool:
    """After an unexpected error before discovery finished: could a run exist?"""
    from zodyssey.core.vocabulary import STATE

    candidates = [os.environ.get(n) for n in PROJECT_ENV] + [os.getcwd()]
    payload, _ = _load_payload(raw)
    if isinstance(payload, dict) and isinstance(payload.get("cwd"), str):
        candidates.append(payload["cwd"])
    for candidate in candidates:
        if not candidate:
            continue
        current = os.path.abspath(candidate)
        while True:
            if os.path.isdir(os.path.join(current, STATE)):
                return True
            parent = os.path.dirname(current)
            if parent == current:
                break
            current = parent
    return False


def _contexts(
    runs: "list[tuple[str, list[tuple[str, Any]]]]", sandboxed: bool = False
) -> "list[Any]":
    import time

    from zodyssey.gate.context import (
        RunContext,
        load_inflight,
        load_plan,
        load_settings,
        parse_cap,
    )
    from zodyssey.gate.paths import Layout

    home = os.path.expanduser("~")
    cap = parse_cap(os.environ.get("ZODYSSEY_PARALLEL_CAP", ""))
    ungated = os.environ.get("ZODYSSEY_UNGATE_BASH", "") == "1"
    now = time.time()
    contexts = []
    for root, active in runs:
        layout = Layout(root, home)
        settings = _later(_memo, [], load_settings, layout.root)
        for slug, state in active:
            contexts.append(
                RunContext(
                    layout,
                    slug,
                    state,
                    plan=_later(load_plan, layout, slug, state),
                    inflight=_later(load_inflight, layout, slug),
                    settings=settings,
                    now=now,
                    home=home,
                    ungated=ungated,
                    cap=cap,
                    sandboxed=sandboxed,
                )
            )
    return contexts


def _later(load: "Any", *args: "Any") -> "Any":
    """`load(*args)` when called (functools.partial without importing functools)."""
    return lambda: load(*args)


def _memo(cache: "list[Any]", load: "Any", *args: "Any") -> "Any":
    if not cache:
        cache.append(load(*args))
    return cache[0]


def _sandbox_wrap(
    runs: "list[tuple[str, list[tuple[str, Any]]]]",
    call: "Any",
    adapter: "Any",
    payload: "Any",
    is_write: bool,
) -> "tuple[str, str, str] | None":
    """(permission decision, slug, root) when this shell call is to run wrapped in
    the write sandbox (docs/gate.md, "Enforcement"); None: it runs as it is."""
    if call.kind != "shell" or call.error is not None or not isinstance(payload, dict):
        return None
    if len(runs) != 1 or os.environ.get("ZODYSSEY_UNGATE_BASH", "") == "1":
        return None  # one repository's runs (stacked grants); several keep the parser's
    root, active = runs[0]
    for _, state in active:
        recorded = state.get("sandbox") if isinstance(state, dict) else None
        abi = recorded.get("landlock_abi") if isinstance(recorded, dict) else None
        if not isinstance(abi, int) or isinstance(abi, bool) or abi < 1:
            return None  # run start found no Landlock (or another tool started the run)
    from zodyssey.sandbox.wrap import wants_wrap

    decision = wants_wrap(getattr(adapter, "name", ""), payload, call.command, is_write)
    slugs = ",".join(slug for slug, _ in active)
    return None if decision is None else (decision, slugs, root)


def _wrapped_reply(call: "Any", payload: "Any", wrap: "tuple[str, str, str]") -> int:
    from zodyssey.sandbox.wrap import claude_reply, wrapped

    decision, slug, root = wrap
    tool_input = payload.get("tool_input")
    tool_input = tool_input if isinstance(tool_input, dict) else {}
    reason = (
        f"zodyssey gate (run {slug}): runs under the run's write sandbox (`zodyssey sandbox`); "
        "a write the run does not allow now fails with EACCES"
    )
    sys.stdout.write(claude_reply(tool_input, wrapped(call.command, slug, root), decision, reason))
    sys.stdout.flush()
    return 0


def _pre_tool(
    runs: "list[tuple[str, list[tuple[str, Any]]]]",
    call: "Any",
    adapter: "Any",
    reach: "tuple[Any, str] | None" = None,
    payload: "Any" = None,
) -> int:
    from zodyssey.gate.toolcall import MAX_SHELL_COMMAND  # loaded already by the adapter

    if call.error is None:
        # Shortcuts that every run's policy would take anyway (see policy.decide):
        # native read tools and read-only shell commands pass without loading
        # the plan, the ledger or the policy itself.
        if call.kind == "read":
            return 0
        if (
            call.kind == "shell"
            and os.environ.get("ZODYSSEY_UNGATE_BASH", "") != "1"
            and len(call.command) <= MAX_SHELL_COMMAND
        ):
            from zodyssey.gate.shell import classify

            if not classify(call.command).is_write:
                wrap = _sandbox_wrap(runs, call, adapter, payload, False)
                return _allowed(runs, call, adapter, payload, wrap)
    wrap = _sandbox_wrap(runs, call, adapter, payload, True)
    if reach is not None and call.kind != "dispatch":
        # (a dispatch is the project's own: its slot is released by post-tool,
        # which only sees the project's runs)
        from zodyssey.gate.workspace import more_runs

        unreadable = more_runs(runs, *reach)
        if unreadable is not None:
            return _write(adapter.block(unreadable, runs[0][1][0][0]))
    from zodyssey.gate.policy import decide

    contexts = _contexts(runs, sandboxed=wrap is not None)
    decisions = []
    for ctx in contexts:
        decision = decide(call, ctx)
        if not decision.allow:
            return _write(adapter.block(decision.reason, ctx.slug))
        decisions.append((ctx, decision))
    if any(d.effects for _, d in decisions):
        from zodyssey.gate.effects import apply

        for ctx, decision in decisions:
            applied = apply(decision, ctx)
            if not applied.allow:
                return _write(adapter.block(applied.reason, ctx.slug))
    return _allowed(runs, call, adapter, payload, wrap)


def _by_repo(runs: "list[tuple[str, list[tuple[str, Any]]]]") -> "list[tuple[str, list[Any]]]":
    """(root, [(slug, state)]) of each repository's active runs whose state was read."""
    out = []
    for root, pairs in runs:
        readable = [(slug, state) for slug, state in pairs if isinstance(state, dict)]
        if readable:
            out.append((root, readable))
    return out


def _allowed(
    runs: "list[tuple[str, list[tuple[str, Any]]]]",
    call: "Any",
    adapter: "Any",
    payload: "Any",
    wrap: "tuple[str, str, str] | None",
) -> int:
    """An allowed call: the effect check's pre-tool snapshot where one is due (a
    change made since the last snapshot blocks this call with what was caught),
    then the (wrapped) reply."""
    checked = _by_repo(runs) if call.kind != "read" and call.error is None else []
    for root, pairs in checked:
        if os.path.exists(os.path.join(root, ".git")) and _snapshot_due(root, pairs, call):
            note = _effects_pre(root, ",".join(slug for slug, _ in pairs), call)
            if note:
                return _write(adapter.block(note, pairs[0][0]))
    return 0 if wrap is None else _wrapped_reply(call, payload, wrap)


def _snapshot_due(root: str, pairs: "list[Any]", call: "Any") -> bool:
    """Whether this call takes a pre-tool snapshot: when a run has none yet, and
    for `zodyssey` commands (`run todo ... done` must see a change made since the
    last call before it decides). Otherwise the snapshot the previous call's
    post-tool left is this call's "before" (docs/gate.md, the post-call check)."""
    if call.kind == "shell" and "zodyssey" in (call.command or ""):
        return True
    state = os.path.join(root, ".zcode", "state")
    return any(not os.path.exists(os.path.join(state, slug + ".effects")) for slug, _ in pairs)


def _effects_pre(root: str, slugs: str, call: "Any") -> str:
    """The effect check's pre-tool snapshot, in a child process: it needs git,
    `subprocess` and `hashlib`, which the hook's own write path never imports
    (docs/gate.md, performance). Returns the child's message ("" when none);
    best effort: a child that fails leaves the call allowed (post-tool says so)."""
    entry = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hook_entry.py")
    argv = [sys.executable, "-S", "-P", entry, "effects-pre", root, slugs]
    argv += [str(call.tool_use_id or ""), str(call.tool_name or ""), str(call.command or "")[:4096]]
    read_end, write_end = os.pipe()
    try:
        pid = os.posix_spawn(
            sys.executable,
            argv,
            os.environ,
            file_actions=[
                (os.POSIX_SPAWN_DUP2, write_end, 1),
                (os.POSIX_SPAWN_CLOSE, read_end),
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            ],
        )
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return ""
    os.close(write_end)
    chunks = []
    while True:
        chunk = os.read(read_end, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(read_end)
    os.waitpid(pid, 0)
    return b"".join(chunks).decode("utf-8", "replace").strip()


def _post_tool(
    runs: "list[tuple[str, list[tuple[str, Any]]]]", payload: "Any", adapter: "Any"
) -> int:
    """The post-call effect check (zodyssey/sandbox/violations.py), then release the
    dispatch slot a Task/Agent call took. Exit 2 with the violation on stderr."""
    if not isinstance(payload, dict) or adapter is None:
        return 0
    call = adapter.to_call(payload)
    if call.error:
        return 0
    code = 0
    for root, pairs in _by_repo(runs) if call.kind != "read" else []:
        from zodyssey.sandbox import violations

        note = violations.post_tool(root, pairs, call)
        if note:
            sys.stderr.write(note + "\n")
            code = 2  # the harness shows it to the agent (the call already ran)
    if call.kind != "dispatch":
        return code
    from pathlib import Path

    from zodyssey.gate.effects import release_slot
    from zodyssey.gate.toolcall import anon_key

    slot = call.tool_use_id or anon_key(call)
    for root, active in runs:
        for slug, state in active:
            if not isinstance(state, str):
                release_slot(Path(root), slug, slot)
    if call.tool_name in adapter.reviewer_tools:
        # The harness reports the dispatch it ran: the reviewer's verdict, if
        # this is the pending reviewer dispatch (zodyssey.runs.review).
        from zodyssey.gate.verdicts import record

        record(runs, call, payload, adapter)
    return code
