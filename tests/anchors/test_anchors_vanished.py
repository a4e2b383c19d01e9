"""A citation never vanishes because its file did (deleted, renamed, never there)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.helpers.anchors import check_json, commit, git, kinds, make_repo, run_cli, write

GO = 'package main\n\nfunc main() {\n\tprintln("hi")\n}\n'
MAKE = "all:\n\tgo build ./...\n"
DOC = "The entry point is main.go:3 and the build is Makefile:2.\n"


def go_repo(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "repo", {"main.go": GO, "Makefile": MAKE, "docs/a.md": DOC})
    assert run_cli(repo, "--update").returncode == 0
    commit(repo, "pin")
    return repo


def lock_of(repo: Path) -> dict[str, str]:
    return dict(json.loads((repo / "anchors/anchors.lock.json").read_text())["citations"])


def test_deleted_file_is_gone_not_stale(tmp_path: Path) -> None:
    repo = go_repo(tmp_path)
    git(repo, "rm", "-q", "main.go")
    commit(repo, "drop main.go")
    deleter = git(repo, "rev-parse", "HEAD").strip()
    code, payload = check_json(repo)
    assert code == 9, payload
    assert kinds(payload) == {"gone": ["main.go:3"]}
    assert f"deleted by {deleter[:12]}" in payload["problems"][0]["detail"]
    text = run_cli(repo)
    assert text.returncode == 9
    assert "stale" not in text.stdout, "a cited entry is a problem, not a stale entry"
    # --update refuses it and keeps the pin: a document still cites it.
    update = run_cli(repo, "--update")
    assert update.returncode == 9, update.stdout
    assert "main.go:3" in lock_of(repo)
    assert run_cli(repo).returncode == 9


def test_deleted_in_the_work_tree_only(tmp_path: Path) -> None:
    repo = go_repo(tmp_path)
    (repo / "Makefile").unlink()  # not committed: git cannot name a deleting commit
    code, payload = check_json(repo)
    assert code == 9
    assert kinds(payload) == {"unresolved": ["Makefile:2"]}
    assert "pinned in the lock" in payload["problems"][0]["detail"]


def test_renamed_file_is_moved_and_fixed(tmp_path: Path) -> None:
    repo = go_repo(tmp_path)
    (repo / "cmd").mkdir()
    git(repo, "mv", "main.go", "cmd/app.go")
    commit(repo, "move")
    code, payload = check_json(repo)
    assert code == 9
    assert kinds(payload) == {"moved": ["main.go:3"]}
    assert payload["problems"][0]["moved_to"]["path"] == "cmd/app.go"
    assert run_cli(repo, "--fix").returncode == 0
    assert "app.go:3" in (repo / "docs/a.md").read_text()
    assert run_cli(repo, "--strict").returncode == 0


def test_unpinned_citation_of_a_file_git_knows(tmp_path: Path) -> None:
    """No lock entry, but git history knows the file: still a citation, reported."""
    repo = make_repo(tmp_path / "repo", {"main.go": GO, "tool.rs": "fn main() {}\n"})
    git(repo, "rm", "-q", "main.go")
    (repo / "lib").mkdir()
    git(repo, "mv", "tool.rs", "lib/engine.rs")
    commit(repo, "drop and move")
    write(repo, "docs/a.md", "Old notes: main.go:3 and tool.rs:1 and lib/engine.rs:1.\n")
    code, payload = check_json(repo)
    assert code == 9
    found = kinds(payload)
    assert found["gone"] == ["main.go:3"]
    renamed = [p for p in payload["problems"] if p["cited_as"] == "tool.rs:1"]
    assert renamed and renamed[0]["kind"] == "unresolved"
    assert "now `lib/engine.rs`" in renamed[0]["detail"]


def test_prose_examples_of_files_that_never_existed_stay_prose(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "repo",
        {
            "main.go": GO,
            "docs/a.md": "Real: main.go:3. Example only: file.go:47, at 12:30, localhost:8080.\n",
        },
    )
    assert run_cli(repo, "--update").returncode == 0
    code, payload = check_json(repo)
    assert code == 0, payload
    assert payload["checked"] == 1


def test_a_rename_is_followed_commit_by_commit_when_history_has_a_missing_blob(
    tmp_path: Path,
) -> None:
    """A repository whose history lost a blob (orc's snapshot) cannot run `git log
    -M`; the rename is then found in the commit that removed the old name, and
    the citation is reported as renamed, never as deleted."""
    lines = "".join(f"line {n} of the notes, long enough to compare\n" for n in range(40))
    repo = make_repo(
        tmp_path / "repo",
        {"main.go": GO, "notes.txt": lines, "docs/a.md": "The entry point is main.go:3.\n"},
    )
    # a changed rename: `log -M` has to read both blobs to pair them
    git(repo, "rm", "-q", "notes.txt")
    write(repo, "notes2.txt", lines.replace("line 7 ", "line seven "))
    commit(repo, "reword the notes")
    (repo / "cmd").mkdir()
    git(repo, "mv", "main.go", "cmd/app.go")
    commit(repo, "move the entry point")
    lost = git(repo, "rev-parse", "HEAD~2:notes.txt").strip()
    (repo / ".git" / "objects" / lost[:2] / lost[2:]).unlink()
    log = subprocess.run(
        ["git", "-C", str(repo), "log", "-M", "--name-status", "--format="],
        capture_output=True,
        check=False,
    )
    assert log.returncode != 0  # the situation this test is about
    code, payload = check_json(repo)
    assert code == 9, payload
    [problem] = [p for p in payload["problems"] if p["cited_as"] == "main.go:3"]
    assert problem["kind"] != "gone", problem
    assert "cmd/app.go" in problem["detail"], problem


def test_renamed_then_deleted_names_the_deleting_commit_of_the_new_name(tmp_path: Path) -> None:
    repo = go_repo(tmp_path)
    (repo / "cmd").mkdir()
    git(repo, "mv", "main.go", "cmd/app.go")
    commit(repo, "move")
    renamer = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "rm", "-q", "cmd/app.go")
    commit(repo, "drop the app")
    deleter = git(repo, "rev-parse", "HEAD").strip()
    code, payload = check_json(repo)
    assert code == 9, payload
    assert kinds(payload) == {"gone": ["main.go:3"]}
    detail = payload["problems"][0]["detail"]
    assert f"cmd/app.go was deleted by {deleter[:12]}" in detail, detail
    assert f"renamed to cmd/app.go by {renamer[:12]}" in detail, detail
    assert "main.go was deleted" not in detail


def test_fix_after_a_rename_keeps_the_written_directories(tmp_path: Path) -> None:
    # A rename into a deeper folder: the rewritten path must not lose the leading
    # directories the document wrote (`zodyssey/` was dropped), and each form keeps
    # its kind: relative to the document stays relative, a short suffix stays short.
    code = "".join(f"code {n}\n" for n in range(1, 21))
    doc = (
        "Full zodyssey/anchors/old.py:5, ticked `zodyssey/anchors/old.py`:6, "
        "linked [x](../zodyssey/anchors/old.py#L7), relative ../zodyssey/anchors/old.py:8, "
        "short anchors/old.py:10.\n"
    )
    repo = make_repo(tmp_path / "repo", {"zodyssey/anchors/old.py": code, "docs/guide.md": doc})
    assert run_cli(repo, "--update").returncode == 0
    commit(repo, "pin")
    (repo / "zodyssey/anchors/deep").mkdir()
    git(repo, "mv", "zodyssey/anchors/old.py", "zodyssey/anchors/deep/fresh.py")
    write(repo, "zodyssey/anchors/deep/fresh.py", "new\n" + code)
    commit(repo, "rename into a folder and insert a line")
    fixed = run_cli(repo, "--fix")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert (repo / "docs/guide.md").read_text() == (
        "Full zodyssey/anchors/deep/fresh.py:6, ticked `zodyssey/anchors/deep/fresh.py`:7, "
        "linked [x](../zodyssey/anchors/deep/fresh.py#L8), "
        "relative ../zodyssey/anchors/deep/fresh.py:9, short anchors/deep/fresh.py:11.\n"
    )
    assert run_cli(repo, "--strict").returncode == 0
