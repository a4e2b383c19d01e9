"""`zodyssey check --drill` and `pytest --claims-drill` on a real repository."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.helpers import clean_env, make_repo, run_zodyssey

README = "# demo\n\n- `double` doubles (`pkg/num.py:1`). <!-- claim: doubles code=pkg/num.py::double -->\n"
NUM = "def double(x: int) -> int:\n    return 2 * x\n"
CHECKS = """import pytest

from pkg.num import double


@pytest.mark.claim("doubles")
def test_double():
    assert double(4) == 8
"""
WEAK = CHECKS.replace("assert double(4) == 8", "double(4)")
PYPROJECT = '[tool.pytest.ini_options]\ntestpaths = ["checks"]\npythonpath = ["."]\n'


def repo(tmp_path: Path) -> Path:
    root = make_repo(
        tmp_path / "repo",
        {
            "README.md": README,
            "pyproject.toml": PYPROJECT,
            "pkg/__init__.py": "",
            "pkg/num.py": NUM,
            "checks/test_num.py": CHECKS,
        },
    )
    assert run_zodyssey("claims", "update", cwd=root).returncode == 0
    assert run_zodyssey("anchors", "check", "--update", cwd=root).returncode == 0
    return root


def test_check_drill_part(tmp_path: Path) -> None:
    root = repo(tmp_path)
    done = run_zodyssey("check", "--drill", "--json", cwd=root, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    document = json.loads(done.stdout)
    assert document["drill"]["exit_code"] == 0
    assert document["drill"]["report"]["counts"] == {"drilled": 1}
    (root / "checks/test_num.py").write_text(WEAK)
    assert run_zodyssey("claims", "update", cwd=root).returncode == 0
    plain = run_zodyssey("check", cwd=root, timeout=300)
    assert plain.returncode == 0, plain.stdout + plain.stderr
    drilled = run_zodyssey("check", "--drill", cwd=root, timeout=300)
    assert drilled.returncode == 9, drilled.stdout + drilled.stderr
    assert "survived" in drilled.stdout and "drill exit 9" in drilled.stdout
    sarif = json.loads(run_zodyssey("check", "--drill", "--format", "sarif", cwd=root).stdout)
    rules = {r["ruleId"] for run in sarif["runs"] for r in run["results"]}
    assert "drill/survived" in rules


def _pytest(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--claims-drill"],
        cwd=root,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_pytest_claims_drill_after_the_session(tmp_path: Path) -> None:
    root = repo(tmp_path)
    done = _pytest(root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "claims drill" in done.stdout and "drilled       doubles" in done.stdout
    (root / "checks/test_num.py").write_text(WEAK)
    weak = _pytest(root)
    assert weak.returncode == 1, weak.stdout + weak.stderr
    assert "survived" in weak.stdout and "1 passed" in weak.stdout


def test_progress_bar_only_on_a_terminal(tmp_path: Path) -> None:
    import os
    import pty
    import re

    root = repo(tmp_path)
    master, slave = pty.openpty()
    argv = [sys.executable, "-m", "zodyssey", "claims", "drill", "--no-cache", "-j", "1"]
    proc = subprocess.Popen(argv, cwd=root, env=clean_env(), stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the terminal closed: the drill ended
            break
        if not chunk:
            break
        seen += chunk
    out, _ = proc.communicate(timeout=300)
    os.close(master)
    assert proc.returncode == 0, out
    # the bar counts every break, operator mutants included; each is killed
    assert re.search(rb"drill \[#+\] (\d+)/\1 breaks: \1 killed, 0 survived", seen), seen
    # Not a terminal: no bar (the budget cuts the runs; the bar would show before them).
    piped = subprocess.run(
        [*argv, "--budget", "0.001"], cwd=root, env=clean_env(), capture_output=True, timeout=300
    )
    assert piped.returncode == 4, piped.stdout
    assert b"drill [" not in piped.stderr and b"not-judged    doubles" in piped.stdout
