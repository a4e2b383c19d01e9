"""The post-call effect check through the real hook processes, pre and post.

The command judged in pre-tool and what actually runs are kept apart on
purpose: the check must catch what a call did, whatever its text said (a
misclassified command, a harness that cannot be sandboxed).
"""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path
from typing import Any

from tests.helpers import clean_env, git, run_zodyssey
from tests.helpers.gate import RunRepo, make_run_repo
from tests.helpers.runs import make_repo as make_runs_repo
from zodyssey.core.paths import evidence_path
from zodyssey.gate.install import hook_command
from zodyssey.runs import evidence as chain


def repo_with_run(tmp_path: Path, **kwargs: Any) -> RunRepo:
    repo = make_run_repo(tmp_path, **kwargs)
    (repo.root / ".gitignore").write_text("build/\n")
    (repo.root / "notes.txt").write_text("dirty before\n")  # untracked before any call
    git(repo.root, "add", "-A", "--", ".", ":(exclude).zcode", ":(exclude)notes.txt")
    git(repo.root, "commit", "-q", "-m", "initial")
    return repo


def hook(
    repo: RunRepo, event: str, command: str, call_id: str = "toolu_1", harness: str = "codex"
) -> subprocess.CompletedProcess[str]:
    argv = shlex.split(hook_command(event, harness))
    body = repo.payload("Bash", {"command": command}, tool_use_id=call_id)
    if event == "post-tool":
        body["hook_event_name"] = "PostToolUse"
        body["tool_response"] = {"stdout": ""}
    return subprocess.run(
        argv,
        input=json.dumps(body),
        capture_output=True,
        text=True,
        env=clean_env(CLAUDE_PROJECT_DIR=str(repo.root)),
        cwd=repo.root,
        timeout=60,
        check=False,
    )


def violations(repo: RunRepo) -> list[dict[str, Any]]:
    records = chain.read_evidence(evidence_path(repo.root, "demo")).records
    return [r for r in records if r.get("kind") == chain.VIOLATION]


def test_a_forbidden_change_is_recorded_restored_and_shown(tmp_path: Path) -> None:
    repo = repo_with_run(tmp_path, phase="plan", verdict=None)
    assert hook(repo, "pre-tool", "ls").returncode == 0
    # what really ran: a product edit, a new file, an edit of a dirty untracked file
    (repo.root / "README.md").write_text("pwned\n")
    (repo.root / "src" / "new.py").write_text("pwned\n")
    (repo.root / "notes.txt").write_text("pwned\n")
    done = hook(repo, "post-tool", "ls")
    assert done.returncode == 2
    assert "README.md (restored)" in done.stderr and "src/new.py (quarantined)" in done.stderr
    assert (repo.root / "README.md").read_text() == "x\n"
    assert (repo.root / "notes.txt").read_text() == "dirty before\n"
    assert not (repo.root / "src" / "new.py").exists()
    moved = repo.root / ".zcode" / "quarantine" / "demo" / "toolu_1" / "src" / "new.py"
    assert moved.read_text() == "pwned\n"
    [record] = violations(repo)
    assert record["tool_use_id"] == "toolu_1" and record["command"] == "ls"
    assert {c["path"] for c in record["changes"]} == {"README.md", "notes.txt", "src/new.py"}
    assert all(c["before"] != c["after"] for c in record["changes"])
    assert not chain.verify_chain(chain.read_evidence(evidence_path(repo.root, "demo")).records)
    assert repo.state()["evidence"]["count"] == record["seq"]


def test_allowed_changes_are_not_violations(tmp_path: Path) -> None:
    repo = repo_with_run(tmp_path)  # OKAY: src/server.py is in scope
    assert hook(repo, "pre-tool", "ls").returncode == 0
    (repo.root / "src" / "server.py").write_text("in scope\n")
    (repo.root / "build").mkdir()
    (repo.root / "build" / "out.o").write_text("ignored\n")
    (repo.root / ".zcode" / "notepads").mkdir(parents=True)
    (repo.root / ".zcode" / "notepads" / "n.md").write_text("note\n")
    done = hook(repo, "post-tool", "ls")
    assert done.returncode == 0, done.stderr
    assert violations(repo) == []


