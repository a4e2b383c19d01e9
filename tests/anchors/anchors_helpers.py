"""Shared helpers for the citation lock tests: real git repos, real processes."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
}


def git(root: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    proc = subprocess.run(
        ["git", *args], cwd=root, env=env, capture_output=True, text=True, check=True
    )
    return proc.stdout


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def make_repo(root: Path, files: dict[str, str], *, remote: str | None = None) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    if remote:
        git(root, "remote", "add", "origin", remote)
    for rel, text in files.items():
        write(root, rel, text)
    commit(root, "initial")
    return root


def commit(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", message)


def run_cli(root: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`check-anchors` as a real process (the console script maps to this module call)."""
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("GITHUB_STEP_SUMMARY", None)
    return subprocess.run(
        [sys.executable, "-m", "zodyssey", "anchors", "check", "--root", str(root), *args],
        cwd=cwd or root,
        env=env,
        capture_output=True,
        text=True,
    )


def check_json(root: Path, *args: str) -> tuple[int, dict[str, Any]]:
    proc = run_cli(root, "--json", *args)
    assert proc.stdout, proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def kinds(payload: dict[str, Any]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for problem in payload["problems"]:
        out.setdefault(problem["kind"], []).append(problem["key"])
    return out


def reference_hash(lines: list[str]) -> str:
    """The reference fingerprint, written independently of zodyssey's code."""
    import re

    normal = [re.sub(r"\s+", " ", line).strip() for line in lines]
    return hashlib.sha256("\n".join(normal).encode("utf-8")).hexdigest()[:12]


SOURCE = "".join(f"def step_{i}():  return {i}\n" for i in range(1, 31))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository with one 30-line source file and an empty docs folder."""
    return make_repo(tmp_path / "repo", {"src/app.py": SOURCE, "docs/.keep": ""})
