"""A FIFO or device where a claims file belongs: one clear error, exit 2, never a hang.

Issue 26, item 8, for claims/: the results files of `claims check --results`,
the ledger and the drill cache are read through `zodyssey.core.files`
(`open_regular`), which opens without blocking and checks what it opened. The
FIFOs here are real named pipes nobody writes: a reader that opens one blocks
until the subprocess timeout fails the test.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.claims.test_drill_cli import repo
from tests.helpers import assert_one_line_error, fifo_at, run_zodyssey

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
TIMEOUT = 60
LEDGER = "invariants/claims.lock.json"
CACHE = "invariants/claims.drill.json"


def _refused(done: subprocess.CompletedProcess[str], name: str, what: str) -> None:
    assert_one_line_error(done, 2)
    assert "not a regular file" in done.stderr, done.stderr
    assert name in done.stderr and what in done.stderr, done.stderr


def test_a_fifo_results_file_is_refused(tmp_path: Path) -> None:
    root = repo(tmp_path)
    fifo = fifo_at(tmp_path / "shard.json")
    done = run_zodyssey("claims", "check", "--results", str(fifo), cwd=root, timeout=TIMEOUT)
    _refused(done, "shard.json", "FIFO")


def test_a_symlink_to_a_fifo_results_file_is_refused(tmp_path: Path) -> None:
    root = repo(tmp_path)
    fifo = fifo_at(tmp_path / "pipe")
    link = tmp_path / "shard.json"
    link.symlink_to(fifo)
    done = run_zodyssey("claims", "check", "--results", str(link), cwd=root, timeout=TIMEOUT)
    _refused(done, "shard.json", "FIFO")


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="no /dev/null")
def test_a_device_results_file_is_refused(tmp_path: Path) -> None:
    root = repo(tmp_path)
    done = run_zodyssey("claims", "check", "--results", "/dev/null", cwd=root, timeout=TIMEOUT)
    _refused(done, "/dev/null", "character device")


@pytest.mark.parametrize("verb", [("check",), ("update",), ("drill",)])
def test_a_fifo_ledger_is_refused_by_every_reader(tmp_path: Path, verb: tuple[str, ...]) -> None:
    root = repo(tmp_path)
    fifo_at(root / LEDGER)
    done = run_zodyssey("claims", *verb, cwd=root, timeout=TIMEOUT)
    _refused(done, "claims.lock.json", "FIFO")


def test_a_fifo_drill_cache_is_refused(tmp_path: Path) -> None:
    root = repo(tmp_path)
    fifo_at(root / CACHE)
    done = run_zodyssey("claims", "drill", cwd=root, timeout=TIMEOUT)
    _refused(done, "claims.drill.json", "FIFO")
    assert (root / CACHE).is_fifo()  # not replaced by a regular file either


def test_a_fifo_given_as_drill_cache_is_refused(tmp_path: Path) -> None:
    root = repo(tmp_path)
    fifo_at(root / "elsewhere.json")
    done = run_zodyssey("claims", "drill", "--cache", "elsewhere.json", cwd=root, timeout=TIMEOUT)
    _refused(done, "elsewhere.json", "FIFO")


def test_a_fifo_as_the_claims_code_is_named_not_waited_on(tmp_path: Path) -> None:
    root = repo(tmp_path)
    fifo_at(root / "pkg/num.py")
    done = run_zodyssey("claims", "drill", "--no-cache", cwd=root, timeout=TIMEOUT)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 9, done.stdout + done.stderr  # the claim's code is bad
    assert "bad-code" in done.stdout and "pkg/num.py" in done.stdout, done.stdout
    assert "FIFO" in done.stdout and "not a regular file" in done.stdout, done.stdout


def test_a_fifo_as_claims_json_output_is_a_usage_error(tmp_path: Path) -> None:
    """How this could pass while broken: the atomic writer renames a new file over the
    FIFO (nothing hangs, but whoever reads the pipe never gets the matrix) and exit 0."""
    (tmp_path / "test_one.py").write_text("def test_one():\n    pass\n", encoding="utf-8")
    out = fifo_at(tmp_path / "out" / "claims.json")
    done = subprocess.run(
        [
            *(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"),
            "--claims-json",
            str(out),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert done.returncode == 4, done.stdout + done.stderr  # pytest's usage error
    assert "not a regular file" in done.stderr and "--claims-json" in done.stderr, done.stderr
    assert out.is_fifo()  # left as it was
