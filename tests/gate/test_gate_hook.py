"""The real hook process: real payloads, every harness's reply format, fail-closed rules."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import make_repo
from tests.helpers.gate import RunRepo, hook_env, run_hook
from zodyssey.gate import hook

WRITE_OUT_OF_SCOPE = {"command": "echo x > src/other.py"}


# -- outside a run: never block, never speak


def test_no_run_allows_anything_silently(tmp_path: Path) -> None:
    make_repo(tmp_path, commit=False)
    for stdin in (
        '{"tool_name":"Bash","tool_input":{"command":"rm -rf /"}}',
        "not json",
        "",
        "[1,2]",
    ):
        result = run_hook(stdin, tmp_path)
        assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_terminal_phase_allows_silently(run_repo: Callable[..., RunRepo]) -> None:
    """Product work passes silently once the run ended; the finished run's own
    record does not (issue 33: past runs stay protected)."""
    repo = run_repo()
    for phase in ("done", "audited", "abandoned"):
        repo.set(phase=phase)
        result = run_hook(repo.payload("Write", {"file_path": "README.md"}), repo.root)
        assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
        result = run_hook(repo.payload("Write", {"file_path": ".zcode/state/demo.json"}), repo.root)
        assert result.returncode == 2 and "record of finished runs" in result.stderr


def test_run_found_from_payload_cwd_without_env(run_repo: Callable[..., RunRepo]) -> None:
    repo = run_repo()
    payload = repo.payload("Bash", WRITE_OUT_OF_SCOPE, cwd=str(repo.root / "src"))
    result = run_hook(payload, None, cwd=Path("/"))
    assert result.returncode == 2
    assert "outside the plan's scope" in result.stderr


# -- inside a run: each harness's block format


def test_claude_code_block_is_exit_2_with_reason_on_stderr(
    run_repo: Callable[..., RunRepo],
) -> None:
    repo = run_repo()
    result = run_hook(repo.payload("Bash", WRITE_OUT_OF_SCOPE), repo.root)
    assert result.returncode == 2
    assert result.stdout == ""
    assert "src/other.py" in result.stderr and "demo" in result.stderr
    allowed = run_hook(repo.payload("Bash", {"command": "echo x > src/server.py"}), repo.root)
    assert (allowed.returncode, allowed.stdout, allowed.stderr) == (0, "", "")


def test_zcode_block_line(run_repo: Callable[..., RunRepo]) -> None:
    repo = run_repo()
    result = run_hook(repo.payload("Bash", WRITE_OUT_OF_SCOPE), repo.root, "--harness", "zcode")
    assert result.returncode == 2
    (line,) = result.stdout.splitlines()
    document = json.loads(line)
    assert document["decision"] == "block"
    assert document["reason"].startswith("ZODYSSEY_BLOCK gate: ")
    assert document["reason"].endswith("(slug=demo)")


def test_codex_block_and_apply_patch(run_repo: Callable[..., RunRepo]) -> None:
    repo = run_repo()
    patch = "*** Begin Patch\n*** Update File: src/server.py\n@@\n-x\n+y\n*** Add File: evil.py\n+x\n*** End Patch\n"
    result = run_hook(
        repo.payload("apply_patch", {"command": patch}), repo.root, "--harness", "codex"
    )
    assert result.returncode == 2
    document = json.loads(result.stdout)
    assert document["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "evil.py" in document["hookSpecificOutput"]["permissionDecisionReason"]
    good = patch.replace("evil.py", "pkg/new.py")
    assert (
        run_hook(
            repo.payload("apply_patch", {"command": good}), repo.root, "--harness", "codex"
        ).returncode
        == 0
    )


def test_gemini_block(run_repo: Callable[..., RunRepo]) -> None:
    repo = run_repo()
    payload = {
        "session_id": "g1",
        "cwd": str(repo.root),
        "hook_event_name": "BeforeTool",
        "tool_name": "write_file",
        "tool_input": {"file_path": str(repo.root / "README.md"), "content": "x"},
    }
    result = run_hook(payload, repo.root, "--harness", "gemini")
    assert result.returncode == 2
    document = json.loads(result.stdout)
    assert document["decision"] == "deny" and "README.md" in document["reason"]
    payload["tool_name"] = "run_shell_command"
    payload["tool_input"] = {"command": "ls -la"}
    assert run_hook(payload, repo.root, "--harness", "gemini").returncode == 0


def test_cursor_block(run_repo: Callable[..., RunRepo]) -> None:
    repo = run_repo(verdict="REJECT")
    payload = {
        "conversation_id": "c1",
        "generation_id": "g1",
        "hook_event_name": "beforeShellExecution",
        "command": "touch src/server.py",
        "cwd": str(repo.root),
        "workspace_roots": [str(repo.root)],
    }
    result = run_hook(payload, None, "--harness", "cursor", cwd=Path("/"))
    assert result.returncode == 2
    document = json.loads(result.stdout)
    assert document["permission"] == "deny"
    assert "REJECT" in document["agent_message"] and "REJECT" in document["user_message"]


# -- fail closed


def test_malformed_stdin_in_a_run_blocks(run_repo: Callable[..., RunRepo]) -> None:
    repo = run_repo()
    for stdin in ("not json", "", "[]", '{"tool_name": 3}'):
        result = run_hook(stdin, repo.root)
        assert result.returncode == 2, stdin
        assert result.stderr.strip() and "Traceback" not in result.stderr


def test_unreadable_state_blocks(run_repo: Callable[..., RunRepo]) -> None:
    repo = run_repo()
    repo.state_path.write_text("{ broken")
    result = run_hook(repo.payload("Bash", {"command": "ls"}), repo.root)
    assert result.returncode == 2
    assert "demo.json" in result.stderr and "unreadable" in result.stderr


def test_unreadable_plan_blocks_writes(run_repo: Callable[..., RunRepo]) -> None:
    repo = run_repo()
    repo.plan_path.unlink()
    result = run_hook(
        repo.payload("Edit", {"file_path": "src/server.py", "old_string": "x", "new_string": "y"}),
        repo.root,
    )
    assert result.returncode == 2 and "unreadable" in result.stderr


def test_bad_config_fails_closed(run_repo: Callable[..., RunRepo]) -> None:
    repo = run_repo()
    (repo.root / ".zodyssey.toml").write_text("[gate\nread_only = 3")
    result = run_hook(repo.payload("Bash", {"command": "pytest"}), repo.root)
    assert result.returncode == 2 and "Traceback" not in result.stderr


def test_configured_read_only_through_the_process(run_repo: Callable[..., RunRepo]) -> None:
    repo = run_repo()
    (repo.root / ".zodyssey.toml").write_text('[gate]\nread_only = ["pytest", "npm test"]\n')
    assert run_hook(repo.payload("Bash", {"command": "pytest -q"}), repo.root).returncode == 0
    assert run_hook(repo.payload("Bash", {"command": "npm install x"}), repo.root).returncode == 2


def test_unknown_harness_in_a_run_blocks(run_repo: Callable[..., RunRepo]) -> None:
    repo = run_repo()
    result = run_hook(repo.payload("Bash", {"command": "ls"}), repo.root, "--harness", "nope")
    assert result.returncode == 2 and "nope" in result.stderr


# -- dispatch through the process: the pending review and the ledger


def test_reviewer_dispatch_is_pending_and_post_tool_releases(
    run_repo: Callable[..., RunRepo],
) -> None:
    repo = run_repo(phase="review", verdict=None)
    payload = repo.payload(
        "Task", {"subagent_type": "momus", "prompt": "review the plan", "description": "r"}
    )
    assert run_hook(payload, repo.root).returncode == 0
    review = repo.state()["review"]
    pending = review["pending_dispatch"]
    assert len(pending["sha256"]) == 64 and pending["agent"] == "momus"
    assert "toolu_1" not in json.dumps(review) and review.get("pending_nonce") is None
    ledger_path = repo.root / ".zcode" / "state" / "demo.inflight.json"
    assert [e["id"] for e in json.loads(ledger_path.read_text())] == ["toolu_1"]
    post = dict(payload, hook_event_name="PostToolUse", tool_response={"ok": True})
    result = run_hook(post, repo.root, event="post-tool")
    assert (result.returncode, result.stdout) == (0, "")
    assert json.loads(ledger_path.read_text()) == []
    executor = repo.payload("Task", {"subagent_type": "general-purpose", "prompt": "build it"})
    assert run_hook(executor, repo.root).returncode == 2


def test_file_lock_taken_and_enforced(run_repo: Callable[..., RunRepo]) -> None:
    repo = run_repo()
    edit = {"file_path": "src/server.py", "old_string": "x", "new_string": "y"}
    assert run_hook(repo.payload("Edit", edit, agent_id="agent-a"), repo.root).returncode == 0
    lock = repo.state()["file_locks"]["src/server.py"]
    assert lock["session"] == "agent-a" and lock["todo"] == "1"
    result = run_hook(repo.payload("Edit", edit, agent_id="agent-b"), repo.root)
    assert result.returncode == 2 and "agent-a" in result.stderr


def test_ungated_hatch_records_every_shell_call(run_repo: Callable[..., RunRepo]) -> None:
    repo = run_repo(verdict=None, phase="plan")
    commands = ["make build", "ls", "python -c 'print(1)'"]
    for command in commands:
        result = run_hook(
            repo.payload("Bash", {"command": command}), repo.root, ZODYSSEY_UNGATE_BASH="1"
        )
        assert result.returncode == 0
    log = repo.root / ".zcode" / "state" / "demo.ungated.jsonl"
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert [r["command"] for r in records] == commands
    assert records[0]["would_block"] and records[1]["would_block"] is None
    assert all(r["at"] and r["owner"] == "sess-1" for r in records)
    # without the hatch the same call blocks
    assert run_hook(repo.payload("Bash", {"command": "make build"}), repo.root).returncode == 2


# -- hypothesis: random payloads inside a run never escape the gate


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=12,
)
TOOL_NAMES = st.sampled_from(
    [
        "Bash",
        "Write",
        "Edit",
        "MultiEdit",
        "NotebookEdit",
        "Task",
        "Agent",
        "apply_patch",
        "mcp__x__y",
        "Read",
        "Weird",
        "",
    ]
)
PAYLOADS = st.one_of(
    st.binary(max_size=200),
    st.builds(
        lambda name, tool_input, extra: json.dumps(
            {"tool_name": name, "tool_input": tool_input, **extra}
        ).encode(),
        TOOL_NAMES,
        JSON,
        st.dictionaries(
            st.sampled_from(["cwd", "session_id", "agent_id", "tool_use_id"]), JSON, max_size=3
        ),
    ),
)


def _run_in_process(
    raw: bytes, argv: list[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw)))
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", err)
    code = hook.main(argv)
    return code, out.getvalue(), err.getvalue()


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(raw=PAYLOADS, harness=st.sampled_from(["claude-code", "zcode", "codex", "gemini", "cursor"]))
def test_random_payloads_in_a_run_never_crash_or_leak(
    raw: bytes,
    harness: str,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    base = _shared_repo(tmp_path_factory)
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(base.root))
    monkeypatch.delenv("ZODYSSEY_UNGATE_BASH", raising=False)
    code, _, err = _run_in_process(raw, ["pre-tool", "--harness", harness], monkeypatch)
    assert code in (0, 2)
    assert "Traceback" not in err
    if code == 2:
        assert err.strip()  # a block always says why
    try:
        payload: Any = json.loads(raw)
    except ValueError:
        payload = None
    if (
        not isinstance(payload, dict)
        or not isinstance(payload.get("tool_name"), str)
        or not payload.get("tool_name")
    ):
        assert code == 2  # what cannot be read is blocked


_SHARED: dict[str, RunRepo] = {}


def _shared_repo(factory: pytest.TempPathFactory) -> RunRepo:
    from tests.helpers.gate import make_run_repo

    if "repo" not in _SHARED:
        _SHARED["repo"] = make_run_repo(factory.mktemp("hyp"), phase="review", verdict=None)
    return _SHARED["repo"]


def test_internal_error_fails_closed(
    run_repo: Callable[..., RunRepo], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = run_repo()
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(repo.root))
    import zodyssey.gate.policy as policy

    def explode(*args: object) -> object:
        raise RuntimeError("boom")

    monkeypatch.setattr(policy, "decide", explode)
    code, _, err = _run_in_process(
        json.dumps(repo.payload("Bash", {"command": "touch src/server.py"})).encode(),
        ["pre-tool"],
        monkeypatch,
    )
    assert code == 2 and "RuntimeError: boom" in err


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(raw=PAYLOADS)
def test_random_payloads_through_the_real_process(
    raw: bytes, tmp_path_factory: pytest.TempPathFactory
) -> None:
    base = _shared_repo(tmp_path_factory)
    result = subprocess.run(
        [sys.executable, "-m", "zodyssey", "hook", "pre-tool"],
        input=raw,
        capture_output=True,
        env=hook_env(base.root),
        check=False,
        timeout=60,
    )
    assert result.returncode in (0, 2)
    assert b"Traceback" not in result.stderr
