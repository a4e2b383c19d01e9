"""`scripts/complexity.py`, the package-wide complexity check of `nox -s lint`."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from tests.helpers import REPO_ROOT, write

SCRIPT = REPO_ROOT / "scripts" / "complexity.py"


def _branchy(name: str, branches: int) -> str:
    body = "".join(f"    if x == {n}:\n        return {n}\n" for n in range(branches))
    return f"def {name}(x):\n{body}    return -1\n"


def _run(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(root)], capture_output=True, text=True, check=False
    )


def test_a_package_within_the_bar_passes(tmp_path: Path) -> None:
    write(tmp_path, "pkg/a.py", "".join(_branchy(f"f{n}", 2) for n in range(20)))
    done = _run(tmp_path / "pkg")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "20 functions, 0 at CC >= 11" in done.stdout


def test_a_package_worse_than_the_ratchet_fails_naming_the_function(tmp_path: Path) -> None:
    write(tmp_path, "pkg/a.py", _branchy("tangle", 30) + _branchy("fine", 1))
    write(tmp_path, "pkg/b.py", "class C:\n" + textwrap.indent(_branchy("method", 12), "    "))
    done = _run(tmp_path / "pkg")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "CC  31" in done.stdout and "a.py:1 tangle" in done.stdout
    assert "3 functions, 2 at CC >= 11" in done.stdout  # methods count, classes do not


def test_nothing_to_measure_is_not_a_pass(tmp_path: Path) -> None:
    write(tmp_path, "pkg/a.py", "X = 1\n")
    assert _run(tmp_path / "pkg").returncode == 2


def test_the_package_holds_its_ratchet() -> None:
    done = _run(REPO_ROOT / "zodyssey")
    assert done.returncode == 0, done.stdout + done.stderr
