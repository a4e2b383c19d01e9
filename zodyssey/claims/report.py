"""Static claims check: documents + collected links + ledger -> Report and exit code."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from zodyssey.claims.collect import Collection, collect_links
from zodyssey.claims.ledger import Ledger, compare, links_by_claim, read_ledger
from zodyssey.claims.markers import collect_claims
from zodyssey.claims.model import RULES, ClaimSet, LinkedTest
from zodyssey.claims.verdict import (
    RESULTS_KIND,
    TestRun,
    judge,
    never_ran_tests,
    run_from_dict,
    union,
)
from zodyssey.config import DEFAULT_CLAIMS_LOCK, Config, load_config
from zodyssey.core.exits import Exit
from zodyssey.errors import UsageError
from zodyssey.findings import Case, Finding, Report


@dataclass
class ClaimsState:
    """What `check` and `update` both start from."""

    root: Path
    config: Config
    ledger_rel: str
    ledger: Ledger | None
    claims: ClaimSet
    collection: Collection


def test_paths(config: Config, given: list[str] | None) -> list[str]:
    """Paths to collect: `--tests`, else `claims_tests` in the configuration, else
    pytest's own `testpaths`."""
    if given:
        return list(given)
    value = config.raw.get("claims_tests")
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise UsageError(
        f"{config.source or config.root}: `claims_tests` must be a string or a list of strings"
    )


def _documents(root: Path, ledger: str | None) -> tuple[Config, str, Ledger | None, ClaimSet]:
    """(configuration, ledger path as given, the ledger, the documents' claims)."""
    if not root.is_dir():
        raise UsageError(f"--root {root} is not a directory")
    config = load_config(root)
    ledger_rel = ledger or config.claims_lock
    ledger_path = Path(ledger_rel) if Path(ledger_rel).is_absolute() else root / ledger_rel
    locked = read_ledger(ledger_path)
    claims = collect_claims(root, config)
    return config, ledger_rel, locked, claims


def load_state(root: Path, ledger: str | None, tests: list[str] | None) -> ClaimsState:
    config, ledger_rel, locked, claims = _documents(root, ledger)
    collection = (
        collect_links(root, test_paths(config, tests)) if claims.claims or locked else Collection()
    )
    return ClaimsState(root, config, ledger_rel, locked, claims, collection)


# The one meaning of "nothing here" (issue 36): `zodyssey check`, `claims check`
# (the pre-commit hook, nox) and `claims test` all skip with this note.
NOT_IN_USE = "claims not in use (no claim marker, no ledger, no claims configuration); skipped"
_CLAIMS_DEFAULTS: dict[str, object] = {
    "claims_lock": DEFAULT_CLAIMS_LOCK,
    "claims_documents": Config(root=Path(".")).claims_documents,
}


def claims_configured(config: Config) -> bool:
    """A claims key set to anything but its default (`zodyssey init` writes the
    defaults out, which adopts nothing); `claims_tests` counts whenever present."""
    raw = config.raw
    if "claims_tests" in raw:
        return True
    return any(key in raw and raw[key] != default for key, default in _CLAIMS_DEFAULTS.items())


def not_in_use(config: Config, ledger: Ledger | None, claims: ClaimSet) -> bool:
    """No marker, no ledger, no claims configuration: a repository that never adopted
    claims, skipped with a note. Any one of them makes zero claims a failure (exit 4)."""
    return (
        ledger is None
        and not claims.occurrences
        and not claims.marker_problems
        and not claims_configured(config)
    )


def check_report(state: ClaimsState) -> tuple[Report, int]:
    if not_in_use(state.config, state.ledger, state.claims):
        note = Finding("claims", "not-in-use", "note", NOT_IN_USE)
        return _report(state, [note], Exit.OK), Exit.OK
    findings = compare(state.claims, state.collection.links, state.ledger, state.ledger_rel)
    causes = state.collection.causes
    for nodeid in state.collection.errors:
        cause = f": {causes[nodeid]}" if nodeid in causes else ""
        findings.append(
            Finding(
                "claims",
                "collection-error",
                "warning",
                f"pytest could not collect {nodeid}{cause}; tests in it cannot defend a claim",
                nodeid.partition("::")[0] or None,
                None,
                {"cause": causes[nodeid]} if nodeid in causes else {},
            )
        )
    findings = [_with_cause(f, causes, state.ledger) for f in findings]
    code = _exit_code(findings, state.claims, state.config)
    return _report(state, findings, code), code


