"""Colour follows the conventions: NO_COLOR off, FORCE_COLOR on, else a terminal (issue 36).

Run through the real command into a pipe (not a terminal), where colour is off
unless FORCE_COLOR asks for it, e.g. in a CI log that renders ANSI colours.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import make_repo, run_zodyssey

README = "# Demo\n\nThe gate blocks tee. <!-- claim: tee-blocked -->\n"
ESC = "\033["


@pytest.mark.parametrize(
    ("env", "coloured"),
    [
        ({}, False),
        ({"FORCE_COLOR": "1"}, True),  # fails on the old code: FORCE_COLOR was ignored
        ({"FORCE_COLOR": ""}, False),
        ({"NO_COLOR": "1"}, False),
        ({"FORCE_COLOR": "1", "NO_COLOR": "1"}, False),
    ],
    ids=["pipe", "force", "force-empty", "no-color", "both"],
)
def test_colour_by_environment(tmp_path: Path, env: dict[str, str], coloured: bool) -> None:
    repo = make_repo(
        tmp_path / "repo", {"README.md": README, "tests/test_x.py": "def test_x():\n    pass\n"}
    )
    base = {"NO_COLOR": "", "FORCE_COLOR": ""}
    done = run_zodyssey("claims", "check", cwd=repo, env={**base, **env})
    assert done.returncode == 9, done.stdout + done.stderr  # an uncovered claim: an error line
    assert (ESC in done.stdout) is coloured, done.stdout
