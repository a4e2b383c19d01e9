"""Quality checks: `[tool.zodyssey.checks]` commands run at verify and at `phase done`.

```toml
[tool.zodyssey.checks.tests]
command = "python -m pytest -q"
on_failure = "block"        # block | warn | skip
timeout = 900               # seconds, optional
```
A plain string (`lint = "ruff check ."`) means `on_failure = "block"`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zodyssey.config import load_config
from zodyssey.errors import UsageError

POLICIES = ("block", "warn", "skip")
TEST_CHECK_NAMES = ("tests", "test")


@dataclass(frozen=True)
class QualityCheck:
    name: str
    command: str
    on_failure: str  # block | warn | skip
    timeout_s: float | None = None


def load_checks(root: Path) -> list[QualityCheck]:
    config = load_config(root)
    table = config.section("checks")
    where = config.source or root
    return [_check(name, value, where) for name, value in table.items()]


def _check(name: str, value: Any, where: Path) -> QualityCheck:
    """One `[tool.zodyssey.checks]` entry: a command string, or a table with `command`."""
    if isinstance(value, str):
        value = {"command": value}
    if not isinstance(value, dict):
        raise UsageError(f"{where}: check `{name}` must be a table with `command`")
    command = value.get("command")
    if not isinstance(command, str) or not command.strip():
        raise UsageError(f"{where}: check `{name}` needs a non-empty `command` string")
    policy = value.get("on_failure", "block")
    if policy not in POLICIES:
        raise UsageError(
            f'{where}: check `{name}`: on_failure must be "block", "warn" or "skip", not {policy!r}'
        )
    return QualityCheck(name, command.strip(), policy, _timeout(value.get("timeout"), name, where))


def _timeout(timeout: Any, name: str, where: Path) -> float | None:
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        raise UsageError(f"{where}: check `{name}`: timeout must be a positive number")
    return float(timeout)


def test_command(checks: list[QualityCheck]) -> str | None:
    """The configured test command (a check named `tests` or `test`), if any."""
    for check in checks:
        if check.name in TEST_CHECK_NAMES and check.on_failure != "skip":
            return check.command
    return None
