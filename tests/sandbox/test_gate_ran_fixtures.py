"""Prove the gate ran, on transcripts recorded from the real clients
(tests/data/transcripts/: Claude Code 2.1.332 without its `api-request*` lines,
Codex 0.171.0 without its session/turn context lines; recorded with
tests/clients/test_gate_ran.py's session; Gemini CLI 0.61.0's chat file with
the BeforeTool payloads of the same session) and on the decisions the real
hook process writes.

The audit (`zodyssey audit --format json`) fails with `gate-unproven` for each
call of the transcript inside the run's window without a `pre` decision line;
calls before `started_at` or after the run left the active phases are not
counted; a named transcript that cannot be read is a warning.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import REPO_ROOT, run_zodyssey
from tests.helpers.gate import make_run_repo, run_hook

TRANSCRIPTS = REPO_ROOT / "tests" / "data" / "transcripts"
CLAUDE = TRANSCRIPTS / "claude-code-2.1.332.jsonl"
CODEX = TRANSCRIPTS / "codex-0.171.0.jsonl"
# (id, tool, transcript timestamp) as recorded
CLAUDE_CALLS = [
    ("toolu_zod0001", "Read", "2026-12-01T23:02:10.996Z"),
    ("toolu_zod0003", "Bash", "2026-12-01T23:02:11.412Z"),
    ("toolu_zod0005", "Edit", "2026-12-01T23:02:12.048Z"),
    ("toolu_zod0007", "Bash", "2026-12-01T23:02:12.452Z"),
]
CODEX_CALLS = ["call_zod0001", "call_zod0004", "call_zod0007", "call_zod0010"]


def _run(tmp_path: Path, **changes: Any) -> Any:
    """make_run_repo's run, marked as written by zodyssey (the audit's own runs)."""
    repo = make_run_repo(tmp_path)
    repo.set(created_by="zodyssey 0.1.0", **changes)
    return repo


def _decide(root: Path, transcript: Path, ids: list[str], event: str = "pre") -> None:
    path = root / ".zcode" / "state" / "demo.decisions"
    with path.open("a", encoding="utf-8") as handle:
        for ident in ids:
            handle.write(f"{event}\t{ident}\t0\t1.0\t{transcript}\n")


def _unproven(root: Path, **env: str) -> list[dict[str, Any]]:
    done = run_zodyssey("audit", "demo", "--format", "json", cwd=root, env=env)
    assert done.stdout, done.stderr
    findings: list[dict[str, Any]] = json.loads(done.stdout)["findings"]
    return [f for f in findings if f["rule"] == "gate-unproven"]


def _flagged(findings: list[dict[str, Any]]) -> set[str]:
    return {f["message"].split(" call ", 1)[1].split(" ", 1)[0] for f in findings}


def test_the_reader_finds_every_call_of_both_clients() -> None:
    from zodyssey.audit.transcript import tool_calls
    from zodyssey.runs.review import read_transcript

    claude = read_transcript(str(CLAUDE))
    codex = read_transcript(str(CODEX))
    assert claude is not None and codex is not None
    found = tool_calls(claude)
    assert [(i, n) for i, n, _ in found] == [(i, n) for i, n, _ in CLAUDE_CALLS]
    assert [i for i, _, _ in tool_calls(codex)] == CODEX_CALLS


@pytest.mark.claim("gate-ran-proven")
@pytest.mark.parametrize("decided", [4, 2, 0])
def test_claude_calls_without_a_decision_fail_the_audit(tmp_path: Path, decided: int) -> None:
    repo = _run(tmp_path, started_at="2026-12-01T23:02:09.859442Z")
    ids = [i for i, _, _ in CLAUDE_CALLS]
    _decide(repo.root, CLAUDE, ids[:decided])
    if decided == 0:  # no pre-tool line: the transcript is known from a post-tool line
        _decide(repo.root, CLAUDE, ["toolu_zod0001"], "post")
    findings = _unproven(repo.root)
    assert _flagged(findings) == set(ids[decided:]), findings
    assert all(f["severity"] == "error" for f in findings)


@pytest.mark.claim("gate-ran-proven")
def test_the_window_counts_only_calls_while_the_run_was_active(tmp_path: Path) -> None:
    repo = _run(tmp_path)
    # started after the first two calls, left the active phases before the last one
    repo.set(
        started_at="2026-12-01T23:02:11.500Z",
        phase="done",
        phase_history=[
            {"from": None, "to": "plan", "at": "2026-12-01T23:02:11.500Z"},
            {"from": "plan", "to": "execute", "at": "2026-12-01T23:02:11.600Z"},
            {"from": "execute", "to": "done", "at": "2026-12-01T23:02:12.300Z"},
        ],
    )
    (repo.root / ".zcode" / "state" / "demo.decisions").write_text(f"post\t\t0\t1.0\t{CLAUDE}\n")
    assert _flagged(_unproven(repo.root)) == {"toolu_zod0005"}


@pytest.mark.claim("gate-ran-proven")
def test_codex_rollout_calls_are_checked_by_call_id(tmp_path: Path) -> None:
    repo = _run(tmp_path, started_at="2026-12-01T23:03:20.000Z")
    _decide(repo.root, CODEX, CODEX_CALLS[:3])
    assert _flagged(_unproven(repo.root)) == {"call_zod0010"}
    _decide(repo.root, CODEX, CODEX_CALLS[3:])
    assert _unproven(repo.root) == []


def test_a_decision_for_another_id_proves_nothing(tmp_path: Path) -> None:
    repo = _run(tmp_path, started_at="2026-12-01T23:02:09.859442Z")
    _decide(repo.root, CLAUDE, ["toolu_other", "toolu_zod0001"])
    _decide(repo.root, CLAUDE, ["toolu_zod0003"], "post")  # a post line is not a decision
    assert _flagged(_unproven(repo.root)) == {"toolu_zod0003", "toolu_zod0005", "toolu_zod0007"}


def test_an_unreadable_transcript_is_a_warning(tmp_path: Path) -> None:
    repo = _run(tmp_path)
    _decide(repo.root, tmp_path / "gone.jsonl", ["toolu_1"])
    findings = _unproven(repo.root)
    assert [f["severity"] for f in findings] == ["warning"], findings


@pytest.mark.claim("gate-ran-proven")
def test_claude_projects_folder_is_read_without_any_hook_line(tmp_path: Path) -> None:
    """No hook ran at all: the session is still found in Claude Code's folder of
    the project's transcripts."""
    repo = _run(tmp_path, started_at="2026-12-01T23:02:09.859442Z")
    home = tmp_path / "home"
    munged = "".join(c if c.isalnum() else "-" for c in str(repo.root))
    folder = home / ".claude" / "projects" / munged
    folder.mkdir(parents=True)
    (folder / "session.jsonl").write_bytes(CLAUDE.read_bytes())
    findings = _unproven(repo.root, HOME=str(home))
    assert _flagged(findings) == {i for i, _, _ in CLAUDE_CALLS}, findings


