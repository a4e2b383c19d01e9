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

from zodyssey.core.records import Fields
from zodyssey.core.vocabulary import (
    BLOCKED,
    DEFAULT_MAX_ROUNDS,
    EXECUTING_PHASES,
    HALTED_PHASES,
    PLANS,
    STATE_DIRS,
    TEST_FROZEN_PHASES,
    utc_seconds,
)
from zodyssey.gate import shell
from zodyssey.gate.paths import PathTooLong, is_test_file, relative, resolve, within, written
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
DISPATCH_TTL_SECONDS = 2 * 60 * 60  # a ledger entry whose post-tool never came expires
# Claude Code's `Workflow` runs up to this many subagents at once: it takes as many slots.
WORKFLOW_FANOUT = 16
EXECUTOR_PHASES = EXECUTING_PHASES
ASK_THE_USER = "ask the user to run it in their own terminal"


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


def parse_time(value: "Any") -> float | None:
    if not isinstance(value, str) or not value:
        return None
    seconds = utc_seconds(value)  # the form the run state writes, without datetime
    if seconds is not None:
        return seconds
    from datetime import datetime  # only dispatch and lock rules need clock parsing

    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


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
                f"`{snippet}` can write ({part.why}) and {_verdict_text(ctx)}; "
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


def _run_state_anywhere(path: str) -> str | None:
    """The `.zcode/state|reviews|verify` in `path`, in whatever repository it lies,
    in any letter case (`.ZCODE/STATE` is run state on a case-insensitive file system)."""
    padded = path.lower() + "/"
    for marker in STATE_DIRS:
        at = padded.find("/" + marker + "/")
        if at >= 0:
            return path[: at + 1 + len(marker)]
    return None


_state_anywhere = _run_state_anywhere


def _config_file(path: str, ctx: "RunContext") -> str | None:
    """The configuration file (at the repository root) `path` is, or holds."""
    from zodyssey.core.vocabulary import CONFIG_FILES

    lowered = path.lower()
    for name in CONFIG_FILES:
        location = os.path.join(ctx.root, name).lower()
        if lowered == location or (within(location, lowered) and lowered != ctx.root.lower()):
            return name
    return None


def _lexical(path: str, cwd: str, home: str) -> str:
    if path == "~" or path.startswith("~/"):
        path = home + path[1:]
    return os.path.normpath(os.path.join(cwd, path))


def _protected(path: str, ctx: "RunContext") -> "Decision | None":
    layout = ctx.layout
    where = layout.run_state(path) or _run_state_anywhere(path)
    if where is not None:
        return _block(
            "run-state",
            f"{layout.show(path)} is run state ({layout.show(where)}/): only the trusted "
            "`zodyssey run ...` commands write it, in every phase",
        )
    config = _config_file(path, ctx)
    if config is not None:
        return _block(
            "gate-config",
            f"{config} holds the gate's configuration ([tool.zodyssey]); it is not writable "
            "during a run, whatever the plan declares (a person changes it and re-reviews)",
        )
    gate = layout.gate(path)
    if gate is not None:
        return _block(
            "gate-itself",
            f"{layout.show(path)} is part of the installed gate ({layout.show(gate)}); it is not writable during a run",
        )
    return None


def _rounds(ctx: "RunContext") -> tuple[int, int]:
    """(review round, max rounds); a value that is not a whole number counts as the cap."""
    review = ctx.review
    max_rounds = review.get("max_rounds", DEFAULT_MAX_ROUNDS)
    if not isinstance(max_rounds, int) or isinstance(max_rounds, bool) or max_rounds < 1:
        max_rounds = DEFAULT_MAX_ROUNDS
    round_ = review.get("round", 0)
    if not isinstance(round_, int) or isinstance(round_, bool):
        round_ = max_rounds  # unreadable: fail closed at the cap
    return round_, max_rounds


def _verdict_text(ctx: "RunContext") -> str:
    round_, max_rounds = _rounds(ctx)
    verdict = ctx.verdict or "none yet"
    return f"the review verdict is {verdict} (round {round_}/{max_rounds})"


def _blocked_run(ctx: "RunContext", what: str) -> "Decision":
    round_, max_rounds = _rounds(ctx)
    return _block(
        "run-blocked",
        f"{what}: run {ctx.slug} is blocked (review round {round_}/{max_rounds}); a person "
        f"decides how it goes on: {ASK_THE_USER} (`zodyssey run review {ctx.slug} --human "
        f"OKAY|REJECT --by NAME`, or `zodyssey run phase {ctx.slug} abandoned --reason ...`)",
    )


