"""`zodyssey run` on hand-damaged state and evidence: exit 2 and one line, never a traceback."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from qa_helpers import DEEP_JSON, assert_one_line_error, git_repo, zodyssey

PLAN = """# Add a file

## Todos
- [ ] 1. Create b.txt
  - Files: [`b.txt`]
  - Acceptance criteria:
    - `test -f b.txt` exits 0
"""


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    root = git_repo(tmp_path / "run repo")
    (root / "a.txt").write_text("a\n")
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run(
        ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "i"],
        check=True,
    )
    (root / "plan.md").write_text(PLAN)
    assert zodyssey(root, "run", "start", "demo", "--plan", "plan.md").returncode == 0
    assert zodyssey(root, "run", "review", "demo", "--human", "OKAY", "--by", "qa").returncode == 0
    return root


COMMANDS = [
    ["status", "demo"],
    ["verify", "demo", "1"],
    ["todo", "demo", "1", "done"],
    ["phase", "demo", "plan"],
    ["window", "demo", "--label", "x", "--", "true"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_state_with_wrong_shapes_is_exit_2(repo: Path, command: list[str]) -> None:
    state_path = repo / ".zcode" / "state" / "demo.json"
    state = json.loads(state_path.read_text())
    state["review"] = "OKAY"
    state_path.write_text(json.dumps(state))
    done = zodyssey(repo, "run", *command)
    assert_one_line_error(done, 2)
    assert "`review`" in done.stderr


def test_state_with_unknown_phase_is_exit_2(repo: Path) -> None:
    state_path = repo / ".zcode" / "state" / "demo.json"
    state = json.loads(state_path.read_text())
    state["phase"] = 5
    state_path.write_text(json.dumps(state))
    assert_one_line_error(zodyssey(repo, "run", "status", "demo"), 2)


def test_deeply_nested_state_is_exit_2(repo: Path) -> None:
    (repo / ".zcode" / "state" / "demo.json").write_text(DEEP_JSON)
    assert_one_line_error(zodyssey(repo, "run", "status", "demo"), 2)


def test_deeply_nested_evidence_line_is_a_chain_problem(repo: Path) -> None:
    (repo / "b.txt").write_text("b\n")
    assert zodyssey(repo, "run", "verify", "demo", "1").returncode == 0
    evidence = repo / ".zcode" / "verify" / "demo" / "evidence.jsonl"
    evidence.write_text(evidence.read_text() + DEEP_JSON + "\n")
    status = zodyssey(repo, "run", "status", "demo")
    assert "Traceback" not in status.stderr
    assert status.returncode == 0
    assert "intact" not in status.stdout
    audit = zodyssey(repo, "audit", "demo")
    assert "Traceback" not in audit.stderr
    assert audit.returncode == 1
    assert "chain-broken" in audit.stdout


def test_evidence_path_that_is_a_directory_is_exit_2(repo: Path) -> None:
    evidence = repo / ".zcode" / "verify" / "demo" / "evidence.jsonl"
    evidence.parent.mkdir(parents=True, exist_ok=True)
    evidence.mkdir()
    done = zodyssey(repo, "run", "window", "demo", "--label", "x", "--", "true")
    assert_one_line_error(done, 2)
