"""Fixtures for the gate tests (builders live in tests/helpers/gate.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.gate import RunRepo, make_run_repo, policy_root


@pytest.fixture
def run_repo(tmp_path: Path) -> Callable[..., RunRepo]:
    def factory(**kwargs: Any) -> RunRepo:
        return make_run_repo(tmp_path, **kwargs)

    return factory


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """The repository the policy-level tests judge."""
    return policy_root(tmp_path)