def _review_gate(ctx: "RunContext", shown: str) -> "Decision":
    settings_reviewer = ctx.settings().reviewer_agent
    return _block(
        "review-gate",
        f"writing {shown} is product code and {_verdict_text(ctx)}; finish the plan in "
        f"{PLANS}/{ctx.slug}.md and get an OKAY {_approvals(ctx, settings_reviewer)}",
    )


def _targets(call: "ToolCall", ctx: "RunContext", targets: "tuple[Target, ...]") -> "Decision":
    """The rules for writing `targets`, in order; the first that blocks decides."""
    resolved = _resolved(call, ctx, targets)
    # 1. run state and gate
    for path, _ in resolved:
        blocked = _protected(path, ctx)
        if blocked:
            return blocked
    # 2. bookkeeping
    product = _bookkeeping(ctx, resolved)
    if isinstance(product, Decision):
        return product
    if not product:
        return ALLOW
    # 3.-6. product code
    for rule in _PRODUCT_RULES:
        decision = rule(ctx, product)
        if decision is not None:
            return decision
    # 7. file locks
    return _locks(call, ctx, product)


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


def _bookkeeping(ctx: "RunContext", resolved: "list[tuple[str, Target]]") -> "Decision | list[str]":
    """The plan (frozen after OKAY) and the notepads (append-only); what is left is product code."""
    layout = ctx.layout
    okay = ctx.verdict == "OKAY"
    reviewing = not okay and _review_pending(ctx)
    product: list[str] = []
    plan_path: str | None = None
    for path, target in resolved:
        area = layout.bookkeeping(path)
        if _instruction_file(path, ctx):
            return _block(
                "instruction-file",
                f"{layout.show(path)} is an instruction file a client loads into an agent "
                "reading that folder (the reviewer among them): not writable under .zcode/ "
                "or beside the plan",
            )
        if okay or reviewing:
            if plan_path is None:
                plan_path = ctx.plan().path
            if plan_path and (within(plan_path, path) or _same_file(path, plan_path)):
                return _block(
                    "plan-frozen",
                    f"the plan {layout.show(plan_path)} is frozen "
                    + (
                        "while the reviewer reads it (from its dispatch to its answer): the "
                        "verdict binds the plan it was sent"
                        if reviewing
                        else "since the review said OKAY; a changed plan needs a new review "
                        "round (`zodyssey run` re-opens review)"
                    ),
                )
        if area is None:
            if not okay and path == ctx.plan().path:
                continue  # the run's plan, wherever plan_path puts it: writable until OKAY
            product.append(path)
            continue
        if area == layout.notepads_dir and not target.append and ctx.exists(path):
            return _block(
                "notepad-append-only",
                f"{layout.show(path)} is a notepad: append to it (>> or an Edit that keeps the "
                "old text), do not overwrite or delete it",
            )
    return product


def _hard_link_rule(ctx: "RunContext", product: "list[str]") -> "Decision | None":
    linked = _hard_linked(product)
    if linked is None:
        return None
    return _block(
        "hard-link",
        f"{ctx.layout.show(linked)} has more than one hard link: a write to it also writes "
        "the other names, which the gate cannot judge; remove the extra link first",
    )


def _blocked_rule(ctx: "RunContext", product: "list[str]") -> "Decision | None":
    """A blocked run is closed whatever its verdict says."""
    if ctx.phase != BLOCKED:
        return None
    return _blocked_run(ctx, f"writing {ctx.layout.show(product[0])} is product code")


def _frozen_tests_rule(ctx: "RunContext", product: "list[str]") -> "Decision | None":
    """3. tests frozen in verify/final"""
    if ctx.phase not in TEST_FROZEN_PHASES:
        return None
    for path in product:
        rel = relative(path, ctx.root)
        if rel is not None and is_test_file(rel):
            return _block(
                "tests-frozen",
                f"{rel} is a test file and tests are frozen in phase {ctx.phase}; "
                "a failing criterion is fixed in product code, or the run goes back to remediate",
            )
    return None


def _review_rule(ctx: "RunContext", product: "list[str]") -> "Decision | None":
    """4. review gate"""
    if ctx.verdict == "OKAY":
        return None
    return _review_gate(ctx, ctx.layout.show(product[0]))


