"""The reviewer dispatched in the background: its verdict from Claude Code's SubagentStop.

Claude Code 2.1.332 runs `Agent` in the background by default: the PostToolUse
of the dispatch comes at once (`tool_response.status: "async_launched"`, the
`agentId`, no answer) and the reviewer's final answer only in the SubagentStop
event of that agent (`agent_id`, `agent_type`, `last_assistant_message`). The
shapes here are the ones Claude Code 2.1.332 sent (tests/data/client_payloads/
claude-code-2.1.332/review-in-background.json).

How this could pass while broken: a SubagentStop of any agent could count (an
executor's, an explorer's, one that names the reviewer's type but is not the
agent the dispatch launched); a stop replayed after its round, or the stop of
an earlier round's reviewer continued by the orchestrator, could record again;
the launch report could clear the pending dispatch so no stop is ever taken; a
file the orchestrator writes (the task's output file, a transcript) could be
read for the answer; the hook could exit 2 on a SubagentStop, which keeps the
subagent running with our reason as its next instruction.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import run_zodyssey
from tests.helpers.runs import PLAN, Repo, make_repo, reviewer_payload, transcript_of
from zodyssey.gate.harness import get_harness
from zodyssey.gate.install import install, our_entries

AGENT_A = "af32ba9e93cf28fd6"
AGENT_B = "b7710c3d2e4f5a6b7"


@pytest.fixture
def started(tmp_path: Path) -> Repo:
    repo = make_repo(tmp_path / "repo")
    plan = tmp_path / "plan.md"
    plan.write_text(PLAN, encoding="utf-8")
    assert repo.run("start", "demo", "--plan", str(plan)).code == 0
    return repo


def launched(repo: Repo, agent_id: str, tool_use_id: str = "toolu_review_1") -> Any:
    """The PostToolUse of a background `Agent` dispatch, as Claude Code 2.1.332 sends it."""
    body = reviewer_payload(repo.root, tool_use_id)
    body["hook_event_name"] = "PostToolUse"
    body["tool_response"] = {
        "isAsync": True,
        "status": "async_launched",
        "agentId": agent_id,
        "description": body["tool_input"]["description"],
        "prompt": body["tool_input"]["prompt"],
        "outputFile": str(repo.root.parent / "tasks" / f"{agent_id}.output"),
        "canReadOutputFile": True,
        "canContinueAgent": True,
    }
    body["duration_ms"] = 559
    return repo.hook("post-tool", body)


def stop_payload(repo: Repo, agent_id: str, answer: str, agent_type: str = "momus") -> Any:
    return {
        "session_id": "sess-orchestrator",
        "transcript_path": str(transcript_of(repo.root)),
        "cwd": str(repo.root),
        "permission_mode": "default",
        "agent_id": agent_id,
        "agent_type": agent_type,
        "hook_event_name": "SubagentStop",
        "stop_hook_active": False,
        "agent_transcript_path": str(repo.root.parent / "subagents" / f"agent-{agent_id}.jsonl"),
        "last_assistant_message": answer,
        "background_tasks": [],
    }


def stopped(repo: Repo, agent_id: str, answer: str, agent_type: str = "momus") -> Any:
    return repo.hook("subagent-stop", stop_payload(repo, agent_id, answer, agent_type))


def background_round(repo: Repo, agent_id: str, tool_use_id: str = "toolu_review_1") -> None:
    assert repo.dispatch_reviewer(tool_use_id).code == 0
    launch = launched(repo, agent_id, tool_use_id)
    assert launch.code == 0, launch.text


def write_call(repo: Repo) -> dict[str, Any]:
    return {
        **reviewer_payload(repo.root, "toolu_w"),
        "tool_name": "Write",
        "tool_input": {"file_path": str(repo.root / "greeting.txt"), "content": "hello\n"},
    }


def test_the_background_reviewer_verdict_opens_the_gate(started: Repo) -> None:
    repo = started
    assert repo.hook("pre-tool", write_call(repo)).code == 2
    background_round(repo, AGENT_A)
    # The launch report carries no answer: nothing recorded, the dispatch still pending.
    state = repo.state()
    assert state["review"]["round"] == 0 and state["review"]["verdict"] is None
    assert state["review"]["pending_dispatch"] is not None
    assert AGENT_A not in json.dumps(state)  # a digest of the agent's id, never the id
    result = stopped(repo, AGENT_A, repo.answer("OKAY"))
    assert result.code == 0 and "review round 1/3: OKAY" in result.err, result.text
    state = repo.state()
    assert state["phase"] == "execute" and state["review"]["verdict"] == "OKAY"
    assert state["review"]["pending_dispatch"] is None
    entry = state["review"]["history"][-1]
    assert entry["source"] == "agent" and entry["by"] == "momus"
    assert entry["dispatch"]["harness"] == "claude-code"
    assert entry["plan_sha256"] == state["review"]["plan_sha256"]
    recorded = json.loads((repo.root / ".zcode/reviews/demo-r1.json").read_text())
    assert "VERDICT: OKAY" in recorded["response"]
    assert AGENT_A not in json.dumps(repo.state())
    assert repo.hook("pre-tool", write_call(repo)).code == 0


def test_a_background_reject_is_recorded(started: Repo) -> None:
    repo = started
    background_round(repo, AGENT_A)
    result = stopped(repo, AGENT_A, "VERDICT: REJECT")
    assert result.code == 0, result.text
    state = repo.state()
    assert state["review"]["verdict"] == "REJECT" and state["review"]["round"] == 1
    assert state["phase"] == "plan"


@pytest.mark.parametrize(
    ("agent_id", "agent_type"),
    [
        ("e0e0e0e0e0e0e0e0e", "Explore"),  # another agent altogether
        ("e0e0e0e0e0e0e0e0e", "momus"),  # the reviewer's type, not the agent launched
        (AGENT_A, "general-purpose"),  # the launched id under another type
    ],
)
def test_a_stop_of_another_agent_is_no_verdict(
    started: Repo, agent_id: str, agent_type: str
) -> None:
    repo = started
    background_round(repo, AGENT_A)
    result = stopped(repo, agent_id, repo.answer("OKAY"), agent_type)
    assert result.code == 0, result.text
    state = repo.state()
    assert state["review"]["round"] == 0 and state["review"]["verdict"] is None
    assert repo.hook("pre-tool", write_call(repo)).code == 2
    # The launched reviewer's own stop still counts afterwards.
    assert stopped(repo, AGENT_A, "VERDICT: REJECT").code == 0
    assert repo.state()["review"]["verdict"] == "REJECT"


def test_a_stop_without_a_launch_report_is_no_verdict(started: Repo) -> None:
    """The agent id is bound by the harness's report of this dispatch, not by the stop."""
    repo = started
    assert repo.dispatch_reviewer().code == 0
    assert stopped(repo, AGENT_A, repo.answer("OKAY")).code == 0
    assert repo.state()["review"]["verdict"] is None


