"""docs/gate.md's promise about a reviewer run in the background (Claude Code's default).

Through the real hook, as Claude Code 2.1.332 sends it: the PostToolUse of the
`Agent` dispatch (`status: "async_launched"`, the `agentId`, no answer), then the
SubagentStop of agents. Only the stop of the agent that launch report named
records the round; another agent's stop, a replayed stop and an earlier round's
reviewer record nothing.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from invariants.conftest import Outcome, clean_env


def _hook(lab: Any, repo: Any, payload: dict[str, Any], event: str, **env_extra: str) -> Outcome:
    env = clean_env(CLAUDE_PROJECT_DIR=str(repo), **env_extra)
    done = lab.zodyssey("hook", event, cwd=repo, stdin=json.dumps(payload), env=env)
    return Outcome(done.returncode, done.stdout, done.stderr)


def _dispatch(repo: Any, call_id: str, event: str = "PreToolUse") -> dict[str, Any]:
    return {
        "session_id": "s1",
        "cwd": str(repo),
        "hook_event_name": event,
        "tool_name": "Agent",
        "tool_input": {"subagent_type": "momus", "description": "review", "prompt": "review"},
        "tool_use_id": call_id,
    }


def _launch(lab: Any, repo: Any, call_id: str, agent_id: str) -> None:
    assert _hook(lab, repo, _dispatch(repo, call_id), "pre-tool").allowed
    report = _dispatch(repo, call_id, "PostToolUse")
    report["tool_response"] = {"isAsync": True, "status": "async_launched", "agentId": agent_id}
    assert _hook(lab, repo, report, "post-tool").code == 0


def _stop(lab: Any, repo: Any, agent_id: str, answer: str, agent_type: str = "momus") -> int:
    payload = {
        "session_id": "s1",
        "cwd": str(repo),
        "hook_event_name": "SubagentStop",
        "agent_id": agent_id,
        "agent_type": agent_type,
        "stop_hook_active": False,
        "last_assistant_message": answer,
    }
    code: int = _hook(lab, repo, payload, "subagent-stop").code
    return code


def _okay(repo: Any) -> str:
    """An OKAY in the shipped reviewer's form: the digest of the plan it read."""
    import hashlib

    plan = (repo / ".zcode" / "plans" / "demo.md").read_bytes()
    return f"PLAN-SHA256: {hashlib.sha256(plan).hexdigest()}\nVERDICT: OKAY"


def _review(repo: Any) -> dict[str, Any]:
    state: dict[str, Any] = json.loads((repo / ".zcode/state/demo.json").read_text())
    return dict(state["review"], phase=state["phase"])


@pytest.mark.claim("background-reviewer-verdict")
def test_only_the_launched_reviewer_stop_is_the_verdict(lab: Any) -> None:
    repo = lab.repo()
    lab.start_run(repo)
    _launch(lab, repo, "toolu_r1", "agent-one")
    assert "agent-one" not in (repo / ".zcode/state/demo.json").read_text()
    assert _stop(lab, repo, "agent-other", _okay(repo)) == 0  # another agent
    assert _stop(lab, repo, "agent-one", _okay(repo), "general-purpose") == 0
    assert _review(repo)["round"] == 0
    assert _stop(lab, repo, "agent-one", "VERDICT: REJECT") == 0
    assert _review(repo)["verdict"] == "REJECT" and _review(repo)["round"] == 1
    assert _stop(lab, repo, "agent-one", _okay(repo)) == 0  # replayed / continued
    assert _review(repo)["round"] == 1
    _launch(lab, repo, "toolu_r2", "agent-two")
    assert _stop(lab, repo, "agent-one", _okay(repo)) == 0  # round 1's reviewer
    assert _review(repo)["round"] == 1
    assert _stop(lab, repo, "agent-two", _okay(repo)) == 0
    review = _review(repo)
    assert review["verdict"] == "OKAY" and review["round"] == 2 and review["phase"] == "execute"
    assert lab.hook(repo, lab.write(repo, "src/app.py")).allowed


@pytest.mark.claim("background-reviewer-verdict")
def test_a_stop_that_comes_before_its_launch_report_is_held_for_it(lab: Any) -> None:
    """Claude Code can run the SubagentStop hook before the launch's PostToolUse."""
    repo = lab.repo()
    lab.start_run(repo)
    assert _hook(lab, repo, _dispatch(repo, "toolu_r1"), "pre-tool").allowed
    assert _stop(lab, repo, "agent-other", _okay(repo)) == 0  # not this dispatch's
    assert _stop(lab, repo, "agent-one", _okay(repo)) == 0
    assert _review(repo)["round"] == 0 and not lab.hook(repo, lab.write(repo, "src/app.py")).allowed
    report = _dispatch(repo, "toolu_r1", "PostToolUse")
    report["tool_response"] = {"isAsync": True, "status": "async_launched", "agentId": "agent-one"}
    assert _hook(lab, repo, report, "post-tool").code == 0
    review = _review(repo)
    assert review["verdict"] == "OKAY" and review["round"] == 1 and review["phase"] == "execute"
    assert lab.hook(repo, lab.write(repo, "src/app.py")).allowed


def _explore(repo: Any, call_id: str, event: str = "PreToolUse") -> dict[str, Any]:
    payload = _dispatch(repo, call_id, event)
    payload["tool_input"] = {**payload["tool_input"], "subagent_type": "explore"}
    return payload


def _capped(lab: Any, repo: Any, payload: dict[str, Any], event: str) -> int:
    code: int = _hook(lab, repo, payload, event, ZODYSSEY_PARALLEL_CAP="1").code
    return code


@pytest.mark.claim("dispatch-cap-background")
def test_a_background_agent_counts_against_the_cap_until_it_stops(lab: Any) -> None:
    repo = lab.repo()
    lab.start_run(repo)
    assert _capped(lab, repo, _explore(repo, "toolu_e1"), "pre-tool") == 0
    report = _explore(repo, "toolu_e1", "PostToolUse")
    report["tool_response"] = {"isAsync": True, "status": "async_launched", "agentId": "agent-e1"}
    assert _capped(lab, repo, report, "post-tool") == 0
    assert _capped(lab, repo, _explore(repo, "toolu_e2"), "pre-tool") == 2  # cap 1, still running
    stop = {
        "session_id": "s1",
        "cwd": str(repo),
        "hook_event_name": "SubagentStop",
        "agent_id": "agent-e1",
        "agent_type": "explore",
        "stop_hook_active": False,
        "last_assistant_message": "done",
    }
    assert _capped(lab, repo, stop, "subagent-stop") == 0
    assert _capped(lab, repo, _explore(repo, "toolu_e3"), "pre-tool") == 0
