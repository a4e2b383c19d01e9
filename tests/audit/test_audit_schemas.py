"""Shipped JSON Schemas: up to date with the models, valid, and agreeing with real artifacts."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from tests.helpers.audit import JsRun, OursRun, audit_inproc
from zodyssey.schemas import load_schema, schema_names
from zodyssey.schemas.export import HERE, exported, main, stale


def test_exported_model_schemas_are_up_to_date() -> None:
    assert stale() == [], "run `python -m zodyssey.schemas.export` and commit the result"
    assert main(["--check"]) == 0


def test_stale_schema_is_detected(tmp_path: Path) -> None:
    for name, text in exported().items():
        (tmp_path / name).write_text(text)
    name = sorted(exported())[0]
    (tmp_path / name).write_text("{}\n")
    assert stale(tmp_path) == [name]


@pytest.mark.parametrize("name", schema_names())
def test_every_shipped_schema_is_a_valid_schema(name: str) -> None:
    schema = load_schema(name)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert (HERE / name).is_file()


def test_our_real_artifacts_match_the_exported_schemas(tmp_path: Path) -> None:
    run = OursRun(tmp_path).honest()
    state = json.loads(run.state_file.read_text())
    jsonschema.validate(state, load_schema("runs-run-state.schema.json"))
    for line in run.evidence_file.read_text().splitlines():
        jsonschema.validate(json.loads(line), load_schema("runs-evidence-record.schema.json"))
    review = tmp_path / ".zcode" / "reviews" / "greet-r1.json"
    jsonschema.validate(
        json.loads(review.read_text()), load_schema("runs-review-artifact.schema.json")
    )


def test_js_shaped_artifacts_match_the_js_schemas(tmp_path: Path) -> None:
    run = JsRun(tmp_path).honest()
    jsonschema.validate(json.loads(run.state_file.read_text()), load_schema("js-state.schema.json"))
    for path in (tmp_path / ".zcode" / "verify" / "greet").glob("*.json"):
        if path.name == "final-wave.json":
            continue  # the final wave's artifact, not a verify record
        jsonschema.validate(
            json.loads(path.read_text()), load_schema("js-verify-record.schema.json")
        )
    review = tmp_path / ".zcode" / "reviews" / "greet-r1.json"
    jsonschema.validate(
        json.loads(review.read_text()), load_schema("js-review-artifact.schema.json")
    )


def test_js_schema_stays_permissive_for_unknown_fields(tmp_path: Path) -> None:
    run = JsRun(tmp_path).honest()
    run.state["notepad_pointers"] = {"1": "/x"}
    run.state["regression_gate"] = {"baseline": "inert"}
    run.state["todos"]["1"]["session"] = "abc"
    run.write()
    payload = audit_inproc(tmp_path, run.slug)
    assert not [f for f in payload["findings"] if f["rule"] == "schema-violation"]


def test_audit_payloads_match_the_report_schema(tmp_path: Path) -> None:
    schema = load_schema("audit-report.schema.json")
    ours = OursRun(tmp_path / "a").honest()
    jsonschema.validate(audit_inproc(ours.root, ours.slug), schema)
    js = JsRun(tmp_path / "b").honest()
    jsonschema.validate(audit_inproc(js.root, js.slug, strict=True), schema)
