"""check-anchors on hostile lock files and report destinations."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

from tests.helpers import DEEP_JSON, assert_one_line_error, make_repo, run_zodyssey


def _repo(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "repo", commit=False)
    assert run_zodyssey("init", cwd=root).returncode == 0
    return root


def test_deeply_nested_lock_is_exit_2(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    (root / "anchors" / "anchors.lock.json").write_text(DEEP_JSON)
    for extra in ([], ["--update"]):
        done = run_zodyssey("anchors", "check", *extra, cwd=root)
        assert_one_line_error(done, 2)
        assert "nested too deeply" in done.stderr


def test_report_file_written_from_a_terminal_has_no_colour(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    (root / "docs" / "extra.md").write_text("See `nowhere.py:3`.\n")
    report = tmp_path / "report.txt"
    # A real pseudo-terminal on stdout: colour is allowed there, never in the file.
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.chdir(root)
        os.execv(
            sys.executable,
            [sys.executable, "-m", "zodyssey", "anchors", "check", "-o", str(report)],
        )
    while True:
        try:
            if not os.read(fd, 1024):
                break
        except OSError:
            break
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 9
    text = report.read_text()
    assert "unresolved" in text
    assert "\x1b[" not in text


def test_no_colour_when_not_a_terminal(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    (root / "docs" / "extra.md").write_text("See `nowhere.py:3`.\n")
    done = subprocess.run(
        [sys.executable, "-m", "zodyssey", "anchors", "check"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 9
    assert "\x1b[" not in done.stdout
