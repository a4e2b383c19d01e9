"""Prove the gate ran, in the real clients: the audit reads the session's own
transcript and fails (`gate-unproven`) for every tool call in the run's window
that has no pre-tool decision recorded (zodyssey/audit/transcript.py).

Each session is a real Claude Code (or Codex) session in a repository wired by
`zodyssey hook install`, with a run started from a person's terminal before it;
the wiring is then left alone, narrowed (PreToolUse matcher `Bash`), pointed at
a missing interpreter, or removed. The audit runs afterwards with the client's
HOME, so it finds Claude Code's transcripts even when no hook ever ran.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.clients.conftest import installed
from tests.clients.drivers import Client, Result, run_client
from tests.clients.modelserver import Script, turn
from tests.clients.scenarios import SLUG, make_user_repo, start_run
from tests.helpers import run_zodyssey


def _session(client: Client, base: Path, wiring: str) -> Result:
    repo = make_user_repo(base, [client.name])
    start_run(repo, okay=True)
    if client.name == "claude-code":
        _rewire(repo / ".claude" / "settings.json", wiring)
    steps = [
        client.read(repo, "src/app.py"),
        client.shell("git log --oneline -1"),
        client.edit(repo, "src/app.py", "GREETING = 'hi'", "GREETING = 'hello'"),
    ]
    return run_client(client, repo, base / "home", Script([turn(c) for c in steps]))


def _rewire(settings: Path, wiring: str) -> None:
    value: dict[str, Any] = json.loads(settings.read_text(encoding="utf-8"))
    hooks = value["hooks"]
    if wiring == "narrowed":
        for group in hooks["PreToolUse"]:
            group["matcher"] = "Bash"
    elif wiring == "no-interpreter":
        for event in ("PreToolUse", "PostToolUse"):
            for group in hooks[event]:
                for hook in group["hooks"]:
                    # Whatever form `hook install` wrote (the project's interpreter or
                    # `zodyssey` from PATH), run by an interpreter this machine lacks.
                    hook["command"] = "/nonexistent/python3 " + hook["command"]
    elif wiring == "removed":
        value.pop("hooks")
    settings.write_text(json.dumps(value), encoding="utf-8")


def _audit(result: Result) -> list[dict[str, Any]]:
    done = run_zodyssey(
        "audit", SLUG, "--format", "json", cwd=result.repo, env={"HOME": str(result.home)}
    )
    assert done.returncode != 0 or done.stdout, done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    findings: list[dict[str, Any]] = report["findings"]
    return [f for f in findings if f["rule"] == "gate-unproven"]


def _calls(result: Result) -> dict[str, str]:
    """tool_use_id -> tool name of every call the model server asked for."""
    from zodyssey.audit.transcript import tool_calls
    from zodyssey.runs.review import read_transcript

    paths = {p["transcript_path"] for p in result.pre_payloads() if p.get("transcript_path")}
    if not paths:  # no hook ran: Claude Code's own folder of the project's sessions
        from zodyssey.audit.transcript import claude_project_transcripts

        paths = set(claude_project_transcripts(str(result.repo), str(result.home)))
    out: dict[str, str] = {}
    for path in paths:
        documents = read_transcript(path)
        assert documents is not None, path
        out.update({ident: name for ident, name, _ in tool_calls(documents)})
    return out


@pytest.fixture(scope="module", params=["claude-code", "codex"])
def wired(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Result:
    client = installed(request.param)
    return _session(client, tmp_path_factory.mktemp(f"ran-{client.name}"), "wired")


def test_wired_every_call_in_the_transcript_has_a_decision(wired: Result) -> None:
    calls = _calls(wired)
    assert len(calls) == 3, (calls, wired.describe())
    lines = (wired.repo / ".zcode" / "state" / f"{SLUG}.decisions").read_text().splitlines()
    decided = {line.split("\t")[1] for line in lines if line.startswith("pre\t")}
    assert set(calls) <= decided, (calls, lines)
    assert _audit(wired) == [], wired.describe()


@pytest.mark.parametrize("wiring", ["narrowed", "no-interpreter", "removed"])
def test_a_call_the_hook_did_not_decide_fails_the_audit(
    wiring: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    client = installed("claude-code")
    result = _session(client, tmp_path_factory.mktemp(f"ran-{wiring}"), wiring)
    calls = _calls(result)
    assert len(calls) == 3, (calls, result.describe())
    # the edit landed: nothing stopped it, which is what the audit must say
    assert result.text("src/app.py") == "GREETING = 'hello'\n", result.describe()
    findings = _audit(result)
    flagged = {f["message"].split(" call ", 1)[1].split(" ", 1)[0] for f in findings}
    expected = (
        {i for i, name in calls.items() if name != "Bash"} if wiring == "narrowed" else set(calls)
    )
    assert flagged == expected, (findings, calls)
    assert all(f["severity"] == "error" for f in findings), findings
