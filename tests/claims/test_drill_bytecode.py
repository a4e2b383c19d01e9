"""Where the drill's bytecode store is and what it covers
(zodyssey/claims/drill_bytecode.py; the drills that use it: invariants/test_deletion_drill.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from zodyssey.claims.drill_bytecode import STORE_ENV, interpreter_dirs, store_dir


def test_store_location(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    monkeypatch.delenv(STORE_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    found = store_dir(root)
    assert found is not None and found.is_dir()
    assert found.parent == tmp_path / "xdg" / "zodyssey" / "drill-bytecode"
    # One folder per interpreter.
    monkeypatch.setenv(STORE_ENV, str(tmp_path / "given"))
    given = store_dir(root)
    assert given is not None and given.parent == tmp_path / "given" and given.name == found.name
    # Empty: no store; inside the drilled tree: none either (the tree is never written).
    monkeypatch.setenv(STORE_ENV, "")
    assert store_dir(root) is None
    monkeypatch.setenv(STORE_ENV, str(root / ".cache"))
    assert store_dir(root) is None and not (root / ".cache").exists()


def test_interpreter_dirs_hold_the_standard_library_and_pytest() -> None:
    dirs = interpreter_dirs()
    assert any(Path(os.__file__).resolve().is_relative_to(os.path.realpath(d)) for d in dirs)
    assert any(Path(pytest.__file__).resolve().is_relative_to(os.path.realpath(d)) for d in dirs)
    for d in dirs:
        assert not any(d != o and d.startswith(o.rstrip("/") + "/") for o in dirs), dirs
