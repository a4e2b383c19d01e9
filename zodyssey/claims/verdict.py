"""The strict claims verdict over test outcomes, wherever the tests ran.

One function judges three situations the same way:

- one pytest process (the plugin, serial);
- one pytest session spread over pytest-xdist workers (the plugin on the
  controller, with the outcomes the workers sent it);
- several CI jobs, each writing `--claims-json FILE` (`zodyssey claims check
  --results FILE ...` over their union).

A test's outcome over several runs of it (xdist `--dist each`, or the same test
in more than one shard) is merged by `merge_outcome`: a failure or error
anywhere wins, then a pass, then skipped/xfailed/xpassed, then never run.

Standard library only (the pytest plugin imports it at the end of a session).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from zodyssey.claims.ledger import Ledger, compare
from zodyssey.claims.model import ClaimSet, LinkedTest
from zodyssey.findings import Finding

PASSED = "passed"
# `kind` of the `pytest --claims-json` document (what `claims check --results` reads).
RESULTS_KIND = "zodyssey-claims-results"
OUTCOMES = ("not-run", "deselected", PASSED, "skipped", "xfailed", "xpassed", "failed", "error")
NEVER_RAN = ("not-run", "deselected")
BROKEN = ("failed", "error")

# Across runs of one test: a failure anywhere decides, else one pass is enough.
_MERGE_RANK = {
    "not-run": 0,
    "deselected": 0,
    "skipped": 1,
    "xfailed": 1,
    "xpassed": 1,
    PASSED: 2,
    "failed": 3,
    "error": 4,
}


def merge_outcome(a: str, b: str) -> str:
    """The outcome of a test seen as `a` in one run and `b` in another."""
    if a == b:
        return a
    ra, rb = _MERGE_RANK.get(a, 0), _MERGE_RANK.get(b, 0)
    if ra == rb:
        # not-run vs deselected: deselected says more (someone chose not to run it).
        return "deselected" if "deselected" in (a, b) else a
    return a if ra > rb else b


@dataclass
class TestRun:
    """A linked test and what happened to it (root-relative node id)."""

    __test__ = False  # not a pytest test class

    nodeid: str
    claims: tuple[str, ...]
    file: str | None
    line: int | None
    outcome: str = "not-run"
    # `@pytest.mark.claim_allow_skip(reason)`: skipping this defender (on a platform
    # that cannot run it) is not a finding; it still proves nothing when skipped.
    allow_skip: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "nodeid": self.nodeid,
            "claims": list(self.claims),
            "file": self.file,
            "line": self.line,
            "outcome": self.outcome,
            "allow_skip": self.allow_skip,
        }


def run_from_dict(raw: Any) -> TestRun | None:
    """The `TestRun` that `to_dict` wrote, checked field by field (it crossed a
    process or a file); None when anything is missing or of the wrong type."""
    if not isinstance(raw, dict):
        return None
    nodeid, claims, outcome = raw.get("nodeid"), raw.get("claims"), raw.get("outcome")
    if not isinstance(nodeid, str) or outcome not in OUTCOMES:
        return None
    if not isinstance(claims, list) or not all(isinstance(c, str) for c in claims):
        return None
    file, line = raw.get("file"), raw.get("line")
    return TestRun(
        nodeid,
        tuple(claims),
        file if isinstance(file, str) else None,
        line if isinstance(line, int) and not isinstance(line, bool) else None,
        str(outcome),
        raw.get("allow_skip") is True,
    )


def union(runs: list[TestRun]) -> list[TestRun]:
    """One entry per node id, outcomes merged, first-seen order kept."""
    out: dict[str, TestRun] = {}
    for run in runs:
        seen = out.get(run.nodeid)
        if seen is None:
            out[run.nodeid] = TestRun(
                run.nodeid, run.claims, run.file, run.line, run.outcome, run.allow_skip
            )
            continue
        seen.outcome = merge_outcome(seen.outcome, run.outcome)
        seen.allow_skip = seen.allow_skip or run.allow_skip
        seen.claims = tuple(dict.fromkeys((*seen.claims, *run.claims)))
    return list(out.values())


def judge(
    claims: ClaimSet,
    runs: list[TestRun],
    ledger: Ledger | None,
    ledger_rel: str,
    where: str = "in this session",
    shards: int = 0,
) -> tuple[list[dict[str, Any]], list[Finding]]:
    """Rows of the coverage matrix and every finding (errors decide strict mode).

    `where` words the findings ("in this session", "in any shard"). With
    `shards` > 0 the runs come from that many result files: a locked test that
    none of them collected is reported as `never-ran` (a shard may be missing)
    instead of `missing-test` (which would claim the test was deleted).
    """
    links = [LinkedTest(r.nodeid, r.claims, r.file, r.line) for r in runs]
    findings = compare(claims, links, ledger, ledger_rel)
    if shards:
        findings = [_never_ran(f, shards) if f.rule == "missing-test" else f for f in findings]
    by_claim: dict[str, list[TestRun]] = {}
    for run in runs:
        for claim_id in run.claims:
            by_claim.setdefault(claim_id, []).append(run)
    rows: list[dict[str, Any]] = []
    for claim_id, claim in claims.claims.items():
        tests = by_claim.get(claim_id, [])
        rows.append(_row(claim_id, claim.doc, claim.line, tests))
        findings.extend(
            _claim_findings(claim_id, claim.doc, claim.line, tests, ledger, where, shards)
        )
    return rows, findings


def _row(claim_id: str, doc: str, line: int, tests: list[TestRun]) -> dict[str, Any]:
    return {
        "id": claim_id,
        "doc": doc,
        "line": line,
        "covered": any(t.outcome == PASSED for t in tests),
        "tests": [{"nodeid": t.nodeid, "outcome": t.outcome} for t in tests],
        "failed": sum(1 for t in tests if t.outcome in BROKEN),
    }


def _claim_findings(
    claim_id: str,
    doc: str,
    line: int,
    tests: list[TestRun],
    ledger: Ledger | None,
    where: str,
    shards: int,
) -> list[Finding]:
    """`test-failed`, then per locked defender `never-ran`/`not-passed`, else the
    claim's own `not-passed` when none of its linked tests passed."""
    out = _test_failed(claim_id, doc, line, tests, where)
    if ledger is not None and claim_id in ledger.entries:
        # Every locked defender must have run and passed, in one session as over
        # shards: one that was deselected, skipped, xfailed or xpassed proves nothing.
        by_id = {t.nodeid: t for t in tests}
        per_test = _locked_tests(claim_id, doc, line, ledger, by_id, shards)
        if per_test:
            return out + per_test
    if tests and not any(t.outcome == PASSED for t in tests):
        seen = ", ".join(f"{t.nodeid} {t.outcome}" for t in tests)
        out.append(
            Finding(
                "claims",
                "not-passed",
                "error",
                f"claim `{claim_id}`: no linked test passed {where} ({seen})",
                doc,
                line,
                {"id": claim_id, "tests": [t.nodeid for t in tests]},
            )
        )
    return out