# -- the hook writes the lines


@pytest.mark.claim("gate-ran-proven")
def test_the_real_hook_records_each_decision_compactly(tmp_path: Path) -> None:
    repo = make_run_repo(tmp_path)
    transcript = str(tmp_path / "t.jsonl")
    read = repo.payload(
        "Read", {"file_path": str(repo.root / "src/server.py")}, tool_use_id="toolu_r"
    )
    blocked = repo.payload(
        "Write",
        {"file_path": str(repo.root / "README.md"), "content": "x"},
        tool_use_id="toolu_w",
    )
    for body in (read, blocked):
        body["transcript_path"] = transcript
    assert run_hook(read, repo.root).returncode == 0
    assert run_hook(blocked, repo.root).returncode == 2
    assert run_hook(read, repo.root, event="post-tool").returncode == 0
    lines = (repo.root / ".zcode" / "state" / "demo.decisions").read_text().splitlines()
    fields = [line.split("\t") for line in lines]
    assert [(f[0], f[1], f[2], f[4]) for f in fields] == [
        ("pre", "toolu_r", "0", transcript),
        ("pre", "toolu_w", "2", transcript),
        ("post", "toolu_r", "0", transcript),
    ]


def test_no_run_no_line(tmp_path: Path) -> None:
    repo = make_run_repo(tmp_path)
    repo.set(phase="done")
    body = repo.payload("Read", {"file_path": str(repo.root / "src/server.py")})
    assert run_hook(body, repo.root).returncode == 0
    assert not (repo.root / ".zcode" / "state" / "demo.decisions").exists()


