"""Exit codes: the one table every zodyssey command returns from.

`zodyssey --help` prints `MEANINGS` (cli.py builds its epilog from it), and the
"Exit codes" tables of README.md and docs/ci.md give the same codes with the
same meanings (tests/core/test_core_exits.py reads all three). A command's own
`--help` may say more about what a code means for it, never another code.

`Exit` is a class of plain ints rather than an `enum.IntEnum`: the gate hook
raises these errors on its write path, and `enum` (with the `functools`,
`collections` and `operator` it imports) would cost every in-run write more
start-up than all of its other imports together.
"""


class Exit:
    """The exit codes, by name (`Exit.USAGE == 2`)."""

    OK = 0  # success
    FAILED = 1  # what was checked failed: audit findings, a criterion, a window
    USAGE = 2  # bad arguments, unreadable configuration, lock or state
    MISSING = 3  # audit: the run's artifacts are missing or unreadable
    EMPTY = 4  # nothing discovered, nothing to judge: never a pass
    LINT = 6  # plan lint problems
    PROBLEMS = 9  # citation or claim problems found
    REFUSED = 10  # a criterion would re-run on a work tree identical to its last failure
    REFUSED_STATE = 11  # the run state does not allow this step


# (code, what it means for every command), in code order
MEANINGS = (
    (Exit.OK, "success"),
    (
        Exit.FAILED,
        "audit: findings fail the run; run verify: a criterion or blocking check failed; "
        "run window: violated, unknown or the auditor failed",
    ),
    (
        Exit.USAGE,
        "bad arguments, unreadable configuration, lock or state; output that cannot be written",
    ),
    (Exit.MISSING, "audit: run artifacts missing or unreadable"),
    (
        Exit.EMPTY,
        "nothing discovered (zero citations or zero claims); audit: nothing to judge "
        "(no criterion executed)",
    ),
    (Exit.LINT, "plan lint problems"),
    (Exit.PROBLEMS, "citation or claim problems found"),
    (
        Exit.REFUSED,
        "refused: a criterion would re-run on a work tree identical to its last failure",
    ),
    (Exit.REFUSED_STATE, "refused: the run state does not allow this step"),
)

# The audit's verdict -> its exit code (`AuditOutcome.verdict`).
VERDICT_CODES = {"passed": Exit.OK, "failed": Exit.FAILED, "empty": Exit.EMPTY}


def codes() -> "dict[str, int]":
    """Every code by name (`{"OK": 0, ...}`)."""
    return {name: value for name, value in vars(Exit).items() if name.isupper()}
