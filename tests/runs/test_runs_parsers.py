"""Review artifact parsing and plan lint, as pure functions."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zodyssey.core.plan import parse_plan
from zodyssey.errors import UsageError
from zodyssey.runs.lint import lint_plan
from zodyssey.runs.review import parse_artifact


def test_json_artifact() -> None:
    parsed = parse_artifact(
        json.dumps({"verdict": "REJECT", "blockers": ["b1"], "nonce": "abc"}), "a.json"
    )
    assert (parsed.verdict, parsed.nonce, parsed.blockers, parsed.fmt) == (
        "REJECT",
        "abc",
        ["b1"],
        "json",
    )


def test_json_artifact_with_js_provenance_nonce() -> None:
    parsed = parse_artifact('{"verdict": "OKAY", "_provenance": {"nonce": "n9"}}', "a.json")
    assert parsed.nonce == "n9"


@pytest.mark.parametrize(
    "body",
    [
        '{"verdict": "OKAY", "nonce": 5}',
        '{"verdict": "OKAY", "blockers": "none"}',
        '["OKAY"]',
        '{"verdict": null}',
    ],
)
def test_malformed_json_artifacts(body: str) -> None:
    with pytest.raises(UsageError):
        parse_artifact(body, "a.json")


def test_prose_artifact() -> None:
    parsed = parse_artifact("Fine.\n\n**VERDICT:** OKAY\nNONCE: `n-1`\n", "r.md")
    assert (parsed.verdict, parsed.nonce, parsed.fmt) == ("OKAY", "n-1", "prose")


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400))
def test_any_text_is_a_verdict_or_a_usage_error(text: str) -> None:
    try:
        parsed = parse_artifact(text, "fuzz")
    except UsageError:
        return
    assert parsed.verdict in ("OKAY", "REJECT")
    if parsed.fmt == "prose":
        lines = [line for line in text.splitlines() if "VERDICT" in line.upper()]
        assert len(lines) >= 1


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.sampled_from(["VERDICT: OKAY", "VERDICT: REJECT", "note", "NONCE: x"]), max_size=6)
)
def test_prose_needs_exactly_one_verdict_line(lines: list[str]) -> None:
    text = "\n".join(lines)
    verdicts = [line for line in lines if line.startswith("VERDICT")]
    nonces = [line for line in lines if line.startswith("NONCE")]
    if len(verdicts) == 1 and len(nonces) <= 1:
        assert parse_artifact(text, "p").verdict == verdicts[0].split(": ")[1]
    else:
        with pytest.raises(UsageError):
            parse_artifact(text, "p")


GOOD = """# Good
## Todos
- [ ] 1. Do it
  - Files: [`a.py`]
  - Acceptance criteria:
    - `python -m pytest -q tests/test_a.py` exits 0
## Final verification wave
- [ ] F1. Audit
"""


def test_clean_plan_lints_clean() -> None:
    assert lint_plan(parse_plan(GOOD), None) == []
    assert lint_plan(parse_plan(GOOD), "python -m pytest -q") == []
    problems = lint_plan(parse_plan(GOOD), "npm test")
    assert [p.message for p in problems] == [
        "no criterion runs the configured test command `npm test`"
    ]


@pytest.mark.parametrize(
    "criterion",
    [
        "the user manually verifies the page",
        "`curl localhost` and a human checks the output",
        "manual QA of the form",
        "verified by hand",
        "visually inspect the chart",
        "ask the user whether it works",
    ],
)
def test_delegation_to_a_person_is_flagged(criterion: str) -> None:
    plan = parse_plan(GOOD.replace("`python -m pytest -q tests/test_a.py` exits 0", criterion))
    assert any("delegates to a person" in p.message for p in lint_plan(plan, None))


def test_files_only_inside_comments_do_not_count() -> None:
    plan = parse_plan(GOOD.replace("  - Files: [`a.py`]\n", "<!-- Files: [`a.py`] -->\n"))
    assert any("no `Files" in p.message for p in lint_plan(plan, None))
