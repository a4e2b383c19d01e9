"""Inside a run the post-call effect check fails CLOSED (issue 33, root cause 4).

Each test switches the check off the way an agent could, through the installed
hook processes, real files and real limits: a FIFO named `.gitignore` (git
waits on it forever), more new files than the hook's open-file limit, a huge
sparse file (hashing it takes minutes), an immutable stamp file. On the old
code each of these left the check silent (pre-tool allowed, post-tool exited 1
recording nothing) or hung the hook past the harness's timeout, which runs the
call as it is. Now every decision ends within the hook's deadline
(`ZODYSSEY_GATE_DEADLINE`, lowered here to keep the tests short), a check that
cannot run blocks the call with the reason, and a post-tool check that failed
blocks the next call, which runs the check again and undoes what it finds.
"""

from __future__ import annotations

import json
import os
import resource
import shlex
import subprocess
import time
from pathlib import Path

import pytest

from tests.helpers import clean_env
from tests.helpers.gate import RunRepo
from tests.sandbox.test_effects import repo_with_run, violations
from zodyssey.gate.install import hook_command

DEADLINE = "3"


def hook(
    repo: RunRepo,
    event: str,
    call_id: str,
    *,
    nofile: int | None = None,
    timeout: float = 40,
    deadline: str = DEADLINE,
) -> subprocess.CompletedProcess[str]:
    argv = shlex.split(hook_command(event, "codex"))
    body = repo.payload("Bash", {"command": "ls"}, tool_use_id=call_id)
    if event == "post-tool":
        body["hook_event_name"] = "PostToolUse"
        body["tool_response"] = {"stdout": ""}

    def limit() -> None:
        if nofile is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    return subprocess.run(
        argv,
        input=json.dumps(body),
        capture_output=True,
        text=True,
        env=clean_env(CLAUDE_PROJECT_DIR=str(repo.root), ZODYSSEY_GATE_DEADLINE=deadline),
        cwd=repo.root,
        timeout=timeout,  # far below what the old code needed (forever, or minutes)
        check=False,
        preexec_fn=limit,
    )


def _first_call(repo: RunRepo) -> None:
    assert hook(repo, "pre-tool", "toolu_1").returncode == 0
    done = hook(repo, "post-tool", "toolu_1")
    assert done.returncode == 0, done.stderr


def _git_children(root: Path) -> list[int]:
    """Processes (git left behind by the check) whose working directory is `root`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if os.readlink(entry / "cwd") == str(root) and (entry / "comm").read_text().startswith(
                "git"
            ):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_named_gitignore_blocks_the_next_call_within_the_deadline(tmp_path: Path) -> None:
    repo = repo_with_run(tmp_path)
    _first_call(repo)
    os.mkfifo(repo.root / "src" / ".gitignore")  # git opens it and waits for a writer
    started = time.monotonic()
    done = hook(repo, "pre-tool", "toolu_2")
    took = time.monotonic() - started
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "could not decide within 3 s" in done.stderr, done.stderr
    assert took < 15, took
    time.sleep(0.2)
    assert _git_children(repo.root) == [], "the check's git outlived the hook"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_post_tool_check_that_fails_blocks_the_next_call_which_undoes_the_change(
    tmp_path: Path,
) -> None:
    repo = repo_with_run(tmp_path, phase="plan", verdict=None)
    settings = repo.root / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text('{"hooks": {"PreToolUse": []}}\n')
    assert hook(repo, "pre-tool", "toolu_1").returncode == 0
    # what the call did: a product edit, an unwiring, and a FIFO that hangs git
    (repo.root / "README.md").write_text("pwned\n")
    settings.write_text("{}\n")
    fifo = repo.root / "src" / ".gitignore"
    os.mkfifo(fifo)
    done = hook(repo, "post-tool", "toolu_1")
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "post-call effect check failed" in done.stderr, done.stderr
    assert "next call is blocked" in done.stderr
    fifo.unlink()  # the person removes the FIFO; the agent's next call:
    nxt = hook(repo, "pre-tool", "toolu_2")
    assert nxt.returncode == 2, (nxt.stdout, nxt.stderr)
    assert "check of the previous call failed" in nxt.stderr, nxt.stderr
    assert (repo.root / "README.md").read_text() == "x\n"
    assert settings.read_text() == '{"hooks": {"PreToolUse": []}}\n'  # put back, not kept
    [record] = violations(repo)
    assert {c["path"] for c in record["changes"]} >= {"README.md", str(settings)}
    # blocked once: the call after that runs
    assert hook(repo, "pre-tool", "toolu_3").returncode == 0


def test_more_new_files_than_the_open_file_limit_are_still_caught(tmp_path: Path) -> None:
    repo = repo_with_run(tmp_path, phase="plan", verdict=None)
    slow = "15"  # the default: hashing 600 files may take seconds on a loaded machine
    assert hook(repo, "pre-tool", "toolu_1", nofile=256, deadline=slow).returncode == 0
    flood = repo.root / "src" / "flood"
    flood.mkdir()
    for i in range(600):
        (flood / f"f{i}.py").write_text(f"{i}\n")
    done = hook(repo, "post-tool", "toolu_1", nofile=256, deadline=slow)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert not list(flood.glob("*.py")), "new files left in place"
    [record] = violations(repo)
    assert len(record["changes"]) == 600
    assert {c["action"] for c in record["changes"]} == {"quarantined"}


def test_a_huge_sparse_file_is_judged_without_reading_it(tmp_path: Path) -> None:
    repo = repo_with_run(tmp_path, phase="plan", verdict=None)
    assert hook(repo, "pre-tool", "toolu_1").returncode == 0
    big = repo.root / "src" / "big.bin"
    with big.open("wb") as handle:
        handle.truncate(200 << 30)  # 200 GiB of holes: hashing reads them all
    started = time.monotonic()
    done = hook(repo, "post-tool", "toolu_1")
    assert time.monotonic() - started < 15
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "src/big.bin (quarantined)" in done.stderr, done.stderr
    assert not big.exists()


def _immutable(path: Path) -> bool:
    done = subprocess.run(["chattr", "+i", str(path)], capture_output=True, check=False)
    return done.returncode == 0


def test_an_immutable_stamp_file_blocks_instead_of_switching_the_check_off(
    tmp_path: Path,
) -> None:
    repo = repo_with_run(tmp_path, phase="plan", verdict=None)
    _first_call(repo)
    stamp = repo.root / ".zcode" / "state" / "effects.stamp"
    if os.geteuid() != 0 or not _immutable(stamp):
        pytest.skip("making a file immutable needs root and a file system with attributes")
    try:
        (repo.root / "README.md").write_text("between\n")
        done = hook(repo, "pre-tool", "toolu_2")
        assert done.returncode == 2, (done.stdout, done.stderr)
        assert "effect check cannot run" in done.stderr, done.stderr
    finally:
        subprocess.run(["chattr", "-i", str(stamp)], check=False)
