"""Command-line contract: exit codes, one-line errors, help."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.helpers import REPO_ROOT, run_zodyssey
from tests.helpers.anchors import run_cli, write


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--format", "xml"], "invalid choice"),
        (["--dry-run"], "--dry-run only applies to --fix"),
        (["--fix", "--update"], "not allowed with"),
        (["--from-history"], "--from-history only applies to --update"),
        (["--jobs", "0"], "must be at least 1"),
        (["--jobs", "2"], "--jobs only applies"),
        (["--json", "--format", "sarif"], "--json conflicts"),
        (["--no-such-flag"], "unrecognized arguments"),
    ],
)
def test_bad_flags_exit_2_with_one_message(repo: Path, args: list[str], needle: str) -> None:
    write(repo, "docs/a.md", "app.py:3\n")
    proc = run_cli(repo, *args)
    assert proc.returncode == 2
    assert needle in proc.stderr
    assert "Traceback" not in proc.stderr


def test_missing_root_exits_2(tmp_path: Path) -> None:
    proc = run_cli(tmp_path / "nope", cwd=tmp_path)
    assert proc.returncode == 2
    assert "no such directory" in proc.stderr


@pytest.mark.parametrize(
    "content",
    ["{not json", '["a list"]', '{"citations": ["x"]}', '{"citations": {}, "exempt": "x"}'],
)
def test_malformed_lock_exits_2_and_says_how_to_recover(repo: Path, content: str) -> None:
    write(repo, "docs/a.md", "app.py:3\n")
    write(repo, "anchors/anchors.lock.json", content)
    for extra in ([], ["--update"]):
        proc = run_cli(repo, *extra)
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert "anchors/anchors.lock.json" in proc.stderr
        assert "--update" in proc.stderr and "git checkout" in proc.stderr
        assert "Traceback" not in proc.stderr
    assert (repo / "anchors/anchors.lock.json").read_text() == content  # never overwritten


def test_zero_citations_exit_4(repo: Path) -> None:
    write(repo, "docs/a.md", "No citations here, only 12:30.\n")
    for extra in ([], ["--update"], ["--json"]):
        proc = run_cli(repo, *extra)
        assert proc.returncode == 4
        assert "zero citations" in proc.stderr


def test_help_documents_exit_codes_and_examples() -> None:
    proc = run_zodyssey("anchors", "check", "--help", cwd=REPO_ROOT)
    assert proc.returncode == 0
    for needle in ("exit codes:", "--lock", "--fix", "--history", "moved", "examples:"):
        assert needle in proc.stdout


def test_anchors_without_action_shows_help() -> None:
    proc = run_zodyssey("anchors", cwd=REPO_ROOT)
    assert proc.returncode == 2
    assert "check" in proc.stderr


def test_check_anchors_console_script_is_the_same_command(repo: Path) -> None:
    import shutil

    script = shutil.which("check-anchors")
    if script is None:
        pytest.skip("console script not installed")
    write(repo, "docs/a.md", "app.py:3\n")
    proc = subprocess.run([script, "--root", str(repo), "--update"], capture_output=True, text=True)
    assert proc.returncode == 0
    assert (repo / "anchors/anchors.lock.json").is_file()


def test_lock_path_relative_to_current_directory(repo: Path, tmp_path: Path) -> None:
    write(repo, "docs/a.md", "app.py:3\n")
    proc = run_cli(repo, "--update", "--lock", "custom.lock.json", cwd=tmp_path)
    assert proc.returncode == 0
    assert (tmp_path / "custom.lock.json").is_file()
    assert run_cli(repo, "--lock", str(tmp_path / "custom.lock.json")).returncode == 0
