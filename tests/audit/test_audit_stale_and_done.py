"""Stale evidence, final-wave rows, `phase done` and archived runs (issue 26, item 3).

Real runs made with `zodyssey run` in temporary git repositories.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers import run_zodyssey
from tests.helpers.real_runs import approved, audit, plan_of, rules
from tests.helpers.runs import Repo

PLAN = plan_of("    - `grep -q hello g.txt` exits 0\n")


def done_run(tmp_path: Path, plan: str = PLAN) -> Repo:
    repo = approved(tmp_path, plan)
    repo.write("g.txt", "hello\n")
    assert repo.run("verify", "demo", "1").code == 0
    assert repo.run("todo", "demo", "1", "done").code == 0
    return repo


def test_a_file_edited_after_the_last_verify_makes_the_evidence_stale(tmp_path: Path) -> None:
    repo = approved(tmp_path, PLAN)
    repo.write("g.txt", "hello\n")
    assert repo.run("verify", "demo", "1").code == 0
    assert repo.run("todo", "demo", "1", "done").code == 0
    assert repo.run("phase", "demo", "done").code == 0
    code, payload = audit(repo, "demo", "--strict", "--require-complete")
    assert code == 0, payload["findings"]
    repo.write("g.txt", "goodbye\n")  # the criterion would fail now
    code, payload = audit(repo, "demo")
    assert code == 1 and "evidence-stale" in rules(payload)
    code, payload = audit(repo, "demo", "--allow-stale")
    assert code == 0, payload["findings"]
    assert "evidence-stale" in rules(payload, "note")


def test_committing_the_work_is_not_a_change(tmp_path: Path) -> None:
    repo = approved(tmp_path, PLAN)
    repo.write("g.txt", "hello\n")
    assert repo.run("verify", "demo", "1").code == 0
    assert repo.run("todo", "demo", "1", "done").code == 0
    assert repo.run("phase", "demo", "done").code == 0
    repo.commit("the run's work")
    code, payload = audit(repo, "demo", "--strict", "--require-complete")
    assert code == 0, payload["findings"]


def test_a_final_wave_row_without_criteria_is_not_done_without_evidence(tmp_path: Path) -> None:
    plan = plan_of(
        "    - `grep -q hello g.txt` exits 0\n", final="- [ ] F1. Plan compliance audit\n"
    )
    repo = done_run(tmp_path, plan)
    refused = repo.run("todo", "demo", "F1", "done")
    assert refused.code == 11, refused.text
    assert "window" in refused.err
    # a failing audit in its window does not prove it either
    assert repo.run("window", "demo", "--label", "F1", "--", "sh", "-c", "exit 3").code == 1
    assert repo.run("todo", "demo", "F1", "done").code == 11
    assert repo.run("window", "demo", "--label", "F1", "--", "git", "status").code == 0
    assert repo.run("todo", "demo", "F1", "done").code == 0
    assert repo.run("phase", "demo", "done").code == 0
    code, payload = audit(repo, "demo", "--strict", "--require-complete")
    assert code == 0, payload["findings"]


def test_the_audit_fails_a_final_row_marked_done_by_hand(tmp_path: Path) -> None:
    plan = plan_of(
        "    - `grep -q hello g.txt` exits 0\n", final="- [ ] F1. Plan compliance audit\n"
    )
    repo = done_run(tmp_path, plan)
    state_file = repo.root / ".zcode" / "state" / "demo.json"
    state = json.loads(state_file.read_text())
    state["todos"]["F1"] = {"status": "done", "attempts": 0}
    state_file.write_text(json.dumps(state))
    code, payload = audit(repo, "demo")
    assert code == 1 and "criterion-not-executed" in rules(payload)


def test_phase_done_refuses_while_a_done_todos_latest_run_failed(tmp_path: Path) -> None:
    repo = done_run(tmp_path)
    repo.write("g.txt", "bye\n")
    assert repo.run("verify", "demo", "1").code == 1  # todo 1 stays done in the state
    refused = repo.run("phase", "demo", "done")
    assert refused.code == 11, refused.text
    assert "1 (criterion 1 last failed" in refused.err


def test_run_start_on_a_finished_slug_archives_the_plan_and_the_archive_still_audits(
    tmp_path: Path,
) -> None:
    repo = done_run(tmp_path)
    assert repo.run("phase", "demo", "done").code == 0
    code, before = audit(repo, "demo", "--strict", "--require-complete")
    assert code == 0, before["findings"]
    other = tmp_path / "next.md"
    other.write_text(PLAN.replace("Write g.txt", "Something else entirely"))
    assert repo.run("start", "demo", "--plan", str(other)).code == 0
    [archive] = sorted((repo.root / ".zcode" / "archive").iterdir())
    assert (archive / "plan.md").read_text() == PLAN
    done = run_zodyssey(
        "audit",
        str(archive / "demo.json"),
        "--format",
        "json",
        "--strict",
        "--require-complete",
        cwd=repo.root,
    )
    assert done.returncode == 0, done.stdout
    payload = json.loads(done.stdout)
    assert payload["counts"]["criteria_passed"] == before["counts"]["criteria_passed"]
