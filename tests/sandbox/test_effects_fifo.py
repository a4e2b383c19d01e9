"""A FIFO or device planted where a file was must not hang the post-call check
(issue 26): it is not opened (`zodyssey.core.files.open_regular` refuses it
without blocking), the change is reported as a violation and undone, so the
run fails closed.

Real FIFOs (`os.mkfifo`) through the installed hook processes: on code that
opens them, `git hash-object` or `open()` waits for a writer forever and the
subprocess timeout fails the test.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest

from tests.helpers import clean_env
from tests.helpers.gate import RunRepo
from tests.sandbox.test_effects import repo_with_run, violations
from zodyssey.gate.install import hook_command
from zodyssey.sandbox import effects

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")


def hook(repo: RunRepo, event: str, command: str, call_id: str) -> subprocess.CompletedProcess[str]:
    argv = shlex.split(hook_command(event, "codex"))
    body = repo.payload("Bash", {"command": command}, tool_use_id=call_id)
    if event == "post-tool":
        body["hook_event_name"] = "PostToolUse"
        body["tool_response"] = {"stdout": ""}
    return subprocess.run(
        argv,
        input=json.dumps(body),
        capture_output=True,
        text=True,
        env=clean_env(CLAUDE_PROJECT_DIR=str(repo.root)),
        cwd=repo.root,
        timeout=20,  # the check must not wait on the FIFO
        check=False,
    )


def test_a_fifo_planted_over_a_tracked_file_is_reported_and_replaced(tmp_path: Path) -> None:
    repo = repo_with_run(tmp_path, phase="plan", verdict=None)
    assert hook(repo, "pre-tool", "ls", "toolu_1").returncode == 0
    readme = repo.root / "README.md"
    readme.unlink()
    os.mkfifo(readme)
    done = hook(repo, "post-tool", "ls", "toolu_1")
    assert done.returncode == 2, done.stderr
    assert "README.md (restored)" in done.stderr, done.stderr
    assert readme.is_file() and readme.read_text() == "x\n"
    [record] = violations(repo)
    [change] = record["changes"]
    assert change["path"] == "README.md" and change["after"] == "not-regular:fifo"


def test_a_fifo_in_place_of_a_dirty_file_is_reported(tmp_path: Path) -> None:
    """notes.txt is untracked before the call. git lists no untracked FIFO, so
    after the call the file is gone as far as the snapshot sees (`missing`):
    still a change, put back from its blob, and nothing opened the FIFO."""
    repo = repo_with_run(tmp_path, phase="plan", verdict=None)
    assert hook(repo, "pre-tool", "ls", "toolu_1").returncode == 0
    notes = repo.root / "notes.txt"
    notes.unlink()
    os.mkfifo(notes)
    done = hook(repo, "post-tool", "ls", "toolu_1")
    assert done.returncode == 2, done.stderr
    assert notes.is_file() and notes.read_text() == "dirty before\n"
    assert violations(repo)[0]["changes"][0]["after"] == "missing"


def test_a_fifo_in_place_of_a_protected_file_is_reported(tmp_path: Path) -> None:
    repo = repo_with_run(tmp_path, phase="plan", verdict=None)
    settings = repo.root / ".claude" / "settings.json"
    settings.parent.mkdir(exist_ok=True)
    settings.write_text("{}\n")
    assert hook(repo, "pre-tool", "ls", "toolu_1").returncode == 0
    settings.unlink()
    os.mkfifo(settings)
    done = hook(repo, "post-tool", "ls", "toolu_1")
    assert done.returncode == 2, done.stderr
    assert ".claude/settings.json" in done.stderr
    changed = [c for c in violations(repo)[0]["changes"] if c.get("protected")]
    assert [c["after"] for c in changed] == ["not-regular:fifo"]


def test_the_snapshot_names_a_fifo_without_opening_it(tmp_path: Path) -> None:
    from tests.helpers import git

    root = tmp_path / "r"
    root.mkdir()
    git(root, "init", "-q")
    (root / "a.txt").write_text("a\n")
    git(root, "add", "a.txt")
    git(root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "i")
    (root / "a.txt").unlink()
    os.mkfifo(root / "a.txt")
    snap = effects.snapshot(str(root), [str(root / "a.txt")])
    assert snap["files"]["a.txt"][3] == "not-regular:fifo"
    assert snap["protected"][str(root / "a.txt")] == "not-regular:fifo"