def _with_cause(finding: Finding, causes: dict[str, str], ledger: Ledger | None) -> Finding:
    """A claim whose locked tests sit in a module that could not be collected says so.

    Such a test was not deleted or unmarked: telling the user to mark one, or that it
    "no longer exists", would send them after the wrong fix. Both findings name the
    cause (an import the environment lacks, usually a test dependency) instead."""
    if finding.rule == "missing-test" and isinstance(test := finding.extra.get("test"), str):
        cause = causes.get(test.partition("::")[0])
        if cause is None:
            return finding
        claim_id = finding.extra.get("id")
        message = (
            f"claim `{claim_id}`: locked test {test} could not be collected: its module "
            f"failed ({cause}); install what it imports (the test dependencies) and check again"
        )
        return replace(finding, message=message, extra={**finding.extra, "cause": cause})
    if finding.rule == "uncovered" and ledger is not None:
        entry = ledger.entries.get(str(finding.extra.get("id")))
        found = [causes.get(t.partition("::")[0]) for t in entry.tests] if entry else []
        if not found or None in found:
            return finding
        cause = "; ".join(sorted({c for c in found if c}))
        message = (
            f"claim `{finding.extra.get('id')}`: its locked tests could not be collected "
            f"({cause}); install what they import (the test dependencies) and check again"
        )
        return replace(finding, message=message, extra={**finding.extra, "cause": cause})
    return finding


def _exit_code(findings: list[Finding], claims: ClaimSet, config: Config) -> int:
    """9 on any error, else 4 when no claim was found (an empty ledger proves nothing), else 0.

    Adds the `no-claims` finding for the empty case."""
    empty = not claims.claims
    if empty:
        findings.append(
            Finding(
                "claims",
                "no-claims",
                "error",
                "no claim markers (`<!-- claim: some-id -->`) found in "
                f"{', '.join(config.claims_documents)}: an empty ledger proves nothing",
            )
        )
    errors = [f for f in findings if f.severity == "error" and f.rule != "no-claims"]
    return Exit.PROBLEMS if errors else Exit.EMPTY if empty else Exit.OK


def _results_document(name: str) -> dict[str, Any]:
    from zodyssey.core.files import read_regular_text

    try:
        # Opened without blocking and checked as opened: a FIFO or device is one
        # error (exit 2), never a hang.
        data = json.loads(read_regular_text(name, "results file"))
    except FileNotFoundError as exc:
        raise UsageError(f"results file {name} does not exist (did that shard upload it?)") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read results file {name}: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise UsageError(
            f"results file {name} is not valid JSON ({exc.msg}, line {exc.lineno})"
        ) from exc
    if not isinstance(data, dict) or data.get("kind") != RESULTS_KIND:
        raise UsageError(
            f"results file {name} is not a claims results file; write one with "
            "`pytest --claims-json FILE` (zodyssey 0.2 or newer)"
        )
    return data


def read_results(
    paths: list[str],
    errors: list[tuple[str, str]] | None = None,
    root: Path | None = None,
) -> list[TestRun]:
    """The linked tests and outcomes of every `--claims-json` file, in order.

    `errors` receives (file, node id) for every collection error a shard recorded.
    With `root`, a file written in another checkout than `root`'s (another commit,
    other tracked content, another repository) is refused."""
    from zodyssey.claims.identity import identity, mismatch

    here = identity(root) if root is not None else None
    runs: list[TestRun] = []
    for name in paths:
        data = _results_document(name)
        why = mismatch(data.get("checkout"), here) if here is not None else None
        if why is not None:
            raise UsageError(
                f"results file {name} is not from this checkout: {why}; judge results in the "
                "checkout that wrote them"
            )
        if errors is not None:
            errors.extend((name, str(failed)) for failed in data.get("collect_errors") or [])
        runs.extend(_shard_runs(name, data))
    return runs


def _shard_runs(name: str, data: dict[str, Any]) -> list[TestRun]:
    tests = data.get("tests")
    if not isinstance(tests, list):
        raise UsageError(f"results file {name} has no `tests` list")
    runs: list[TestRun] = []
    for raw in tests:
        run = run_from_dict(raw)
        if run is None:
            raise UsageError(f"results file {name}: malformed test entry {raw!r:.80}")
        runs.append(run)
    return runs


