"""Where the drill's scratch directory goes (zodyssey/claims/drill.py::scratch_parent;
a real drill in it: invariants/test_deletion_drill.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from zodyssey.claims import drill
from zodyssey.claims.drill import SCRATCH_ENV, scratch_parent


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "a.py").write_text("x = 1\n" * 100)
    return root


def test_given_folder_wins(tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SCRATCH_ENV, str(tmp_path / "given"))
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    assert scratch_parent(tree, 2) == str(tmp_path / "given")


def test_tmpdir_is_honoured(tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(SCRATCH_ENV, raising=False)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    assert scratch_parent(tree, 2) is None  # tempfile's own choice: TMPDIR


@pytest.mark.skipif(not os.access("/dev/shm", os.W_OK), reason="no writable /dev/shm")
def test_memory_folder_only_with_ample_room(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(SCRATCH_ENV, raising=False)
    monkeypatch.delenv("TMPDIR", raising=False)
    stat = os.statvfs("/dev/shm")
    free = stat.f_bavail * stat.f_frsize
    if free < 1 << 30:
        assert scratch_parent(tree, 2) is None
        return
    assert scratch_parent(tree, 2) == "/dev/shm"
    monkeypatch.setattr(drill, "_MEMORY_FLOOR", free + (1 << 30))
    assert scratch_parent(tree, 2) is None