def test_a_stop_before_its_launch_report_counts_once_the_report_names_it(
    started: Repo,
) -> None:
    """Claude Code can run the SubagentStop hook before the PostToolUse hook of the
    dispatch (seen in CI with 2.1.332): the stop is held, and the launch report that
    names that agent records it. Broken, the verdict is lost and the gate stays shut."""
    repo = started
    assert repo.dispatch_reviewer().code == 0
    held = stopped(repo, AGENT_A, "VERDICT: REJECT")
    assert held.code == 0 and "held" in held.err, held.text
    assert repo.state()["review"]["verdict"] is None
    # The same agent stopping again (continued) before the launch report replaces nothing.
    assert stopped(repo, AGENT_A, repo.answer("OKAY")).code == 0
    assert AGENT_A not in json.dumps(repo.state())  # held under the agent's digest
    launch = launched(repo, AGENT_A)
    assert launch.code == 0 and "review round 1/3: REJECT" in launch.err, launch.text
    state = repo.state()
    assert state["review"]["verdict"] == "REJECT" and state["review"]["round"] == 1
    assert state["review"]["pending_dispatch"] is None
    # Spent: the same stop again, or the launch report again, records nothing more.
    assert stopped(repo, AGENT_A, repo.answer("OKAY")).code == 0
    assert launched(repo, AGENT_A).code == 0
    assert repo.state()["review"]["round"] == 1


