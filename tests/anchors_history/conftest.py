"""Real git repositories in tmp_path for the history tests (no mocks of git)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import make_repo
from tests.helpers.history import Repo


@pytest.fixture(autouse=True)
def _git_identity(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    # Neither the tests' commits nor zodyssey's git reads depend on the machine's
    # git configuration (`tests.helpers.git` brings the identity).
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("GIT_DIR", raising=False)
    monkeypatch.delenv("GIT_WORK_TREE", raising=False)
    yield


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(make_repo(tmp_path / "repo", commit=False))
