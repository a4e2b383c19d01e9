"""Issue 13: the verdict is true. A failed or empty run never passes, an unfinished run says
so, and every format agrees with the exit code (no green badge above a red row)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.helpers.audit import OursRun, audit_cli, audit_json, rules_of


def failed_pending(root: Path) -> OursRun:
    """Approved OKAY; the only criterion that ran failed; its todo is still pending."""
    run = OursRun(root)
    run.review("OKAY")
    run.criterion("1", 1, exit_code=1, minute=5)
    return run.write()


def nothing_executed(root: Path) -> OursRun:
    """Approved OKAY, nothing executed at all."""
    run = OursRun(root)
    run.review("OKAY")
    return run.write()


def unfinished(root: Path) -> OursRun:
    """Todo 1 done with passing evidence, todo 2 pending, phase execute."""
    run = OursRun(root)
    run.review("OKAY")
    run.criterion("1", 1, minute=5)
    run.criterion("1", 2, minute=6)
    run.done("1", minute=7)
    return run.write()


def test_failed_criterion_of_a_pending_todo_fails_the_audit(tmp_path: Path) -> None:
    run = failed_pending(tmp_path)
    code, payload = audit_json(run.root, run.slug)
    assert code == 1 and payload["verdict"] == "failed" and not payload["ok"]
    assert "criterion-failed" in rules_of(payload, "error")
    assert payload["counts"]["criteria_failed"] == 1
    assert "1 failed" in payload["summary"] and payload["summary"].startswith("audit FAILED")


def test_failed_criterion_of_a_forced_todo_is_counted_and_named(tmp_path: Path) -> None:
    run = OursRun(tmp_path)
    run.review("OKAY")
    run.criterion("1", 1, minute=5)
    run.criterion("1", 2, exit_code=2, minute=6)
    run.done("1", forced_reason="grep is flaky", minute=7)
    run.criterion("2", 1, minute=8)
    run.done("2", minute=9)
    run.phase("done", 10)
    run.write()
    code, payload = audit_json(run.root, run.slug)
    assert code == 1 and "criterion-failed" in rules_of(payload, "error")
    first_line = payload["summary"].splitlines()[0]
    assert "1 failed" in first_line and "1 forced (todo 1)" in first_line
    assert payload["forced_todos"] == ["1"]


def test_nothing_executed_is_exit_4_even_with_strict(tmp_path: Path) -> None:
    run = nothing_executed(tmp_path)
    for extra in ((), ("--strict",)):
        result = audit_cli(run.root, run.slug, *extra)
        assert result.returncode == 4, (extra, result.stdout, result.stderr)
        assert "nothing-executed" in result.stdout
        assert "audit found NOTHING TO JUDGE" in result.stdout
    code, payload = audit_json(run.root, run.slug)
    assert code == 4 and payload["verdict"] == "empty" and payload["exit_code"] == 4
    assert payload["ok"] is False


def test_nothing_executed_with_other_errors_is_exit_1(tmp_path: Path) -> None:
    run = nothing_executed(tmp_path)
    run.plan_file.write_text(run.plan + "- [ ] 3. More\n")  # drift after review
    code, payload = audit_json(run.root, run.slug)
    assert code == 1 and {"plan-drift", "nothing-executed"} <= rules_of(payload, "error")


def test_unfinished_run_is_a_warning_naming_phase_and_todos(tmp_path: Path) -> None:
    run = unfinished(tmp_path)
    code, payload = audit_json(run.root, run.slug)
    assert code == 0, payload["findings"]
    found = [f for f in payload["findings"] if f["rule"] == "run-unfinished"]
    assert len(found) == 1 and found[0]["severity"] == "warning"
    assert "phase execute" in found[0]["message"] and "2 (pending)" in found[0]["message"]
    code, payload = audit_json(run.root, run.slug, "--require-complete")
    assert code == 1 and "run-unfinished" in rules_of(payload, "error")
    assert payload["require_complete"] is True


def test_finished_run_has_no_unfinished_finding(tmp_path: Path) -> None:
    run = OursRun(tmp_path).honest()
    code, payload = audit_json(run.root, run.slug, "--require-complete")
    assert code == 0 and "run-unfinished" not in rules_of(payload)


def test_phase_done_with_an_open_todo_is_an_error(tmp_path: Path) -> None:
    run = unfinished(tmp_path)
    run.phase("done", 12)
    run.write()
    code, payload = audit_json(run.root, run.slug)
    assert code == 1 and "done-with-open-todos" in rules_of(payload, "error")


def _badge(html: str) -> tuple[str, str]:
    found = re.search(r'id="status" class="badge (\w+)" data-exit="(\d)">([^<]+)<', html)
    assert found, html[:2000]
    return found.group(1), found.group(2)


SCENARIOS = {
    "honest": (lambda root: OursRun(root).honest(), 0),
    "failed-pending": (failed_pending, 1),
    "nothing-executed": (nothing_executed, 4),
    "unfinished": (unfinished, 0),
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_every_format_agrees_with_the_exit_code(tmp_path: Path, name: str) -> None:
    make, expected = SCENARIOS[name]
    run = make(tmp_path / "repo")
    out: dict[str, str] = {}
    for fmt in ("text", "json", "markdown", "html", "junit", "sarif"):
        result = audit_cli(run.root, run.slug, "--format", fmt)
        assert result.returncode == expected, (fmt, result.stdout[-2000:], result.stderr)
        out[fmt] = result.stdout
    word = {0: "passed", 1: "FAILED", 4: "NOTHING TO JUDGE"}[expected]
    assert f"audit {word}" in out["text"] or f"audit found {word}" in out["text"]
    payload = json.loads(out["json"])
    assert payload["exit_code"] == expected and payload["ok"] is (expected == 0)
    heading = out["markdown"].splitlines()[0]
    assert heading.endswith({0: "passed", 1: "failed", 4: "nothing to judge"}[expected])
    badge, exit_attr = _badge(out["html"])
    assert badge == {0: "passed", 1: "failed", 4: "empty"}[expected] and exit_attr == str(expected)
    # A red row under a green badge is the contradiction the issue describes.
    if expected == 0:
        assert 'data-status="failed"' not in out["html"]
    suite = ET.fromstring(out["junit"]).find("testsuite")
    assert suite is not None
    assert (int(suite.get("failures", "0")) > 0) is (expected != 0)
    sarif = json.loads(out["sarif"])
    levels = {r["level"] for r in sarif["runs"][0]["results"]}
    assert ("error" in levels) is (expected != 0)


def overlapping(root: Path) -> OursRun:
    """An honest run whose two read-only windows ran at the same time."""
    run = OursRun(root)
    run.review("OKAY")
    run.criterion("1", 1, minute=5)
    run.criterion("1", 2, minute=5)
    run.done("1", minute=7)
    run.criterion("2", 1, minute=8)
    run.done("2", minute=9)
    run.phase("done", 15)
    run.window("auditor A", minute=20)
    run.window("auditor B", minute=20)
    run.phase("audited", 25)
    return run.write()


def test_timeline_labels_phases_and_stacks_overlapping_marks(tmp_path: Path) -> None:
    from zodyssey.audit.checks import audit
    from zodyssey.audit.load import load_run
    from zodyssey.audit.report import timeline

    run = overlapping(tmp_path)
    lanes = {
        lane["name"]: lane for lane in timeline(audit(load_run(run.slug, str(run.root))))["lanes"]
    }
    windows = lanes["windows"]["marks"]
    assert sorted(m["row"] for m in windows) == [0, 1] and lanes["windows"]["rows"] == 2
    criteria = lanes["criteria"]["marks"]
    assert len({m["row"] for m in criteria if m["label"].startswith("1.")}) == 2
    phases = lanes["phases"]
    assert [m["label"] for m in phases["marks"]] == ["plan", "execute", "done", "audited"]
    html = audit_cli(run.root, run.slug, "--format", "html").stdout
    for name in ("plan", "execute", "done", "audited"):
        # written on the page, not only in a title attribute
        assert re.search(rf'<span class="plabel(?: end)?" style="[^"]*">{name}</span>', html), name
    assert 'data-row="1"' in html