def _plan_tamper_rule(ctx: "RunContext", product: "list[str]") -> "Decision | None":
    """5. plan tamper: the plan must be the one the review bound."""
    plan = ctx.plan()
    expected = ctx.review.get("plan_sha256")
    if plan.text is None:
        return _block("plan-unreadable", f"{plan.error}; an unreadable plan grants nothing")
    if not isinstance(expected, str) or not expected:
        return _block(
            "plan-tamper", "the review is OKAY but binds no plan_sha256; re-run the review"
        )
    if plan.sha256 != expected:
        return _block(
            "plan-tamper",
            f"the plan {ctx.layout.show(plan.path)} changed after review: expected sha256 "
            f"{expected[:12]}, actual {(plan.sha256 or '')[:12]}; restore the reviewed plan or "
            "send it back to review",
        )
    return None


def _scope_rule(ctx: "RunContext", product: "list[str]") -> "Decision | None":
    """6. scope"""
    plan = ctx.plan()
    if plan.error:
        return _block("scope", f"{plan.error}; nothing is in scope")
    outside = [p for p in product if not _in_scope(p, plan.files, plan.dirs, ctx.root)]
    if not outside:
        return None
    shown = ", ".join(ctx.layout.show(p) for p in outside[:5])
    return _block(
        "scope",
        f"{shown} {'is' if len(outside) == 1 else 'are'} outside the plan's scope; only files "
        "listed under a todo's Files: (or inside a listed dir/) may be written",
    )


# The rules for product code after the bookkeeping, in order.
_PRODUCT_RULES = (
    _hard_link_rule,
    _blocked_rule,
    _frozen_tests_rule,
    _review_rule,
    _plan_tamper_rule,
    _scope_rule,
)


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


def _same_file(path: str, other: str) -> bool:
    """`path` is another name (a hard link) of the file `other`."""
    try:
        return path != other and os.path.samefile(path, other)
    except OSError:
        return False


def _hard_linked(paths: list[str]) -> str | None:
    """The first existing regular file among `paths` with more than one link."""
    import stat

    for path in paths:
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
            return path
    return None


def _in_scope(path: str, files: frozenset[str], dirs: frozenset[str], root: str) -> bool:
    if "/.git/" in path + "/" or path.rsplit("/", 1)[-1] == "HEAD":
        # Git metadata is never product code: a `.git` (directory or gitfile),
        # or the HEAD that marks a bare repository, written inside a declared
        # directory would make later "read-only" git commands there read a
        # config that runs programs (core.fsmonitor, diff.external).
        return False
    if path in files:
        return True
    if not within(path, root):
        # Outside the repository only an exact declaration counts: a declared
        # `../shared/` or `/` would otherwise hand out whole foreign trees.
        return False
    return any(within(path, d) for d in dirs)


in_scope = _in_scope  # the scope rule, for the post-call check (zodyssey/sandbox/violations.py)


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
    round_, max_rounds = _rounds(ctx)
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
    frozen_plan = ctx.plan().path if ctx.verdict == "OKAY" else None
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
        where = _points_into(path, layout.state_dirs, ctx.root) or _state_anywhere(path)
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


def _approvals(ctx: "RunContext", reviewer: str) -> str:
    """The two ways a plan is approved, as a block reason names them."""
    return (
        f"from the reviewer ({reviewer}) first, or ask the user to approve the plan in their "
        f"own terminal (`zodyssey run review {ctx.slug} --human OKAY --by NAME`)"
    )


# Tools that send a message to a running agent (Claude Code's SendMessage).
MESSAGE_TOOLS = frozenset(("SendMessage", "send_message"))
# Files clients load into an agent that reads their folder (memory, rules).
INSTRUCTION_FILES = frozenset(
    (
        "claude.md",
        "claude.local.md",
        "agents.md",
        "agents.override.md",
        "agent.md",
        "gemini.md",
        ".cursorrules",
        ".windsurfrules",
        ".clinerules",
        ".goosehints",
        "copilot-instructions.md",
    )
)


def _review_pending(ctx: "RunContext") -> bool:
    """A reviewer dispatch is out and not yet reported (nor expired)."""
    pending = ctx.review.get("pending_dispatch")
    if not isinstance(pending, dict):
        return False
    at = parse_time(pending.get("at"))
    return at is None or ctx.now - at < DISPATCH_TTL_SECONDS


def _instruction_file(path: str, ctx: "RunContext") -> bool:
    """An instruction file under `.zcode/` (any case) or in the plan's folder."""
    name = os.path.basename(path).lower()
    if name not in INSTRUCTION_FILES:
        return False
    rel = os.path.relpath(path, ctx.root)
    if not rel.startswith("..") and ".zcode" in rel.lower().split(os.sep):
        return True
    plan = ctx.plan().path
    return bool(plan) and os.path.dirname(path) == os.path.dirname(plan)
