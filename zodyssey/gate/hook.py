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
# Inside a run every decision ends within this many seconds, well inside the 30 s
# timeout `hook install` writes: a harness that kills its hook runs the call as it
# is, so a decision that cannot finish in time must block, never run out the clock.
DEADLINE_SECONDS = 15.0
DEADLINE_ENV = "ZODYSSEY_GATE_DEADLINE"  # lower it (seconds); never above the default


class DeadlineReached(BaseException):
    """The decision's deadline passed (SIGALRM): inside a run the call blocks.

    A BaseException, so no `except Exception` on the way swallows it."""


def _deadline_seconds() -> float:
    try:
        value = float(os.environ.get(DEADLINE_ENV, "") or DEADLINE_SECONDS)
    except ValueError:
        return DEADLINE_SECONDS
    return value if 0 < value < DEADLINE_SECONDS else DEADLINE_SECONDS


def _reached(signum: int, frame: "Any") -> None:
    raise DeadlineReached(
        f"the gate could not decide within {_deadline_seconds():g} s (a hook the harness "
        "kills lets the call run, so an undecided call blocks)"
    )


def arm_deadline() -> None:
    """Start the decision's clock (SIGALRM through `_signal`: no `signal`/`enum` import).
    Only inside a run: the no-run path never pays for it."""
    import _signal  # type: ignore[import-not-found]  # builtin, loaded at start-up

    _signal.signal(_signal.SIGALRM, _reached)
    _signal.setitimer(_signal.ITIMER_REAL, _deadline_seconds())


def disarm_deadline() -> None:
    """Stop the clock (before the reply is written, and before failing closed)."""
    import _signal

    _signal.setitimer(_signal.ITIMER_REAL, 0)


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


class _Call:
    """What one hook call has learned so far: the steps fill it in, and the
    failure handler of `main` reads it (inside a run or not, the slug to name)."""

    def __init__(self, event: str, harness: str, problem: "str | None", raw: bytes) -> None:
        self.event = event
        self.harness = harness
        self.problem = problem
        self.raw = raw
        self.in_run = False  # becomes True once an active run (or unreadable state) is found
        self.slug = "?"
        self.judged: list[Any] = []  # the active runs, once found: each decision is noted
        self.payload: Any = None
        self.payload_error: str | None = None
        self.parsed = False
        self.start = ""
        self.in_repo = False
        self.armed = False  # the decision's deadline runs (inside a run only)

    def parse(self) -> None:
        """Decode stdin (once)."""
        if not self.parsed:
            self.payload, self.payload_error = _load_payload(self.raw)
            self.parsed = True


def main(argv: list[str], raw: "bytes | None" = None) -> int:
    """The hook on `argv`, reading stdin (or taking `raw`, stdin already read)."""
    if "-h" in argv or "--help" in argv:
        print(USAGE + "\n(see `zodyssey hook --help`)")
        return 0
    event, harness_name, problem = _parse_argv(list(argv))
    if raw is None:
        try:
            raw = sys.stdin.buffer.read()
        except BaseException:
            raw = b""
    hook = _Call(event, harness_name, problem, raw)
    try:
        try:
            return _run(hook)
        finally:
            if hook.armed:
                disarm_deadline()
    except BaseException as exc:  # fail closed inside a run, stay open outside
        return _failed(hook, exc)


def _run(hook: _Call) -> int:
    """Find the active runs the call concerns; none: allow, say nothing. Otherwise
    the event's handler (EVENTS) decides."""
    groups = _state_groups(hook)
    if not groups:
        return 0
    # From here the layout says a run may exist: an error while reading
    # its state (a phase of the wrong type, say) blocks rather than opens.
    hook.in_run = True
    from zodyssey.gate.discovery import is_active, read_states

    runs = []
    past = []
    for candidate, files in groups:
        discovered = read_states(candidate, files)
        active_here = [(s, state) for s, state in discovered.runs if is_active(state)]
        if active_here:
            runs.append((candidate, active_here))
        elif discovered.runs:
            past.append(candidate)
    if not runs:
        # no active run: never in the way of product work; finished runs' records stay shut
        return _past_runs(hook, past) if past and hook.event == "pre-tool" else 0
    arm_deadline()
    hook.armed = True
    hook.slug = runs[0][1][0][0]
    hook.parse()
    adapter = None
    try:
        from zodyssey.gate.harness import get_harness

        adapter = get_harness(hook.harness)
    except KeyError:
        hook.problem = hook.problem or f"unknown harness {hook.harness!r} ({USAGE})"
    hook.judged = runs
    return EVENTS.get(hook.event, _on_unknown)(hook, runs, adapter)