def test_out_of_scope_after_okay_and_the_frozen_plan_are_violations(tmp_path: Path) -> None:
    repo = repo_with_run(tmp_path)
    hook(repo, "pre-tool", "ls")
    (repo.root / "README.md").write_text("out of scope\n")
    repo.plan_path.write_text(repo.plan_path.read_text() + "\n- [ ] 9. More\n")
    done = hook(repo, "post-tool", "ls")
    assert done.returncode == 2
    paths = {c["path"] for c in violations(repo)[0]["changes"]}
    assert paths == {"README.md", str(repo.plan_path)}
    assert (repo.root / "README.md").read_text() == "x\n"


def test_a_protected_file_the_call_changed_is_put_back(tmp_path: Path) -> None:
    """A call that slipped past the sandbox and rewrote the frozen plan, unwired the
    gate and planted an MCP server: each is put back from its blob (a new one
    quarantined), not only recorded. Broken, the plan the run is bound to now reads
    what the agent wrote, and the next call may run ungated."""
    repo = repo_with_run(tmp_path)
    settings = repo.root / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text('{"hooks": {}}\n')
    plan_before = repo.plan_path.read_text()
    assert hook(repo, "pre-tool", "ls").returncode == 0
    settings.write_text("{}\n")
    repo.plan_path.write_text(plan_before + "\n- [ ] 9. More\n")
    (repo.root / ".mcp.json").write_text('{"mcpServers": {}}\n')
    done = hook(repo, "post-tool", "ls")
    assert done.returncode == 2, done.stderr
    assert settings.read_text() == '{"hooks": {}}\n'
    assert repo.plan_path.read_text() == plan_before
    assert not (repo.root / ".mcp.json").exists()
    quarantined = repo.root / ".zcode" / "quarantine" / "demo" / "toolu_1" / ".mcp.json"
    assert quarantined.read_text() == '{"mcpServers": {}}\n'
    [record] = violations(repo)
    actions = {c["path"]: c["action"] for c in record["changes"]}
    assert actions[str(repo.plan_path)] == "restored", record["changes"]  # protected
    assert actions[".mcp.json"] == "quarantined", record["changes"]


def test_a_commit_during_the_call_is_seen(tmp_path: Path) -> None:
    repo = repo_with_run(tmp_path, phase="plan", verdict=None)
    hook(repo, "pre-tool", "ls")
    (repo.root / "README.md").write_text("committed\n")
    git(repo.root, "commit", "-q", "-am", "sneak")
    done = hook(repo, "post-tool", "ls")
    assert done.returncode == 2 and "README.md" in done.stderr


def test_a_change_after_a_clean_pre_tool_is_caught_at_the_calls_post_tool(tmp_path: Path) -> None:
    """A call whose pre-tool found nothing changed keeps no snapshot of its own:
    the previous call's post-tool snapshot is its "before", so what changes
    after its pre-tool is caught by its post-tool, named after the call."""
    repo = repo_with_run(tmp_path, phase="plan", verdict=None)
    hook(repo, "pre-tool", "ls", "toolu_1")
    assert hook(repo, "post-tool", "ls", "toolu_1").returncode == 0
    assert hook(repo, "pre-tool", "ls", "toolu_2").returncode == 0
    (repo.root / "README.md").write_text("the call wrote it\n")
    done = hook(repo, "post-tool", "ls", "toolu_2")
    assert done.returncode == 2 and "README.md (restored)" in done.stderr, done.stderr
    assert "the Bash call toolu_2" in done.stderr
    assert (repo.root / "README.md").read_text() == "x\n"
    [record] = violations(repo)
    assert record["tool_use_id"] == "toolu_2"


