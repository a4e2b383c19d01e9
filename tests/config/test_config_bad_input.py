"""Configuration that cannot be used is exit 2 with one line, for every command that reads it."""

from __future__ import annotations

import os
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


FIFO_COMMANDS = [["check"], ["anchors", "check"], ["claims", "check"], ["init"]]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
@pytest.mark.parametrize("name", [".zodyssey.toml", "pyproject.toml"])
@pytest.mark.parametrize("command", FIFO_COMMANDS)
def test_config_that_is_a_fifo_is_exit_2_naming_it(
    repo: Path, name: str, command: list[str]
) -> None:
    # Nobody writes the pipe: a reader that opened it would wait until the timeout.
    (repo / ".zodyssey.toml").unlink()
    os.mkfifo(repo / name)
    done = run_zodyssey(*command, cwd=repo, timeout=60)
    assert_one_line_error(done, 2, parts=3 if command == ["check"] else 1)
    assert f"{name} is a FIFO" in done.stderr, done.stderr
    assert (repo / name).is_fifo()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_config_fifo_raced_in_after_the_check_is_refused_by_the_reader(repo: Path) -> None:
    """The reader itself refuses: the existence check before it cannot be the only guard."""
    from zodyssey.config import _read_toml
    from zodyssey.errors import UsageError

    os.mkfifo(repo / "raced.toml")
    with pytest.raises(UsageError) as caught:
        _read_toml(repo / "raced.toml")
    assert caught.value.exit_code == 2
    assert "raced.toml is a FIFO" in caught.value.message


def test_a_fifo_pyproject_is_not_read_when_zodyssey_toml_wins(repo: Path) -> None:
    os.mkfifo(repo / "pyproject.toml")
    done = run_zodyssey("anchors", "check", cwd=repo, timeout=60)
    assert done.returncode == 0, done.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
@pytest.mark.parametrize(
    "rel", ["docs/zodyssey.md", "anchors/anchors.lock.json", ".github/workflows/zodyssey.yml"]
)
def test_init_refuses_a_fifo_where_it_would_write_or_read(tmp_path: Path, rel: str) -> None:
    """Before: the FIFO was "kept" and then read (the lock: init hung)."""
    root = make_repo(tmp_path / "repo", commit=False)
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(root / rel)
    done = run_zodyssey("init", cwd=root, timeout=60)
    assert_one_line_error(done, 2)
    assert f"{rel} is a FIFO" in done.stderr, done.stderr
    assert (root / rel).is_fifo()
    if rel != "anchors/anchors.lock.json":  # the lock's path comes from the configuration
        assert not (root / ".zodyssey.toml").exists()  # refused before anything is written
