"""`pytest --claims-drill`: the drill of every claim that names code, after the session.

Registered by the claims plugin only when the option is given, never in an
xdist worker (the controller drills once) and never inside a drill's own test
runs. The drill reads and writes the drill cache like `zodyssey claims drill`;
its report is a section of the terminal summary, and a drill that does not
exit 0 fails a session that would otherwise pass (exit 1).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest


class DrillAfterSession:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.text = ""

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        from zodyssey.claims.drill_report import Options, run_drill
        from zodyssey.errors import ZodysseyError
        from zodyssey.formats import render

        given = self.config.getoption("claims_root")
        root = Path(given).resolve() if given else self.config.rootpath
        try:
            report, code = run_drill(root, Options(ids=[], jobs=os.cpu_count() or 1))
        except ZodysseyError as exc:
            self.text = f"claims drill: error: {exc.message}\n"
            code = exc.exit_code
        else:
            self.text = render(report, "text", colour=False)
        if code != 0 and session.exitstatus == 0:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if self.text:
            terminalreporter.section("claims drill")
            terminalreporter.write(self.text)


def register(config: pytest.Config) -> None:
    from zodyssey.claims.drill import DRILL_ENV

    if not config.getoption("claims_drill", False):
        return
    if hasattr(config, "workerinput") or os.environ.get(DRILL_ENV):
        return
    config.pluginmanager.register(DrillAfterSession(config), "zodyssey-claims-drill")
