"""The gate wraps allowed shell calls in the sandbox (Claude Code's `updatedInput`).

Through the installed hook command (`PYTHON -S -P .../hook_entry.py
pre-tool`), then the rewritten command executed by bash the way the harness
runs it: what the kernel allows is what happens.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import clean_env, git, plan
from tests.helpers.gate import RunRepo, make_run_repo
from tests.sandbox.test_sandbox_runner import ABI, RED_TEAM, needs_landlock, tree
from zodyssey.gate.install import hook_command

pytestmark = needs_landlock

ORDINARY = (
    "pytest -q",
    "python -m pytest tests",
    "make test",
    "npm test",
    "go test ./...",
    "cargo test",
)


def sandboxed_repo(tmp_path: Path, *, record_abi: bool = True, **kwargs: Any) -> RunRepo:
    repo = make_run_repo(tmp_path, **kwargs)
    (repo.root / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (repo.root / ".gitignore").write_text("build/\n.pytest_cache/\n__pycache__/\n")
    git(repo.root, "add", "-A", "--", ".", ":(exclude).zcode")
    git(repo.root, "commit", "-q", "-m", "initial")
    if record_abi:
        state = repo.state()
        state["sandbox"] = {"landlock_abi": ABI}
        repo.write_state(state)
    return repo


def pre_tool(
    repo: RunRepo, command: str, *, mode: str = "default", harness: str = "claude-code"
) -> subprocess.CompletedProcess[str]:
    argv = shlex.split(hook_command("pre-tool", harness))
    body = repo.payload("Bash", {"command": command, "description": "d"}, permission_mode=mode)
    return subprocess.run(
        argv,
        input=json.dumps(body),
        capture_output=True,
        text=True,
        env=clean_env(CLAUDE_PROJECT_DIR=str(repo.root)),
        cwd=repo.root,
        timeout=60,
        check=False,
    )


def rewritten(done: subprocess.CompletedProcess[str]) -> tuple[str, str]:
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)["hookSpecificOutput"]
    return out["permissionDecision"], out["updatedInput"]["command"]


def run_as_harness(repo: RunRepo, command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", command],
        cwd=repo.root,
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=120,
        check=False,
    )


def test_a_write_capable_call_is_wrapped_with_the_original_intact(tmp_path: Path) -> None:
    repo = sandboxed_repo(tmp_path)
    original = "python3 -c \"open('README.md', 'w').write('it\\'s mine')\"; echo done"
    decision, command = rewritten(pre_tool(repo, original))
    assert decision == "ask"  # outside bypassPermissions the user confirms the wrapped call
    words = shlex.split(command)
    assert words[-3:] == ["bash", "-c", original]
    assert words[words.index("--run") + 1] == "demo"
    ran = run_as_harness(repo, command)
    assert "PermissionError" in ran.stderr and "done" in ran.stdout
    assert (repo.root / "README.md").read_text() == "x\n"


@pytest.mark.parametrize("command", ORDINARY)
def test_after_okay_the_ordinary_commands_of_the_work_run_wrapped(
    tmp_path: Path, command: str
) -> None:
    repo = sandboxed_repo(tmp_path)
    decision, wrapped = rewritten(pre_tool(repo, command))
    assert decision == "ask" and shlex.split(wrapped)[-1] == command


@pytest.mark.parametrize("command", ORDINARY)
def test_without_the_sandbox_they_stay_blocked(tmp_path: Path, command: str) -> None:
    for repo, harness in (
        (sandboxed_repo(tmp_path / "a", record_abi=False), "claude-code"),
        (sandboxed_repo(tmp_path / "b"), "codex"),  # a harness the gate cannot rewrite for
    ):
        done = pre_tool(repo, command, harness=harness)
        assert done.returncode == 2, (harness, done.stdout, done.stderr)
        assert "without naming its files" in done.stderr


def test_a_test_run_and_a_build_work_contained(tmp_path: Path) -> None:
    text = plan("Tests", [("Fix", ["src/", "tests/"], ["`pytest -q`"])])
    repo = sandboxed_repo(tmp_path, plan=text)
    (repo.root / "tests" / "test_ok.py").write_text("def test_ok():\n    assert True\n")
    (repo.root / "Makefile").write_text(
        "test:\n\tmkdir -p build && echo built > build/out.txt\n\techo leak > README.md\n"
    )
    _, wrapped = rewritten(pre_tool(repo, "python -m pytest -q -p no:randomly tests/test_ok.py"))
    ran = run_as_harness(repo, wrapped)
    assert ran.returncode == 0 and "1 passed" in ran.stdout, ran.stdout + ran.stderr
    _, wrapped = rewritten(pre_tool(repo, "make test"))
    ran = run_as_harness(repo, wrapped)
    assert (repo.root / "build" / "out.txt").read_text() == "built\n"  # ignored: not product
    assert "README.md: Permission denied" in ran.stderr
    assert (repo.root / "README.md").read_text() == "x\n"


def test_reads_are_wrapped_only_where_nothing_prompts(tmp_path: Path) -> None:
    repo = sandboxed_repo(tmp_path)
    quiet = pre_tool(repo, "ls -la")
    assert quiet.returncode == 0 and quiet.stdout == "" and quiet.stderr == ""
    decision, wrapped = rewritten(pre_tool(repo, "ls -la", mode="bypassPermissions"))
    assert decision == "allow" and shlex.split(wrapped)[-1] == "ls -la"


def test_zodyssey_commands_and_wrapped_calls_are_not_wrapped_again(tmp_path: Path) -> None:
    repo = sandboxed_repo(tmp_path)
    done = pre_tool(repo, "zodyssey run todo demo 2 in_flight", mode="bypassPermissions")
    assert done.returncode == 0 and done.stdout == ""
    # a reading form is wrapped like any call, and still reads inside the sandbox
    _, wrapped = rewritten(pre_tool(repo, "zodyssey run status demo", mode="bypassPermissions"))
    ran = run_as_harness(repo, wrapped)
    assert ran.returncode == 0 and "demo" in ran.stdout, ran.stderr
    _, wrapped = rewritten(pre_tool(repo, "pytest -q", mode="bypassPermissions"))
    again = pre_tool(repo, wrapped, mode="bypassPermissions")
    assert "updatedInput" not in again.stdout


@pytest.mark.parametrize("phase,verdict", [("plan", None), ("execute", "OKAY")])
def test_the_red_team_through_the_installed_hook_and_the_sandbox(
    tmp_path: Path, phase: str, verdict: str | None
) -> None:
    """Each form is blocked by the parser, or runs wrapped and changes nothing the run
    protects (after OKAY: nothing but the declared file); none runs unwrapped."""
    repo = sandboxed_repo(tmp_path, phase=phase, verdict=verdict)
    before = tree(repo.root)
    outcomes: dict[str, str] = {}
    for command in RED_TEAM:
        done = pre_tool(repo, command, mode="bypassPermissions")
        if done.returncode == 2:
            outcomes[command] = "blocked"
            continue
        _, wrapped = rewritten(done)
        run_as_harness(repo, wrapped)
        outcomes[command] = "sandboxed"
    after = tree(repo.root)
    for own in ("demo.json", "demo.effects", ".demo.effects.lock"):
        # the hook's own bookkeeping (gate_log, locks, the effect check's snapshots)
        after.pop(f".zcode/state/{own}", None)
        before.pop(f".zcode/state/{own}", None)
    for tree_ in (before, after):  # blobs the effect check stores (git hash-object -w)
        # and what it moved aside: undeclared files the parent grant let through
        # and its violation records (the runner's own red-team test guards these paths)
        hook_own = (".git/objects/", ".zcode/quarantine", ".zcode/verify", ".zcode/state/")
        for key in [k for k in tree_ if k.startswith(hook_own)]:
            del tree_[key]
    for ignored in ("build", ".pytest_cache", "__pycache__"):  # made empty by the sandbox
        assert after.pop(ignored) == "dir"
    if verdict == "OKAY":
        for declared in ("src/server.py", "src/server.py.gz"):
            before.pop(declared, None)
            after.pop(declared, None)
    assert after == before
    assert set(outcomes.values()) <= {"blocked", "sandboxed"}
    assert "sandboxed" in outcomes.values()
