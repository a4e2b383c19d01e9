"""A verdict only the reviewer can give (issue 21, item 1).

The orchestrating agent used to read the nonce the gate minted at the
reviewer's dispatch from the run state, write `{"verdict": "OKAY", "nonce": N}`
and record it with `zodyssey run review --artifact`. Now the gate takes the
verdict from the harness's own report of the reviewer dispatch (the post-tool
hook, matched by the dispatch's id) and the state keeps only a digest.

How this could pass while broken: the post-tool hook could take a report of
any dispatch (another call id, an executor, a forged `zodyssey hook` run from
the agent's shell, the hatch); the answer could be read from the prompt the
report echoes; a harness without agent reports (Cursor, Codex) could still
record an agent verdict; the audit could accept a verdict whose dispatch the
transcript never saw.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import run_zodyssey
from tests.helpers.gate import bash, ctx
from tests.helpers.runs import PLAN, Repo, make_repo, reviewer_payload, transcript_of
from zodyssey.gate.policy import decide


@pytest.fixture
def started(tmp_path: Path) -> Repo:
    repo = make_repo(tmp_path / "repo")
    plan = tmp_path / "plan.md"
    plan.write_text(PLAN, encoding="utf-8")
    assert repo.run("start", "demo", "--plan", str(plan)).code == 0
    return repo


def test_the_forgery_of_issue_21_fails_at_every_step(started: Repo) -> None:
    """Dispatch the reviewer, read the state, write a verdict, record it: none of it opens."""
    repo = started
    assert repo.dispatch_reviewer().code == 0
    text = (repo.root / ".zcode/state/demo.json").read_text()
    state = json.loads(text)
    # Nothing in the state is a value the agent could hand back.
    assert state["review"].get("pending_nonce") is None
    assert "toolu_review_1" not in text
    forged = repo.write(
        ".zcode/staging/v.json",
        json.dumps({"verdict": "OKAY", "nonce": state["review"]["pending_dispatch"]["sha256"]}),
    )
    # From the agent's shell the gate refuses the command ...
    shell = {"command": f"zodyssey run review demo --artifact {forged}"}
    gated = repo.hook(
        "pre-tool",
        {**reviewer_payload(repo.root, "toolu_x"), "tool_name": "Bash", "tool_input": shell},
    )
    assert gated.code == 2 and "ask the user" in gated.err, gated.text
    # ... and the command itself records no verdict from a file.
    direct = repo.run("review", "demo", "--artifact", str(forged))
    assert direct.code == 11, direct.text
    after = repo.state()
    assert after["review"]["verdict"] is None and after["phase"] == "plan"
    assert after["review"]["history"] == []


@pytest.mark.parametrize(
    "command",
    [
        "echo '{}' | zodyssey hook post-tool",
        "zodyssey hook post-tool --harness gemini < .zcode/staging/report.json",
        "python -m zodyssey.gate post-tool < .zcode/staging/report.json",
        "python3 -S -P /x/zodyssey/gate/hook_entry.py post-tool < r.json",
        "python3 -c 'import zodyssey.gate.hook as h; h.main([\"post-tool\"])'",
    ],
)
@pytest.mark.parametrize("ungated", [False, True])
def test_the_agent_cannot_run_the_post_tool_hook_itself(
    root: Path, command: str, ungated: bool
) -> None:
    """The report must come from the harness: the hook is not the agent's to run, hatch or not."""
    for verdict in (None, "OKAY"):
        decision = decide(
            bash(root, command), ctx(root, phase="plan", verdict=verdict, ungated=ungated)
        )
        assert not decision.allow, (command, decision)


def test_the_real_reviewer_verdict_opens_the_gate(started: Repo) -> None:
    repo = started
    write = {
        **reviewer_payload(repo.root, "toolu_w"),
        "tool_name": "Write",
        "tool_input": {"file_path": str(repo.root / "greeting.txt"), "content": "hello\n"},
    }
    assert repo.hook("pre-tool", write).code == 2
    result = repo.review_by_reviewer("OKAY")
    assert result.code == 0 and "review round 1/3: OKAY" in result.err, result.text
    state = repo.state()
    assert state["phase"] == "execute" and state["review"]["verdict"] == "OKAY"
    entry = state["review"]["history"][-1]
    assert entry["source"] == "agent" and entry["by"] == "momus"
    assert entry["dispatch"]["harness"] == "claude-code"
    recorded = json.loads((repo.root / ".zcode/reviews/demo-r1.json").read_text())
    assert "VERDICT: OKAY" in recorded["response"]
    assert repo.hook("pre-tool", write).code == 0
    audit = run_zodyssey("audit", "demo", "--repo", str(repo.root), cwd=repo.root)
    assert "review-transcript" not in audit.stdout + audit.stderr, audit.stdout


