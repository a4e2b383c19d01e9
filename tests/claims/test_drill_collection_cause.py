"""`claims check` says why a test module could not be collected (issue 25, "also")."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import make_repo, run_zodyssey

README = "# demo\n\nThe value is ten. <!-- claim: ten -->\n"
TESTS = """import pytest

from helpers_that_do_not_exist import TEN


@pytest.mark.claim("ten")
def test_ten():
    assert TEN == 10
"""


def test_import_error_in_a_test_module_shows_its_cause(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "repo",
        {
            "README.md": README,
            "pyproject.toml": '[tool.pytest.ini_options]\ntestpaths = ["checks"]\n',
            "checks/test_ten.py": TESTS.replace(
                "from helpers_that_do_not_exist import TEN\n", "TEN = 10\n"
            ),
        },
    )
    assert run_zodyssey("claims", "update", cwd=root).returncode == 0
    (root / "checks/test_ten.py").write_text(TESTS)
    done = run_zodyssey("claims", "check", "--json", cwd=root)
    assert done.returncode == 9, done.stdout + done.stderr
    findings = json.loads(done.stdout)["findings"]
    errors = [f for f in findings if f["rule"] == "collection-error"]
    assert len(errors) == 1
    assert "No module named 'helpers_that_do_not_exist'" in errors[0]["message"]
    missing = [f for f in findings if f["rule"] == "missing-test"]
    assert missing and all("could not be collected: " in f["message"] for f in missing)
    assert "helpers_that_do_not_exist" in missing[0]["extra"]["cause"]
    # The test was neither deleted nor unmarked: no advice to mark one, and no
    # "no longer exists" (issue 36: eleven such lines on `pip install .`).
    uncovered = [f for f in findings if f["rule"] == "uncovered"]
    assert len(uncovered) == 1
    assert "mark one" not in uncovered[0]["message"]
    assert "could not be collected" in uncovered[0]["message"]
    assert "install what" in uncovered[0]["message"]
    assert not any("no longer exists" in f["message"] for f in missing)
    text = run_zodyssey("claims", "check", cwd=root)
    assert "ModuleNotFoundError: No module named 'helpers_that_do_not_exist'" in text.stdout