def test_a_tab_or_newline_in_an_id_cannot_forge_a_line(tmp_path: Path) -> None:
    repo = make_run_repo(tmp_path)
    body = repo.payload(
        "Read",
        {"file_path": str(repo.root / "src/server.py")},
        tool_use_id="toolu_x\npre\ttoolu_forged",
    )
    assert run_hook(body, repo.root).returncode == 0
    lines = (repo.root / ".zcode" / "state" / "demo.decisions").read_text().splitlines()
    assert len(lines) == 1 and lines[0].split("\t")[1] == "toolu_x pre toolu_forged"


# Gemini CLI 0.61.0: its BeforeTool payload has no call id; its chat file
# records each call's id, name and args. Recorded together in one real session
# (tests/clients' scripted model: read_file, run_shell_command, replace), the
# session's folder written as $BASE.
GEMINI = TRANSCRIPTS / "gemini-0.61.0.jsonl"
GEMINI_PAYLOADS = TRANSCRIPTS / "gemini-0.61.0.payloads.json"
GEMINI_IDS = [
    "read_file__read_file_",
    "run_shell_command__run_shell_command_",
    "replace__replace_",
]


def _gemini_session(tmp_path: Path) -> tuple[Any, Path, list[dict[str, Any]]]:
    """A run in $BASE/repo, the chat file in $BASE/home/.gemini/..., and the
    BeforeTool payloads as the client sent them."""
    repo = _run(tmp_path, started_at="2026-12-02T03:05:00Z")
    base = str(tmp_path)
    payloads = json.loads(GEMINI_PAYLOADS.read_text().replace("$BASE", base))
    chat = Path(payloads[0]["transcript_path"])
    chat.parent.mkdir(parents=True)
    chat.write_text(GEMINI.read_text().replace("$BASE", base))
    return repo, chat, payloads


def _gemini_hook(repo: Any, body: dict[str, Any]) -> None:
    import shlex
    import subprocess

    from tests.helpers import clean_env
    from zodyssey.gate.install import hook_command

    done = subprocess.run(
        shlex.split(hook_command("pre-tool", "gemini")),
        input=json.dumps(body),
        capture_output=True,
        text=True,
        env=clean_env(GEMINI_PROJECT_DIR=str(repo.root), GEMINI_CWD=str(repo.root)),
        cwd=repo.root,
        timeout=60,
        check=False,
    )
    assert done.returncode in (0, 2), done.stderr


def test_the_reader_finds_gemini_calls_with_the_args_the_hook_was_given(tmp_path: Path) -> None:
    from zodyssey.audit.transcript import args_key, gemini_calls
    from zodyssey.runs.review import read_transcript

    _, chat, payloads = _gemini_session(tmp_path)
    documents = read_transcript(str(chat))
    assert documents is not None
    found = gemini_calls(documents)
    assert [i.rsplit("_", 2)[0] + "_" for i, _, _, _ in found] == GEMINI_IDS
    assert [k for _, _, _, k in found] == [
        args_key(p["tool_name"], p["tool_input"]) for p in payloads
    ]


@pytest.mark.claim("gate-ran-proven")
@pytest.mark.parametrize("decided", [3, 2, 0])
def test_gemini_calls_are_matched_by_tool_and_args(tmp_path: Path, decided: int) -> None:
    """The real hook process writes each BeforeTool decision as `args:...`; a call
    of the chat file with no such line is flagged by its Gemini id."""
    repo, chat, payloads = _gemini_session(tmp_path)
    for body in payloads[:decided]:
        _gemini_hook(repo, body)
    if decided == 0:  # the chat file is named by a post-tool line only
        _decide(repo.root, chat, ["x"], "post")
    lines = (repo.root / ".zcode" / "state" / "demo.decisions").read_text().splitlines()
    assert sum(line.startswith("pre\targs:") for line in lines) == decided
    flagged = _flagged(_unproven(repo.root))
    assert {f.rsplit("_", 2)[0] + "_" for f in flagged} == set(GEMINI_IDS[decided:])


