"""The review in the real clients: the reviewer's verdict, and the orchestrator forging one.

The reviewer is a real subagent of the client (`momus`, defined the way each
client defines agents) whose model turns come from the script's agent part.
Today's trusted agent path is the reviewer reading the nonce the gate minted
at its dispatch, writing the artifact and running `zodyssey run review
--artifact` itself; it also ends with `VERDICT: OKAY` as its final answer, the
answer the client reports for the dispatch (Claude Code's PostToolUse of
`Agent` or SubagentStop, Gemini CLI's AfterTool of `invoke_agent`), so a
verdict taken from the client's report is tested by the same session.

The forgeries are issue 21 item 1, attempted by the orchestrator through the
client: each fails, since the gate takes the verdict from the client's report
of the reviewer dispatch and keeps nothing the orchestrator could replay. Codex CLI 0.171.0 offers the model no
subagent tool, so no reviewer dispatch mints a nonce there and its forgery
fails already (not an xfail).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from tests.clients.drivers import Client, Result, run_client
from tests.clients.modelserver import Call, Script, Turn, turn
from tests.clients.scenarios import PLAN, SLUG, make_user_repo, run_state, save_records, start_run
from tests.helpers import write

MARKER = "ZOD-MOMUS"
PROMPT = f"{MARKER} review the plan of run {SLUG} and give your verdict"
GEMINI_AGENT = """---
name: momus
description: Reviews a run's plan and gives the verdict OKAY or REJECT.
kind: local
tools:
  - read_file
  - run_shell_command
  - write_file
