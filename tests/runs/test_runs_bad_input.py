"""`zodyssey run` on hand-damaged state and evidence: exit 2 and one line, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import DEEP_JSON, assert_one_line_error, make_repo, run_zodyssey

PLAN = """# Add a file

## Todos
- [ ] 1. Create b.txt
  - Files: [`b.txt`]
  - Acceptance criteria:
    - `test -f b.txt` exits 0
"""


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "run repo", {"a.txt": "a\n"})
    (root / "plan.md").write_text(PLAN)
    assert run_zodyssey("run", "start", "demo", "--plan", "plan.md", cwd=root).returncode == 0
    assert (
        run_zodyssey("run", "review", "demo", "--human", "OKAY", "--by", "qa", cwd=root).returncode
        == 0
    )
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
    done = run_zodyssey("run", *command, cwd=repo)
    assert_one_line_error(done, 2)
    assert "`review`" in done.stderr


def test_state_with_unknown_phase_is_exit_2(repo: Path) -> None:
    state_path = repo / ".zcode" / "state" / "demo.json"
    state = json.loads(state_path.read_text())
    state["phase"] = 5
    state_path.write_text(json.dumps(state))
    assert_one_line_error(run_zodyssey("run", "status", "demo", cwd=repo), 2)


def test_deeply_nested_state_is_exit_2(repo: Path) -> None:
    (repo / ".zcode" / "state" / "demo.json").write_text(DEEP_JSON)
    assert_one_line_error(run_zodyssey("run", "status", "demo", cwd=repo), 2)


def test_deeply_nested_evidence_line_is_a_chain_problem(repo: Path) -> None:
    (repo / "b.txt").write_text("b\n")
    assert run_zodyssey("run", "verify", "demo", "1", cwd=repo).returncode == 0
    evidence = repo / ".zcode" / "verify" / "demo" / "evidence.jsonl"
    evidence.write_text(evidence.read_text() + DEEP_JSON + "\n")
    status = run_zodyssey("run", "status", "demo", cwd=repo)
    assert "Traceback" not in status.stderr
    assert status.returncode == 0
    assert "intact" not in status.stdout
    audit = run_zodyssey("audit", "demo", cwd=repo)
    assert "Traceback" not in audit.stderr
    assert audit.returncode == 1
    assert "chain-broken" in audit.stdout


def test_evidence_path_that_is_a_directory_is_exit_2(repo: Path) -> None:
    evidence = repo / ".zcode" / "verify" / "demo" / "evidence.jsonl"
    evidence.parent.mkdir(parents=True, exist_ok=True)
    evidence.mkdir()
    done = run_zodyssey("run", "window", "demo", "--label", "x", "--", "true", cwd=repo)
    assert_one_line_error(done, 2)
