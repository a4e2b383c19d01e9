"""The check's own words: help naming the command as invoked, summaries that count what was done.

Issue 27 items 3 and 4 (the parts about check-anchors) and issue 23 item 9
(`--fix --dry-run --strict` exits like `--fix --strict`).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers import clean_env
from tests.helpers.anchors import SOURCE, commit, make_repo, run_cli, write

CHECK_ANCHORS = shutil.which("check-anchors")


@pytest.mark.skipif(CHECK_ANCHORS is None, reason="the check-anchors script is not installed")
def test_check_anchors_help_names_itself_the_jobs_default_and_every_kind(tmp_path: Path) -> None:
    assert CHECK_ANCHORS is not None
    done = subprocess.run(
        [CHECK_ANCHORS, "--help"], capture_output=True, text=True, env=clean_env(), cwd=tmp_path
    )
    assert done.returncode == 0
    assert done.stdout.startswith("usage: check-anchors ")
    assert "zodyssey anchors check [" not in done.stdout
    words = " ".join(done.stdout.split())
    assert "--jobs N parallel git jobs for --history and --from-history (default: 2)" in words
    for kind in ("ok", "unknown", "contentless", "drift", "moved", "gone"):
        assert f" {kind} " in words, kind


def test_zodyssey_anchors_check_help_still_names_that_command(tmp_path: Path) -> None:
    from tests.helpers import run_zodyssey

    done = run_zodyssey("anchors", "check", "--help", cwd=tmp_path)
    assert done.stdout.startswith("usage: zodyssey anchors check ")


def _drifted(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "repo", {"src/a.py": SOURCE, "docs/a.md": "See src/a.py:3.\n"})
    assert run_cli(root, "--update").returncode == 0
    write(root, "src/a.py", SOURCE.replace("return 3", "return 33"))
    commit(root, "edit")
    return root


def test_fix_with_only_drift_says_nothing_was_rewritten(tmp_path: Path) -> None:
    root = _drifted(tmp_path)
    done = run_cli(root, "--fix")
    assert done.returncode == 9
    assert "rewrote 0" not in done.stdout
    assert "nothing rewritten (no moved citations; drift is never rewritten)" in done.stdout


def test_fix_dry_run_strict_exits_like_fix_strict(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "repo",
        {"src/a.py": SOURCE, "docs/a.md": "See src/a.py:3 and src/a.py:5.\n"},
    )
    assert run_cli(root, "--update").returncode == 0
    write(root, "docs/a.md", "See src/a.py:3.\n")  # src/a.py:5 is stale now
    dry = run_cli(root, "--fix", "--dry-run", "--strict")
    real = run_cli(root, "--fix", "--strict")
    assert (dry.returncode, real.returncode) == (9, 9), (dry.stderr, real.stdout)
    plain = run_cli(root, "--fix", "--dry-run")
    assert plain.returncode == 0


def test_fix_counts_the_sites_it_rewrote(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "repo",
        {"src/a.py": SOURCE, "docs/a.md": "See src/a.py:3.\n", "docs/b.md": "And src/a.py:3.\n"},
    )
    assert run_cli(root, "--update").returncode == 0
    write(root, "src/a.py", "import os\n" + SOURCE)
    commit(root, "insert")
    done = run_cli(root, "--fix")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "rewrote 2 moved citation(s) (1 lock key(s)) and re-pinned them" in done.stdout


def test_fix_rewrites_the_real_links_never_a_link_shown_in_a_code_span(tmp_path: Path) -> None:
    # The code span shows how to write a link; the two real links follow it in the
    # same paragraph, the first paragraph of the document (its block starts at 0).
    doc = (
        "Write a link like `[x](../src/a.py#L3)` in docs.\n"
        "The real one: [y](../src/a.py#L3).\n"
        "Inline `see ../src/a.py#L3` again, [z](../src/a.py#L3).\n"
    )
    root = make_repo(tmp_path / "repo", {"src/a.py": SOURCE, "docs/a.md": doc})
    assert run_cli(root, "--update").returncode == 0
    write(root, "src/a.py", "import os\n" + SOURCE)
    commit(root, "insert")
    done = run_cli(root, "--fix")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "rewrote 2 moved citation(s)" in done.stdout
    assert (root / "docs/a.md").read_text() == (
        "Write a link like `[x](../src/a.py#L3)` in docs.\n"
        "The real one: [y](../src/a.py#L4).\n"
        "Inline `see ../src/a.py#L3` again, [z](../src/a.py#L4).\n"
    )
    assert run_cli(root, "--strict").returncode == 0