def _past_runs(hook: _Call, roots: "list[str]") -> int:
    """No run is active, but runs ended here: a call that names their records
    (state, evidence, reviews, git anchors) blocks (zodyssey/gate/past.py); any
    other call, and any call the hook cannot read, is let through silently."""
    try:
        hook.parse()
        from zodyssey.gate.harness import get_harness

        adapter = get_harness(hook.harness)
        if hook.payload_error or hook.problem:
            return 0
        call = adapter.to_call(hook.payload)
        from zodyssey.gate.past import judge

        reason = judge(call, roots)
    except Exception:
        return 0  # outside a run the gate never fails closed
    if reason is None:
        return 0
    return _write(adapter.block(reason, "(finished)"))


def _state_groups(hook: _Call) -> "list[tuple[str, Any]]":
    """(root, state files) of every repository whose runs may guard this call."""
    from zodyssey.gate.discovery import locate_all, state_files

    # Cheapest first: with the project dir in the environment, a project
    # without run state is recognised by a few stat calls, before stdin is
    # even parsed.
    start = _env_dir(hook.harness)
    if start is None:
        hook.parse()
        start = _payload_dir(hook.payload)
    hook.start = start
    found, in_repo = locate_all(start)
    hook.in_repo = in_repo
    roots = list(found)
    hook.parse()
    # The project dir is the harness's word, not the call's: a sibling or a
    # parent of the repository the call runs in must not hide its run.
    for other in _payload_dirs(hook.payload):
        more, _ = locate_all(other)
        roots.extend(r for r in more if r not in roots)
    if not roots and in_repo:
        # Nothing found from where the call says it runs: its paths may still
        # reach a repository with a run (a Codex cwd above it, say).
        from zodyssey.gate.workspace import reached

        roots.extend(reached(hook.payload, start, roots))
    if not in_repo:
        # A project dir above repositories (a workspace): every repository
        # the call reaches into is guarded by its own run, found by walking
        # up from the call's paths. (With a run at the project dir the same
        # search runs later, once the call is known not to be a plain read.)
        from zodyssey.gate.workspace import reached, unattributed

        roots.extend(reached(hook.payload, start, roots))
        roots.extend(unattributed(hook.payload, start, hook.harness, roots))
    groups = []
    for candidate in roots:
        files = state_files(candidate)
        if files:
            groups.append((candidate, files))
    return groups


def _on_post(hook: _Call, runs: "list[Any]", adapter: "Any") -> int:
    _noted(runs, hook.payload, "post", 0)
    return _post_tool(runs, hook.payload, adapter)


def _unreadable_state(hook: _Call, runs: "list[Any]") -> "int | None":
    """A run whose state could not be read blocks the call, naming the cause."""
    for _, active in runs:
        for s, state in active:
            if isinstance(state, str):
                hook.slug = s
                return _noted(runs, hook.payload, "pre", _fail_closed(hook.harness, state, s))
    return None


def _on_pre(hook: _Call, runs: "list[Any]", adapter: "Any") -> int:
    code = _unreadable_state(hook, runs)
    if code is not None:
        return code
    reason = None
    if hook.problem:
        reason = hook.problem
    elif hook.payload_error or adapter is None:
        reason = f"cannot read the hook payload: {hook.payload_error}"
    if reason is not None:
        return _noted(runs, hook.payload, "pre", _fail_closed(hook.harness, reason, hook.slug))
    call = adapter.to_call(hook.payload)
    reach = (hook.payload, hook.start) if hook.in_repo else None
    code = _pre_tool(runs, call, adapter, reach, hook.payload)
    return _noted(runs, hook.payload, "pre", code)


