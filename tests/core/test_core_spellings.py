"""One concept, one spelling: a class name means one model; git is run in one module."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.helpers import commit, make_repo
from zodyssey import git

PACKAGE = Path(__file__).resolve().parents[2] / "zodyssey"

# Runs git itself, on purpose: the hook's pre-tool snapshot child (started with -S on
# every allowed call in a run) stays off zodyssey.git's imports (pathlib, typing).
GIT_ELSEWHERE = {"sandbox/effects.py"}


def _classes(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}


def test_the_run_models_and_the_audit_model_share_no_class_name() -> None:
    shared = _classes(PACKAGE / "runs" / "models.py") & _classes(PACKAGE / "audit" / "model.py")
    assert shared == set()


def test_git_runs_only_in_zodyssey_git() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel == "git.py" or rel in GIT_ELSEWHERE:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"""\[\s*["']git["']\s*,""", line):
                found.append(f"{rel}:{number}: {line.strip()}")
    assert found == []


def test_head_names_the_commit_or_none(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", commit=False)
    assert git.head(repo) is None  # no commit yet
    sha = commit(repo, "first")
    assert git.head(repo) == sha
    assert git.head(tmp_path) is None  # not a work tree


def test_a_git_that_does_not_answer_is_a_timeout(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    with pytest.raises(git.GitTimeout, match=r"git log: no answer in 1e-06 s"):
        git.run(repo, ["log"], timeout=0.000001)  # no process answers in a microsecond