def test_a_gemini_decision_for_other_args_or_another_chat_proves_nothing(tmp_path: Path) -> None:
    repo, _, payloads = _gemini_session(tmp_path)
    other = dict(payloads[0], tool_input={"file_path": str(repo.root / "README.md")})
    _gemini_hook(repo, other)  # same tool, other args
    elsewhere = dict(payloads[1], transcript_path=str(tmp_path / "other-chat.jsonl"))
    _gemini_hook(repo, elsewhere)  # same call, another session's chat file
    _gemini_hook(repo, payloads[2])
    _gemini_hook(repo, payloads[2])  # two lines for one call cover only that call
    flagged = _flagged([f for f in _unproven(repo.root) if f["severity"] == "error"])
    assert {f.rsplit("_", 2)[0] + "_" for f in flagged} == set(GEMINI_IDS[:2])


@pytest.mark.claim("gate-ran-proven")
def test_gemini_chats_are_found_without_any_hook_line(tmp_path: Path) -> None:
    """No hook ran (hooks removed): the chat file is found through
    ~/.gemini/projects.json, and every call in the window is flagged."""
    repo, _, _ = _gemini_session(tmp_path)
    home = tmp_path / "home"
    projects = {"projects": {str(repo.root): "repo"}}
    (home / ".gemini" / "projects.json").write_text(json.dumps(projects))
    assert not (repo.root / ".zcode" / "state" / "demo.decisions").exists()
    flagged = _flagged(_unproven(repo.root, HOME=str(home)))
    assert {f.rsplit("_", 2)[0] + "_" for f in flagged} == set(GEMINI_IDS)


# -- transcript times that cannot be placed


def _claude_line(ident: str, when: Any) -> str:
    """One assistant line of a Claude Code transcript making one Bash call."""
    block = {"type": "tool_use", "id": ident, "name": "Bash", "input": {"command": "ls"}}
    line: dict[str, Any] = {"type": "assistant", "message": {"content": [block]}}
    if when is not None:
        line["timestamp"] = when
    return json.dumps(line)


@pytest.mark.claim("gate-ran-proven")
def test_a_call_whose_time_cannot_be_placed_fails_closed(tmp_path: Path) -> None:
    """A real run (`zodyssey run start`); the session's transcript, in Claude Code's
    folder of the project, writes some times without a zone, in epoch
    milliseconds or unreadably. None of those calls had a gate decision: each is
    `gate-unproven`, with the reason, unless its time surely lies outside the
    run's window."""
    from datetime import UTC, datetime, timedelta

    from tests.helpers.runs import make_repo

    repo = make_repo(tmp_path / "repo")
    assert repo.run("start", "demo").code == 0
    started = datetime.fromisoformat(repo.state()["started_at"].replace("Z", "+00:00"))
    soon = started + timedelta(seconds=30)
    naive = soon.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="milliseconds")
    calls = {
        "toolu_decided": soon.isoformat().replace("+00:00", "Z"),
        "toolu_naive": naive,
        "toolu_millis": int(soon.timestamp() * 1000),
        "toolu_millis_text": str(int(soon.timestamp() * 1000)),
        "toolu_garbage": "yesterday at noon",
        "toolu_untimed": None,
        # Surely outside: two days before the run, in any zone, or exactly before it.
        "toolu_old_naive": (soon - timedelta(days=2)).replace(tzinfo=None).isoformat(),
        "toolu_old_millis": int((started - timedelta(hours=1)).timestamp() * 1000),
    }
    home = tmp_path / "home"
    munged = "".join(c if c.isalnum() else "-" for c in str(repo.root))
    folder = home / ".claude" / "projects" / munged
    folder.mkdir(parents=True)
    transcript = folder / "session.jsonl"
    transcript.write_text("".join(_claude_line(i, w) + "\n" for i, w in calls.items()))
    _decide(repo.root, transcript, ["toolu_decided"])
    findings = _unproven(repo.root, HOME=str(home))
    by_id = {f["message"].split(" call ", 1)[1].split(" ", 1)[0]: f for f in findings}
    assert set(by_id) == {
        "toolu_naive",
        "toolu_millis",
        "toolu_millis_text",
        "toolu_garbage",
        "toolu_untimed",
    }, findings
    assert all(f["severity"] == "error" for f in findings)
    assert "no time zone" in by_id["toolu_naive"]["message"]
    assert "in the run's window" in by_id["toolu_millis"]["message"]
    assert "cannot be read" in by_id["toolu_garbage"]["message"]
    assert "no timestamp" in by_id["toolu_untimed"]["message"]
