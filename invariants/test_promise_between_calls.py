"""docs/gate.md's promise that a change made between two tool calls is caught
at the next call's pre-tool, through the real `zodyssey hook` processes.

Two ordinary Bash calls; between the post-tool of the first and the pre-tool
of the second, the test writes a product file and the plan after OKAY (what a
background process left running would do). The second call must be blocked
before it runs, the product file put back, the change recorded in the
evidence, and `run todo ... done` refused.
"""

from __future__ import annotations

import json
from typing import Any

import pytest


@pytest.mark.claim("effect-check-between-calls")
def test_a_change_between_calls_blocks_the_next_call_and_is_undone(lab: Any) -> None:
    repo = lab.repo()
    (repo / "README.md").write_text("readme\n")
    lab.commit(repo, "initial")
    lab.start_run(repo, verdict="OKAY")  # README.md is not in the plan's scope
    first = lab.bash(repo, "ls")
    first["tool_use_id"] = "toolu_1"
    assert lab.hook(repo, first).allowed
    assert lab.hook(repo, {**first, "tool_response": {}}, "post-tool").code == 0
    (repo / "README.md").write_text("written by a background job\n")
    plan = repo / ".zcode" / "plans" / "demo.md"
    reviewed = plan.read_text()
    plan.write_text(reviewed + "\n- [ ] 9. Widen the scope\n")
    second = lab.bash(repo, "ls")
    second["tool_use_id"] = "toolu_2"
    outcome = lab.hook(repo, second)
    assert outcome.blocked, (outcome.code, outcome.stdout, outcome.stderr)
    assert "between tool calls" in outcome.stdout + outcome.stderr
    assert (repo / "README.md").read_text() == "readme\n"
    evidence = repo / ".zcode" / "verify" / "demo" / "evidence.jsonl"
    [record] = [json.loads(line) for line in evidence.read_text().splitlines()]
    assert record["kind"] == "violation" and record["when"] == "something between tool calls"
    assert {c["path"] for c in record["changes"]} == {"README.md", str(plan.resolve())}
    plan.write_text(reviewed)  # a protected file is recorded, not put back: the person does
    done = lab.zodyssey("run", "todo", "demo", "1", "done", cwd=repo)
    assert done.returncode == 11 and "unresolved violation" in done.stdout + done.stderr
