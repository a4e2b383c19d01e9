"""`--json` on `hook install`, `claims test` and the `run` verbs: one JSON object on stdout.

Real processes in real git repositories. Each command is run with `--json` and
its stdout must parse as exactly one JSON object (nothing before or after it,
even when the command starts programs that print: acceptance criteria, pytest),
with the exit code the same command gives without `--json`.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import make_repo, run_zodyssey, write
from tests.helpers.real_runs import plan_of, started
from tests.helpers.runs import Repo

PLAN = plan_of("    - `test -f g.txt` exits 0\n")


def one_object(stdout: str) -> dict[str, Any]:
    """stdout is one JSON object and nothing else."""
    document = json.loads(stdout)  # raises on anything before or after the object
    assert isinstance(document, dict), stdout
    assert set(document) >= {"command", "exit_code", "ok", "messages", "error"}, document
    assert document["ok"] == (document["exit_code"] == 0)
    return document


def run_json(repo: Repo, *args: str) -> tuple[int, dict[str, Any], str]:
    done = run_zodyssey("run", *args, "--json", cwd=repo.root)
    assert "Traceback" not in done.stderr, done.stderr
    document = one_object(done.stdout)
    assert document["exit_code"] == done.returncode
    return done.returncode, document, done.stderr


def test_run_verbs_answer_with_one_object_and_their_exit_codes(tmp_path: Path) -> None:
    repo = started(tmp_path, PLAN)
    # lint and a person's review, each one object naming the run afterwards.
    code, lint, _ = run_json(repo, "lint", "demo")
    assert code == 0 and lint["command"] == "run lint" and lint["slug"] == "demo"
    assert any("plan ok" in line for line in lint["messages"]), lint
    code, review, _ = run_json(repo, "review", "demo", "--human", "OKAY", "--by", "alice")
    assert code == 0 and review["run"]["verdict"] == "OKAY", review
    # verify: its report lines are the messages, the run's counts follow.
    code, failed, err = run_json(repo, "verify", "demo", "1")
    plain = repo.run("verify", "demo", "1")
    assert code == 1 and failed["ok"] is False, failed
    assert any("FAILED" in line for line in failed["messages"]), failed
    assert failed["run"]["verify"]["failed"] == 1, failed
    # Refused on an identical work tree (exit 10): the same code as without --json.
    assert plain.code == 10, plain.text
    code, refused, err = run_json(repo, "verify", "demo", "1")
    assert code == 10 and refused["error"] and refused["error"] in err, (refused, err)
    repo.write("g.txt", "hello\n")
    code, passed, err = run_json(repo, "verify", "demo", "1")
    assert code == 0 and passed["run"]["verify"]["passed"] >= 1, passed
    code, todo, _ = run_json(repo, "todo", "demo", "1", "done")
    assert code == 0 and todo["run"]["todos"]["1"] == "done", todo
    code, phase, _ = run_json(repo, "phase", "demo", "done")
    assert code == 0 and phase["run"]["phase"] == "done", phase
    # A refusal by the run state: exit 11 with and without --json, the error in both.
    code, late, err = run_json(repo, "todo", "demo", "1", "pending")
    plain = repo.run("todo", "demo", "1", "pending")
    assert code == plain.code == 11, (late, plain.text)
    assert late["error"] and late["error"] in plain.err


def test_run_start_json_names_the_run_it_made(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    plan = write(tmp_path, "plan.md", PLAN)
    done = run_zodyssey("run", "start", "demo", "--plan", str(plan), "--json", cwd=repo)
    assert done.returncode == 0, done.stderr
    document = one_object(done.stdout)
    assert document["command"] == "run start" and document["run"]["phase"] == "plan"
    assert any("started run 'demo'" in line for line in document["messages"]), document
    # A second start is refused (active run): the same exit code as without --json.
    again = run_zodyssey("run", "start", "demo", "--plan", str(plan), "--json", cwd=repo)
    plain = run_zodyssey("run", "start", "demo", "--plan", str(plan), cwd=repo)
    assert again.returncode == plain.returncode != 0, (again.stderr, plain.stderr)
    refused = one_object(again.stdout)
    assert refused["error"] and refused["run"]["phase"] == "plan"


def test_hook_install_json_writes_what_text_mode_writes(tmp_path: Path) -> None:
    as_text = make_repo(tmp_path / "text")
    as_json = make_repo(tmp_path / "json")
    plain = run_zodyssey("hook", "install", "--harness", "claude-code", cwd=as_text)
    done = run_zodyssey("hook", "install", "--harness", "claude-code", "--json", cwd=as_json)
    assert plain.returncode == done.returncode == 0, done.stderr
    document = one_object(done.stdout)
    assert document["harness"] == "claude-code" and document["dry_run"] is False
    # The same lines as text mode (the shell prefix program is named per project).
    same = re.compile(r"zodyssey-shell-[0-9a-f]+")
    assert [same.sub("S", line) for line in document["messages"]] == [
        same.sub("S", line) for line in plain.stdout.splitlines()
    ]
    for rel in (".claude/settings.json", ".zodyssey.toml", ".claude/agents/momus.md"):
        assert (as_json / rel).read_bytes() == (as_text / rel).read_bytes(), rel
    # Bad input: exit 2 both ways, the error in the object.
    bad = run_zodyssey("hook", "install", "--project", "missing-dir", "--json", cwd=as_json)
    plain_bad = run_zodyssey("hook", "install", "--project", "missing-dir", cwd=as_json)
    assert bad.returncode == plain_bad.returncode == 2, bad.stderr
    assert one_object(bad.stdout)["error"]


CLAIMED = "# demo\n\nThe answer is kept. <!-- claim: answer-kept -->\n"
TEST = (
    "import pytest\n\n\n@pytest.mark.claim('answer-kept')\ndef test_answer():\n"
    "    print('pytest-output-line')\n    assert {value} == 42\n"
)
PYPROJECT = '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'


@pytest.mark.slow
def test_claims_test_json_keeps_pytest_off_stdout(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "repo",
        {
            "README.md": CLAIMED,
            "pyproject.toml": PYPROJECT,
            "tests/test_answer.py": TEST.format(value=42),
        },
    )
    assert run_zodyssey("claims", "update", cwd=repo).returncode == 0
    done = run_zodyssey("claims", "test", "--json", "--", "-s", cwd=repo)
    assert done.returncode == 0, done.stdout + done.stderr
    document = one_object(done.stdout)
    assert document["in_use"] is True and document["command"] == "claims test"
    assert "pytest-output-line" in done.stderr and "pytest-output-line" not in done.stdout
    write(repo, "tests/test_answer.py", TEST.format(value=41))
    failed = run_zodyssey("claims", "test", "--json", cwd=repo)
    plain = run_zodyssey("claims", "test", cwd=repo)
    assert failed.returncode == plain.returncode == 9, failed.stderr
    assert one_object(failed.stdout)["ok"] is False
    # A repository without claims: nothing runs, exit 0, in_use false.
    bare = make_repo(tmp_path / "bare", {"README.md": "# nothing\n"})
    skipped = run_zodyssey("claims", "test", "--json", cwd=bare)
    assert skipped.returncode == 0, skipped.stderr
    assert one_object(skipped.stdout)["in_use"] is False
