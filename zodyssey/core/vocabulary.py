"""The words every part of zodyssey uses for run state: one place, no heavy imports.

The gate hook imports this on every tool call that meets a run, so it loads
nothing but `os` (no `re`, `typing`, `pathlib` or `__future__`): the slug rule
is a character set, the paths are strings.

Phases (docs/runs.md explains each):
- ACTIVE: every phase but the terminal ones; the gate guards the run.
- `blocked` is active and CLOSED: the review round cap was reached (or a
  person parked the run). Product writes and reviewer dispatches are refused,
  the agent's `zodyssey run` commands cannot move it on; a person decides
  (`run review --human`, `run phase ... --reason`).
- TERMINAL (`done`, `audited`, `abandoned`): the run is over, the gate is off.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

ZCODE = ".zcode"
STATE = ".zcode/state"
PLANS = ".zcode/plans"
REVIEWS = ".zcode/reviews"
VERIFY = ".zcode/verify"
NOTEPADS = ".zcode/notepads"
STAGING = ".zcode/staging"
ARCHIVE = ".zcode/archive"
# Only `zodyssey run ...` writes these; the gate never lets an agent's tool do it.
STATE_DIRS = (STATE, REVIEWS, VERIFY)
# The agent's own bookkeeping: writable (notepads append-only, the plan until OKAY).
BOOKKEEPING_DIRS = (PLANS, NOTEPADS, STAGING)

PHASES = (
    "plan",
    "consult",
    "review",
    "execute",
    "verify",
    "final",
    "remediate",
    "done",
    "audited",
    "abandoned",
    "blocked",
)
TERMINAL_PHASES = frozenset({"done", "audited", "abandoned"})
BLOCKED = "blocked"
# Phases in which the agent's run commands record nothing more.
HALTED_PHASES = TERMINAL_PHASES | {BLOCKED}
# Phases that only make sense once review said OKAY (the plan is bound).
EXECUTING_PHASES = frozenset({"execute", "verify", "final", "remediate"})
# Test files are frozen while the acceptance criteria are being checked.
TEST_FROZEN_PHASES = frozenset({"verify", "final"})
DEFAULT_MAX_ROUNDS = 3
# Phases a run reaches by finishing its work (the audit judges their claim).
COMPLETED_PHASES = frozenset({"done", "audited"})

# The moves of `zodyssey run phase`, as data: what a move to each phase needs.
#   reason    a --reason (or --note) saying why
#   only_from the phases the run may come from (absent: any)
#   not_from  phases the run may not come from
#   plan      the plan bound by an OKAY review; from a halted phase the run
#             goes back through review first (leaving it drops the verdict)
#   complete  every plan todo done and every blocking check passed; --force
#             (with --reason) overrides these, and only these
#   person    only a person makes this move (the gate refuses the agent's)
PHASE_MOVES: "dict[str, dict[str, Any]]" = {
    "plan": {},
    "consult": {},
    "review": {},
    "execute": {"plan": True},
    "verify": {"plan": True},
    "final": {"plan": True},
    "remediate": {"plan": True},
    "done": {"plan": True, "complete": True},
    "audited": {"only_from": frozenset({"done"}), "person": True},
    "abandoned": {"reason": True, "not_from": COMPLETED_PHASES, "person": True},
    "blocked": {"reason": True, "not_from": COMPLETED_PHASES, "person": True},
}
PERSON_PHASES = frozenset(phase for phase, move in PHASE_MOVES.items() if move.get("person"))

TODO_STATUSES = ("pending", "in_flight", "done", "failed", "blocked")
# A todo is `blocked` by a person; the agent's `zodyssey run todo` sets the others.
AGENT_TODO_STATUSES = frozenset(TODO_STATUSES) - {"blocked"}

# The configuration that decides what the gate allows (`[tool.zodyssey]`).
# During a run it is gate state: no tool writes these files (at the root),
# and the gate refuses every write once it differs from what `run start` hashed.
CONFIG_FILES = (".zodyssey.toml", "pyproject.toml")
# State field: {"sha256": digest of the configuration at run start (or at a
# person's re-review), "source": the file it came from or ""}.
GATE_CONFIG = "gate_config"

# `prev` of the first evidence record.
GENESIS_HASH = "0" * 64

SLUG_PATTERN = r"^[a-z0-9][a-z0-9-]*\Z"  # for `re` users; is_slug() is the same rule
_SLUG_FIRST = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
_SLUG_CHARS = _SLUG_FIRST | {"-"}


def is_slug(name: str) -> bool:
    r"""`^[a-z0-9][a-z0-9-]*\Z` (no trailing newline either), without loading `re`."""
    return bool(name) and name[0] in _SLUG_FIRST and set(name) <= _SLUG_CHARS


def is_active(phase: object) -> bool:
    """A state whose phase is not terminal is guarded (blocked included; unknown too)."""
    return phase not in TERMINAL_PHASES


def move_refusal(current: object, target: str, run: str = "the run") -> str | None:
    """Why the phases alone forbid `run` moving from phase `current` to `target`
    (None: not forbidden by them; the plan and completion rules come after)."""
    move = PHASE_MOVES[target]
    only_from = move.get("only_from")
    if only_from is not None and current not in only_from:
        return f"only a {' or '.join(sorted(only_from))} run can become {target} (phase {current})"
    not_from = move.get("not_from")
    if not_from is not None and current in not_from:
        return f"{run} is {current}; it cannot become {target}"
    if move.get("plan") and current in HALTED_PHASES and target not in HALTED_PHASES:
        return (
            f"leaving terminal phase {current} invalidates the verdict: move to review "
            f"and record a new verdict before {target}"
        )
    return None


def utc_seconds(value: str) -> float | None:
    """Seconds since the epoch of a time in the form the run state writes
    (`2026-01-02T03:04:05.123456Z`, also without the fraction), the same float
    `datetime.fromisoformat(...).timestamp()` gives; None for any other form,
    which the caller hands to `datetime` itself (it costs the hook an import)."""
    if len(value) not in (20, 27) or value[-1] != "Z":
        return None
    if value[4] + value[7] + value[10] + value[13] + value[16] != "--T::":
        return None
    fields = (value[0:4], value[5:7], value[8:10], value[11:13], value[14:16], value[17:19])
    fraction = value[20:26] if len(value) == 27 else "0"
    if len(value) == 27 and value[19] != ".":
        return None
    if not all(f.isascii() and f.isdigit() for f in (*fields, fraction)):
        return None
    year, month, day, hour, minute, second = (int(f) for f in fields)
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    month_days = (31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
    if not (year >= 1 and 1 <= month <= 12 and 1 <= day <= month_days[month - 1]):
        return None
    if hour > 23 or minute > 59 or second > 59:
        return None
    # days since 1970-01-01 (proleptic Gregorian, as datetime counts them)
    y = year - 1
    ordinal = y * 365 + y // 4 - y // 100 + y // 400 + sum(month_days[: month - 1]) + day
    days = ordinal - 719163  # date(1970, 1, 1).toordinal()
    seconds = days * 86400 + hour * 3600 + minute * 60 + second
    return (seconds * 10**6 + int(fraction)) / 10**6  # timedelta.total_seconds()
