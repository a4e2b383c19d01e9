"""The `zodyssey audit` process: exit codes, formats, and untrusted input that must not break it."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

from tests.helpers.audit import JsRun, OursRun, audit_cli, audit_inproc
from zodyssey.schemas import load_schema


def _one_line_error(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert "Traceback" not in stderr
    assert lines and lines[-1].startswith("zodyssey: error:"), stderr
    return lines[-1]


@pytest.mark.parametrize(
    "args",
    [["Not_A_Slug"], ["greet", "--format", "yaml"], ["greet", "--bogus"], []],
)
def test_bad_arguments_exit_2(tmp_path: Path, args: list[str]) -> None:
    result = audit_cli(tmp_path, *args)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr


def test_repo_that_is_not_a_directory_exits_2(tmp_path: Path) -> None:
    result = audit_cli(tmp_path / "missing", "greet")
    assert result.returncode == 2
    assert "not a directory" in _one_line_error(result.stderr)


def test_missing_state_exits_3_with_path_and_reason(tmp_path: Path) -> None:
    result = audit_cli(tmp_path, "greet")
    assert result.returncode == 3
    line = _one_line_error(result.stderr)
    assert ".zcode/state/greet.json" in line and "does not exist" in line


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b'{"slug": "greet", ', "not valid JSON (line 1"),
        (b"\xff\xfe\x00garbage", "not UTF-8"),
        (b"[" * 200_000 + b"]" * 200_000, "nested too deeply"),
    ],
    ids=["truncated-json", "not-utf8", "deep-nesting"],
)
def test_unreadable_state_exits_3(tmp_path: Path, content: bytes, reason: str) -> None:
    run = JsRun(tmp_path).honest()
    run.state_file.write_bytes(content)
    result = audit_cli(tmp_path, "greet")
    assert result.returncode == 3
    line = _one_line_error(result.stderr)
    assert reason in line and "greet.json" in line


def test_missing_plan_exits_3(tmp_path: Path) -> None:
    run = OursRun(tmp_path).honest()
    run.plan_file.unlink()
    result = audit_cli(tmp_path, "greet")
    assert result.returncode == 3
    assert "plan unreadable" in _one_line_error(result.stderr)


@pytest.mark.parametrize(
    "state",
    [
        [],
        "a string",
        {
            "slug": "greet",
            "phase": 7,
            "review": [],
            "todos": {"1": "done"},
            "verify": {"history": [None, 3, {"todo_id": {}, "criterion_index": "x"}]},
            "consult": {"history": "nope"},
        },
        {
            "slug": "greet",
            "phase": "done",
            "created_by": "zodyssey",
            "review": {"history": [{"round": True, "verdict": ["OKAY"]}, {"round": 10**30}]},
            "todos": {"1": {"status": "done", "forced": "yes"}},
            "windows": [{}],
            "evidence": {"count": "many"},
            "gate_log": [5],
            "phase_history": [{"to": None}],
        },
    ],
    ids=["list", "string", "js-wrong-types", "ours-wrong-types"],
)
def test_wrong_types_are_findings_not_crashes(tmp_path: Path, state: object) -> None:
    run = JsRun(tmp_path).honest()
    run.state_file.write_text(json.dumps(state))
    result = audit_cli(tmp_path, "greet", "--format", "json")
    assert result.returncode == 1, result.stderr
    payload = json.loads(result.stdout)
    assert any(f["rule"] == "schema-violation" for f in payload["findings"])
    jsonschema.validate(payload, load_schema("audit-report.schema.json"))


def test_huge_strings_stay_bounded(tmp_path: Path) -> None:
    run = JsRun(tmp_path).honest()
    huge = "A" * 3_000_000
    run.state["title"] = huge
    run.state["verify"]["history"][0]["criterion"] = huge
    run.state["consult"]["history"][0]["summary"] = huge
    run.state["review"]["round"] = huge
    run.write()
    for fmt in ("text", "json", "html", "markdown", "junit", "sarif"):
        result = audit_cli(tmp_path, "greet", "--format", fmt)
        assert result.returncode == 1, result.stderr
        assert len(result.stdout) < 200_000, fmt


def test_every_format_renders_and_parses(tmp_path: Path) -> None:
    run = OursRun(tmp_path).honest()
    outputs = {}
    for fmt in ("text", "json", "markdown", "html", "junit", "sarif", "github"):
        result = audit_cli(tmp_path, run.slug, "--format", fmt)
        assert result.returncode == 0, (fmt, result.stderr)
        outputs[fmt] = result.stdout
    payload = json.loads(outputs["json"])
    jsonschema.validate(payload, load_schema("audit-report.schema.json"))
    suite = ET.fromstring(outputs["junit"]).find("testsuite")
    assert suite is not None
    names = [case.get("name", "") for case in suite.iter("testcase")]
    assert len(names) == 3 + 1 + 1  # three criteria, one window, the verdict
    assert names[-1] == "audit verdict: passed"
    assert any(name.startswith("window") for name in names)
    assert float(suite.get("time", "0")) > 0  # durations of the executions
    sarif = json.loads(outputs["sarif"])
    rules = {r["id"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert "audit/chain-broken" in rules and "audit/window-unknown" in rules
    assert "audit passed" in outputs["text"] and "passed" in outputs["markdown"]


def test_output_file_and_summary_on_stderr(tmp_path: Path) -> None:
    run = OursRun(tmp_path).honest()
    target = tmp_path / "out" / "audit.html"
    result = audit_cli(tmp_path, run.slug, "--format", "html", "-o", str(target))
    assert result.returncode == 0
    assert target.read_text().startswith("<!doctype html>")
    assert "audit passed" in result.stderr and result.stdout == ""


def test_failing_junit_has_one_failure_per_unproven_criterion(tmp_path: Path) -> None:
    run = OursRun(tmp_path)
    run.review("OKAY")
    run.criterion("1", 1, exit_code=1)
    run.done("1")
    run.window(violation=None)
    run.write()
    result = audit_cli(tmp_path, run.slug, "--format", "junit")
    assert result.returncode == 1
    suite = ET.fromstring(result.stdout).find("testsuite")
    assert suite is not None
    # 1.1 failed, 1.2 not executed, the window unknown, and the verdict case
    assert suite.get("failures") == "4"
    assert suite.get("skipped") == "1"  # todo 2 is not done


INJECTION = '<script>document.title="pwned"</script><img src=x onerror="document.title=1">'


def injected_run(root: Path) -> JsRun:
    run = JsRun(
        root,
        plan=f"# {INJECTION}\n"
        + str(JsRun.__dataclass_fields__["plan"].default).replace(
            "`grep -q hello greeting.txt`", f"`grep -q hello greeting.txt` {INJECTION}"
        ),
    )
    run.honest()
    run.state["title"] = INJECTION
    run.state["consult"]["history"][0].update(readOnlyViolation=True, summary=INJECTION)
    run.state["consult"]["history"][0]["verdict"] = INJECTION
    run.state["todos"]["2"].update(forced=True, forced_reason=INJECTION)
    run.write()
    ungated = root / ".zcode" / "state" / "greet.ungated.jsonl"
    ungated.write_text(json.dumps({"command": INJECTION}) + "\n")
    return run


def test_injection_is_escaped_in_html_and_markdown(tmp_path: Path) -> None:
    injected_run(tmp_path)
    html = audit_cli(tmp_path, "greet", "--format", "html").stdout
    assert "<script" not in html.lower() and "<img" not in html.lower()
    assert "&lt;script&gt;" in html
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", html)
    assert "url(" not in html and "@import" not in html
    markdown = audit_cli(tmp_path, "greet", "--format", "markdown").stdout
    assert "<script" not in markdown and "<img" not in markdown


def test_payload_matches_the_in_process_audit(tmp_path: Path) -> None:
    run = OursRun(tmp_path).honest()
    result = audit_cli(tmp_path, run.slug, "--format", "json")
    from_process = json.loads(result.stdout)
    assert from_process["findings"] == audit_inproc(tmp_path, run.slug)["findings"]
