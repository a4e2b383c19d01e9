"""Configuration that cannot be used is exit 2 with one line, for every command that reads it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import assert_one_line_error, make_repo, run_zodyssey


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "repo with space ü", commit=False)
    assert run_zodyssey("init", cwd=root).returncode == 0
    return root


@pytest.mark.parametrize("command", [["check"], ["anchors", "check"], ["init"]])
def test_non_utf8_config_is_exit_2(repo: Path, command: list[str]) -> None:
    (repo / ".zodyssey.toml").write_bytes(b"\xff\xfe lock = 1")
    # `zodyssey check` runs three parts; each may say why it could not run.
    assert_one_line_error(
        run_zodyssey(*command, cwd=repo), 2, parts=3 if command == ["check"] else 1
    )


def test_deeply_nested_config_is_exit_2(repo: Path) -> None:
    (repo / ".zodyssey.toml").write_text("a = " + "[" * 50_000 + "]" * 50_000 + "\n")
    assert_one_line_error(run_zodyssey("anchors", "check", cwd=repo), 2)


@pytest.mark.parametrize("command", [["anchors", "check"], ["claims", "check"]])
def test_config_that_is_a_directory_is_exit_2(repo: Path, command: list[str]) -> None:
    # Before: silently ignored, the check ran on the defaults.
    (repo / ".zodyssey.toml").unlink()
    (repo / ".zodyssey.toml").mkdir()
    done = run_zodyssey(*command, cwd=repo)
    assert_one_line_error(done, 2)
    assert ".zodyssey.toml" in done.stderr


def test_dangling_config_link_is_exit_2(repo: Path) -> None:
    (repo / ".zodyssey.toml").unlink()
    (repo / ".zodyssey.toml").symlink_to(repo / "nowhere.toml")
    assert_one_line_error(run_zodyssey("anchors", "check", cwd=repo), 2)


def test_broken_pyproject_is_ignored_when_zodyssey_toml_wins(repo: Path) -> None:
    (repo / "pyproject.toml").mkdir()
    assert run_zodyssey("anchors", "check", cwd=repo).returncode == 0