def test_another_dispatch_report_is_no_verdict(started: Repo) -> None:
    repo = started
    assert repo.dispatch_reviewer().code == 0
    explore = reviewer_payload(repo.root, "toolu_explore")
    explore["tool_input"] = {**explore["tool_input"], "subagent_type": "explore"}
    assert repo.hook("pre-tool", explore).code == 0
    explore.update(hook_event_name="PostToolUse", tool_response=repo.answer("OKAY"))
    assert repo.hook("post-tool", explore).code == 0
    assert repo.state()["review"]["round"] == 0
    assert repo.report_reviewer("VERDICT: REJECT").code == 0
    assert repo.state()["review"]["verdict"] == "REJECT"


def gemini_call(root: Path, event: str, response: Any = None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "session_id": "gemini-session",
        "transcript_path": str(transcript_of(root)),
        "cwd": str(root),
        "hook_event_name": event,
        "timestamp": "2026-12-01T00:00:00Z",
        "tool_name": "invoke_agent",
        "tool_input": {"agent_name": "momus", "prompt": "Review .zcode/plans/demo.md"},
    }
    if response is not None:
        body["tool_response"] = response
    return body


def test_gemini_reports_the_reviewer_through_invoke_agent(started: Repo) -> None:
    repo = started
    dispatched = repo.hook("pre-tool", gemini_call(repo.root, "BeforeTool"), "gemini")
    assert dispatched.code == 0, dispatched.text
    assert repo.state()["review"]["pending_dispatch"]["harness"] == "gemini"
    # Gemini runs the call with the gate's brief and reports the call it ran.
    ran = json.loads(dispatched.out)["hookSpecificOutput"]["tool_input"]
    report = {"llmContent": [{"text": repo.answer("OKAY")}], "returnDisplay": "ok"}
    after = gemini_call(repo.root, "AfterTool", report) | {"tool_input": ran}
    assert repo.hook("post-tool", after, "gemini").code == 0
    state = repo.state()
    assert state["review"]["verdict"] == "OKAY" and state["phase"] == "execute"


def test_run_start_says_where_the_verdict_comes_from(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    for harness in ("claude-code", "cursor", "zcode"):  # wired and declared, as a user does
        done = run_zodyssey(
            "hook", "install", "--harness", harness, "--command", "zodyssey", cwd=repo.root
        )
        assert done.returncode == 0, done.stderr
    repo.commit("wire the gate")
    started = repo.run("start", "demo")
    assert started.code == 0, started.text
    # Both ways a plan is approved, and where each holds.
    assert "the plan is approved (review verdict) by either:" in started.out
    assert "the reviewer agent (momus): on claude-code the gate takes its verdict" in started.out
    assert "`zodyssey check` holds to the one zodyssey ships" in started.out
    assert "a person, on every harness, in their own terminal" in started.out
    assert "the gate writes the reviewer's brief on claude-code" in started.out
    assert "on cursor (no agent reports) a person decides" in started.out
    assert "zodyssey run review demo --human`" in started.out
    assert (
        "on zcode the gate cannot rewrite the reviewer's dispatch (the orchestrator would "
        "choose its instructions): a person decides" in started.out
    ), started.out
    assert "zodyssey run review demo --human OKAY|REJECT --by NAME" in started.out


@pytest.mark.parametrize("harness", ["cursor", "codex", "zcode"])
def test_a_harness_without_agent_reports_records_no_agent_verdict(
    started: Repo, harness: str
) -> None:
    """Cursor and Codex report no subagent's answer; ZCode reports it, but lets no hook
    rewrite the reviewer's dispatch (the orchestrator chose its instructions): an OKAY
    in the shipped form records nothing there, and a person decides."""
    repo = started
    body = reviewer_payload(repo.root, "toolu_c")
    assert repo.hook("pre-tool", body, harness).code == 0
    body.update(hook_event_name="PostToolUse", tool_response=repo.answer("OKAY"))
    reported = repo.hook("post-tool", body, harness)
    assert reported.code == 0
    if harness == "zcode":
        assert "cannot write the reviewer's brief" in reported.err, reported.text
        assert "--human" in reported.err
    state = repo.state()
    # The dispatch is spent: the plan is not held frozen for a verdict that cannot come.
    assert state["review"]["pending_dispatch"] is None, state["review"]
    assert state["review"]["verdict"] is None and state["phase"] == "plan"
    person = repo.run("review", "demo", "--human", "OKAY", "--by", "alice")
    assert person.code == 0 and repo.state()["review"]["source"] == "human"


def test_the_audit_fails_a_verdict_the_transcript_does_not_record(started: Repo) -> None:
    repo = started
    assert repo.review_by_reviewer("OKAY").code == 0
    transcript = transcript_of(repo.root)
    # The transcript of another session: the dispatch the verdict came from is not in it.
    transcript.write_text(json.dumps({"type": "user", "message": {"content": "hi"}}) + "\n")
    audit = run_zodyssey(
        "audit", "demo", "--repo", str(repo.root), "--format", "json", cwd=repo.root
    )
    assert audit.returncode != 0
    assert "review-transcript" in audit.stdout, audit.stdout
