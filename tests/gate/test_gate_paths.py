"""Path escapes: `..`, symlinks into and out of the repository, absolute paths, `~`."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers.gate import RunRepo, run_hook
from zodyssey.gate.paths import is_test_file, resolve


def edit(repo: RunRepo, path: str, cwd: Path | None = None) -> int:
    payload = repo.payload("Write", {"file_path": path, "content": "x"}, cwd=str(cwd or repo.root))
    return run_hook(payload, repo.root).returncode


def test_dotdot_escape_out_of_scope(run_repo: Callable[..., RunRepo]) -> None:
    repo = run_repo()
    assert edit(repo, "src/../src/server.py") == 0
    assert edit(repo, "pkg/../README.md") == 2
    assert edit(repo, "pkg/../../outside.py") == 2
    assert edit(repo, "server.py", cwd=repo.root / "src") == 0
    assert edit(repo, "../README.md", cwd=repo.root / "src") == 2


def test_absolute_paths(run_repo: Callable[..., RunRepo]) -> None:
    repo = run_repo()
    assert edit(repo, str(repo.root / "src" / "server.py")) == 0
    assert edit(repo, str(repo.root / "src" / "other.py")) == 2
    assert edit(repo, "/etc/hosts") == 2


def test_symlink_out_of_the_repo_is_out_of_scope(
    run_repo: Callable[..., RunRepo], tmp_path: Path
) -> None:
    repo = run_repo()
    outside = tmp_path / "outside"
    outside.mkdir()
    # a declared directory that is really a link to somewhere else grants nothing there
    (repo.root / "pkg").symlink_to(outside)
    assert edit(repo, "pkg/evil.py") == 2
    bash = repo.payload("Bash", {"command": "echo x > pkg/evil.py"})
    assert run_hook(bash, repo.root).returncode == 2


def test_symlink_into_the_repo_from_outside_is_resolved(
    run_repo: Callable[..., RunRepo], tmp_path: Path
) -> None:
    repo = run_repo()
    door = tmp_path / "door"
    door.symlink_to(repo.root / "src")
    assert edit(repo, str(door / "server.py")) == 0  # really src/server.py: declared
    assert edit(repo, str(door / "other.py")) == 2
    state_door = tmp_path / "state-door"
    state_door.symlink_to(repo.root / ".zcode" / "state")
    payload = repo.payload("Write", {"file_path": str(state_door / "demo.json"), "content": "{}"})
    result = run_hook(payload, repo.root)
    assert result.returncode == 2 and "run state" in result.stderr


def test_declared_file_that_is_a_symlink_to_run_state(run_repo: Callable[..., RunRepo]) -> None:
    repo = run_repo()
    (repo.root / "docs" / "api.md").unlink()
    (repo.root / "docs" / "api.md").symlink_to(repo.state_path)
    result = run_hook(
        repo.payload("Write", {"file_path": "docs/api.md", "content": "{}"}), repo.root
    )
    assert result.returncode == 2 and "run state" in result.stderr


def test_tilde_expands_to_home(run_repo: Callable[..., RunRepo], tmp_path: Path) -> None:
    repo = run_repo()
    home = tmp_path / "home"
    home.mkdir()
    payload = repo.payload("Bash", {"command": "echo x > ~/notes.txt"})
    result = run_hook(payload, repo.root, HOME=str(home))
    assert result.returncode == 2 and str(home / "notes.txt") in result.stderr
    assert resolve("~/a", "/x", str(home)) == str(home / "a")


@pytest.mark.parametrize(
    ("rel", "expected"),
    [
        ("tests/test_a.py", True),
        ("src/a_test.go", True),
        ("web/a.test.ts", True),
        ("pkg/conftest.py", True),
        ("src/testing_utils.py", False),
        ("src/app.py", False),
        ("spec/models/user_spec.rb", True),
    ],
)
def test_test_file_detection(rel: str, expected: bool) -> None:
    assert is_test_file(rel) is expected


def test_realpath_handles_missing_leaf(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert resolve("link/new.py", str(tmp_path), "/h") == os.path.realpath(
        tmp_path / "real" / "new.py"
    )
