"""Policy replays of issue 21 item 7, each through the real hook process.

Each case is an attempt of the earlier red-team round that got through; each
test failed on the code before its fix.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.gate import make_run_repo, run_hook


@pytest.mark.parametrize("planted", ["empty", "finished run", "active run of its own"])
@pytest.mark.parametrize("project", ["workspace", "none"])
def test_run_state_planted_above_the_repository_does_not_switch_the_gate_off(
    tmp_path: Path, planted: str, project: str
) -> None:
    """An MCP tool (or the JavaScript pipeline) makes `.zcode/state` in the workspace
    folder above the repository: the repository's own run still guards it."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    repo = make_run_repo(workspace, phase="plan", verdict=None)
    state = workspace / ".zcode" / "state"
    state.mkdir(parents=True)
    if planted != "empty":
        phase = "done" if planted == "finished run" else "execute"
        (state / "x.json").write_text(json.dumps({"slug": "x", "phase": phase}))
    target = repo.root / "src" / "server.py"
    proj = workspace if project == "workspace" else None
    write = repo.payload("Write", {"file_path": str(target), "content": "pwn"}, cwd=str(workspace))
    shell = repo.payload("Bash", {"command": "echo pwn > repo/src/server.py"}, cwd=str(workspace))
    for payload in (write, shell):
        done = run_hook(payload, proj, cwd=workspace)
        assert done.returncode == 2, (done.returncode, done.stderr)
        if planted != "active run of its own":  # (that run, with no plan, blocks first)
            assert "run demo" in done.stderr, done.stderr
    assert target.read_text() == "x\n"


HARNESS_CONFIG = [
    ".claude/agents/helper.md",
    ".claude/commands/go.md",
    ".claude/skills/build/SKILL.md",
    ".mcp.json",
    ".gemini/agents/helper.md",
    ".gemini/commands/go.toml",
    ".gemini/extensions/ext/gemini-extension.json",
    ".codex/agents/helper.toml",
    ".codex/skills/build/SKILL.md",
    ".cursor/mcp.json",
    ".zcode/cli/config.json",
]


def okayed_repo(tmp_path: Path, files: list[str]) -> Path:
    from tests.helpers import plan

    text = plan("Change the harness", [("Edit", files, ["`true`"])])
    return make_run_repo(tmp_path, plan=text).root


@pytest.mark.parametrize("rel", HARNESS_CONFIG)
def test_harness_configuration_that_changes_what_runs_is_not_writable_in_a_run(
    tmp_path: Path, rel: str
) -> None:
    """Even declared in the reviewed plan: a subagent definition, an MCP server list or
    a skill changes what runs under the gate, like the hook wiring itself."""
    root = okayed_repo(tmp_path, [rel])
    target = root / rel
    for payload in (
        {"tool_name": "Write", "tool_input": {"file_path": str(target), "content": "x"}},
        {
            "tool_name": "Bash",
            "tool_input": {"command": f"mkdir -p $(dirname {rel}); echo x > {rel}"},
        },
        {"tool_name": "mcp__fs__write_file", "tool_input": {"path": str(target), "content": "x"}},
    ):
        body = {"session_id": "s", "cwd": str(root), "hook_event_name": "PreToolUse", **payload}
        done = run_hook(body, root, HOME=str(tmp_path / "home"))
        assert done.returncode == 2, (payload["tool_name"], done.stdout, done.stderr)
    assert not target.exists()


@pytest.mark.parametrize(
    "rel", [".zcode/cli/config.json", ".claude/agents/helper.md", ".mcp.json", ".codex/config.toml"]
)
@pytest.mark.parametrize("tool", ["mcp__fs__write_file", "mcp__filesystem__edit_file"])
def test_the_user_s_harness_configuration_is_not_writable_through_mcp(
    tmp_path: Path, rel: str, tool: str
) -> None:
    """`~/.zcode/cli/config.json` is ZCode's host hook registry: an MCP tool writing it
    in a run could unregister the gate for the next session."""
    home = tmp_path / "home"
    root = okayed_repo(tmp_path, ["src/server.py"])
    for path in (str(home / rel), f"~/{rel}"):
        body = {
            "session_id": "s",
            "cwd": str(root),
            "hook_event_name": "PreToolUse",
            "tool_name": tool,
            "tool_input": {"path": path, "content": "{}"},
        }
        done = run_hook(body, root, HOME=str(home))
        assert done.returncode == 2, (path, done.stdout, done.stderr)
