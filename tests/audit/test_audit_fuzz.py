"""Arbitrary JSON where the artifacts should be: the audit reports, it never crashes."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers.audit import PLAN
from zodyssey.audit.artifacts import ArtifactMissing
from zodyssey.audit.checks import audit
from zodyssey.audit.load import load_run
from zodyssey.audit.report import build_report
from zodyssey.formats import render

KEYS = [
    "slug",
    "phase",
    "review",
    "history",
    "round",
    "verdict",
    "todos",
    "status",
    "forced",
    "verify",
    "todo_id",
    "criterion_index",
    "passed",
    "criterion",
    "consult",
    "readOnlyViolation",
    "consumed_nonces",
    "plan_sha256",
    "windows",
    "gate_log",
    "evidence",
    "count",
    "decision",
    "override_reason",
    "created_by",
    "max_rounds",
    "at",
    "nonce",
    "artifact",
    "1",
    "2",
]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 10**20),
    st.floats(allow_nan=True),
    st.text(max_size=30),
    st.sampled_from(["OKAY", "REJECT", "done", "zodyssey", "2026-03-01T10:00:00Z", "greet"]),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(KEYS), inner, max_size=6)
    ),
    max_leaves=40,
)


def _audit_everything(state: Any, evidence: list[Any] | None) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / ".zcode" / "state").mkdir(parents=True)
        (root / ".zcode" / "plans").mkdir(parents=True)
        (root / ".zcode" / "plans" / "greet.md").write_text(PLAN)
        (root / ".zcode" / "state" / "greet.json").write_text(json.dumps(state))
        if evidence is not None:
            target = root / ".zcode" / "verify" / "greet"
            target.mkdir(parents=True)
            (target / "evidence.jsonl").write_text(
                "\n".join(json.dumps(item) for item in evidence) + "\n"
            )
        try:
            loaded = load_run("greet", str(root))
        except ArtifactMissing:
            return  # exit 3 with a message: a documented outcome, not a crash
        report = build_report(audit(loaded))
        for fmt in ("text", "json", "markdown", "html", "junit", "sarif"):
            assert render(report, fmt)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(json_values)
def test_arbitrary_state_never_crashes(state: Any) -> None:
    _audit_everything(state, None)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(st.sampled_from(KEYS), json_values, max_size=8),
    st.lists(json_values, max_size=5),
)
def test_arbitrary_evidence_never_crashes(state: dict[str, Any], evidence: list[Any]) -> None:
    state["created_by"] = "zodyssey"
    _audit_everything(state, evidence)
