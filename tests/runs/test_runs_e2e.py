"""A whole run, end to end, through the real CLI in a temporary git repository."""

from __future__ import annotations

import hashlib
import json
import subprocess
from typing import Any

from tests.helpers.gate import run_hook
from tests.helpers.runs import Repo
from zodyssey.core import paths
from zodyssey.runs import evidence as chain
from zodyssey.runs.models import EvidenceRecord, ReviewArtifact, RunState


def hook(repo: Repo, payload: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    return run_hook(payload, repo.root, cwd=repo.root)


def edit_payload(repo: Repo, rel: str) -> dict[str, Any]:
    return {
        "session_id": "e2e-session",
        "hook_event_name": "PreToolUse",
        "cwd": str(repo.root),
        "tool_name": "Edit",
        "tool_input": {
            "file_path": str(repo.root / rel),
            "old_string": "",
            "new_string": "hello\n",
        },
    }


def blocked(done: subprocess.CompletedProcess[str]) -> bool:
    if done.returncode == 2:
        return True
    try:
        answer = json.loads(done.stdout or "{}")
    except ValueError:
        return False
    decision = json.dumps(answer).lower()
    return '"deny"' in decision or '"block"' in decision


def test_whole_run(started: Repo) -> None:
    repo = started
    repo.write(
        "pyproject.toml",
        '[tool.zodyssey.checks.smoke]\ncommand = "test -f README.md"\non_failure = "block"\n',
    )
    repo.commit("configure checks")

    lint = repo.run("lint", "demo")
    assert lint.code == 0, lint.text
    assert "2 todos" in lint.out

    # Before OKAY the gate holds product-code edits shut.
    assert blocked(hook(repo, edit_payload(repo, "greeting.txt")))
    # The reviewer's verdict: the gate notes the dispatch, the harness reports its answer.
    review = repo.review_by_reviewer("OKAY")
    assert review.code == 0, review.text
    state = repo.state()
    assert state["review"]["verdict"] == "OKAY"
    assert state["review"]["pending_dispatch"] is None
    assert len(state["review"]["consumed_dispatches"]) == 1
    assert state["phase"] == "execute"
    plan_bytes = (repo.root / state["plan_path"]).read_bytes()
    assert state["review"]["plan_sha256"] == hashlib.sha256(plan_bytes).hexdigest()
    ReviewArtifact.model_validate_json(
        (repo.root / ".zcode/reviews/demo-r1.json").read_text(encoding="utf-8")
    )

    assert not blocked(hook(repo, edit_payload(repo, "greeting.txt")))

    # The agent does the work.
    repo.write("greeting.txt", "hello world\n")
    repo.write("docs/greeting.md", "The greeting says hello.\n")
    for todo in ("1", "2"):
        assert repo.run("todo", "demo", todo, "in_flight", "--owner", "agent-a").code == 0
        verify = repo.run("verify", "demo", todo)
        assert verify.code == 0, verify.text
        assert "check smoke: PASS" in verify.out
        done = repo.run("todo", "demo", todo, "done")
        assert done.code == 0, done.text
    # F1 declares no criteria: a read-only window labelled F1 is its evidence
    assert repo.run("window", "demo", "--label", "F1", "--", "git", "status").code == 0
    assert repo.run("todo", "demo", "F1", "done").code == 0

    window = repo.run("window", "demo", "--label", "final-audit", "--", "git", "status")
    assert window.code == 0, window.text
    assert "readOnlyViolation=false" in window.out

    finished = repo.run("phase", "demo", "done", "--note", "all verified")
    assert finished.code == 0, finished.text

    state = repo.state()
    RunState.model_validate(state)
    assert state["phase"] == "done"
    assert state["acceptance"]["1"]["pass"] is True
    assert state["acceptance"]["1"]["criteria_declared"] == 2
    assert state["verify"]["passed"] == 3 and state["verify"]["failed"] == 0
    assert state["windows"][0]["readOnlyViolation"] is False
    assert state["active_todos"] == {}
    decisions = [(e["command"], e["decision"]) for e in state["gate_log"]]
    assert ("review", "allow") in decisions
    assert ("phase", "allow") in decisions

    read = chain.read_evidence(paths.evidence_path(repo.root, "demo"))
    assert not read.problems
    assert (
        chain.verify_chain(
            read.records,
            expected_count=state["evidence"]["count"],
            expected_head=state["evidence"]["head"],
        )
        == []
    )
    kinds = [r["kind"] for r in read.records]
    # 3 criteria + a check per verify (2) + the F1 and final-audit windows + the check at done
    assert kinds.count("criterion") == 3
    assert kinds.count("check") == 3
    assert kinds.count("window") == 2
    for record in read.records:
        EvidenceRecord.model_validate(record)
    first = read.records[0]
    assert first["criterion_text"] == "`test -f greeting.txt` exits 0"
    assert first["command"] == "test -f greeting.txt"
    assert first["plan_sha256"] == state["review"]["plan_sha256"]
    assert first["tree_before"] and first["head_before"] == repo.git("rev-parse", "HEAD").strip()
    grep = read.records[1]
    stored = repo.root / ".zcode/verify/demo/output" / grep["stdout"]["sha256"]
    assert stored.read_bytes() == b""

    status = repo.run("status", "demo", "--json")
    summary = json.loads(status.out)["summary"]
    assert summary["chain_ok"] and summary["phase"] == "done"
    assert summary["todos"] == {"1": "done", "2": "done", "F1": "done"}


def test_failing_criterion_output_is_recorded_and_stored(approved: Repo) -> None:
    repo = approved
    repo.write("greeting.txt", "goodbye\n")
    verify = repo.run("verify", "demo", "1")
    assert verify.code == 1
    assert "criterion 2: FAIL" in verify.out
    record = chain.read_evidence(paths.evidence_path(repo.root, "demo")).records[-1]
    assert record["exit_code"] == 1 and record["passed"] is False
    state = repo.state()
    assert state["acceptance"]["1"]["pass"] is False
    assert state["verify"]["failed"] == 1
    entry = next(h for h in state["verify"]["history"] if h["criterion_index"] == 2)
    assert entry["status"] == "failed" and entry["worktree"] == record["tree_before"]


def test_timeout_kills_the_criterion(approved: Repo) -> None:
    repo = approved
    plan = repo.root / repo.state()["plan_path"]
    assert plan.is_file()
    repo.write("greeting.txt", "hello\n")
    # Only criterion 1 runs; a tiny timeout on a command that sleeps is not possible from the
    # plan (the agent cannot substitute commands), so use a sleeping check instead.
    repo.write(
        "pyproject.toml",
        '[tool.zodyssey.checks.slow]\ncommand = "sleep 30"\non_failure = "block"\ntimeout = 0.5\n',
    )
    verify = repo.run("verify", "demo", "1", "--criterion", "1")
    assert verify.code == 1
    assert "check slow: FAIL (blocks)" in verify.out
    record = chain.read_evidence(paths.evidence_path(repo.root, "demo")).records[-1]
    assert record["kind"] == "check" and record["timed_out"] is True
    assert record["exit_code"] is None and record["duration_s"] < 10