def _on_unknown(hook: _Call, runs: "list[Any]", adapter: "Any") -> int:
    code = _unreadable_state(hook, runs)
    if code is not None:
        return code
    return _fail_closed(hook.harness, f"unknown hook event {hook.event!r} ({USAGE})", hook.slug)


def _on_stop(hook: _Call, runs: "list[Any]", adapter: "Any") -> int:
    """A subagent ended (Claude Code's SubagentStop): a background reviewer's verdict."""
    from zodyssey.gate.verdicts import stopped

    return stopped(runs, hook.payload, adapter)  # never exit 2: that keeps it running


# The hook's events: event -> handler(call so far, active runs, harness adapter or
# None); an event not listed blocks inside a run (`_on_unknown`).
EVENTS = {"pre-tool": _on_pre, "post-tool": _on_post, "subagent-stop": _on_stop}


def _failed(hook: _Call, exc: BaseException) -> int:
    """An unexpected error: inside a run (or maybe in one) it blocks; outside, exit 0."""
    if isinstance(exc, KeyboardInterrupt | SystemExit) and not hook.in_run:
        return 0
    if not hook.in_run and not _maybe_in_run(hook.raw):
        return 0
    if hook.event in ("post-tool", "subagent-stop"):
        sys.stderr.write(
            f"zodyssey gate {hook.event}: internal error {exc.__class__.__name__}: {exc}\n"
        )
        return 1  # post-tool cannot undo a call, a stop is never held; report
    reason = (
        str(exc)
        if isinstance(exc, DeadlineReached)
        else f"internal gate error {exc.__class__.__name__}: {exc}"
    )
    code = _fail_closed(hook.harness, reason, hook.slug)
    return _noted(hook.judged, hook.payload, "pre", code) if hook.event == "pre-tool" else code


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

    from zodyssey.core.allowance import Layout
    from zodyssey.gate.context import (
        RunContext,
        load_inflight,
        load_plan,
        load_settings,
        parse_cap,
    )

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
    if not all(_landlocked(state) for _, state in active):
        return None  # run start found no Landlock (or another tool started the run)
    from zodyssey.sandbox.wrap import is_wrapped, wants_wrap

    slugs = ",".join(slug for slug, _ in active)
    if getattr(adapter, "name", "") == "claude-code":
        from zodyssey.sandbox.shell_prefix import active as prefixed

        if prefixed(root):  # the harness runs every shell call through the sandbox
            return "prefix", slugs, root
    decision = wants_wrap(getattr(adapter, "name", ""), payload, call.command, is_write)
    if decision is None or is_wrapped(call.command, slugs, root):
        return None  # (wrapped already, for these very runs: it runs in their sandbox)
    return decision, slugs, root


def _landlocked(state: "Any") -> bool:
    """Whether the run's start recorded a usable Landlock ABI (an int >= 1)."""
    recorded = state.get("sandbox") if isinstance(state, dict) else None
    abi = recorded.get("landlock_abi") if isinstance(recorded, dict) else None
    return isinstance(abi, int) and not isinstance(abi, bool) and abi >= 1


