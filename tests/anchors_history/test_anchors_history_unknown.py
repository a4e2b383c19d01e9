"""`--history` proves something or fails: unknown citations, unreadable git objects."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests.helpers import REPO_ROOT
from tests.helpers.anchors import run_cli
from tests.helpers.history import Repo, numbered


def history(root: Path, *args: str) -> tuple[int, dict[str, Any], str]:
    done = run_cli(root, "--history", "--format", "json", *args, cwd=REPO_ROOT)
    return done.returncode, json.loads(done.stdout) if done.stdout else {}, done.stderr


def text_history(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(root, "--history", *args, cwd=REPO_ROOT)


def lose_object(repo: Repo, rev: str) -> str:
    """Delete the loose object behind `rev` (a blob): git can no longer read it."""
    sha = repo.git("rev-parse", rev).strip()
    (repo.path / ".git" / "objects" / sha[:2] / sha[2:]).unlink()
    return sha


def test_one_unreadable_object_costs_only_its_own_citations(repo: Repo) -> None:
    repo.write("src/app.py", numbered("app", 20))
    repo.write("notes/old.txt", numbered("old note", 50))
    repo.write("docs/guide.md", "See src/app.py:3 and src/app.py:10-12.\n")
    repo.commit("write")
    # A rename with edits: detecting it needs both blobs' contents.
    (repo.path / "notes/old.txt").unlink()
    repo.write("notes/new.txt", numbered("old note", 45) + "changed\n")
    repo.commit("rename the notes")
    lose_object(repo, "HEAD~1:notes/old.txt")
    broken = subprocess.run(
        ["git", "log", "-M", "--name-status", "HEAD"], cwd=repo.path, capture_output=True
    )
    assert broken.returncode != 0, "the fixture must really break rename detection"
    code, payload, err = history(repo.path)
    assert code == 0, (payload, err)
    assert payload["counts"] == {
        "ok": 2,
        "moved": 0,
        "drift": 0,
        "gone": 0,
        "contentless": 0,
        "out-of-range": 0,
        "unreadable": 0,
        "unverifiable": 0,
        "unknown": 0,
    }


def test_every_citation_unknown_exits_4_with_the_cause(repo: Repo) -> None:
    repo.write("src/app.py", numbered("app", 20))
    repo.commit("code")
    repo.write("docs/guide.md", "See src/app.py:3 and src/app.py:10-12.\n")  # never committed
    code, payload, _ = history(repo.path)
    assert code == 4
    assert payload["ok"] is False
    done = text_history(repo.path)
    assert done.returncode == 4
    assert "nothing proven" in done.stdout
    assert "not tracked by git" in done.stdout


def test_some_unknown_fails_unless_allowed(repo: Repo) -> None:
    repo.write("src/app.py", numbered("app", 20))
    repo.write("docs/guide.md", "See src/app.py:3.\n")
    repo.commit("write")
    repo.write("docs/draft.md", "Draft: src/app.py:4.\n")  # untracked: unknown
    code, payload, _ = history(repo.path)
    assert code == 9
    assert payload["counts"]["unknown"] == 1 and payload["counts"]["ok"] == 1
    code, _, _ = history(repo.path, "--allow-unknown")
    assert code == 0


def test_allow_unknown_needs_history(repo: Repo) -> None:
    repo.write("src/app.py", numbered("app", 20))
    repo.write("docs/guide.md", "See src/app.py:3.\n")
    repo.commit("write")
    done = run_cli(repo.path, "--allow-unknown", cwd=REPO_ROOT)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr


def test_unreadable_rename_of_the_cited_file_is_unknown_with_its_commit(repo: Repo) -> None:
    repo.write("src/app.py", numbered("app", 30))
    repo.write("src/other.py", numbered("other", 10))
    repo.write("docs/guide.md", "See src/app.py:3 and src/other.py:4.\n")
    repo.commit("write")
    (repo.path / "src/app.py").unlink()
    repo.write("src/core.py", numbered("app", 28) + "edited\n")
    renamer = repo.commit("rename app.py with edits")
    lose_object(repo, "HEAD~1:src/app.py")
    code, payload, _ = history(repo.path)
    assert code == 9, "an unknown citation fails"
    assert payload["counts"]["ok"] == 1 and payload["counts"]["unknown"] == 1
    (unknown,) = payload["unknown"]
    assert unknown["cited_as"] == "src/app.py:3"
    assert renamer[:12] in unknown["detail"] and "cannot be read" in unknown["detail"]
