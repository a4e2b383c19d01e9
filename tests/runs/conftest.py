"""Fixtures for the runs tests; helpers live in tests/helpers/runs.py."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers.runs import PLAN, Repo, make_repo


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return make_repo(tmp_path / "repo")


@pytest.fixture
def started(repo: Repo) -> Repo:
    """A repo with run `demo` started from PLAN."""
    plan = repo.root.parent / "plan.md"
    plan.write_text(PLAN, encoding="utf-8")
    result = repo.run("start", "demo", "--plan", str(plan))
    assert result.code == 0, result.text
    return repo


@pytest.fixture
def approved(started: Repo) -> Repo:
    started.approve()
    return started


@pytest.fixture
def repo_factory(tmp_path: Path) -> Callable[[str], Repo]:
    return lambda name: make_repo(tmp_path / name)
