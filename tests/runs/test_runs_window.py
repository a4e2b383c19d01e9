"""Read-only windows: what counts as a change, and null outside git."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.helpers.runs import Repo, make_repo
from zodyssey.core import paths
from zodyssey.runs import evidence as chain
from zodyssey.runs.worktree import read_only_violation, snapshot


def window(repo: Repo, script: str, label: str = "audit") -> tuple[int, dict[str, Any]]:
    result = repo.run("window", "demo", "--label", label, "--", "sh", "-c", script)
    assert "Traceback" not in result.text
    record = chain.read_evidence(paths.evidence_path(repo.root, "demo")).records[-1]
    assert record["kind"] == "window" and record["label"] == label
    return result.code, record


def test_a_reading_auditor_is_read_only(started: Repo) -> None:
    started.write("dirty.txt", "untracked before the window\n")
    code, record = window(started, "cat README.md; git log --oneline; git status")
    assert code == 0
    assert record["readOnlyViolation"] is False
    assert record["passed"] is True
    assert started.state()["windows"][-1]["readOnlyViolation"] is False


@pytest.mark.parametrize(
    ("name", "script", "expected_change"),
    [
        ("edit", "echo changed >> README.md", "README.md"),
        (
            "edit-then-commit",
            "echo changed >> README.md && git commit -qam sneaky",
            "<HEAD>",
        ),
        ("untracked-new-file", "echo new > brand-new.txt", "brand-new.txt"),
        ("staged-only", "echo x > staged.txt && git add staged.txt", "staged.txt"),
        ("delete", "rm README.md", "README.md"),
        ("edit-untracked", "echo more >> scratch.txt", "scratch.txt"),
    ],
)
def test_changes_are_violations(
    started: Repo, name: str, script: str, expected_change: str
) -> None:
    started.write("scratch.txt", "pre-existing untracked file\n")
    code, record = window(started, script, label=name)
    assert code == 1
    assert record["readOnlyViolation"] is True, name
    assert expected_change in record["changed_paths"]
    assert record["passed"] is False


def test_edit_then_commit_leaves_a_clean_status_but_head_moved(started: Repo) -> None:
    before = started.git("status", "--porcelain")
    code, record = window(started, "echo x >> README.md && git commit -qam hidden")
    assert started.git("status", "--porcelain") == before  # status alone would miss it
    assert code == 1 and record["readOnlyViolation"] is True
    snap_before = record["snapshot_before"]
    snap_after = record["snapshot_after"]
    assert isinstance(snap_before, dict) and isinstance(snap_after, dict)
    assert snap_before["head"] != snap_after["head"]


def test_checkout_of_another_ref_is_a_violation(started: Repo) -> None:
    repo = started
    repo.git("checkout", "-q", "-b", "other")
    repo.write("other.txt", "on the other branch\n")
    repo.commit("other work")
    repo.git("checkout", "-q", "main")
    code, record = window(repo, "git checkout -q other")
    assert code == 1 and record["readOnlyViolation"] is True
    assert "<HEAD>" in record["changed_paths"] and "<branch>" in record["changed_paths"]
    repo.git("checkout", "-q", "main")
    # Same commit, different ref (detached HEAD): the branch moved, still a violation.
    code, record = window(repo, "git checkout -q --detach HEAD", label="detach")
    assert code == 1 and record["changed_paths"] == ["<branch>"]


def test_failing_auditor_fails_the_window_but_stays_read_only(started: Repo) -> None:
    code, record = window(started, "exit 3")
    assert code == 1
    assert record["readOnlyViolation"] is False and record["exit_code"] == 3
    assert record["passed"] is False


def test_null_outside_git(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    repo = Repo(root)
    result = repo.run("start", "demo")
    assert result.code == 0, result.text
    state = repo.state()
    assert state["run_start_sha"] == "" and state["dirty_at_start"] is None
    code, record = window(repo, "true")
    assert code == 1  # unknown is never a pass
    assert record["readOnlyViolation"] is None
    assert record["passed"] is False
    assert repo.state()["windows"][-1]["readOnlyViolation"] is None
    assert repo.state()["gate_log"][-1]["decision"] == "fail"


def test_snapshot_tristate_directly(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    first = snapshot(repo.root)
    assert first["ok"] and read_only_violation(first, snapshot(repo.root)) is False
    (repo.root / "README.md").write_text("changed\n", encoding="utf-8")
    assert read_only_violation(first, snapshot(repo.root)) is True
    outside = snapshot(tmp_path)
    assert outside["ok"] is False and outside.get("fingerprint") is None
    assert read_only_violation(outside, outside) is None
    # The run's own bookkeeping never counts as a change.
    (repo.root / "README.md").write_text("demo\n", encoding="utf-8")
    clean = snapshot(repo.root)
    (repo.root / ".zcode" / "state").mkdir(parents=True)
    (repo.root / ".zcode" / "state" / "x.json").write_text("{}", encoding="utf-8")
    assert read_only_violation(clean, snapshot(repo.root)) is False


def test_an_auditor_writing_only_ignored_files_leaves_its_window_clean(started: Repo) -> None:
    """docs/runs.md: files the repository ignores (.gitignore, nested ones, and
    .git/info/exclude) are not part of a snapshot; the audit agrees."""
    import json

    from tests.helpers import run_zodyssey

    started.write(".gitignore", "build/\n*.log\n")
    started.write("sub/.gitignore", "*.tmp\n")
    started.commit("ignore rules")
    (started.root / ".git" / "info" / "exclude").write_text("*.cache\n")
    writes = "mkdir -p build && echo 1 > build/out && echo 2 > a.log && echo 3 > sub/b.tmp"
    result = started.run(
        "window", "demo", "--label", "F1", "--", "sh", "-c", writes + " && echo 4 > c.cache"
    )
    assert result.code == 0, result.text
    assert "readOnlyViolation=false" in result.out
    done = run_zodyssey("audit", "demo", "--format", "json", cwd=started.root)
    findings = json.loads(done.stdout)["findings"]
    assert not [f for f in findings if f["rule"].startswith("window")], findings


def test_a_file_only_a_home_excludes_file_ignores_is_a_change_and_said(
    started: Repo, tmp_path: Path
) -> None:
    """The snapshot reads no `core.excludesFile` (the agent could write it): a file
    only that file ignores is a change, and the window says where to list it."""
    excludes = tmp_path / "global-ignore"
    excludes.write_text("*.log\n")
    started.git("config", "core.excludesFile", str(excludes))
    result = started.run("window", "demo", "--label", "F1", "--", "sh", "-c", "echo 2 > a.log")
    assert result.code == 1, result.text
    assert "changed: a.log" in result.out
    assert "a.log: ignored only by an excludes file (`core.excludesFile`)" in result.out
    assert "list them in .gitignore" in result.out