def test_an_early_okay_opens_the_gate_only_when_the_launch_names_it(started: Repo) -> None:
    repo = started
    assert repo.dispatch_reviewer().code == 0
    assert stopped(repo, AGENT_B, repo.answer("OKAY")).code == 0  # another reviewer-typed agent
    assert stopped(repo, "e0e0e0e0e0e0e0e0e", repo.answer("OKAY"), "Explore").code == 0
    launch = launched(repo, AGENT_A)  # the dispatch started AGENT_A, which has not stopped
    assert launch.code == 0, launch.text
    state = repo.state()
    assert state["review"]["verdict"] is None and state["review"]["round"] == 0
    assert "held_stops" not in json.dumps(state)  # the binding drops what it did not name
    assert repo.hook("pre-tool", write_call(repo)).code == 2
    assert stopped(repo, AGENT_B, repo.answer("OKAY")).code == 0  # still not this dispatch's agent
    assert repo.state()["review"]["verdict"] is None
    result = stopped(repo, AGENT_A, repo.answer("OKAY"))
    assert result.code == 0 and "review round 1/3: OKAY" in result.err, result.text
    assert repo.hook("pre-tool", write_call(repo)).code == 0


def test_an_early_stop_of_a_spent_reviewer_is_not_held(started: Repo) -> None:
    repo = started
    background_round(repo, AGENT_A)
    assert stopped(repo, AGENT_A, "VERDICT: REJECT").code == 0
    assert repo.dispatch_reviewer("toolu_review_2").code == 0
    assert stopped(repo, AGENT_A, repo.answer("OKAY")).code == 0  # the first round's agent
    assert "held_stops" not in json.dumps(repo.state())
    assert launched(repo, AGENT_A, "toolu_review_2").code == 0
    state = repo.state()
    assert state["review"]["round"] == 1 and state["review"]["verdict"] == "REJECT"


def test_an_early_stop_after_a_plan_change_is_a_reject(started: Repo) -> None:
    repo = started
    assert repo.dispatch_reviewer().code == 0
    assert stopped(repo, AGENT_A, repo.answer("OKAY")).code == 0
    plan = repo.root / ".zcode/plans/demo.md"
    sent = plan.read_text()
    plan.write_text(sent + "\nFiles: src/everything.py\n", encoding="utf-8")
    # the change during the review is a violation (issue 34): recorded, put back
    done = launched(repo, AGENT_A)
    assert done.code == 2 and "demo.md (restored)" in done.err, done.err
    assert plan.read_text() == sent
    state = repo.state()
    assert state["review"]["verdict"] == "REJECT" and state["phase"] == "plan"


def test_a_replayed_stop_records_nothing(started: Repo) -> None:
    repo = started
    background_round(repo, AGENT_A)
    assert stopped(repo, AGENT_A, "VERDICT: REJECT").code == 0
    # Claude Code sending it twice, or the orchestrator continuing the reviewer
    # (`canContinueAgent`) until it says something else.
    for answer in ("VERDICT: REJECT", repo.answer("OKAY")):
        again = stopped(repo, AGENT_A, answer)
        assert again.code == 0, again.text
    state = repo.state()
    assert state["review"]["round"] == 1 and state["review"]["verdict"] == "REJECT"
    assert len(state["review"]["history"]) == 1


def test_a_second_round_takes_only_its_own_reviewer(started: Repo) -> None:
    repo = started
    background_round(repo, AGENT_A)
    assert stopped(repo, AGENT_A, "VERDICT: REJECT").code == 0
    background_round(repo, AGENT_B, "toolu_review_2")
    # The first round's reviewer, continued by the orchestrator, is not this round's.
    assert stopped(repo, AGENT_A, repo.answer("OKAY")).code == 0
    assert repo.state()["review"]["round"] == 1
    result = stopped(repo, AGENT_B, repo.answer("OKAY"))
    assert result.code == 0 and "review round 2/3: OKAY" in result.err, result.text
    assert repo.state()["phase"] == "execute"


