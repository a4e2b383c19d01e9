"""A FIFO or a device planted where the hook reads run state, plan, ledger or settings.

`open()` on a FIFO waits for a writer that never comes, and `/dev/zero` never
ends: a hook that hangs until the harness's timeout lets the call through. The
hook reads those files through `zodyssey.core.files.open_regular`: inside a
run the call is blocked naming the file (fail closed), at once; outside a run
nothing changes (exit 0).

How this could pass while broken: a test that only checks the exit code of a
hook that was killed (the timeout here fails the test instead); a FIFO that
some earlier check happens to refuse before the read under test (each case
plants exactly one file); a block for another reason (the reason must name
what was planted).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.gate import RunRepo, hook_env

# A hook that waits on the FIFO is killed here: well inside the harness's 30 s.
HANG = 20


def hook(repo: RunRepo, body: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "zodyssey", "hook", "pre-tool"],
        input=json.dumps(body),
        capture_output=True,
        text=True,
        env=hook_env(repo.root),
        check=False,
        timeout=HANG,
    )


def plant(path: Path, kind: str) -> None:
    """Replace `path` by a FIFO, or by a link to /dev/zero."""
    if path.exists() or path.is_symlink():
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")


def edit(repo: RunRepo) -> dict[str, Any]:
    return repo.payload("Write", {"file_path": str(repo.root / "src/server.py"), "content": "y\n"})


def dispatch(repo: RunRepo) -> dict[str, Any]:
    return repo.payload("Task", {"subagent_type": "general-purpose", "prompt": "todo 1"})


KINDS = ["fifo", "zero"]


@pytest.mark.parametrize("kind", KINDS)
def test_run_state_not_a_regular_file_blocks(run_repo: Callable[..., RunRepo], kind: str) -> None:
    repo = run_repo()
    plant(repo.state_path, kind)
    done = hook(repo, edit(repo))
    assert done.returncode == 2, done.stderr
    assert "demo.json" in done.stderr and "not a regular file" in done.stderr, done.stderr


@pytest.mark.parametrize("kind", KINDS)
def test_plan_not_a_regular_file_blocks(run_repo: Callable[..., RunRepo], kind: str) -> None:
    repo = run_repo()
    plant(repo.plan_path, kind)
    done = hook(repo, edit(repo))
    assert done.returncode == 2, done.stderr
    # (a link to /dev/zero resolves outside the repository, and is refused for that)
    why = "not a regular file" if kind == "fifo" else "lies outside the repository"
    assert "demo.md" in done.stderr and why in done.stderr, done.stderr


@pytest.mark.parametrize("kind", KINDS)
def test_dispatch_ledger_not_a_regular_file_blocks(
    run_repo: Callable[..., RunRepo], kind: str
) -> None:
    repo = run_repo()
    plant(repo.root / ".zcode/state/demo.inflight.json", kind)
    done = hook(repo, dispatch(repo))
    assert done.returncode == 2, done.stderr
    assert "inflight" in done.stderr and "not a regular file" in done.stderr, done.stderr


@pytest.mark.parametrize("name", [".zodyssey.toml", "pyproject.toml"])
def test_configuration_not_a_regular_file_blocks(
    run_repo: Callable[..., RunRepo], name: str
) -> None:
    """A dispatch is judged by `[tool.zodyssey.gate]` (the reviewer's name): read it."""
    repo = run_repo()
    plant(repo.root / name, "fifo")
    done = hook(repo, dispatch(repo))
    assert done.returncode == 2, done.stderr
    assert name in done.stderr and "not a regular file" in done.stderr, done.stderr


def test_another_runs_state_not_a_regular_file_is_not_waited_on(
    run_repo: Callable[..., RunRepo],
) -> None:
    """`zodyssey run phase other ...` reads the other run's phase: a FIFO there is no phase."""
    repo = run_repo(phase="plan", verdict=None)
    plant(repo.root / ".zcode/state/other.json", "fifo")
    body = repo.payload("Bash", {"command": "zodyssey run phase other execute"})
    done = hook(repo, body)
    assert done.returncode == 2, done.stderr


@pytest.mark.parametrize("kind", KINDS)
def test_outside_a_run_nothing_changes(run_repo: Callable[..., RunRepo], kind: str) -> None:
    """A finished run whose plan is a FIFO, and a FIFO as the configuration: no run is
    active, so the hook allows at once without reading either."""
    repo = run_repo(phase="done")
    plant(repo.plan_path, kind)
    plant(repo.root / "pyproject.toml", kind)
    done = hook(repo, edit(repo))
    assert done.returncode == 0 and not done.stderr, done.stderr
