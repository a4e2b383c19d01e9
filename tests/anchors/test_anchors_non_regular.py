"""A FIFO, socket or device where a document or the lock belongs: one error, never a hang (issue 26, 8).

Reading a FIFO waits for a writer forever; a device feeds the reader
anything. Every document and lock reader of the citation lock opens through
`zodyssey.core.files.open_regular`, which checks what it opened.
"""

from __future__ import annotations

import os
import signal
import socket
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.helpers import run_zodyssey
from tests.helpers.anchors import SOURCE, commit, make_repo, run_cli, write

LOCK = "anchors/anchors.lock.json"


def check(root: Path, *args: str) -> tuple[int, str, str]:
    # A short timeout: a reader blocked on a FIFO fails the test instead of stalling it.
    done = run_zodyssey(
        "anchors", "check", "--root", str(root), *args, cwd=root, env={"NO_COLOR": "1"}, timeout=60
    )
    return done.returncode, done.stdout, done.stderr


@contextmanager
def no_hang(seconds: int = 10) -> Iterator[None]:
    """Fail (rather than block the suite) when the body waits on a FIFO."""

    def expire(signum: int, frame: object) -> None:
        raise TimeoutError("blocked reading a FIFO")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"src/a.py": SOURCE, "docs/a.md": "See src/a.py:3.\n"})


def make_socket(path: Path) -> None:
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(path))
    finally:
        sock.close()


def make_device(path: Path) -> None:
    try:
        os.mknod(path, stat.S_IFCHR | 0o644, os.makedev(1, 3))  # what /dev/null is
    except PermissionError:
        pytest.skip("creating a device node needs root")


MAKERS = {"fifo": os.mkfifo, "socket": make_socket, "device": make_device}


@pytest.mark.parametrize("kind", sorted(MAKERS))
def test_a_document_that_is_not_a_regular_file_is_one_error(root: Path, kind: str) -> None:
    assert run_cli(root, "--update").returncode == 0
    MAKERS[kind](root / "docs" / "guide.md")
    code, out, err = check(root)
    assert code == 2, out + err
    assert "docs/guide.md (not a regular file" in err
    assert "Traceback" not in err
    assert out == ""


def test_a_fifo_that_is_no_document_is_left_alone(root: Path) -> None:
    assert run_cli(root, "--update").returncode == 0
    os.mkfifo(root / "src" / "pipe.py")
    os.mkfifo(root / "docs" / "notes.txt")  # not matched by `documents`
    code, out, err = check(root)
    assert code == 0, out + err


def test_a_document_replaced_by_a_fifo_after_the_walk_is_refused(root: Path) -> None:
    # The walk saw a regular file; what the reader opens is checked again.
    from zodyssey.anchors.discover import read_document, read_document_text
    from zodyssey.core.files import NotRegularFile

    (root / "docs/a.md").unlink()
    os.mkfifo(root / "docs/a.md")
    with no_hang():
        with pytest.raises(NotRegularFile, match="a FIFO"):
            read_document_text(root, "docs/a.md")
        assert read_document(root, "docs/a.md") is None


def test_a_left_out_tracked_document_turned_fifo_does_not_block_the_check(root: Path) -> None:
    # A stale pin makes the check look for who still writes it, in left-out
    # documents too (git ls-files lists a tracked path whatever it is now).
    write(root, "docs/guide.markdown", "See src/a.py:5.\n")
    write(root, "docs/a.md", "See src/a.py:3 and src/a.py:5.\n")
    assert run_cli(root, "--update").returncode == 0
    write(root, "docs/a.md", "See src/a.py:3.\n")
    commit(root, "guide")
    (root / "docs/guide.markdown").unlink()
    os.mkfifo(root / "docs/guide.markdown")
    code, out, err = check(root)
    assert code == 0, out + err
    assert "Traceback" not in err


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_lock_through_a_symlink_to_a_non_file_is_refused(root: Path, kind: str) -> None:
    (root / "anchors").mkdir()
    MAKERS[kind](root / "anchors" / "target")
    (root / LOCK).symlink_to("target")
    code, out, err = check(root)
    assert code == 2, out + err
    assert "not a regular file" in err and "anchors.lock.json" in err
    assert "Traceback" not in err


def test_read_lock_refuses_a_fifo_without_waiting(root: Path) -> None:
    from zodyssey.anchors.lock import read_lock
    from zodyssey.errors import UsageError

    (root / "anchors").mkdir()
    os.mkfifo(root / LOCK)
    with no_hang(), pytest.raises(UsageError, match="a FIFO"):
        read_lock(root / LOCK)


def test_a_long_document_is_read_whole(root: Path) -> None:
    # Read in chunks from the descriptor: a citation past the first chunks still counts.
    filler = "Prose without any citation at all, only words.\n" * 6000  # about 290 kB
    write(root, "docs/a.md", filler + "See src/a.py:3.\n" + filler + "And src/a.py:7.\n")
    assert run_cli(root, "--update").returncode == 0
    write(root, "src/a.py", SOURCE.replace("return 7\n", "return 77\n"))
    code, out, err = check(root)
    assert code == 9, out + err
    assert "src/a.py:7" in out and "docs/a.md:12002" in out