def results_report(root: Path, ledger: str | None, paths: list[str]) -> tuple[Report, int]:
    """One strict verdict over the union of several shards' `--claims-json` files."""
    config, ledger_rel, locked, claims = _documents(root, ledger)
    collect_errors: list[tuple[str, str]] = []
    runs = union(read_results(paths, collect_errors, root))
    where = "in any shard"
    _, findings = judge(claims, runs, locked, ledger_rel, where=where, shards=len(paths))
    findings.extend(
        Finding(
            "claims",
            "collection-error",
            "warning",
            f"shard {name}: pytest could not collect {nodeid}; tests in it cannot defend "
            "a claim there",
            nodeid.partition("::")[0] or None,
            None,
        )
        for name, nodeid in collect_errors
    )
    code = _exit_code(findings, claims, config)
    links = [LinkedTest(r.nodeid, r.claims, r.file, r.line) for r in runs]
    state = ClaimsState(root, config, ledger_rel, locked, claims, Collection(links=links))
    report = _report(state, findings, code)
    never = _never_ran_locked(runs, findings, locked)
    report.summary += f"; {len(paths)} result file(s)"
    if never:
        report.summary += f"; never ran in any shard: {', '.join(never)}"
    assert report.payload is not None
    report.payload["results"] = list(paths)
    report.payload["tests"] = [r.to_dict() for r in runs]
    report.payload["never_ran"] = never
    return report, code


def _never_ran_locked(
    runs: list[TestRun], findings: list[Finding], locked: Ledger | None
) -> list[str]:
    """The locked tests no shard ran."""
    locked_ids = {t for e in (locked.entries.values() if locked else []) for t in e.tests}
    return [n for n in never_ran_tests(runs, findings) if n in locked_ids]


def _cases(state: ClaimsState, findings: list[Finding]) -> list[Case]:
    """One case per claim (failed when an error names it), one per other error."""
    errors = [f for f in findings if f.severity == "error"]
    problems: dict[object, list[str]] = {}
    for finding in errors:
        problems.setdefault(finding.extra.get("id"), []).append(finding.message)
    cases = [
        # an error naming the claim fails it
        Case(
            f"{cid} ({claim.where})",
            "zodyssey.claims",
            failure="\n".join(problems.get(cid, [])) or None,
        )
        for cid, claim in state.claims.claims.items()
    ]
    cases.extend(
        Case(_case_name(f), "zodyssey.claims", failure=f.message)
        for f in errors
        if f.extra.get("id") not in state.claims.claims
    )
    return cases


def _case_name(finding: Finding) -> str:
    where = f"{finding.file}:{finding.line}" if finding.file and finding.line else None
    return f"{finding.rule} {where or finding.file or '-'}"


def _summary(state: ClaimsState, findings: list[Finding], counts: dict[str, int]) -> str:
    n_errors = sum(1 for f in findings if f.severity == "error")
    detail = ", ".join(f"{rule} {n}" for rule, n in counts.items())
    verdict = (
        f"{n_errors} problem(s): {detail}"
        if n_errors
        else "ok" + (f" ({detail})" if detail else "")
    )
    return (
        f"claims: {len(state.claims.claims)} claim(s) in {len(state.claims.documents)} document(s), "
        f"{len(state.collection.links)} linked test(s); " + verdict
    )


def _report(state: ClaimsState, findings: list[Finding], code: int) -> Report:
    linked = links_by_claim(state.collection.links)
    claims_doc = [
        {
            "id": claim_id,
            "doc": claim.doc,
            "line": claim.line,
            "block": claim.block,
            "fingerprint": claim.fingerprint,
            "text": claim.text,
            "tests": linked.get(claim_id, []),
        }
        for claim_id, claim in state.claims.claims.items()
    ]
    counts: dict[str, int] = {}
    for finding in findings:
        counts[finding.rule] = counts.get(finding.rule, 0) + 1
    payload = {
        "tool": "claims",
        "version": 1,
        "ok": code == Exit.OK,
        "exit_code": code,
        "root": str(state.root),
        "ledger": state.ledger_rel,
        "documents": state.claims.documents,
        "claims": claims_doc,
        "counts": counts,
        "findings": [f.to_dict() for f in findings],
    }
    return Report(
        tool="claims",
        title="zodyssey claims",
        findings=findings,
        summary=_summary(state, findings, counts),
        payload=payload,
        cases=_cases(state, findings),
        rules=dict(RULES),
    )