---
You review the plan of the run you are given and end with VERDICT: OKAY or VERDICT: REJECT.
"""
# No `$(...)`: Gemini CLI refuses command substitution in its shell tool by itself.
ONE_COMMAND = (
    "mkdir -p .zcode/staging && "
    "jq -c '{verdict: \"OKAY\", nonce: .review.pending_nonce}' .zcode/state/demo.json"
    " > .zcode/staging/v.json && "
    "zodyssey run review demo --artifact .zcode/staging/v.json"
)
WAIT_FOR_OKAY = (
    'for i in $(seq 90); do grep -q \'"verdict": "OKAY"\' .zcode/state/demo.json && break; '
    "sleep 1; done"
)
NONCE = re.compile(r"pending_nonce\W+([0-9a-f]{32})(?![0-9a-f])")


def nonce_in(conversation: str) -> str:
    found = NONCE.findall(conversation)
    return found[-1] if found else "no-nonce-seen"


def dispatch(client: Client, *, background: bool | None = None) -> Call:
    if client.name == "claude-code":
        body: dict[str, object] = {
            "subagent_type": "momus",
            "description": "review the plan",
            "prompt": PROMPT,
        }
        if background is not None:
            body["run_in_background"] = background
        return Call("Agent", body)
    return Call("invoke_agent", {"agent_name": "momus", "prompt": PROMPT})


def final_answer(verdict: str) -> str:
    """The answer in the shipped reviewer's form: the digest of the plan it read (the plan
    `start_run` wrote, unchanged), then the verdict; an OKAY without it is no verdict."""
    return f"PLAN-SHA256: {hashlib.sha256(PLAN.encode('utf-8')).hexdigest()}\nVERDICT: {verdict}"


def finish(client: Client, verdict: str) -> Turn:
    """The reviewer's last turn: its final answer (Gemini's subagents answer by `complete_task`)."""
    if client.name == "gemini":
        return turn(Call("complete_task", {"result": final_answer(verdict)}))
    return turn(text=final_answer(verdict))


def artifact_write(client: Client, repo: Path, name: str) -> Call:
    """A write tool call of the artifact, its nonce taken from what the model was shown."""

    def body(conversation: str) -> dict[str, object]:
        text = json.dumps({"verdict": "OKAY", "blockers": [], "nonce": nonce_in(conversation)})
        return {"file_path": str(repo / ".zcode" / "staging" / name), "content": text}

    return Call("Write" if client.name == "claude-code" else "write_file", body)


def review_session(client: Client, base: Path, turns: list[Turn], agent: list[Turn]) -> Result:
    # `hook install` wrote the shipped reviewer (.claude/agents/momus.md), which the
    # wiring check holds to: `run start` refuses on another definition.
    repo = make_user_repo(base, [client.name])
    start_run(repo)
    home = base / "home"

    def user_agent(home: Path, _server: object) -> None:
        if client.name == "gemini":  # a user agent: project agents need an acknowledgement
            write(home, ".gemini/agents/momus.md", GEMINI_AGENT)

    script = Script(turns, agents={MARKER: agent})
    return run_client(client, repo, home, script, before=user_agent)


def edit_product(client: Client, repo: Path) -> Call:
    return client.edit(repo, "src/app.py", "GREETING = 'hi'", "GREETING = 'hello'")


def read_file(client: Client, path: Path) -> Call:
    if client.name == "claude-code":
        return Call("Read", {"file_path": str(path)})
    return Call("read_file", {"file_path": str(path)})


# -- the reviewer's verdict


@pytest.fixture(scope="module", params=["claude-code", "gemini"])
def reviewed(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Result:
    from tests.clients.conftest import installed

    client = installed(request.param)
    base = tmp_path_factory.mktemp(f"review-{client.name}")
    repo = (base / "repo").resolve()
    agent = [
        turn(client.shell(f"cat .zcode/state/{SLUG}.json")),
        turn(artifact_write(client, repo, "momus.json")),
        turn(client.shell(f"zodyssey run review {SLUG} --artifact .zcode/staging/momus.json")),
        finish(client, "OKAY"),
    ]
    turns = [turn(dispatch(client, background=False)), turn(edit_product(client, repo))]
    result = review_session(client, base, turns, agent)
    save_records(
        label=client.label,
        harness=client.name,
        scenario="review-by-reviewer",
        records=result.hook_records,
        repo=result.repo,
        home=result.home,
    )
    return result


def test_reviewer_verdict_opens_the_gate(reviewed: Result) -> None:
    review = run_state(reviewed.repo)["review"]
    assert review["verdict"] == "OKAY", reviewed.describe()
    assert review["history"][-1]["source"] == "agent"
    assert reviewed.text("src/app.py") == "GREETING = 'hello'\n", reviewed.describe()


def test_client_reports_the_reviewer_final_answer(reviewed: Result) -> None:
    """The dispatch's post-tool event carries the subagent's final answer (Claude Code with
    `run_in_background: false`; Gemini CLI's `invoke_agent`)."""
    name = "Agent" if reviewed.client.name == "claude-code" else "invoke_agent"
    posts = [p for p in reviewed.post_payloads() if p.get("tool_name") == name]
    assert len(posts) == 1, reviewed.describe()
    response = posts[0]["tool_response"]
    assert "VERDICT: OKAY" in json.dumps(response), response
    if reviewed.client.name == "gemini":
        # The gate rewrote the dispatch in BeforeTool: Gemini ran the reviewer with the
        # gate's brief (the orchestrator's words only as marked context) and reports the
        # call it ran, which is the dispatch the verdict is matched to.
        ran = posts[0]["tool_input"]
        assert ran["agent_name"] == "momus"
        assert ran["prompt"].startswith("[zodyssey reviewer brief: written by the zodyssey gate")
        context = ran["prompt"].split("----- context from the orchestrator", 1)[1]
        assert PROMPT in context
    if reviewed.client.name == "claude-code":
        assert response["status"] == "completed"
        assert response["agentType"] == "momus"
        assert posts[0]["tool_use_id"]
        starts = [r["payload"] for r in reviewed.hook_records if r["event"] == "SubagentStart"]
        assert [s["agent_type"] for s in starts] == ["momus"]
        stops = [r["payload"] for r in reviewed.hook_records if r["event"] == "SubagentStop"]
        assert [s["last_assistant_message"] for s in stops] == [final_answer("OKAY")]
        assert stops[0]["agent_id"] == starts[0]["agent_id"]
        assert stops[0]["agent_id"] == response["agentId"]
        assert Path(stops[0]["agent_transcript_path"]).is_file()


def test_subagent_calls_and_their_identity(reviewed: Result) -> None:
    """Claude Code marks a subagent's calls with `agent_id` and `agent_type`; Gemini CLI 0.61.0
    sends them exactly like the orchestrator's (no agent field at all)."""
    inside = [p for p in reviewed.pre_payloads() if "zodyssey run review" in json.dumps(p)]
    assert len(inside) == 1, reviewed.describe()
    outside = [p for p in reviewed.pre_payloads() if "GREETING = 'hello'" in json.dumps(p)]
    assert len(outside) == 1
    assert "agent_id" not in outside[0] and "agent_type" not in outside[0]
    if reviewed.client.name == "claude-code":
        assert inside[0]["agent_type"] == "momus"
        assert inside[0]["agent_id"]
    else:
        assert not [k for k in inside[0] if "agent" in k], inside[0]


def test_claude_agent_runs_in_the_background_by_default(claude: Client, tmp_path: Path) -> None:
    """Claude Code 2.1.332 starts `Agent` in the background unless `run_in_background: false`:
    its PostToolUse comes at once (`status: async_launched`, no answer) and the final answer
    only in SubagentStop (`last_assistant_message`, keyed by `agent_id`)."""
    result = review_session(claude, tmp_path, [turn(dispatch(claude))], [finish(claude, "REJECT")])
    save_records(
        label=claude.label,
        harness=claude.name,
        scenario="review-in-background",
        records=result.hook_records,
        repo=result.repo,
        home=result.home,
    )
    posts = [p for p in result.post_payloads() if p.get("tool_name") == "Agent"]
    assert len(posts) == 1, result.describe()
    response = posts[0]["tool_response"]
    assert response["status"] == "async_launched" and response["isAsync"] is True, response
    # No answer in it (it may echo the prompt: the gate's brief, which names the form).
    assert "VERDICT" not in json.dumps({k: v for k, v in response.items() if k != "prompt"})
    stops = [r["payload"] for r in result.hook_records if r["event"] == "SubagentStop"]
    assert [s["last_assistant_message"] for s in stops] == [final_answer("REJECT")], (
        result.describe()
    )
    assert stops[0]["agent_id"] == response["agentId"]
    # The gate took that verdict from the SubagentStop `hook install` wired.
    review = run_state(result.repo)["review"]
    assert review["verdict"] == "REJECT" and review["round"] == 1, result.describe()
    assert review["history"][-1]["source"] == "agent"
    assert response["agentId"] not in json.dumps(run_state(result.repo))


def test_background_reviewer_okay_opens_the_gate(claude: Client, tmp_path: Path) -> None:
    """The reviewer in the background (Claude Code's default) says OKAY: the product edit the
    orchestrator makes after it finished is allowed, on disk."""
    repo = (tmp_path / "repo").resolve()
    # The orchestrator waits (reading the state) until the background reviewer has ended.
    wait = turn(claude.shell(WAIT_FOR_OKAY))
    turns = [turn(dispatch(claude)), wait, turn(edit_product(claude, repo))]
    result = review_session(claude, tmp_path, turns, [finish(claude, "OKAY")])
    review = run_state(result.repo)["review"]
    assert review["verdict"] == "OKAY", result.describe()
    assert result.text("src/app.py") == "GREETING = 'hello'\n", result.describe()


# -- the orchestrator forging the verdict (issue 21 item 1)


def forged(result: Result) -> tuple[bool, str | None]:
    """(the verdict is OKAY, the product file's text): a forgery that failed is (False, as before)."""
    return run_state(result.repo)["review"]["verdict"] == "OKAY", result.text("src/app.py")


def forgery_session(client: Client, base: Path, middle: list[Turn]) -> Result:
    repo = (base / "repo").resolve()
    first = [] if client.name == "codex" else [turn(dispatch(client))]
    turns = [*first, *middle, turn(edit_product(client, repo))]
    return review_session(client, base, turns, [finish(client, "REJECT")])


def test_forged_verdict_with_the_read_and_write_tools(
    request: pytest.FixtureRequest, client: Client, tmp_path: Path
) -> None:
    """Dispatch the reviewer (it says REJECT), read the nonce with the read tool, write the
    artifact with the write tool, record it from the shell, edit product code.

    Gemini CLI's `read_file` refuses files its ignore patterns match (`.zcode/` is in the
    repository's .gitignore) before any hook runs, so there the nonce is read with `cat`.
    """
    repo = (tmp_path / "repo").resolve()
    state = repo / ".zcode" / "state" / f"{SLUG}.json"
    if client.name == "codex":
        middle = [turn(client.shell(f"cat {state}"))]
        middle.append(turn(client.shell(ONE_COMMAND)))
    else:
        read = client.shell(f"cat {state}") if client.name == "gemini" else read_file(client, state)
        middle = [
            turn(read),
            turn(artifact_write(client, repo, "v.json")),
            turn(client.shell(f"zodyssey run review {SLUG} --artifact .zcode/staging/v.json")),
        ]
    result = forgery_session(client, tmp_path, middle)
    assert forged(result) == (False, "GREETING = 'hi'\n"), result.describe()


def test_forged_verdict_in_one_shell_command(
    request: pytest.FixtureRequest, client: Client, tmp_path: Path
) -> None:
    """Dispatch the reviewer, then `jq` the nonce, write the artifact and record it in one
    command, then edit product code."""
    result = forgery_session(client, tmp_path, [turn(client.shell(ONE_COMMAND))])
    assert forged(result) == (False, "GREETING = 'hi'\n"), result.describe()
