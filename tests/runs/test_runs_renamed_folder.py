"""Run state names files relative to the repository root (issue 35, item 9).

A real run (`zodyssey run start`, the reviewer's OKAY through the real hooks,
`run verify`), then the repository's folder renamed: the run goes on where it
stopped. Older states named absolute paths; they are read as the same place
under the renamed root (the state's `project_dir` says which root they meant).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import run_zodyssey
from tests.helpers.runs import PLAN, Repo, make_repo


def _started(tmp_path: Path) -> Repo:
    repo = make_repo(tmp_path / "repo")
    plan = tmp_path / "plan.md"
    plan.write_text(PLAN, encoding="utf-8")
    assert repo.run("start", "demo", "--plan", str(plan)).code == 0
    repo.approve()
    repo.write("greeting.txt", "hello\n")
    repo.write("docs/greeting.md", "the greeting\n")
    assert repo.run("verify", "demo", "1").code == 0
    return repo


def _as_older_versions_wrote(repo: Repo) -> None:
    """Every path the state names made absolute, as zodyssey wrote them before."""
    path = repo.root / ".zcode/state/demo.json"
    state = json.loads(path.read_text())

    def absolute(value: Any) -> Any:
        if isinstance(value, str) and value.startswith(".zcode/"):
            return str(repo.root / value)
        if isinstance(value, list):
            return [absolute(v) for v in value]
        if isinstance(value, dict):
            return {k: absolute(v) for k, v in value.items()}
        return value

    path.write_text(json.dumps(absolute(state), indent=2))
    assert json.loads(path.read_text())["plan_path"] == str(repo.root / ".zcode/plans/demo.md")


def _write(repo: Repo, rel: str) -> dict[str, Any]:
    return {
        "session_id": "sess-orchestrator",
        "transcript_path": str(repo.root.parent / "transcript.jsonl"),
        "cwd": str(repo.root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": str(repo.root / rel), "content": "hello\n"},
        "tool_use_id": f"toolu_write_{rel.replace('/', '_')}",
    }


@pytest.mark.parametrize("written_by", ["now", "older"])
def test_a_renamed_repository_folder_keeps_its_run(tmp_path: Path, written_by: str) -> None:
    repo = _started(tmp_path)
    state = repo.state()
    if written_by == "now":
        # Nothing in the state names the folder it was made in, but project_dir.
        assert state["plan_path"] == ".zcode/plans/demo.md"
        assert state["evidence"]["path"] == ".zcode/verify/demo/evidence.jsonl"
        assert state["review"]["artifact"] == ".zcode/reviews/demo-r1.json"
        assert {h["artifact"] for h in state["verify"]["history"]} == {state["evidence"]["path"]}
    else:
        _as_older_versions_wrote(repo)
    moved = Repo(repo.root.rename(tmp_path / "renamed"))

    status = moved.run("status", "demo")
    assert status.code == 0 and "PLAN CHANGED" not in status.text, status.text
    verified = moved.run("verify", "demo", "2")
    assert verified.code == 0, verified.text
    done = moved.run("todo", "demo", "1", "done")
    assert done.code == 0, done.text
    # The gate: an in-scope edit is allowed, one outside the plan still blocked.
    assert moved.hook("pre-tool", _write(moved, "greeting.txt")).code == 0
    blocked = moved.hook("pre-tool", _write(moved, "README.md"))
    assert blocked.code == 2, blocked.text
    # The audit reads the plan and the review artifact where they are now.
    audited = run_zodyssey("audit", "demo", "--format", "json", cwd=moved.root)
    report = json.loads(audited.stdout)
    rules = {f["rule"] for f in report["findings"]}
    assert not rules & {"review-artifact", "plan-drift", "chain-broken"}, report["findings"]
    assert report["run"]["plan_path"] == ".zcode/plans/demo.md"


def test_an_archived_run_is_named_relative_and_audits_after_a_rename(tmp_path: Path) -> None:
    """`run start` of a finished slug archives the old run; the archived state
    names its archived copies relative to the root, so it audits after a rename."""
    repo = _started(tmp_path)
    assert repo.run("verify", "demo", "2").code == 0
    for todo in ("1", "2"):
        assert repo.run("todo", "demo", todo, "done").code == 0
    repo.run("phase", "demo", "done", "--force", "--reason", "final wave not run here")
    assert repo.state()["phase"] == "done"
    assert repo.run("start", "demo").code == 0
    (archived,) = (repo.root / ".zcode/archive").glob("demo-*/demo.json")
    old = json.loads(archived.read_text())
    folder = archived.parent.relative_to(repo.root).as_posix()
    assert old["plan_path"] == f"{folder}/plan.md"
    assert old["evidence"]["path"] == f"{folder}/verify/evidence.jsonl"
    moved = repo.root.rename(tmp_path / "renamed")
    audited = run_zodyssey(
        "audit", str(moved / folder / "demo.json"), "--format", "json", cwd=moved
    )
    report = json.loads(audited.stdout)
    assert report["run"]["plan_path"] == f"{folder}/plan.md", report["run"]
    rules = {f["rule"] for f in report["findings"]}
    assert not rules & {"review-artifact", "plan-drift"}, report["findings"]
