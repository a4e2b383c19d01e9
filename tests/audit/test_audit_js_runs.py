"""Issue 17: the audit on runs made by the JavaScript pipeline's own scripts.

Each case under `js_runs/` is real pipeline output (how it was made:
`js_runs/README.md`). A test rebuilds the case's git repository (the shared
baseline commit, then the case's work tree and `.zcode/` on top), so the
pipeline's work-tree fingerprints can be recomputed, and audits it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.audit import audit_cli
from zodyssey.audit.checks import audit
from zodyssey.audit.load import load_run
from zodyssey.audit.report import build_report, timeline

RUNS = Path(__file__).parent / "js_runs"
SLUG = "greet"


# The baseline commit is made exactly as generate.sh made it, so it gets the same
# hash: the runs' `run_start_sha` names it.
GIT_ENV = {
    "GIT_AUTHOR_DATE": "2026-03-01T10:00:00Z",
    "GIT_COMMITTER_DATE": "2026-03-01T10:00:00Z",
    "GIT_AUTHOR_NAME": "fixture",
    "GIT_AUTHOR_EMAIL": "fixture@example.invalid",
    "GIT_COMMITTER_NAME": "fixture",
    "GIT_COMMITTER_EMAIL": "fixture@example.invalid",
}


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(root), *args],
        check=True,
        capture_output=True,
        env={**os.environ, **GIT_ENV},
    )


def materialize(case: str, tmp_path: Path) -> Path:
    root = tmp_path / case
    shutil.copytree(RUNS / "baseline", root)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "baseline")
    shutil.copytree(RUNS / case, root, dirs_exist_ok=True)
    (root / "parse-plan.json").unlink()  # the pipeline's parse, kept beside the run
    return root


def run_audit(
    root: Path, *, strict: bool = False, require_complete: bool = False
) -> dict[str, Any]:
    outcome = audit(load_run(SLUG, str(root)), strict=strict, require_complete=require_complete)
    report = build_report(outcome)
    assert report.payload is not None
    return report.payload


def errors(payload: dict[str, Any]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for finding in payload["findings"]:
        if finding["severity"] == "error":
            out.setdefault(finding["rule"], []).append(finding["message"])
    return out


def rules(payload: dict[str, Any], severity: str) -> set[str]:
    return {f["rule"] for f in payload["findings"] if f["severity"] == severity}


@pytest.mark.parametrize("case", ["honest-done", "honest-audited", "multi-all", "column0"])
def test_honest_runs_pass(tmp_path: Path, case: str) -> None:
    payload = run_audit(materialize(case, tmp_path), require_complete=True)
    assert payload["exit_code"] == 0, errors(payload)
    assert rules(payload, "warning") == set(), payload["findings"]
    counts = payload["counts"]
    assert counts["criteria_executed"] == counts["criteria_declared"] == counts["criteria_passed"]
    assert all(c["status"] == "passed" for c in payload["criteria"])


def test_honest_runs_pass_through_the_cli(tmp_path: Path) -> None:
    root = materialize("honest-audited", tmp_path)
    result = audit_cli(root, SLUG, "--strict", "--require-complete")
    assert result.returncode == 0, result.stdout
    assert "audit passed" in result.stdout


def test_audited_run_is_judged_by_its_external_verdict(tmp_path: Path) -> None:
    honest = run_audit(materialize("honest-audited", tmp_path))
    assert "window-missing" not in rules(honest, "error")
    said = [n for n in honest["not_verifiable"] if "read-only window" in n]
    assert len(said) == 1 and "1 round(s)" in said[0]
    rejected = run_audit(materialize("audited-reject", tmp_path))
    found = errors(rejected)
    assert set(found) == {"external-audit-rejected"}, found
    assert "REJECT" in found["external-audit-rejected"][0]
    assert "README.md does not mention the greeting" in found["external-audit-rejected"][0]


def test_done_run_with_a_todo_in_flight_fails(tmp_path: Path) -> None:
    payload = run_audit(materialize("done-todo-inflight", tmp_path))
    found = errors(payload)
    assert "2 (in_flight)" in found["done-with-open-todos"][0]
    assert "todo 2 criterion 1" in found["criterion-failed"][0]
    assert payload["counts"]["criteria_failed"] == 1


def test_failed_final_wave_fails(tmp_path: Path) -> None:
    payload = run_audit(materialize("final-fail", tmp_path))
    found = errors(payload)
    assert "final-wave-failed" in found
    assert "F1" in found["final-wave-failed"][0] and "notes.txt" in found["final-wave-failed"][0]


def test_waived_final_wave_is_reported(tmp_path: Path) -> None:
    root = materialize("final-waived", tmp_path)
    payload = run_audit(root)
    assert payload["exit_code"] == 0
    waived = [f for f in payload["findings"] if f["rule"] == "final-wave-waived"]
    assert len(waived) == 1 and waived[0]["severity"] == "warning"
    assert "F2, F4" in waived[0]["message"]
    assert "reviewers unavailable tonight" in waived[0]["message"]
    strict = run_audit(root, strict=True)
    assert strict["exit_code"] == 1 and "final-wave-waived" in errors(strict)


def test_plan_changed_after_review_is_caught_by_the_other_bindings(tmp_path: Path) -> None:
    root = materialize("plan-rebound", tmp_path)
    state = json.loads((root / ".zcode/state/greet.json").read_text())
    # The tamper: the editable state field matches the plan on disk...
    assert state["review"]["plan_sha256"] == load_run(SLUG, str(root)).plan_sha256_on_disk
    found = errors(run_audit(root))
    # ...but the consumed nonce and the review artifact still name the reviewed plan.
    drift = " | ".join(found["plan-drift"])
    assert "consumed_nonces" in drift and "review artifact" in drift


def test_short_hash_prefixes(tmp_path: Path) -> None:
    payload = run_audit(materialize("plan-rebound", tmp_path))
    messages = " ".join(f["message"] for f in payload["findings"])
    assert "more characters" not in messages
    assert re.search(r"\(([0-9a-f]{12})\) is not the plan on disk \(([0-9a-f]{12})\)", messages)


def test_multi_command_criterion_needs_every_command(tmp_path: Path) -> None:
    subset = run_audit(materialize("multi-subset", tmp_path))
    found = errors(subset)
    assert set(found) == {"criterion-text-mismatch"}, found
    assert "todo 1 criterion 2" in found["criterion-text-mismatch"][0]
    assert "runs only part of the criterion" in found["criterion-text-mismatch"][0]


def test_column0_continuation_follows_the_pipelines_parser(tmp_path: Path) -> None:
    from zodyssey.core.plan import parse_plan

    root = materialize("column0", tmp_path)
    plan_text = (root / ".zcode/plans/greet.md").read_text()
    # Our own grammar ends the todo at the wrapped line; the pipeline's keeps going.
    assert len(parse_plan(plan_text).todos[0].criteria) == 1
    payload = run_audit(root)
    assert [(c["todo"], c["index"]) for c in payload["criteria"]] == [
        ("1", 1),
        ("1", 2),
        ("1", 3),
        ("1", 4),
    ]
    failed = errors(run_audit(materialize("column0-failed", tmp_path)))
    assert "todo 1 criterion 3" in failed["criterion-failed"][0]


def test_evidence_older_than_the_work_tree(tmp_path: Path) -> None:
    root = materialize("stale-tree", tmp_path)
    payload = run_audit(root)
    stale = [f for f in payload["findings"] if f["rule"] == "evidence-stale"]
    # stale evidence fails the audit (issue 26), unless accepted with --allow-stale
    assert len(stale) == 1 and stale[0]["severity"] == "error"
    assert "changed after the last verification" in stale[0]["message"]
    assert payload["exit_code"] == 1
    allowed = build_report(audit(load_run(SLUG, str(root)), allow_stale=True)).payload
    assert allowed is not None
    assert allowed["exit_code"] == 0, allowed["findings"]
    honest = run_audit(materialize("honest-done", tmp_path))
    assert "evidence-stale" not in rules(honest, "warning")


def test_baseline_commit_is_the_runs_start(tmp_path: Path) -> None:
    root = materialize("honest-done", tmp_path)
    head = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    state = json.loads((root / ".zcode/state/greet.json").read_text())
    assert head == state["run_start_sha"]


def test_committed_work_makes_the_fingerprint_incomparable(tmp_path: Path) -> None:
    """After the run's work is committed the fingerprint (relative to HEAD) changes
    although the work did not: not verifiable, not stale."""
    root = materialize("honest-done", tmp_path)
    git(root, "add", "greeting.txt", "README.md")
    git(root, "commit", "-qm", "the run's work")
    payload = run_audit(root, strict=True)
    assert payload["exit_code"] == 0, errors(payload)
    assert "evidence-stale" not in {f["rule"] for f in payload["findings"]}
    assert any("HEAD moved" in n for n in payload["not_verifiable"])


def test_stale_tree_cannot_be_computed_outside_git(tmp_path: Path) -> None:
    root = materialize("honest-done", tmp_path)
    shutil.rmtree(root / ".git")
    payload = run_audit(root)
    assert any("fingerprint cannot be computed" in n for n in payload["not_verifiable"])


def test_edited_verify_record_contradicts_its_summaries(tmp_path: Path) -> None:
    found = errors(run_audit(materialize("edited-verify", tmp_path)))
    mismatch = " | ".join(found["summary-mismatch"])
    assert "verify.failed is 1 but verify.history holds 0" in mismatch
    assert "acceptance[1]" in mismatch


def test_forced_todo_with_failed_criteria(tmp_path: Path) -> None:
    payload = run_audit(materialize("forced-failed", tmp_path))
    assert payload["exit_code"] == 1
    assert "todo 1 criterion 2" in errors(payload)["criterion-failed"][0]
    first = payload["summary"].splitlines()[0]
    assert "1 failed" in first and "1 forced (todo 1)" in first


def test_checkpoints_are_on_the_timeline(tmp_path: Path) -> None:
    root = materialize("honest-audited", tmp_path)
    state = json.loads((root / ".zcode/state/greet.json").read_text())
    outcome = audit(load_run(SLUG, str(root)))
    lanes = {lane["name"]: lane["marks"] for lane in timeline(outcome)["lanes"]}
    labels = [m["label"] for m in lanes["phases"]]
    assert labels == [c["phase"] for c in state["checkpoints"]]
    assert labels[-2:] == ["done", "audited"]
