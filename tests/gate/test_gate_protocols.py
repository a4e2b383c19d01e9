"""Each harness's real protocol (issue 21, items 4-6).

How this could pass while broken: the adapter could read a directory key the
harness does not use and judge the command in the wrong place (so the case
is a write that is out of scope only where the harness really runs it); a
Codex `exec_command` could be refused for its shape (fail closed) rather
than judged, which blocks reads too; a new tool that starts subagents could
stay an unknown tool (so `Workflow` must count as a dispatch in phase plan).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.gate import blocked, call, ctx
from zodyssey.gate.policy import decide


def test_gemini_runs_shell_commands_in_dir_path(root: Path) -> None:
    """Before OKAY `mkdir -p .zcode/plans && echo x > .zcode/plans/p.md` in `src` writes
    src/.zcode/plans/p.md: product code, not bookkeeping."""
    command = "mkdir -p .zcode/plans && echo x > .zcode/plans/p.md"
    c = call("run_shell_command", {"command": command, "dir_path": "src"}, root, harness="gemini")
    assert c.cwd == f"{root}/src"
    blocked(decide(c, ctx(root, phase="plan", verdict=None)), "review-gate")
    same_at_root = call("run_shell_command", {"command": command}, root, harness="gemini")
    assert decide(same_at_root, ctx(root, phase="plan", verdict=None)).allow


def test_gemini_dir_path_and_directory_together_block(root: Path) -> None:
    c = call(
        "run_shell_command",
        {"command": "ls", "dir_path": "src", "directory": "tests"},
        root,
        harness="gemini",
    )
    blocked(decide(c, ctx(root)), "malformed")


def test_codex_exec_command_is_judged_in_its_workdir(root: Path) -> None:
    read = call("exec_command", {"cmd": "ls -la", "workdir": "src"}, root, harness="codex")
    assert read.error is None and read.command == "ls -la" and read.cwd == f"{root}/src"
    assert decide(read, ctx(root, phase="plan", verdict=None)).allow
    write = call(
        "exec_command", {"cmd": "echo x > server.py", "workdir": "src"}, root, harness="codex"
    )
    blocked(decide(write, ctx(root, phase="plan", verdict=None)), "review-gate")


@pytest.mark.parametrize("agent", ["codebase_investigator", "cli_help"])
def test_geminis_own_read_only_agents_run_in_the_plan_phase(root: Path, agent: str) -> None:
    c = call(
        "invoke_agent", {"agent_name": agent, "prompt": "find the parser"}, root, harness="gemini"
    )
    assert decide(c, ctx(root, phase="plan", verdict=None)).allow


def test_claude_code_workflow_is_a_dispatch(root: Path) -> None:
    c = call("Workflow", {"description": "fan out", "prompt": "build it"}, root)
    blocked(decide(c, ctx(root, phase="plan", verdict=None)), "dispatch-phase")
    allowed = decide(c, ctx(root, phase="execute", cap=16))  # its fan-out: test_gate_workflow.py
    assert allowed.allow and [e.kind for e in allowed.effects] == ["slot"]
