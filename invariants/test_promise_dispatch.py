"""docs/gate.md's promise about Claude Code's `Workflow`: its fan-out counts against the cap.

Through the real hook, in a run after OKAY: with the default cap (4) a
`Workflow` is refused; with a cap of 17 it is allowed and holds 16 slots, so
one `Task` still fits and the next is refused until the Workflow's post-tool
releases its slots.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from invariants.conftest import Outcome, clean_env


def _hook(lab: Any, repo: Any, payload: dict[str, Any], event: str, cap: str) -> Outcome:
    env = clean_env(CLAUDE_PROJECT_DIR=str(repo), ZODYSSEY_PARALLEL_CAP=cap)
    done = lab.zodyssey("hook", event, cwd=repo, stdin=json.dumps(payload), env=env)
    return Outcome(done.returncode, done.stdout, done.stderr)


def _dispatch(repo: Any, tool: str, call_id: str) -> dict[str, Any]:
    tool_input: dict[str, Any] = {"description": "d", "prompt": "build it"}
    if tool == "Task":
        tool_input["subagent_type"] = "executor"
    return {
        "session_id": "s1",
        "cwd": str(repo),
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": call_id,
    }


@pytest.mark.claim("workflow-fanout-capped")
def test_a_workflow_holds_its_whole_fan_out(lab: Any) -> None:
    repo = lab.repo()
    lab.start_run(repo, verdict="OKAY")
    flow = _dispatch(repo, "Workflow", "toolu_wf")
    assert _hook(lab, repo, flow, "pre-tool", "4").blocked
    assert _hook(lab, repo, flow, "pre-tool", "17").allowed
    assert _hook(lab, repo, _dispatch(repo, "Task", "toolu_a"), "pre-tool", "17").allowed
    assert _hook(lab, repo, _dispatch(repo, "Task", "toolu_b"), "pre-tool", "17").blocked
    done = dict(flow, hook_event_name="PostToolUse", tool_response={"status": "completed"})
    assert _hook(lab, repo, done, "post-tool", "17").code == 0
    assert _hook(lab, repo, _dispatch(repo, "Task", "toolu_b"), "pre-tool", "17").allowed
