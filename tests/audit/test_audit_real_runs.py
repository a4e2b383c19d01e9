"""Runs made by the real `zodyssey run` commands in temporary git repositories, then audited."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.helpers import REPO_ROOT, git, run_zodyssey
from tests.helpers.audit import audit_cli, audit_json, rules_of
from tests.helpers.runs import Repo
from zodyssey.core.store import RunStore

PLAN = """\
# Add a greeting
## Todos
- [ ] 1. Write the greeting
  - Files: [`greeting.txt`]
  - Acceptance criteria:
    - `test -f greeting.txt` exits 0
    - `grep -q hello greeting.txt`
- [ ] 2. Document it
  - Files: [`README.md`]
  - Acceptance criteria:
    - `grep -q greeting README.md`
"""


def zrun(root: Path, *args: str, expect: int = 0) -> subprocess.CompletedProcess[str]:
    result = run_zodyssey("run", args[0], "--repo", str(root), *args[1:], cwd=REPO_ROOT)
    assert result.returncode == expect, (args, result.stdout, result.stderr)
    return result


def started_run(tmp_path: Path) -> Path:
    """A committed git repository with run `greet` started from PLAN."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    git(root, "config", "user.email", "t@example.invalid")
    git(root, "config", "user.name", "t")
    (root / "README.md").write_text("project\n")
    (root / "plan.md").write_text(PLAN)
    git(root, "add", ".")
    git(root, "commit", "-qm", "init")
    zrun(root, "start", "greet", "--plan", str(root / "plan.md"))
    return root


@pytest.fixture
def reviewed(tmp_path: Path) -> Path:
    """A git repository with run `greet` started, linted and reviewed OKAY by the reviewer
    (dispatched and reported through the real hooks)."""
    root = started_run(tmp_path)
    zrun(root, "lint", "greet")
    result = Repo(root).review_by_reviewer("OKAY")
    assert RunStore(root, "greet").read()["review"]["verdict"] == "OKAY", result.text
    return root


def _work(root: Path) -> None:
    (root / "greeting.txt").write_text("hello\n")
    (root / "README.md").write_text("project with a greeting\n")


def test_real_passing_run(reviewed: Path) -> None:
    root = reviewed
    _work(root)
    zrun(root, "verify", "greet", "1")
    zrun(root, "todo", "greet", "1", "done")
    zrun(root, "verify", "greet", "2")
    zrun(root, "todo", "greet", "2", "done")
    zrun(root, "window", "greet", "--label", "external-audit", "--", "git", "status")
    code, payload = audit_json(root, "greet")
    assert code == 0, payload["findings"]
    assert payload["ok"] and payload["run"]["source"] == "zodyssey"
    assert payload["counts"]["criteria_passed"] == 3
    assert payload["counts"]["windows_clean"] == 1
    assert all(c["duration_s"] is not None for c in payload["criteria"])
    # the state file path works as the target too
    by_file = audit_cli(root, str(root / ".zcode" / "state" / "greet.json"))
    assert by_file.returncode == 0 and "audit passed" in by_file.stdout


def test_real_failing_run(reviewed: Path) -> None:
    root = reviewed
    (root / "greeting.txt").write_text("goodbye\n")
    zrun(root, "verify", "greet", "1", expect=1)  # criterion 2 fails
    zrun(root, "todo", "greet", "1", "done", "--force-done", "--reason", "grep is wrong")
    # an auditor that writes: the window records the violation
    zrun(
        root,
        "window",
        "greet",
        "--label",
        "external-audit",
        "--",
        "sh",
        "-c",
        "echo x >> README.md",
        expect=1,
    )
    zrun(root, "phase", "greet", "done", "--force", "--reason", "ship it anyway")
    code, payload = audit_json(root, "greet")
    assert code == 1
    assert {"window-violated", "criterion-failed"} <= rules_of(payload, "error")
    assert {"todo-forced", "check-override"} <= rules_of(payload, "warning")
    overrides = [f for f in payload["findings"] if f["rule"] == "check-override"]
    assert len(overrides) == 1 and "ship it anyway" in overrides[0]["message"]
    strict_code, strict = audit_json(root, "greet", "--strict")
    assert strict_code == 1 and "todo-forced" in rules_of(strict, "error")
    rows = {(c["todo"], c["index"]): c for c in payload["criteria"]}
    # forcing the todo does not hide the failed execution of its criterion
    assert rows[("1", 2)]["status"] == "failed" and rows[("1", 2)]["forced"] is True
    assert rows[("1", 2)]["exit_code"] == 1
    assert "1 failed" in payload["summary"] and "1 forced (todo 1)" in payload["summary"]


def test_real_run_tampered_after_the_fact(reviewed: Path) -> None:
    root = reviewed
    (root / "greeting.txt").write_text("goodbye\n")
    zrun(root, "verify", "greet", "1", "--criterion", "1")
    zrun(root, "verify", "greet", "1", "--criterion", "2", expect=1)
    # The agent edits the failing record to exit 0 and marks the todo done by hand.
    evidence = root / ".zcode" / "verify" / "greet" / "evidence.jsonl"
    lines = evidence.read_text().splitlines()
    record = json.loads(lines[-1])
    record.update(exit_code=0, passed=True)
    lines[-1] = json.dumps(record, sort_keys=True)
    evidence.write_text("\n".join(lines) + "\n")
    state_file = root / ".zcode" / "state" / "greet.json"
    state = json.loads(state_file.read_text())
    state["todos"]["1"]["status"] = "done"
    state_file.write_text(json.dumps(state))
    (root / ".zcode" / "plans" / "greet.md").write_text(PLAN + "- [ ] 3. More\n")
    code, payload = audit_json(root, "greet")
    assert code == 1
    assert {"chain-broken", "plan-drift"} <= rules_of(payload, "error")


def test_human_verdict_artifact_deleted_fails(tmp_path: Path) -> None:
    """A person's OKAY whose recorded artifact vanished is not silently accepted."""
    root = started_run(tmp_path)
    zrun(root, "review", "greet", "--human", "OKAY", "--by", "Ada")
    artifacts = sorted((root / ".zcode" / "reviews").glob("greet-r*.json"))
    assert artifacts, "a human verdict records an artifact"
    before = rules_of(audit_json(root, "greet")[1], "error")
    assert "review-artifact" not in before
    for artifact in artifacts:
        artifact.unlink()
    code, payload = audit_json(root, "greet")
    assert code == 1 and "review-artifact" in rules_of(payload, "error")