def _test_failed(
    claim_id: str, doc: str, line: int, tests: list[TestRun], where: str
) -> list[Finding]:
    broken = [t for t in tests if t.outcome in BROKEN]
    if not broken:
        return []
    # Covered or not, a failing defender puts the promise in doubt: name the
    # claim, not only the test (the deletion drill relies on it).
    names = ", ".join(f"{t.nodeid} {t.outcome}" for t in broken)
    return [
        Finding(
            "claims",
            "test-failed",
            "error",
            f"claim `{claim_id}`: {len(broken)} of {len(tests)} linked test(s) "
            f"failed {where} ({names})",
            doc,
            line,
            {"id": claim_id, "tests": [t.nodeid for t in broken]},
        )
    ]


def _locked_tests(
    claim_id: str,
    doc: str,
    line: int,
    ledger: Ledger,
    runs: dict[str, TestRun],
    shards: int,
) -> list[Finding]:
    """Across shards every locked test must have run somewhere and passed."""
    out: list[Finding] = []
    for nodeid in ledger.entries[claim_id].tests:
        run = runs.get(nodeid)
        if run is None or run.outcome == PASSED or run.outcome in BROKEN:
            continue  # absent: `never-ran`/`missing-test` already; broken: `test-failed`
        if run.outcome == "skipped" and run.allow_skip:
            continue  # a documented platform skip (`claim_allow_skip`)
        if run.outcome in NEVER_RAN:
            where = (
                f"ran in none of the {shards} shard(s) ({run.outcome} everywhere): a shard is "
                "missing or selects nothing"
                if shards
                else f"did not run in this session ({run.outcome}: -k, -m, --deselect or "
                "PYTEST_ADDOPTS left it out, or the session stopped first)"
            )
            out.append(
                Finding(
                    "claims",
                    "never-ran",
                    "error",
                    f"claim `{claim_id}`: locked test {nodeid} {where}",
                    doc,
                    line,
                    {"id": claim_id, "test": nodeid},
                )
            )
        else:
            where = "in any shard" if shards else "in this session"
            out.append(
                Finding(
                    "claims",
                    "not-passed",
                    "error",
                    f"claim `{claim_id}`: locked test {nodeid} did not pass {where} "
                    f"({run.outcome})",
                    doc,
                    line,
                    {"id": claim_id, "test": nodeid},
                )
            )
    return out


def _never_ran(finding: Finding, shards: int) -> Finding:
    test = finding.extra.get("test", "?")
    claim_id = finding.extra.get("id", "?")
    return Finding(
        "claims",
        "never-ran",
        "error",
        f"claim `{claim_id}`: locked test {test} is in none of the {shards} result file(s): "
        "a shard is missing, or the test no longer exists",
        finding.file,
        finding.line,
        dict(finding.extra),
    )


def never_ran_tests(runs: list[TestRun], findings: list[Finding]) -> list[str]:
    """Node ids of locked or linked tests that ran nowhere, sorted."""
    names = {r.nodeid for r in runs if r.outcome in NEVER_RAN}
    names |= {str(f.extra.get("test")) for f in findings if f.rule == "never-ran"}
    return sorted(names)