def test_a_zodyssey_command_sees_a_change_between_calls_before_it_runs(tmp_path: Path) -> None:
    """`zodyssey run todo ... done` must not decide on a tree changed since the last
    call: a `zodyssey` command takes its own pre-tool snapshot, which blocks it."""
    repo = repo_with_run(tmp_path, phase="plan", verdict=None)
    hook(repo, "pre-tool", "ls", "toolu_1")
    assert hook(repo, "post-tool", "ls", "toolu_1").returncode == 0
    (repo.root / "README.md").write_text("background job\n")
    done = hook(repo, "pre-tool", "zodyssey run list", "toolu_2")
    assert done.returncode == 2 and "between tool calls" in done.stderr
    assert (repo.root / "README.md").read_text() == "x\n"
    assert violations(repo)[0]["when"] == "something between tool calls"


def test_a_call_keeps_no_snapshot_of_its_own_when_nothing_changed(tmp_path: Path) -> None:
    repo = repo_with_run(tmp_path, phase="plan", verdict=None)
    effects = repo.root / ".zcode" / "state" / "demo.effects"
    assert hook(repo, "pre-tool", "ls", "toolu_1").returncode == 0
    assert "toolu_1" in json.loads(effects.read_text())["calls"]  # the first one: a snapshot
    assert hook(repo, "post-tool", "ls", "toolu_1").returncode == 0
    assert hook(repo, "pre-tool", "ls", "toolu_2").returncode == 0
    assert json.loads(effects.read_text())["calls"] == {}


def test_done_is_refused_while_a_violation_is_open(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from tests.helpers.runs import PLAN
    from zodyssey.sandbox.violations import record_violation

    repo = make_runs_repo(tmp_path / "r")
    plan_file = repo.write("plan.md", PLAN)
    assert repo.run("start", "demo", "--plan", str(plan_file)).code == 0
    repo.approve()
    call = SimpleNamespace(tool_use_id="toolu_9", tool_name="Bash", command="x")
    change = {"path": "README.md", "before": "a", "after": "b", "action": "restored"}
    record_violation(str(repo.root), "demo", call, [change], "the Bash call")
    result = repo.run("todo", "demo", "1", "done")
    assert result.code == 11 and "unresolved violation" in result.text
    result = repo.run("phase", "demo", "done")
    assert result.code == 11 and "unresolved violation" in result.text
    audited = run_zodyssey("audit", "demo", "--format", "json", cwd=repo.root)
    assert audited.returncode == 1, audited.stdout + audited.stderr
    assert "effect-violation" in audited.stdout and "README.md" in audited.stdout


def test_a_real_background_process_writing_between_calls_is_caught(tmp_path: Path) -> None:
    """A process a call left running writes product code after that call's
    post-tool: the next call (an ordinary one) is blocked before it runs, the
    file restored and the change recorded."""
    import time

    repo = repo_with_run(tmp_path, phase="plan", verdict=None)
    marker = repo.root / ".zcode" / "notepads" / "written"
    marker.parent.mkdir(parents=True, exist_ok=True)
    hook(repo, "pre-tool", "ls", "toolu_1")
    go = repo.root / ".zcode" / "notepads" / "go"
    script = (
        f"while [ ! -e {shlex.quote(str(go))} ]; do sleep 0.05; done; "
        f"echo background > README.md; touch {shlex.quote(str(marker))}"
    )
    background = subprocess.Popen(["sh", "-c", script], cwd=repo.root, start_new_session=True)
    assert hook(repo, "post-tool", "ls", "toolu_1").returncode == 0
    go.touch()  # the call is over: the process it left running writes now
    deadline = time.monotonic() + 30
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    background.wait(timeout=30)
    done = hook(repo, "pre-tool", "ls", "toolu_2")
    assert done.returncode == 2 and "between tool calls" in done.stderr, done.stderr
    assert (repo.root / "README.md").read_text() == "x\n"
    [record] = violations(repo)
    assert record["when"] == "something between tool calls"
    assert [c["path"] for c in record["changes"]] == ["README.md"]
