"""Static claims check: documents + collected links + ledger -> Report and exit code."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zodyssey.claims.collect import Collection, collect_links
from zodyssey.claims.ledger import Ledger, compare, links_by_claim, read_ledger
from zodyssey.claims.markers import collect_claims
from zodyssey.claims.model import RULES, ClaimSet
from zodyssey.config import Config, load_config
from zodyssey.errors import EXIT_EMPTY, EXIT_OK, EXIT_PROBLEMS, UsageError
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


def load_state(root: Path, ledger: str | None, tests: list[str] | None) -> ClaimsState:
    if not root.is_dir():
        raise UsageError(f"--root {root} is not a directory")
    config = load_config(root)
    ledger_rel = ledger or config.claims_lock
    ledger_path = Path(ledger_rel) if Path(ledger_rel).is_absolute() else root / ledger_rel
    locked = read_ledger(ledger_path)
    claims = collect_claims(root, config)
    collection = (
        collect_links(root, test_paths(config, tests)) if claims.claims or locked else Collection()
    )
    return ClaimsState(root, config, ledger_rel, locked, claims, collection)


def check_report(state: ClaimsState) -> tuple[Report, int]:
    findings = compare(state.claims, state.collection.links, state.ledger, state.ledger_rel)
    for nodeid in state.collection.errors:
        findings.append(
            Finding(
                "claims",
                "collection-error",
                "warning",
                f"pytest could not collect {nodeid}; tests in it cannot defend a claim",
                nodeid.partition("::")[0] or None,
                None,
            )
        )
    empty = not state.claims.claims
    if empty:
        findings.append(
            Finding(
                "claims",
                "no-claims",
                "error",
                "no claim markers (`<!-- claim: some-id -->`) found in "
                f"{', '.join(state.config.claims_documents)}: an empty ledger proves nothing",
            )
        )
    errors = [f for f in findings if f.severity == "error" and f.rule != "no-claims"]
    code = EXIT_PROBLEMS if errors else EXIT_EMPTY if empty else EXIT_OK
    return _report(state, findings, code), code


def _report(state: ClaimsState, findings: list[Finding], code: int) -> Report:
    linked = links_by_claim(state.collection.links)
    failed_ids = {f.extra.get("id") for f in findings if f.severity == "error"}
    claims_doc: list[dict[str, Any]] = []
    cases: list[Case] = []
    for claim_id, claim in state.claims.claims.items():
        claims_doc.append(
            {
                "id": claim_id,
                "doc": claim.doc,
                "line": claim.line,
                "block": claim.block,
                "fingerprint": claim.fingerprint,
                "text": claim.text,
                "tests": linked.get(claim_id, []),
            }
        )
        problems = [
            f.message for f in findings if f.extra.get("id") == claim_id and f.severity == "error"
        ]
        cases.append(
            Case(
                name=f"{claim_id} ({claim.where})",
                classname="zodyssey.claims",
                failure="\n".join(problems) if claim_id in failed_ids else None,
            )
        )
    for finding in findings:
        if finding.severity == "error" and finding.extra.get("id") not in state.claims.claims:
            where = (
                f"{finding.file}:{finding.line}"
                if finding.file and finding.line
                else finding.file or "-"
            )
            cases.append(
                Case(
                    name=f"{finding.rule} {where}",
                    classname="zodyssey.claims",
                    failure=finding.message,
                )
            )
    counts: dict[str, int] = {}
    for finding in findings:
        counts[finding.rule] = counts.get(finding.rule, 0) + 1
    n_errors = sum(1 for f in findings if f.severity == "error")
    detail = ", ".join(f"{rule} {n}" for rule, n in counts.items())
    summary = (
        f"claims: {len(state.claims.claims)} claim(s) in {len(state.claims.documents)} document(s), "
        f"{len(state.collection.links)} linked test(s); "
        + (
            f"{n_errors} problem(s): {detail}"
            if n_errors
            else "ok" + (f" ({detail})" if detail else "")
        )
    )
    payload = {
        "tool": "claims",
        "version": 1,
        "ok": code == EXIT_OK,
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
        summary=summary,
        payload=payload,
        cases=cases,
        rules=dict(RULES),
    )