def _wrapped_reply(call: "Any", payload: "Any", wrap: "tuple[str, str, str]") -> int:
    from zodyssey.sandbox.wrap import claude_reply, wrapped

    decision, slug, root = wrap
    if decision == "prefix":
        return 0  # contained by the shell prefix: nothing to rewrite, nothing to ask
    tool_input = payload.get("tool_input")
    tool_input = tool_input if isinstance(tool_input, dict) else {}
    shown = call.command if len(call.command) <= 400 else call.command[:397] + "..."
    reason = (
        f"zodyssey gate (run {slug}): runs `{shown}` under the run's write sandbox "
        "(`zodyssey sandbox`); a write the run does not allow now fails with EACCES"
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
    if call.error is None:
        code = _read_shortcut(runs, call, adapter, payload)
        if code is not None:
            return code
    wrap = _sandbox_wrap(runs, call, adapter, payload, True)
    if reach is not None and call.kind != "dispatch":
        # (a dispatch is the project's own: its slot is released by post-tool,
        # which only sees the project's runs)
        from zodyssey.gate.workspace import more_runs

        unreadable = more_runs(runs, *reach)
        if unreadable is not None:
            return _write(adapter.block(unreadable, runs[0][1][0][0]))
    harness = getattr(adapter, "name", "")
    briefed = None
    if call.kind == "dispatch" and call.error is None and harness == "gemini":
        # Gemini sends no call id: the pending review is keyed by the call the reviewer
        # receives, so the rewritten call is the one judged and recorded.
        briefed = _briefed(runs, call, payload)
        if briefed is not None:
            payload = dict(payload, tool_input=briefed[1])
            call = adapter.to_call(payload)
    blocked = _policy_block(runs, call, wrap is not None)
    if blocked is not None:
        reason, slug = blocked
        return _write(adapter.block(reason, slug))
    if call.kind == "dispatch" and harness == "claude-code":
        briefed = _briefed(runs, call, payload)
    if briefed is None:
        return _allowed(runs, call, adapter, payload, wrap)
    code = _allowed(runs, call, adapter, payload, None)
    if code == 0:
        from zodyssey.gate import brief

        sys.stdout.write(brief.reply(harness, briefed[1], briefed[0]))
        sys.stdout.flush()
    return code


def _briefed(
    runs: "list[tuple[str, list[tuple[str, Any]]]]", call: "Any", payload: "Any"
) -> "tuple[str, dict[str, Any]] | None":
    """(slug, the dispatch's input with the gate's brief as its prompt) for a reviewer
    dispatch on a harness that can rewrite it: the orchestrator's words reach the
    reviewer only as marked context (zodyssey/gate/brief.py). None for any other
    dispatch, which is allowed as it is."""
    for ctx in _contexts(runs):
        if not ctx.settings().is_reviewer(call.subagent_type):
            continue
        from zodyssey.gate import brief

        plan = ctx.plan()
        tool_input = payload.get("tool_input") if isinstance(payload, dict) else None
        tool_input = tool_input if isinstance(tool_input, dict) else {}
        said = tool_input.get("prompt")
        text = brief.text(
            ctx.slug,
            ctx.layout.show(plan.path),
            str(plan.sha256),
            said if isinstance(said, str) else "",
        )
        return ctx.slug, dict(tool_input, prompt=text)
    return None


def _read_shortcut(
    runs: "list[tuple[str, list[tuple[str, Any]]]]", call: "Any", adapter: "Any", payload: "Any"
) -> "int | None":
    """Shortcuts that every run's policy would take anyway (see policy.decide):
    native read tools and read-only shell commands pass without loading the plan,
    the ledger or the policy itself. None: the call needs the policy."""
    from zodyssey.gate.toolcall import MAX_SHELL_COMMAND  # loaded already by the adapter

    if call.kind == "read":
        return 0
    if (
        call.kind != "shell"
        or os.environ.get("ZODYSSEY_UNGATE_BASH", "") == "1"
        or len(call.command) > MAX_SHELL_COMMAND
    ):
        return None
    from zodyssey.gate.shell import classify

    if classify(call.command).is_write:
        return None
    wrap = _sandbox_wrap(runs, call, adapter, payload, False)
    return _allowed(runs, call, adapter, payload, wrap)


def _policy_block(
    runs: "list[tuple[str, list[tuple[str, Any]]]]", call: "Any", sandboxed: bool
) -> "tuple[str, str] | None":
    """(reason, slug) of the first run whose policy, or whose effects, block the
    call; None when every run allows it."""
    from zodyssey.gate.policy import decide

    decisions = []
    for ctx in _contexts(runs, sandboxed=sandboxed):
        decision = decide(call, ctx)
        if not decision.allow:
            return decision.reason, ctx.slug
        decisions.append((ctx, decision))
    if any(d.effects for _, d in decisions):
        from zodyssey.gate.effects import apply

        for ctx, decision in decisions:
            applied = apply(decision, ctx)
            if not applied.allow:
                return applied.reason, ctx.slug
    return None


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
    """An allowed call: the effect check's pre-tool snapshot, in this process
    (zodyssey/sandbox/violations.py; a change made since the last snapshot
    blocks this call with what was caught), then the (wrapped) reply."""
    checked = _by_repo(runs) if call.kind != "read" and call.error is None else []
    for root, pairs in checked:
        if os.path.exists(os.path.join(root, ".git")):
            from zodyssey.sandbox.violations import pre_check

            note = pre_check(root, pairs, call)
            if note:
                return _write(adapter.block(note, pairs[0][0]))
    return 0 if wrap is None else _wrapped_reply(call, payload, wrap)


def _post_tool(
    runs: "list[tuple[str, list[tuple[str, Any]]]]", payload: "Any", adapter: "Any"
) -> int:
    """Release the dispatch slot a Task/Agent call took (and record the reviewer's
    verdict), then the post-call effect check (zodyssey/sandbox/violations.py).
    Exit 2 with the violation on stderr."""
    if not isinstance(payload, dict) or adapter is None:
        return 0
    call = adapter.to_call(payload)
    if call.error:
        return 0
    if call.kind == "dispatch":
        # first: the verdict is judged on the plan as the reviewer left it (a plan
        # changed during the review is a REJECT), then the check puts it back
        _dispatch_done(runs, call, payload, adapter)
    code = 0
    for root, pairs in _by_repo(runs) if call.kind != "read" else []:
        from zodyssey.sandbox import violations

        try:
            note = violations.post_tool(root, pairs, call)
            swapped = violations.native_swaps(root, pairs, call, _rejudge(root, pairs, call))
            note = "\n".join(n for n in (note, swapped) if n) or None
        except BaseException as exc:  # never leave without recording: the next call blocks
            disarm_deadline()
            note = violations.post_failed(root, pairs, call, exc)
        if note:
            sys.stderr.write(note + "\n")
            code = 2  # the harness shows it to the agent (the call already ran)
    return code


def _rejudge(root: str, pairs: "list[Any]", call: "Any") -> "Any":
    """The policy of each of the repository's runs on `call` now: the reasons it
    blocks with (the post-call check of a native write whose path is now a link)."""

    def reasons() -> "list[str]":
        from zodyssey.gate.policy import decide

        decisions = [decide(call, ctx) for ctx in _contexts([(root, pairs)])]
        return [d.reason for d in decisions if not d.allow]

    return reasons


def _dispatch_done(
    runs: "list[tuple[str, list[tuple[str, Any]]]]", call: "Any", payload: "Any", adapter: "Any"
) -> None:
    """A Task/Agent call ran: release its dispatch slot in every run, and record
    the reviewer's verdict when it was the reviewer's dispatch."""
    from pathlib import Path

    from zodyssey.gate.effects import rebind_slot, release_slot
    from zodyssey.gate.toolcall import anon_key
    from zodyssey.gate.verdicts import launched_agent

    slot = call.tool_use_id or anon_key(call)
    # Started in the background (the report came at once): the subagent still runs,
    # so its slot is kept under its agent id until its SubagentStop.
    agent = launched_agent(payload) if getattr(adapter, "stop_events", ()) else None
    for root, active in runs:
        for slug, state in active:
            if isinstance(state, str):
                continue
            if agent is None:
                release_slot(Path(root), slug, slot)
            else:
                rebind_slot(Path(root), slug, slot, agent)
    if call.tool_name in adapter.reviewer_tools or not adapter.reviewer_tools:
        # The harness reports the dispatch it ran: the reviewer's verdict, if
        # this is the pending reviewer dispatch (zodyssey.runs.review). A harness that
        # reports no answers (Cursor, Codex) spends the pending dispatch with no round,
        # so the plan is not held frozen for a verdict that cannot come.
        from zodyssey.gate.verdicts import record

        record(runs, call, payload, adapter)
