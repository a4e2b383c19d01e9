"""Shared helpers of the QA regression tests: real repositories, real subprocesses."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

DEEP_JSON = "[" * 100_000 + "]" * 100_000


def git_repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


def zodyssey(
    cwd: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    full_env = dict(os.environ)
    full_env.pop("PYTEST_ADDOPTS", None)
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "zodyssey", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=full_env,
        timeout=120,
        check=False,
    )


def assert_one_line_error(
    done: subprocess.CompletedProcess[str], code: int, *, parts: int = 1
) -> None:
    """The documented exit code and one error line (per part of `zodyssey check`),
    never a traceback."""
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == code, (done.returncode, done.stdout, done.stderr)
    errors = [line for line in done.stderr.splitlines() if "error:" in line]
    assert 1 <= len(errors) <= parts, done.stderr
