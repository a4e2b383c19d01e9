"""Claude Code's `Workflow` fans out: its subagents count against the parallel-dispatch cap.

One `Workflow` call runs up to 16 subagents at once (`agent_type:
workflow-subagent`), so it takes 16 of the cap's slots, not one: with the
default cap of 4 it is refused, and while it runs the slots it holds keep
other dispatches out. How this could pass while broken: the policy could
count the fan-out but the slot ledger only one entry (the next `Task`
would then get in), so the hook-level test reads the ledger through a
second dispatch, and releases it by the Workflow's own post-tool.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.gate import blocked, call, ctx, iso, make_run_repo, run_hook
from zodyssey.gate.policy import WORKFLOW_FANOUT, decide
from zodyssey.gate.toolcall import ToolCall


def workflow(root: Path) -> ToolCall:
    return call("Workflow", {"description": "fan out", "prompt": "build it"}, root)


def task(root: Path) -> ToolCall:
    return call("Task", {"subagent_type": "executor", "prompt": "do it", "description": "d"}, root)


def test_a_workflow_takes_its_whole_fan_out(root: Path) -> None:
    assert WORKFLOW_FANOUT == 16
    refused = decide(workflow(root), ctx(root, cap=4))
    blocked(refused, "dispatch-cap")
    assert "16 subagents" in refused.reason and "cap 4" in refused.reason
    allowed = decide(workflow(root), ctx(root, cap=16))
    assert allowed.allow and [(e.kind, e.data) for e in allowed.effects] == [("slot", ("t1", 16))]
    one_in_flight = [{"id": "toolu_0", "at": iso(10)}]
    blocked(
        decide(workflow(root), ctx(root, cap=16, inflight=one_in_flight)),
        "dispatch-cap",
    )


def test_a_running_workflow_holds_its_slots(root: Path) -> None:
    running = [{"id": "wf", "at": iso(10), "weight": 16}]
    blocked(decide(task(root), ctx(root, cap=16, inflight=running)), "dispatch-cap")
    assert decide(task(root), ctx(root, cap=17, inflight=running)).allow


@pytest.mark.claim("workflow-fanout-capped")
def test_through_the_hook_the_ledger_holds_the_fan_out(tmp_path: Path) -> None:
    repo = make_run_repo(tmp_path)
    flow = repo.payload(
        "Workflow", {"description": "fan out", "prompt": "build it"}, tool_use_id="toolu_wf"
    )
    assert run_hook(flow, repo.root, ZODYSSEY_PARALLEL_CAP="17").returncode == 0
    ledger = json.loads((repo.root / ".zcode" / "state" / "demo.inflight.json").read_text())
    assert [(e["id"], e.get("weight", 1)) for e in ledger] == [("toolu_wf", 16)]
    first = repo.payload(
        "Task", {"subagent_type": "executor", "prompt": "a", "description": "a"}, tool_use_id="t_a"
    )
    second = dict(first, tool_use_id="t_b")
    assert run_hook(first, repo.root, ZODYSSEY_PARALLEL_CAP="17").returncode == 0  # 16 + 1 = 17
    refused = run_hook(second, repo.root, ZODYSSEY_PARALLEL_CAP="17")
    assert refused.returncode == 2 and "in flight" in refused.stderr, refused.stderr
    done = dict(flow, hook_event_name="PostToolUse", tool_response={"status": "completed"})
    assert run_hook(done, repo.root, event="post-tool", ZODYSSEY_PARALLEL_CAP="17").returncode == 0
    assert run_hook(second, repo.root, ZODYSSEY_PARALLEL_CAP="17").returncode == 0
