"""Exit codes shared by every command (documented in docs/ci.md and each --help)."""

EXIT_OK = 0
EXIT_FINDINGS = 1  # audit: findings fail the run
EXIT_USAGE = 2  # bad arguments, unreadable configuration, lock or state
EXIT_MISSING = 3  # audit: artifacts missing or unreadable
EXIT_EMPTY = 4  # nothing discovered (zero citations, zero claims)
EXIT_LINT = 6  # plan lint problems
EXIT_PROBLEMS = 9  # citation or claim problems found
EXIT_REFUSED = 10  # refused: re-running a criterion on an unchanged failing tree
EXIT_REFUSED_STATE = 11  # refused: the run state does not allow this step
