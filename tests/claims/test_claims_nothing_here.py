"""One meaning of "nothing here" across the claims commands (issue 36 item 5).

A repository that never adopted claims (no marker, no ledger, no claims
configuration) is skipped with a note by `zodyssey check`, `claims check` (which
the `zodyssey-claims` pre-commit hook and `nox -s claims` run) and `claims test`;
one that configured claims and has none still fails with exit 4.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import make_repo, run_zodyssey

NOTE = "claims not in use"
FILES = {"src/a.py": "x = 1\n", "docs/a.md": "See src/a.py:1.\n"}


def _not_in_use_repo(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "repo", FILES, commit=False)
    assert run_zodyssey("init", cwd=repo).returncode == 0  # writes the defaults out
    assert run_zodyssey("anchors", "check", "--update", cwd=repo).returncode == 0
    return repo


@pytest.mark.parametrize(
    "command",
    [("check",), ("claims", "check"), ("claims", "test")],
    ids=["check", "claims-check", "claims-test"],
)
def test_claims_not_in_use_is_a_note_everywhere(tmp_path: Path, command: tuple[str, ...]) -> None:
    """Fails on the old code for `claims check`: exit 4 (no-claims), what the
    pre-commit hook and nox session reported on such a repository."""
    repo = _not_in_use_repo(tmp_path)
    done = run_zodyssey(*command, cwd=repo, env={"NO_COLOR": "1"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert NOTE in done.stdout + done.stderr


def test_the_pre_commit_hook_entry_says_the_same(tmp_path: Path) -> None:
    """What `.pre-commit-hooks.yaml` runs as the zodyssey-claims hook, as JSON too."""
    import yaml

    hooks = yaml.safe_load((Path(__file__).parents[2] / ".pre-commit-hooks.yaml").read_text())
    entry = next(h["entry"] for h in hooks if h["id"] == "zodyssey-claims").split()
    assert entry[:1] == ["zodyssey"]
    repo = _not_in_use_repo(tmp_path)
    done = run_zodyssey(*entry[1:], "--format", "json", cwd=repo)
    assert done.returncode == 0, done.stdout + done.stderr
    payload = json.loads(done.stdout)
    assert [f["rule"] for f in payload["findings"]] == ["not-in-use"]


@pytest.mark.parametrize(
    "adopted",
    ["ledger", "configuration"],
)
def test_claims_configured_but_none_found_stays_exit_4(tmp_path: Path, adopted: str) -> None:
    repo = _not_in_use_repo(tmp_path)
    if adopted == "ledger":
        ledger = repo / "invariants" / "claims.lock.json"
        ledger.parent.mkdir()
        ledger.write_text('{"version": 1, "claims": {}}\n')
    else:
        config = repo / ".zodyssey.toml"
        config.write_text(
            config.read_text().replace(
                'claims_documents = ["README.md", "DESIGN.md", "docs/**/*.md"]',
                'claims_documents = ["SPEC.md"]',
            )
        )
    for command in (("claims", "check"), ("check",)):
        done = run_zodyssey(*command, cwd=repo, env={"NO_COLOR": "1"})
        assert done.returncode == 4, (command, done.stdout + done.stderr)
        assert NOTE not in done.stdout + done.stderr
