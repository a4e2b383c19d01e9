"""Fixtures for the citation lock tests (helpers live in tests/helpers/anchors.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.anchors import SOURCE, make_repo


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository with one 30-line source file and an empty docs folder."""
    return make_repo(tmp_path / "repo", {"src/app.py": SOURCE, "docs/.keep": ""})
