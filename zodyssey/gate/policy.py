"""The gate policy: a pure function of (ToolCall, RunContext) -> Decision.

Rules, first match wins (docs/gate.md explains each):
 1. run state (.zcode/state, reviews, verify) and the installed gate: never writable;
 2. bookkeeping (.zcode/plans, notepads, staging): writable, notepads append-only,
    the run's plan frozen once the review says OKAY;
 3. test files frozen in phases verify and final;
 4. review gate: product-code writes wait for `review.verdict == "OKAY"`;
 5. plan tamper: the plan must still hash to `review.plan_sha256`;
 6. scope: every target a declared file or inside a declared directory;
 7. file locks: another owner's live lock blocks.
Shell commands are classified first; a write-capable part that names no
target blocks in every phase. Dispatches (Task/Agent) have their own rules.

Side effects the hook must carry out when a call is allowed (take a dispatch
slot, record the pending reviewer dispatch, take file locks, record an ungated shell call)
are returned as `effects`; the hook re-checks them under the state lock.
"""

import os

from zodyssey.core.allowance import (
    ASK_THE_USER,
    DISPATCH_TTL_SECONDS,
    PathTooLong,
    in_scope,
    parse_time,
    relative,
    resolve,
    run_state_anywhere,
    within,
    written,
)
from zodyssey.core.records import Fields
from zodyssey.core.vocabulary import (
    BLOCKED,
    EXECUTING_PHASES,
    HALTED_PHASES,
    STATE_DIRS,
)
from zodyssey.gate import shell
from zodyssey.gate.toolcall import (
    DISPATCH,
    EDIT,
    MAX_SHELL_COMMAND,
    OTHER,
    PATCH,
    READ,
    SHELL,
    Target,
    ToolCall,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from zodyssey.gate.context import RunContext

MAX_PATH = 4095  # PATH_MAX less its NUL: a longer path is not one the system resolves
MAX_INPUT = 1 << 20  # characters of strings a non-native call may hold
MAX_STRINGS = 1 << 14  # strings (and keys) a non-native call may hold
LOCK_TTL_SECONDS = 30 * 60  # mirrors zodyssey.core.store.LOCK_TTL_SECONDS
# Claude Code's `Workflow` runs up to this many subagents at once: it takes as many slots.
WORKFLOW_FANOUT = 16
EXECUTOR_PHASES = EXECUTING_PHASES
# Names kept for their readers (the after-check's tests, the drill's claim).
_in_scope = in_scope
_run_state_anywhere = run_state_anywhere
__all__ = ["ASK_THE_USER", "DISPATCH_TTL_SECONDS", "in_scope", "parse_time"]


class Effect(Fields):
    kind: str  # "slot" | "review" | "locks" | "ungated"
    data: "Any" = None


class Decision(Fields):
    allow: bool
    reason: str = ""
    rule: str = ""
    effects: "tuple[Effect, ...]" = ()


ALLOW = Decision(True)


def _block(rule: str, reason: str) -> "Decision":
    return Decision(False, reason, rule)


def slots_held(entries: "list[dict[str, Any]]") -> int:
    """Slots the ledger entries hold: one each, a fan-out (`weight`) its size."""
    total = 0
    for entry in entries:
        if entry.get("stopped") is True:
            continue  # an agent that stopped before its launch report: holds nothing
        weight = entry.get("weight", 1)
        total += (
            weight if isinstance(weight, int) and not isinstance(weight, bool) and weight > 1 else 1
        )
    return total


def live_inflight(ctx: "RunContext") -> "list[dict[str, Any]]":
    out = []
    for entry in ctx.inflight():
        at = parse_time(entry.get("at"))
        if at is None or ctx.now - at < DISPATCH_TTL_SECONDS:
            out.append(entry)
    return out


# ---------------------------------------------------------------- entry


def decide(call: "ToolCall", ctx: "RunContext") -> "Decision":
    """Decide one pre-tool call inside an active run."""
    if call.kind != READ or call.error:
        from zodyssey.gate.context import ConfigChanged, check_config

        try:
            check_config(ctx.root, ctx.state)
        except ConfigChanged as exc:
            return _block("gate-config", str(exc))
    try:
        return _decide(call, ctx)
    except PathTooLong as exc:
        return _block("too-large", str(exc))
    except RecursionError:
        return _too_large(f"{call.tool_name} input nests too deep")


def _decide(call: "ToolCall", ctx: "RunContext") -> "Decision":
    if call.tool_name in MESSAGE_TOOLS and _review_pending(ctx):
        return _block(
            "review-pending",
            f"{call.tool_name} to a running agent is refused while the reviewer reviews the "
            "plan: its verdict is its own; wait for its answer",
        )
    if call.error:
        return _block("malformed", f"cannot read the tool call: {call.error}")
    if call.kind == READ:
        return ALLOW
    if call.kind == DISPATCH:
        return _dispatch(call, ctx)
    if call.kind == OTHER:
        return _non_native(call, ctx)
    if call.kind == SHELL:
        return _shell(call, ctx)
    if call.kind in (EDIT, PATCH):
        if not call.targets:
            return _block(
                "no-path",
                f"{call.tool_name} names no file; every write must name its files during a run",
            )
        return _targets(call, ctx, call.targets)
    return _block("unknown-kind", f"unknown kind of tool call {call.kind}")


# ---------------------------------------------------------------- shell


def _shell(call: "ToolCall", ctx: "RunContext") -> "Decision":
    if len(call.command) > MAX_SHELL_COMMAND:
        # Not even the hatch lets it through: run state could hide anywhere in it.
        return _block(
            "shell-too-long",
            f"the command is {len(call.command)} characters long, over the "
            f"{MAX_SHELL_COMMAND} the gate classifies; write the data with Write/Edit or "
            "split the command",
        )
    analysis = shell.classify(call.command)
    if analysis.is_write and not ctx.ungated:
        extra = ctx.settings().read_only
        if extra:
            analysis = shell.classify(call.command, extra)
    if not analysis.is_write and not ctx.ungated:
        return ALLOW
    cwd = call.cwd or ctx.root
    # zodyssey's own commands: person-only forms stay closed even through the hatch.
    refused = _trusted_refused(analysis, cwd, ctx)
    if refused is not None:
        return refused
    # Run state and the gate stay closed even through the hatch (also through
    # a link: writing the link later writes what it points at).
    for target in (*analysis.targets, *analysis.linked):
        for path in (resolve(target.path, cwd, ctx.home), written(target.path, cwd, ctx.home)):
            blocked = _protected(path, ctx)
            if blocked:
                return blocked
    if ctx.ungated:
        hidden = _hatch_reaches_state(call.command, analysis)
        if hidden is not None:
            return _block(
                "run-state",
                f"`{hidden[:120]}` can write without naming its files and its text reaches "
                "run state or the gate's configuration; ZODYSSEY_UNGATE_BASH=1 never lets "
                "that through (only `zodyssey run ...` writes run state)",
            )
        would = _shell_gated(call, ctx, analysis)
        record = {
            "command": call.command,
            "cwd": cwd,
            "owner": call.owner,
            "tool_use_id": call.tool_use_id,
            "harness": call.harness,
            "class": "write" if analysis.is_write else "read",
            "would_block": None if would.allow else would.reason,
        }
        return Decision(True, "ZODYSSEY_UNGATE_BASH=1", "ungated", (Effect("ungated", record),))
    return _shell_gated(call, ctx, analysis)


# What the hatch never lets an untargeted write mention, however the text is
# spelled: quotes, escapes, `+` joins and blanks removed, lower-cased.
# Patterns for `re` (imported where used: the hook's write path does not load it).
_HATCH_SQUASH = r"[\s'\"\\+$`(){}\[\],;|&]"
_HATCH_CODES = r"\bchr\b|\\x[0-9a-f]{2}|\\u[0-9a-f]{4}|\\[0-7]{3}|base64|\bdecode\b|fromcharcode|\bpack\b|\bord\b"
_HATCH_MARKERS = (
    "zcode",
    "zodyssey",  # the hook itself (`python -m zodyssey.gate post-tool`, hook_entry.py)
    "pyproject",
    "settings.json",
    "hooks.json",
)


def _hatch_reaches_state(command: str, analysis: "shell.Analysis") -> str | None:
    """The untargeted write part whose command text reaches run state (through the hatch)."""
    unbounded = analysis.unbounded_parts()
    if not unbounded:
        return None
    import re

    squashed = re.sub(_HATCH_SQUASH, "", command).lower()
    for marker in _HATCH_MARKERS:
        if marker in squashed:
            return unbounded[0].text
    if re.search(_HATCH_CODES, command, re.I):
        return unbounded[0].text  # text built from character codes: cannot be read
    return None


def _shell_gated(call: "ToolCall", ctx: "RunContext", analysis: "shell.Analysis") -> "Decision":
    if not analysis.is_write:
        return ALLOW
    if _reviewed_criterion(call, ctx):
        # Verbatim one of the plan's acceptance criteria, reviewed with the plan:
        # what it writes is the project's business (run state and the gate were
        # checked above).
        return ALLOW
    unbounded = analysis.unbounded_parts()
    if unbounded:
        part = unbounded[0]
        snippet = part.text if len(part.text) <= 120 else part.text[:117] + "..."
        if ctx.phase == BLOCKED:
            return _blocked_run(ctx, f"`{snippet}` can write ({part.why})")
        if ctx.sandboxed and ctx.verdict == "OKAY":
            # After OKAY the kernel holds it to what the run allows now
            # (zodyssey/sandbox/grants.py: declared paths, bookkeeping, caches); the
            # files it does name are still judged here, to explain early.
            targets = (*analysis.targets, *analysis.linked)
            return _targets(call, ctx, targets) if targets else ALLOW
        if ctx.verdict != "OKAY":
            return _block(
                "review-gate",
                f"`{snippet}` can write ({part.why}) and {ctx.allowance().verdict_text()}; "
                "only read-only shell commands run before the review says OKAY",
            )
        return _block(
            "shell-untargeted",
            f"`{snippet}` can write ({part.why}) without naming its files; after review every "
            "shell write must name in-scope files (use Edit/Write, or add a read-only command "
            "to [tool.zodyssey.gate] read_only)",
        )
    return _targets(call, ctx, (*analysis.targets, *analysis.linked))


def _trusted_refused(analysis: "shell.Analysis", cwd: str, ctx: "RunContext") -> "Decision | None":
    """Judge the `zodyssey ...` parts (see zodyssey.gate.trusted); None lets them through."""
    for part in analysis.parts:
        if not part.trusted:
            continue
        kind, program, words = part.trusted[0], part.trusted[1], part.trusted[2:]
        if kind == "person":
            return _block("person-only", part.why)
        from zodyssey.gate import trusted

        if program and not trusted.is_gate_program(_joined(program, cwd, ctx.home)):
            return _block(
                "untrusted-program",
                f"`{part.text[:120]}` runs {program}, which is not the installed zodyssey "
                "the gate runs under; call `zodyssey` (or `python -m zodyssey`) instead",
            )
        move = trusted.phase_move(words)
        if move is not None:
            slug, repo, target = move
            current = _phase_of(slug, resolve(repo, cwd, ctx.home) if repo else ctx.root, ctx)
            if current in HALTED_PHASES and target != current:
                return _block(
                    "person-only",
                    f"run {slug} is {current}: moving it on belongs to a person; "
                    f"{trusted.ASK_THE_USER}",
                )
    return None


def _joined(path: str, cwd: str, home: str) -> str:
    """`path` made absolute without resolving its last component (a venv's python is a link)."""
    if path == "~" or path.startswith("~/"):
        path = home + path[1:]
    return os.path.join(cwd, path)


def _phase_of(slug: str, root: str, ctx: "RunContext") -> str | None:
    if slug == ctx.slug and root == ctx.root:
        return ctx.phase
    from zodyssey.core.files import NotRegularFile, open_regular
    from zodyssey.core.jsontext import loads
    from zodyssey.core.paths import state_path
    from zodyssey.core.vocabulary import is_slug

    if not is_slug(slug):
        return None
    try:  # never waits on a FIFO planted as that run's state
        with os.fdopen(open_regular(state_path(root, slug), "run state"), encoding="utf-8") as fh:
            state = loads(fh.read())
    except (OSError, ValueError, NotRegularFile):
        return None
    phase = state.get("phase") if isinstance(state, dict) else None
    return phase if isinstance(phase, str) else None


def _reviewed_criterion(call: "ToolCall", ctx: "RunContext") -> bool:
    """After OKAY, a command that is verbatim one of the bound plan's acceptance criteria."""
    if ctx.verdict != "OKAY" or ctx.phase == BLOCKED:
        return False
    if call.cwd and resolve(call.cwd, ctx.root, ctx.home) != ctx.root:
        return False  # criteria run from the repository root
    plan = ctx.plan()
    expected = ctx.review.get("plan_sha256")
    if plan.text is None or not isinstance(expected, str) or plan.sha256 != expected:
        return False
    return call.command.strip() in plan.criteria


# ---------------------------------------------------------------- targets


def _lexical(path: str, cwd: str, home: str) -> str:
    if path == "~" or path.startswith("~/"):
        path = home + path[1:]
    return os.path.normpath(os.path.join(cwd, path))


def _targets(call: "ToolCall", ctx: "RunContext", targets: "tuple[Target, ...]") -> "Decision":
    """The rules for writing `targets` (zodyssey/core/allowance.py: run state and
    the gate, bookkeeping, then product code), then the file locks."""
    resolved = _resolved(call, ctx, targets)
    found, product = ctx.allowance().judge_all([(path, t.append) for path, t in resolved])
    if found is not None:
        return _block(*found)
    if not product:
        return ALLOW
    return _locks(call, ctx, product)


def _protected(path: str, ctx: "RunContext") -> "Decision | None":
    """Run state and the installed gate (the allowance's first rule), for a path the
    call names however it is run (through the hatch too)."""
    found = ctx.allowance().protected_rule(path)
    return None if found is None else _block(*found)


def _blocked_run(ctx: "RunContext", what: str) -> "Decision":
    return _block(*ctx.allowance().blocked_run(what))


def _review_pending(ctx: "RunContext") -> bool:
    return ctx.allowance().reviewing()


def _resolved(
    call: "ToolCall", ctx: "RunContext", targets: "tuple[Target, ...]"
) -> "list[tuple[str, Target]]":
    """Each target twice: where the system writes (links resolved) and the name
    the call gives (its last part kept), so a link in scope cannot reach an
    undeclared file, nor a declared file reach run state."""
    cwd = call.cwd or ctx.root
    resolved: list[tuple[str, Target]] = []
    for t in targets:
        real = resolve(t.path, cwd, ctx.home)
        resolved.append((real, t))
        named = written(t.path, cwd, ctx.home)
        if named != real:
            resolved.append((named, t))
    return resolved


def _locks(call: "ToolCall", ctx: "RunContext", product: "list[str]") -> "Decision":
    """7. file locks.

    A call that names no owner (no agent_id, session_id or conversation_id)
    is held back by every live lock but takes none: a lock held by nobody
    in particular would block every identified owner for 30 minutes."""
    owner = call.owner
    locks = ctx.state.get("file_locks")
    locks = locks if isinstance(locks, dict) else {}
    wanted: list[tuple[str, str | None]] = []
    for path in product:
        rel = relative(path, ctx.root)
        if rel is None:
            continue
        holder = live_lock(locks.get(rel), ctx)
        if holder is not None and not _same_holder(locks[rel], holder, call):
            lock = locks[rel]
            return _block(
                "file-lock",
                f"{rel} is locked by {holder} (todo {lock.get('todo')}, since {lock.get('acquired_at')}); "
                "wait for that todo to finish or for the lock to expire (30 minutes)",
            )
        wanted.append((rel, _todo_for(path, owner, ctx)))
    if wanted and owner:
        return Decision(True, "", "", (Effect("locks", (owner, tuple(wanted), call.session)),))
    return ALLOW


def _same_holder(lock: "Any", holder: str, call: "ToolCall") -> bool:
    """Whether the call may write under a live lock `holder` holds.

    The holder itself may; so may the orchestrator of the same harness session
    under its subagent's lock, and a subagent under its orchestrator's lock (the
    orchestrator's owner is the session id). Two subagents block each other.
    """
    return same_session(lock, holder, call.owner, call.session)


def same_session(lock: "Any", holder: str, owner: str, session: str) -> bool:
    if not owner:
        return False
    if holder == owner:
        return True
    lock_session = lock.get("session_id") if isinstance(lock, dict) else None
    lock_session = lock_session if isinstance(lock_session, str) and lock_session else holder
    return bool(session) and lock_session == session and session in (holder, owner)


def live_lock(lock: "Any", ctx: "RunContext") -> str | None:
    """The owner of a lock that still holds, else None."""
    if not isinstance(lock, dict):
        return None
    owner = lock.get("session")
    acquired = parse_time(lock.get("acquired_at"))
    if acquired is None or ctx.now - acquired >= LOCK_TTL_SECONDS:
        return None
    todo = lock.get("todo")
    todos = ctx.state.get("todos")
    if isinstance(todos, dict) and todo is not None:
        entry = todos.get(str(todo))
        if isinstance(entry, dict) and entry.get("status") == "done":
            return None
    return owner if isinstance(owner, str) else str(owner)


def _todo_for(path: str, owner: str, ctx: "RunContext") -> str | None:
    active = ctx.state.get("active_todos")
    if isinstance(active, dict) and isinstance(active.get(owner), str):
        return str(active[owner])
    for declared, todo in ctx.plan().todo_of:
        if path == declared or within(path, declared):
            return todo
    return None


# ---------------------------------------------------------------- dispatch

# Keys and values may be quoted any way a serializer writes them: JSON, JSON
# escaped inside a JSON string (`\"subagent_type\":`), a Python dict
# (`'subagent_type':`), YAML, `key=value`, XML parameter tags, snake_case,
# camelCase or kebab-case. A field named without a value (`the tool_use_id:
# field`) is prose, not a serialized call.
_Q = r"""[\\"' \t]*"""  # not newlines: the tool input's keys are joined by them
_VALUE = r"""[\\"']*[A-Za-z0-9_.:-]"""
_ID_VALUE = r"""(?:[\\"']+[^\\"'\s]{2,}[\\"']|toolu_|call_|Pre|Post)"""
_AFTER = r"[ \t]*(?:\n[ \t]+)?"  # a YAML value may sit indented on the next line
_NS = r"(?:[\w.-]+:)?"  # a namespace prefix of a tag (`<ns:invoke ...>`)
_NESTED = (  # compiled on first use (re's cache): only dispatches need it
    rf"\bsubagent[_-]?type{_Q}[:=]{_AFTER}{_VALUE}"
    rf"|\b(?:tool[_-]?use[_-]?id|hook[_-]?event[_-]?name){_Q}[:=]{_AFTER}{_ID_VALUE}"
    rf"|\btool[_-]?name{_Q}[:=]{_Q}(?:Task|Agent)\b"
    rf"""|["']name{_Q}[:=]{_Q}(?:Task|Agent)\b"""
    rf"|<{_NS}invoke\s+name={_Q}(?:Task|Agent)\b"
    rf"|<{_NS}parameter\s+name={_Q}(?:subagent[_-]?type|tool[_-]?name){_Q}>"
    rf"|<{_NS}function_calls>"
    rf"|[\"']type{_Q}[:=]{_Q}tool_use\b"
)
_ESCAPE = r"\\u([0-9a-fA-F]{4})|\\x([0-9a-fA-F]{2})"


def _unmasked(text: str) -> str:
    """`text` as a model would read it: format characters (zero-width, soft hyphen)
    dropped, compatibility forms folded (fullwidth `：` is `:`), `\\u005f` and
    `&#95;` escapes decoded, until nothing changes (`&amp;#95;`)."""
    import html
    import re
    import unicodedata

    for _ in range(4):
        before = text
        text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf")
        text = unicodedata.normalize("NFKC", text)
        text = re.sub(_ESCAPE, lambda m: chr(int(m.group(1) or m.group(2), 16)), text)
        text = html.unescape(text)
        if text == before:
            break
    return text


def _dispatch(call: "ToolCall", ctx: "RunContext") -> "Decision":
    from zodyssey.gate.toolcall import MAX_PROMPT

    if len(call.prompt) > MAX_PROMPT:
        return _too_large(
            f"the dispatch prompt is {len(call.prompt)} characters, over the {MAX_PROMPT} the "
            "gate reads; put the material in a notepad and point the subagent at it"
        )
    import re

    if re.search(_NESTED, call.prompt, re.I) or re.search(_NESTED, _unmasked(call.prompt), re.I):
        return _block(
            "nested-dispatch",
            "the dispatch prompt embeds a serialized tool call or dispatch; subagents are "
            "dispatched one level at a time by the orchestrator",
        )
    settings = ctx.settings()
    agent = call.subagent_type
    reviewer = settings.is_reviewer(agent)
    read_only = reviewer or settings.is_read_only_agent(agent)
    if not read_only and ctx.phase not in EXECUTOR_PHASES:
        return _block(
            "dispatch-phase",
            f"executor dispatch ({agent or 'unnamed agent'}) in phase {ctx.phase or 'unknown'}; "
            "executors run only in execute, verify, final or remediate (read-only agents and "
            f"the reviewer {settings.reviewer_agent} run in every phase)",
        )
    if reviewer and call.strings:  # (a dispatch's strings: the keys that resume an agent)
        return _block(
            "review-resumed",
            f"reviewer dispatch ({agent}) refused: it resumes an earlier agent "
            f"({', '.join(call.strings)}); a verdict comes only from a new reviewer, "
            "dispatched without resuming or continuing one",
        )
    if reviewer:
        refused = _reviewer_refused(ctx, agent)
        if refused is not None:
            return refused
    need = WORKFLOW_FANOUT if call.tool_name == "Workflow" else 1
    full = _cap_refused(ctx, need)
    if full is not None:
        return full
    from zodyssey.gate.toolcall import anon_key

    key = call.tool_use_id or anon_key(call)
    effects = [Effect("slot", (key, need) if need > 1 else key)]
    if reviewer:
        effects.append(Effect("review", (key, agent, call.harness)))
    return Decision(True, "", "", tuple(effects))


def _cap_refused(ctx: "RunContext", need: int) -> "Decision | None":
    """A dispatch taking `need` slots past the parallel-dispatch cap is refused."""
    held = slots_held(live_inflight(ctx))
    if held + need <= ctx.cap:
        return None
    if need > 1:
        reason = (
            f"a Workflow runs up to {need} subagents at once and {held} are in flight: over "
            f"the cap {ctx.cap} (ZODYSSEY_PARALLEL_CAP); dispatch the subagents one by one"
        )
    else:
        reason = (
            f"{held} subagents are already in flight (cap {ctx.cap}, "
            "ZODYSSEY_PARALLEL_CAP); wait for one to finish"
        )
    return _block("dispatch-cap", reason)


def _reviewer_refused(ctx: "RunContext", agent: str) -> "Decision | None":
    """The reviewer is dispatched only for a round the store would record."""
    round_, max_rounds = ctx.allowance().rounds()
    if ctx.phase == BLOCKED or round_ >= max_rounds:
        return _blocked_run(ctx, f"reviewer dispatch ({agent}) refused: the round cap is reached")
    plan = ctx.plan()
    if plan.text is None:
        return _block("review-lint", f"reviewer dispatch ({agent}) refused: {plan.error}")
    problems = _lint(ctx, plan.text)
    if problems:
        shown = "; ".join(problems[:3]) + (
            f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        )
        return _block(
            "review-lint",
            f"reviewer dispatch ({agent}) refused: the plan fails lint ({shown}); fix it first "
            f"(`zodyssey run lint {ctx.slug}` lists every problem)",
        )
    return None


def _lint(ctx: "RunContext", text: bytes) -> list[str]:
    """What `zodyssey run lint` would say about the plan text (loaded only for a reviewer dispatch)."""
    from zodyssey.core.plan import parse_plan
    from zodyssey.runs.checks import load_checks, test_command
    from zodyssey.runs.lint import lint_plan

    try:
        plan = parse_plan(text.decode("utf-8"))
    except UnicodeDecodeError:
        return ["the plan is not UTF-8 text"]
    from pathlib import Path

    return [p.render() for p in lint_plan(plan, test_command(load_checks(Path(ctx.root))))]


# ---------------------------------------------------------------- MCP / unknown

_PATH_TOKEN = r"[^\s'\"`=,;:()\[\]{}<>|&]+"  # compiled on first use (re's cache)

# Tools outside the harness's own set that only read, compared on the name's
# last `__` part, lower-cased (`mcp__filesystem__read_text_file` -> read_text_file):
# the read tools of the reference MCP filesystem, git and memory servers.
# `[tool.zodyssey.gate] read_only_tools` adds names (whole or last part).
DEFAULT_READ_ONLY_TOOLS = (
    "read_file",
    "read_text_file",
    "read_media_file",
    "read_multiple_files",
    "list_directory",
    "list_directory_with_sizes",
    "directory_tree",
    "search_files",
    "get_file_info",
    "list_allowed_directories",
    "git_status",
    "git_diff",
    "git_diff_staged",
    "git_diff_unstaged",
    "git_log",
    "git_show",
    "status",
    "search",
    "read_graph",
    "search_nodes",
    "open_nodes",
)


def read_only_tool(name: str, extra: tuple[str, ...] = ()) -> bool:
    """Whether a non-native tool is known to only read (see DEFAULT_READ_ONLY_TOOLS)."""
    last = name.rsplit("__", 1)[-1].lower()
    known = {n.lower() for n in (*DEFAULT_READ_ONLY_TOOLS, *extra)}
    return name.lower() in known or last in known


def _too_large(what: str) -> "Decision":
    return _block(
        "too-large",
        f"blocks: too large to judge ({what}); split the call or use the native tools",
    )


def _points_into(path: str, locations: tuple[str, ...], root: str) -> str | None:
    """The protected location `path` is in, or holds while lying inside the repository.

    A tool of unknown effect handed `.zcode` or `.claude` may delete or move
    the run state or the hook configuration with it.
    """
    for location in locations:
        if within(path, location):
            return location
        if within(location, path) and path != root and within(path, root):
            return location
    return None


def _path_like(text: str, cwd: str) -> bool:
    if not text or "\n" in text or "\x00" in text:
        return False
    if "/" in text or text.startswith((".", "~")) or text.lower() == "pyproject.toml":
        return True
    # a bare name of something that exists where the tool runs (`README.md`)
    return len(text) < 256 and " " not in text and os.path.lexists(os.path.join(cwd, text))


def _non_native(call: "ToolCall", ctx: "RunContext") -> "Decision":
    """MCP and unknown tools: a known read-only tool reads anything; any other is
    taken to write every repository path its input names (whole string values),
    and none of its words may reach run state, the gate or the frozen plan."""
    if len(call.strings) > MAX_STRINGS:
        return _too_large(f"{call.tool_name} input holds {len(call.strings)} strings")
    total = sum(len(text) for text in call.strings)
    if total > MAX_INPUT:
        return _too_large(f"{call.tool_name} input is {total} characters long")
    if read_only_tool(call.tool_name, ctx.settings().read_only_tools):
        return ALLOW
    cwd = call.cwd or ctx.root
    frozen_plan = ctx.allowance().frozen_plan()
    targets: list[Target] = []
    for text in call.strings:
        found = _string_reaches(call, ctx, text, cwd, frozen_plan)
        if isinstance(found, Decision):
            return found
        if found is not None:
            targets.append(found)
    if not targets:
        return ALLOW
    return _targets(call, ctx, tuple(targets))


def _candidates(text: str, cwd: str) -> "list[str] | Decision":
    """The paths one string of a tool's input may name: the whole string when it
    looks like a path (first), then each path-like word in it."""
    import re

    whole = text.strip()
    candidates: list[str] = []
    if _path_like(whole, cwd):
        if len(whole) > MAX_PATH:
            return _too_large(f"a path of {len(whole)} characters, over {MAX_PATH}")
        candidates.append(whole)
    for token in re.findall(_PATH_TOKEN, text):
        if len(token) > MAX_PATH:
            return _too_large(f"a path of {len(token)} characters, over {MAX_PATH}")
        if token != whole and ("/" in token or token.startswith((".", "~"))):
            candidates.append(token)
    return candidates


def _string_reaches(
    call: "ToolCall", ctx: "RunContext", text: str, cwd: str, frozen_plan: str | None
) -> "Decision | Target | None":
    """One string of a non-native tool's input: a block when it reaches run state,
    the gate or the frozen plan; the Target it writes when the whole string is a
    repository path; else None."""
    lowered = text.lower()
    for marker in STATE_DIRS:
        if marker in lowered:
            return _block(
                "run-state",
                f"{call.tool_name} input mentions run state ({marker}); no tool but `zodyssey run` touches it",
            )
    candidates = _candidates(text, cwd)
    if isinstance(candidates, Decision):
        return candidates
    layout = ctx.layout
    for candidate in candidates:
        path = resolve(candidate, cwd, ctx.home)
        where = _points_into(path, layout.state_dirs, ctx.root) or run_state_anywhere(path)
        if where is not None:
            return _block(
                "run-state",
                f"{call.tool_name} input points at run state ({layout.show(path)}, "
                f"{layout.show(where)}/)",
            )
        where = _points_into(path, layout.gate_paths, ctx.root)
        if where is not None:
            return _block(
                "gate-itself",
                f"{call.tool_name} input points at the installed gate ({layout.show(path)})",
            )
        if frozen_plan and _points_into(path, (frozen_plan,), ctx.root):
            return _block(
                "plan-frozen",
                f"{call.tool_name} input points at the frozen plan ({layout.show(path)})",
            )
    whole = text.strip()
    if candidates and candidates[0] == whole:
        lexical = _lexical(whole, cwd, ctx.home)
        if within(resolve(whole, cwd, ctx.home), ctx.root) or within(lexical, ctx.root):
            return Target(whole)
    return None


# Tools that send a message to a running agent (Claude Code's SendMessage).
MESSAGE_TOOLS = frozenset(("SendMessage", "send_message"))
