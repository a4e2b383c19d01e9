"""A FIFO where a run's file belongs: one clear error, exit 2, never a hang (issue 26, item 8).

Real runs in temporary git repositories; the file is replaced by a real named
pipe (`os.mkfifo`) that nobody writes, so a reader that opens it blocks until
the subprocess timeout fails the test. The shared helper is
`zodyssey.core.files` (open_regular, require_regular_target).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.helpers import REPO_ROOT, assert_one_line_error, fifo_at, run_zodyssey
from tests.helpers.real_runs import approved, plan_of
from tests.helpers.runs import Repo
from zodyssey.core.files import NotRegularFile, open_regular, require_regular_target

PLAN = plan_of("    - `grep -q hello g.txt` exits 0\n")
TIMEOUT = 30


def verified(tmp_path: Path) -> Repo:
    repo = approved(tmp_path, PLAN)
    repo.write("g.txt", "hello\n")
    assert repo.run("verify", "demo", "1").code == 0
    return repo


def zodyssey(repo: Repo, *args: str) -> subprocess.CompletedProcess[str]:
    return run_zodyssey(*args, cwd=REPO_ROOT, timeout=TIMEOUT)


def refused(done: subprocess.CompletedProcess[str], fifo: Path, parts: int = 1) -> None:
    assert_one_line_error(done, 2, parts=parts)
    assert "not a regular file" in done.stderr, done.stderr
    assert str(fifo.name) in done.stderr, done.stderr


@pytest.mark.parametrize(
    "which",
    ["state", "evidence", "plan", "review"],
)
def test_a_fifo_in_the_run_is_refused_by_the_audit(tmp_path: Path, which: str) -> None:
    repo = verified(tmp_path)
    zcode = repo.root / ".zcode"
    place = {
        "state": zcode / "state" / "demo.json",
        "evidence": zcode / "verify" / "demo" / "evidence.jsonl",
        "plan": zcode / "plans" / "demo.md",
        "review": next(
            (zcode / "reviews").glob("demo-r*.json"), zcode / "reviews" / "demo-r1.json"
        ),
    }[which]
    fifo = fifo_at(place)
    done = zodyssey(repo, "audit", "--repo", str(repo.root), "demo", "--format", "json")
    refused(done, fifo)


@pytest.mark.parametrize("which", ["state", "evidence", "plan"])
def test_a_fifo_in_the_run_is_refused_by_run_commands(tmp_path: Path, which: str) -> None:
    repo = verified(tmp_path)
    zcode = repo.root / ".zcode"
    place = {
        "state": zcode / "state" / "demo.json",
        "evidence": zcode / "verify" / "demo" / "evidence.jsonl",
        "plan": zcode / "plans" / "demo.md",
    }[which]
    fifo = fifo_at(place)
    for args in (("status", "demo"), ("verify", "demo", "1"), ("todo", "demo", "1", "done")):
        done = zodyssey(repo, "run", args[0], "--repo", str(repo.root), *args[1:])
        refused(done, fifo)


def test_a_fifo_given_as_the_plan_to_start_is_refused(tmp_path: Path) -> None:
    repo = approved(tmp_path, PLAN)
    fifo = fifo_at(tmp_path / "plan.md")
    done = zodyssey(repo, "run", "start", "--repo", str(repo.root), "other", "--plan", str(fifo))
    refused(done, fifo)


@pytest.mark.parametrize("command", ["audit", "check"])
def test_a_fifo_given_as_the_report_output_is_refused(tmp_path: Path, command: str) -> None:
    repo = verified(tmp_path)
    fifo = fifo_at(tmp_path / "report.json")
    args: tuple[str, ...]
    if command == "audit":
        args = ("audit", "--repo", str(repo.root), "demo", "--format", "json", "-o", str(fifo))
    else:
        args = ("check", "--root", str(repo.root), "--format", "json", "-o", str(fifo))
    done = zodyssey(repo, *args)
    refused(done, fifo, parts=3 if command == "check" else 1)  # check: one line per part
    assert fifo.is_fifo()  # not replaced by a regular file either


def test_the_helper_refuses_without_blocking_and_reads_regular_files(tmp_path: Path) -> None:
    fifo = fifo_at(tmp_path / "pipe")
    with pytest.raises(NotRegularFile) as caught:
        open_regular(fifo, "state")
    assert caught.value.exit_code == 2
    assert "state" in caught.value.message and "FIFO" in caught.value.message
    with pytest.raises(NotRegularFile):
        require_regular_target(fifo, "report")
    with pytest.raises(NotRegularFile):
        open_regular(tmp_path, "plan")  # a directory is not a file either
    regular = tmp_path / "file.txt"
    regular.write_text("text")
    link = tmp_path / "link.txt"
    link.symlink_to(regular)
    fd = open_regular(link, "plan")
    try:
        assert os.read(fd, 10) == b"text"
        assert os.get_blocking(fd)
    finally:
        os.close(fd)
    require_regular_target(tmp_path / "absent", "report")
    with pytest.raises(FileNotFoundError):
        open_regular(tmp_path / "absent", "plan")


def test_a_tracked_file_replaced_by_a_fifo_is_hashed_not_read(tmp_path: Path) -> None:
    """The work-tree snapshots of verify and the audit's staleness digest name a FIFO."""
    repo = verified(tmp_path)
    fifo_at(repo.root / "README.md")  # tracked: git reports it as modified
    done = zodyssey(repo, "run", "verify", "--repo", str(repo.root), "demo", "1")
    assert done.returncode == 0, done.stderr
    audited = zodyssey(repo, "audit", "--repo", str(repo.root), "demo", "--format", "json")
    assert "Traceback" not in audited.stderr, audited.stderr
    assert audited.returncode in (0, 1), audited.stderr
