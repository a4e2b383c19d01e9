"""Fixtures for the gate tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from gate_helpers import RunRepo, make_run_repo


@pytest.fixture
def run_repo(tmp_path: Path) -> Callable[..., RunRepo]:
    def factory(**kwargs: Any) -> RunRepo:
        return make_run_repo(tmp_path, **kwargs)

    return factory


# The policy tests' repository fixture, for the other policy-level test files.
from test_gate_policy import root  # noqa: E402, F401
