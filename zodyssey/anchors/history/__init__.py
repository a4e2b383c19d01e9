"""`check-anchors --history`: judge citations from git history, without a lock.

- `report`: the entry points (`history_report`, `seed_lock_from_history`) and
  the report they build;
- `trace`: follows each citation back to the commit that wrote it;
- `compare`: maps a span of an old version onto the current file;
- `plumbing`: the git queries (blame, logs, tree diffs, blob reads), through
  `zodyssey.git`;
- `progress`: the TTY progress bar.
"""

from zodyssey.anchors.history.report import history_report, seed_lock_from_history

__all__ = ["history_report", "seed_lock_from_history"]
