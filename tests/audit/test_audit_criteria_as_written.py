"""Criteria run exactly as the plan states them (issue 26, item 1).

Each case is a real run: `zodyssey run start/review/verify/todo/phase` in a
temporary git repository, then `zodyssey audit --strict --require-complete`.
A criterion that is false as written must not end in a done todo, a done
phase or a passing audit.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.real_runs import approved, audit, evidence, finish, plan_of, rules, started
from zodyssey.core.plan import parse_plan
from zodyssey.runs.criteria import parse_criterion

FALSE_AS_WRITTEN = {
    # every command of the criterion runs: `false` exits 1
    "both-exit-0": "    - `true` and `false` both exit 0\n",
    "second-command": "    - `test -f g.txt` exits 0 and `grep -q goodbye g.txt` exits 0\n",
    "continued-line": "    - `test -f g.txt` exits 0 and\n      `grep -q goodbye g.txt` exits 0\n",
    "numbered-item": "    - `test -f g.txt` exits 0\n    1. `grep -q goodbye g.txt` exits 0\n",
    # g.txt holds "hello" and no TODO: `grep -c` prints 0 (and exits 1), `grep -q hello` exits 0
    "prints-0-is-output": "    - `grep -c hello g.txt` prints 0\n",
    "exits-1-is-status": "    - `grep -q hello g.txt` exits 1\n",
}


@pytest.mark.parametrize("case", sorted(FALSE_AS_WRITTEN))
def test_a_criterion_false_as_written_fails_everywhere(tmp_path: Path, case: str) -> None:
    repo = approved(tmp_path, plan_of(FALSE_AS_WRITTEN[case]))
    repo.write("g.txt", "hello\n")
    verify, done, phase = finish(repo)
    assert verify.code == 1, verify.text
    assert done.code == 11, done.text
    assert phase.code == 11, phase.text
    code, payload = audit(repo, "demo", "--strict", "--require-complete")
    assert code == 1
    assert "criterion-failed" in rules(payload) or "criterion-not-executed" in rules(payload)


TRUE_AS_WRITTEN = {
    "both-exit-0": "    - `true` and `test -f g.txt` both exit 0\n",
    "continued-line": "    - `test -f g.txt` exits 0 and\n      `grep -q hello g.txt` exits 0\n",
    "numbered-item": "    - `test -f g.txt` exits 0\n    1. `grep -q hello g.txt` exits 0\n",
    "prints-0": "    - `grep -c TODO g.txt` prints 0\n",
    "exits-1": "    - `grep -q goodbye g.txt` exits 1\n",
}


@pytest.mark.parametrize("case", sorted(TRUE_AS_WRITTEN))
def test_a_criterion_true_as_written_passes_and_every_command_is_recorded(
    tmp_path: Path, case: str
) -> None:
    text = TRUE_AS_WRITTEN[case]
    repo = approved(tmp_path, plan_of(text))
    repo.write("g.txt", "hello\n")
    results = finish(repo)
    assert [r.code for r in results] == [0, 0, 0], [r.text for r in results]
    code, payload = audit(repo, "demo", "--strict", "--require-complete")
    assert code == 0, payload["findings"]
    criteria = parse_plan(plan_of(text)).todos[0].criteria
    recorded = [r for r in evidence(repo) if r["kind"] == "criterion"]
    assert len(recorded) == len(criteria)
    for criterion, record in zip(criteria, recorded, strict=True):
        wanted = [s.command for s in parse_criterion(criterion.text).steps]
        assert [s["command"] for s in record["steps"]] == wanted
        assert all("exit_code" in s and "stdout" in s for s in record["steps"])


UNJUDGEABLE = {
    "or": "    - `test -f g.txt` or `test -f h.txt` exits 0\n",
    "returns-200": "    - `curl -sf localhost:8080/healthz` returns 200\n",
    "prints-nothing": "    - `cat g.txt` prints\n",
    "not": "    - `grep -q goodbye g.txt` does not exit 0\n",
    "column-0-wrap": "    - `test -f g.txt` exits 0 and\n`grep -q goodbye g.txt` exits 0\n",
}


@pytest.mark.parametrize("case", sorted(UNJUDGEABLE))
def test_what_the_grammar_cannot_judge_is_a_lint_error_naming_the_line(
    tmp_path: Path, case: str
) -> None:
    repo = started(tmp_path, plan_of(UNJUDGEABLE[case]))
    lint = repo.run("lint", "demo")
    assert lint.code == 6, lint.text
    assert "line 6" in lint.out or "line 7" in lint.out, lint.out
    # and review cannot make it executable: OKAY is refused for lint
    review = repo.run("review", "demo", "--human", "OKAY", "--by", "tester")
    assert review.code == 6, review.text


def test_a_criterion_spec_names_every_command_in_order() -> None:
    spec = parse_criterion("`a` exits 0 and `b` exits 1, then `c` prints `x y`")
    assert [(s.command, s.expect) for s in spec.steps] == [
        ("a", {"exit": 0}),
        ("b", {"exit": 1}),
        ("c", {"stdout": "x y"}),
    ]
    assert parse_criterion("`a` and `b` both exit 0").steps[1].expect == {"exit": 0}


@pytest.mark.parametrize(
    "recorded",
    ["grep -q Hello greeting.txt", "grep  -q hello greeting.txt", "GREP -q hello greeting.txt"],
)
def test_js_pipeline_plan_and_recorded_command_compare_exactly(
    tmp_path: Path, recorded: str
) -> None:
    from tests.helpers.audit import JsRun, audit_inproc

    run = JsRun(tmp_path).honest()
    run.verify("1", 2, command=recorded, minute=7)
    run.write()
    payload = audit_inproc(tmp_path, "greet")
    assert "criterion-text-mismatch" in {f["rule"] for f in payload["findings"]}
    assert payload["verdict"] == "failed"