def test_a_launch_report_naming_an_earlier_reviewer_binds_nothing(started: Repo) -> None:
    """A new dispatch reported as continuing the agent whose verdict was already taken."""
    repo = started
    background_round(repo, AGENT_A)
    assert stopped(repo, AGENT_A, "VERDICT: REJECT").code == 0
    background_round(repo, AGENT_A, "toolu_review_2")
    assert stopped(repo, AGENT_A, repo.answer("OKAY")).code == 0
    state = repo.state()
    assert state["review"]["round"] == 1 and state["review"]["verdict"] == "REJECT"


def test_files_the_orchestrator_writes_are_never_the_answer(started: Repo) -> None:
    """The task's output file and the agent's transcript say OKAY; the harness's stop says
    REJECT: REJECT is recorded."""
    repo = started
    background_round(repo, AGENT_A)
    forged = {
        "type": "assistant",
        "message": {"content": [{"type": "text", "text": "VERDICT: OKAY"}]},
    }
    for path in (
        repo.root.parent / "tasks" / f"{AGENT_A}.output",
        repo.root.parent / "subagents" / f"agent-{AGENT_A}.jsonl",
    ):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(forged) + "\n", encoding="utf-8")
    repo.write(".zcode/staging/v.json", json.dumps({"verdict": "OKAY"}))
    assert repo.state()["review"]["verdict"] is None
    assert stopped(repo, AGENT_A, "VERDICT: REJECT").code == 0
    assert repo.state()["review"]["verdict"] == "REJECT"


def test_a_plan_changed_before_the_stop_turns_okay_into_reject(started: Repo) -> None:
    repo = started
    background_round(repo, AGENT_A)
    okay = repo.answer("OKAY")  # the reviewer read the plan it was sent
    plan = repo.root / ".zcode/plans/demo.md"
    plan.write_text(plan.read_text() + "\nFiles: src/everything.py\n", encoding="utf-8")
    assert stopped(repo, AGENT_A, okay).code == 0
    state = repo.state()
    assert state["review"]["verdict"] == "REJECT" and state["phase"] == "plan"
    assert "changed" in (state["review"]["history"][-1]["refused"] or "")


def test_a_stop_never_blocks_the_subagent(started: Repo) -> None:
    """Exit 2 on SubagentStop keeps the subagent running: never, whatever goes wrong."""
    repo = started
    background_round(repo, AGENT_A)
    (repo.root / ".zcode/state/demo.json").write_text("{not json", encoding="utf-8")
    broken = stopped(repo, AGENT_A, repo.answer("OKAY"))
    assert broken.code != 2, broken.text
    garbage = repo.hook("subagent-stop", {"agent_id": 7})
    assert garbage.code != 2, garbage.text


def test_hook_install_wires_subagent_stop_for_claude_code(tmp_path: Path) -> None:
    path, changes = install(tmp_path, "claude-code")
    settings = json.loads(path.read_text())
    assert "SubagentStop" in settings["hooks"], changes
    ours = our_entries(settings, get_harness("claude-code"), "subagent-stop")
    assert ours and "subagent-stop" in ours[0]["entry"]["command"]
    # Idempotent.
    _, again = install(tmp_path, "claude-code")
    assert all(line.startswith("unchanged") for line in again), again


def test_the_wiring_check_says_when_subagent_stop_is_not_wired(tmp_path: Path) -> None:
    """Without the SubagentStop hook a background reviewer records nothing: the gate stays
    shut, so the check warns (naming the file and the fix) and does not fail."""
    from tests.gate.test_gate_wiring import commit, edit_json, gate_part, wired

    repo = wired(tmp_path, "claude-code")
    code, part, _ = gate_part(repo)
    assert code == 0 and not [f for f in part["report"]["findings"] if f["rule"] != "ok"], part
    edit_json(repo, ".claude/settings.json", lambda d: d["hooks"].pop("SubagentStop"))
    commit(repo)
    code, part, _ = gate_part(repo)
    found = [f for f in part["report"]["findings"] if f["rule"] == "stop-hook-missing"]
    assert code == 0 and len(found) == 1, part
    assert found[0]["severity"] == "warning" and found[0]["file"] == ".claude/settings.json"
    assert "SubagentStop" in found[0]["message"] and "hook install" in found[0]["message"]


