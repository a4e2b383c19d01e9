"""Evidence bound to its run and cross-checked (issue 26, item 2).

Real runs made with `zodyssey run` in temporary git repositories, then
tampered with the way an agent with write access to `.zcode/` could, then
audited. Each tampering used to pass `zodyssey audit --strict`.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from tests.helpers.real_runs import approved, audit, evidence, plan_of, rules
from tests.helpers.runs import Repo
from zodyssey.runs.evidence import dump_records, link_records

PLAN = plan_of("    - `grep -q hello g.txt` exits 0\n")


def passed_then_failed(tmp_path: Path, name: str = "repo", slug: str = "demo") -> Repo:
    """Criterion 1 passes (seq 1), then fails on an edited g.txt (seq 2)."""
    repo = approved(tmp_path, PLAN, slug, name)
    repo.write("g.txt", "hello\n")
    assert repo.run("verify", slug, "1").code == 0
    repo.write("g.txt", "bye\n")
    assert repo.run("verify", slug, "1").code == 1
    return repo


def state_file(repo: Repo, slug: str = "demo") -> Path:
    return repo.root / ".zcode" / "state" / f"{slug}.json"


def evidence_file(repo: Repo, slug: str = "demo") -> Path:
    return repo.root / ".zcode" / "verify" / slug / "evidence.jsonl"


def edit_state(repo: Repo, change: Any, slug: str = "demo") -> None:
    path = state_file(repo, slug)
    state = json.loads(path.read_text())
    change(state)
    path.write_text(json.dumps(state, indent=2))


def rewrite_chain(repo: Repo, records: list[dict[str, Any]], slug: str = "demo") -> None:
    """Write `records` as a freshly linked chain and point the state's head at its tail."""
    linked = link_records(records)
    evidence_file(repo, slug).write_text(dump_records(linked))

    def head(state: dict[str, Any]) -> None:
        state["evidence"]["count"] = len(linked)
        state["evidence"]["head"] = linked[-1]["hash"]

    edit_state(repo, head, slug)


def fails(repo: Repo, *expected: str) -> set[str]:
    code, payload = audit(repo, "demo", "--strict")
    found = rules(payload)
    assert code == 1, payload["findings"]
    assert set(expected) <= found, found
    return found


def test_cutting_the_failing_tail_and_fixing_the_head_fails(tmp_path: Path) -> None:
    repo = passed_then_failed(tmp_path)
    records = evidence(repo)
    rewrite_chain(repo, records[:1])
    # the run commands see it too: todo done is refused against the anchor
    assert repo.run("todo", "demo", "1", "done").code == 11
    fails(repo, "chain-broken", "evidence-disagrees")


def test_deleting_the_evidence_head_fails(tmp_path: Path) -> None:
    repo = passed_then_failed(tmp_path)
    records = evidence(repo)
    evidence_file(repo).write_text(dump_records(records[:1]))
    edit_state(repo, lambda state: state.pop("evidence"))
    fails(repo, "chain-broken")


def test_a_failing_record_edited_to_pass_and_rehashed_fails_even_with_the_state_edited(
    tmp_path: Path,
) -> None:
    repo = passed_then_failed(tmp_path)
    records = evidence(repo)
    forged = dict(records[1])
    forged["exit_code"] = 0
    forged["passed"] = True
    forged["steps"] = [{**forged["steps"][0], "exit_code": 0, "passed": True}]
    rewrite_chain(repo, [records[0], forged])
    # with the state's own summaries left as they were: they disagree
    found = fails(repo, "evidence-disagrees")
    assert "chain-broken" in found  # the git anchor names the original seq 2

    # and with every summary in the state forged to agree: the anchor still fails it
    def agree(state: dict[str, Any]) -> None:
        for entry in state["verify"]["history"]:
            entry.update(passed=True, status="passed", exit_code=0)
        for entry in state["gate_log"]:
            if entry["decision"] == "fail":
                entry["decision"] = "pass"
                entry["reason"] = entry["reason"].replace("exit 1", "exit 0")

    edit_state(repo, agree)
    assert "chain-broken" in fails(repo)


def test_another_runs_state_and_evidence_copied_over_fails(tmp_path: Path) -> None:
    repo = approved(tmp_path, PLAN)
    repo.write("g.txt", "hello\n")
    assert repo.run("verify", "demo", "1").code == 0
    assert repo.run("todo", "demo", "1", "done").code == 0
    assert repo.run("phase", "demo", "done").code == 0
    # a second run of the same slug (the finished one is archived), which fails
    bad_plan = tmp_path / "bad.md"
    bad_plan.write_text(PLAN.replace("Round three", "Round three, bad"))
    assert repo.run("start", "demo", "--plan", str(bad_plan)).code == 0
    repo.approve("demo")
    repo.write("g.txt", "bye\n")
    assert repo.run("verify", "demo", "1").code == 1
    # copy the archived passing run over the failing one
    (archived,) = (repo.root / ".zcode" / "archive").iterdir()
    shutil.copy(archived / "verify" / "evidence.jsonl", evidence_file(repo))
    source = json.loads((archived / "demo.json").read_text())
    source["evidence"]["path"] = str(evidence_file(repo))
    state_file(repo).write_text(json.dumps(source))
    repo.write("g.txt", "hello\n")
    assert fails(repo)


def test_a_window_added_to_the_state_by_hand_does_not_count(tmp_path: Path) -> None:
    repo = approved(tmp_path, PLAN)
    repo.write("g.txt", "hello\n")
    assert repo.run("verify", "demo", "1").code == 0
    assert repo.run("todo", "demo", "1", "done").code == 0
    assert repo.run("phase", "demo", "done").code == 0

    def add(state: dict[str, Any]) -> None:
        state["windows"].append(
            {
                "label": "external-audit",
                "at": state["updated_at"],
                "readOnlyViolation": False,
                "exit_code": 0,
                "seq": 1,
            }
        )
        state["phase"] = "audited"

    edit_state(repo, add)
    found = fails(repo, "evidence-disagrees", "window-missing")
    assert found


def test_a_window_whose_auditor_never_ran_is_not_clean(tmp_path: Path) -> None:
    repo = approved(tmp_path, PLAN)
    repo.write("g.txt", "hello\n")
    assert repo.run("verify", "demo", "1").code == 0
    assert repo.run("todo", "demo", "1", "done").code == 0
    assert repo.run("phase", "demo", "done").code == 0
    window = repo.run("window", "demo", "--label", "external-audit", "--", "sh", "-c", "exit 127")
    assert window.code == 1
    fails(repo, "window-auditor-failed")


def test_an_honest_run_with_a_clean_window_passes_and_is_anchored(tmp_path: Path) -> None:
    repo = approved(tmp_path, PLAN)
    repo.write("g.txt", "hello\n")
    assert repo.run("verify", "demo", "1").code == 0
    assert repo.run("todo", "demo", "1", "done").code == 0
    assert repo.run("phase", "demo", "done").code == 0
    assert repo.run("window", "demo", "--label", "audit", "--", "git", "status").code == 0
    code, payload = audit(repo, "demo", "--strict", "--require-complete")
    assert code == 0, payload["findings"]
    run_id = repo.state()["run_id"]
    assert all(r["run_id"] == run_id and r["slug"] == "demo" for r in evidence(repo))
    refs = repo.git("for-each-ref", "--format=%(refname)", "refs/zodyssey/")
    assert f"refs/zodyssey/evidence/demo/{run_id}" in refs
