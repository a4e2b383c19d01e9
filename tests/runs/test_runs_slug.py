"""A run slug is exactly `[a-z0-9][a-z0-9-]*`: nothing trails it, not even a newline."""

from __future__ import annotations

import re

import pytest

from tests.helpers import make_repo, run_zodyssey
from zodyssey.core.exits import Exit
from zodyssey.core.store import StateError, validate_slug
from zodyssey.core.vocabulary import SLUG_PATTERN, is_slug


@pytest.mark.parametrize("slug", ["demo\n", "demo\r", "Demo", "-demo", "de mo", "", "demo/x"])
def test_bad_slugs_are_refused_everywhere(slug: str) -> None:
    assert not is_slug(slug)
    assert re.match(SLUG_PATTERN, slug) is None
    with pytest.raises(StateError):
        validate_slug(slug)


@pytest.mark.parametrize("slug", ["demo", "a", "0-fix-9"])
def test_good_slugs_pass(slug: str) -> None:
    assert is_slug(slug) and re.match(SLUG_PATTERN, slug) and validate_slug(slug) == slug


def test_run_start_refuses_a_slug_with_a_trailing_newline(tmp_path):
    root = make_repo(tmp_path / "repo", {"README.md": "x\n"})
    plan = tmp_path / "plan.md"
    plan.write_text(
        "# P\n## Todos\n- [ ] 1. A\n  - Files: [`a.py`]\n  - Acceptance criteria:\n    - `true`\n"
    )
    done = run_zodyssey("run", "start", "demo\n", "--plan", str(plan), cwd=root)
    assert done.returncode == Exit.USAGE, done.stdout + done.stderr
    assert not (root / ".zcode" / "state" / "demo\n.json").exists()