def capped(repo: Repo, event: str, body: dict[str, Any]) -> Any:
    """The hook as Claude Code runs it, with a dispatch cap of 1."""
    done = run_zodyssey(
        *("hook", event, "--harness", "claude-code"),
        cwd=repo.root,
        env={"CLAUDE_PROJECT_DIR": str(repo.root), "ZODYSSEY_PARALLEL_CAP": "1"},
        stdin=json.dumps(body),
    )
    return done


def explorer_launch(repo: Repo, tool_use_id: str) -> Any:
    """An ordinary (not reviewer) `Agent` dispatch's PreToolUse, and its payload."""
    body = reviewer_payload(repo.root, tool_use_id)
    body["tool_input"] = {**body["tool_input"], "subagent_type": "explore"}
    return capped(repo, "pre-tool", body), body


def agent_stopped(repo: Repo, agent_id: str) -> Any:
    return capped(repo, "subagent-stop", stop_payload(repo, agent_id, "done", "explore"))


def test_a_background_agent_holds_its_slot_until_it_stops(started: Repo) -> None:
    """How this could pass while broken: the launch report (which comes at once)
    releasing the slot lets an orchestrator start any number of background agents
    under a cap of 1; a stop of another agent could free it."""
    repo = started
    first, body = explorer_launch(repo, "toolu_bg_1")
    assert first.returncode == 0, first.stderr
    body["hook_event_name"] = "PostToolUse"
    body["tool_response"] = {"isAsync": True, "status": "async_launched", "agentId": AGENT_A}
    assert capped(repo, "post-tool", body).returncode == 0
    assert AGENT_A not in (repo.root / ".zcode/state/demo.inflight.json").read_text()
    second, _ = explorer_launch(repo, "toolu_bg_2")
    assert second.returncode == 2 and "in flight" in second.stderr, second.stderr
    # Another agent's stop frees nothing; the launched agent's own stop frees its slot.
    assert agent_stopped(repo, AGENT_B).returncode == 0
    assert explorer_launch(repo, "toolu_bg_3")[0].returncode == 2
    assert agent_stopped(repo, AGENT_A).returncode == 0
    assert explorer_launch(repo, "toolu_bg_4")[0].returncode == 0


def test_a_foreground_agent_frees_its_slot_when_it_returns(started: Repo) -> None:
    repo = started
    first, body = explorer_launch(repo, "toolu_fg_1")
    assert first.returncode == 0, first.stderr
    body["hook_event_name"] = "PostToolUse"
    body["tool_response"] = {"content": [{"type": "text", "text": "found it"}]}
    assert capped(repo, "post-tool", body).returncode == 0
    assert explorer_launch(repo, "toolu_fg_2")[0].returncode == 0


def test_an_agent_that_stopped_before_its_launch_report_frees_its_slot(started: Repo) -> None:
    """The stop's hook can run before the launch report's. Broken, the launch report
    re-keys the slot to an agent that already stopped, and the cap stays taken for the
    two-hour expiry; a stop of another agent must still free nothing."""
    repo = started
    first, body = explorer_launch(repo, "toolu_bg_1")
    assert first.returncode == 0, first.stderr
    assert agent_stopped(repo, AGENT_B).returncode == 0  # some other agent
    assert agent_stopped(repo, AGENT_A).returncode == 0  # this dispatch's agent, early
    assert agent_stopped(repo, AGENT_A).returncode == 0  # the same stop sent twice
    assert explorer_launch(repo, "toolu_bg_2")[0].returncode == 2  # its launch not reported
    body["hook_event_name"] = "PostToolUse"
    body["tool_response"] = {"isAsync": True, "status": "async_launched", "agentId": AGENT_A}
    assert capped(repo, "post-tool", body).returncode == 0
    assert AGENT_A not in (repo.root / ".zcode/state/demo.inflight.json").read_text()
    assert explorer_launch(repo, "toolu_bg_3")[0].returncode == 0
