"""The drill from documents to a Report: which claims, their tests, the cache, findings."""

from __future__ import annotations

import os
import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zodyssey.claims.drill import (
    KILLED,
    NOT_JUDGED,
    SKIPPED,
    SURVIVED,
    BreakResult,
    ClaimResult,
    Outcome,
    Progress,
    Target,
    add_breaks,
    drill,
    plan,
)
from zodyssey.claims.drill_breaks import Break
from zodyssey.claims.drill_cache import (
    CachedClaim,
    KeyContext,
    cache_key,
    entry_of,
    read_cache,
    write_cache,
)
from zodyssey.core.exits import Exit
from zodyssey.errors import UsageError
from zodyssey.findings import Case, Finding, Report

RULES = {
    "survived": "every linked test passed with the claim's code broken: the tests do not defend it",
    "not-judged": "a break of the claim could not be judged (collection or import error, the "
    "unbroken tests failing, a timeout, or the --budget)",
    "bad-code": "the code a claim names does not exist or cannot be broken",
    "not-drillable": "the claim names no code (no `code=` in its marker, no code citation)",
    "skipped": "a break the claim's marker skips (`drill-skip=`), with the reason it gives",
}


@dataclass
class Options:
    ids: list[str]
    jobs: int = 1
    budget: float | None = None
    timeout: float | None = None
    cache: str | None = None  # path relative to the root; None: the configuration's
    use_cache: bool = True
    write: bool = True
    progress: bool = False
    fresh: bool = False  # every break in a fresh pytest process (no warm process)
    shard: tuple[int, int] | None = None  # --shard K/N: this job's part of the breaks


def cache_path(root: Path, config_raw: dict[str, Any], claims_lock: str, given: str | None) -> Path:
    rel = given or config_raw.get("drill_cache")
    if rel is not None and not isinstance(rel, str):
        raise UsageError("`drill_cache` in the configuration must be a string")
    if rel is None:
        rel = str(Path(claims_lock).with_name("claims.drill.json"))
    path = Path(rel)
    return path if path.is_absolute() else root / path


def _terminal_progress() -> Progress:
    def show(done: int, total: int, counts: dict[str, int]) -> None:
        width = 24
        filled = width * done // total if total else width
        bar = "#" * filled + "-" * (width - filled)
        sys.stderr.write(
            f"\rdrill [{bar}] {done}/{total} breaks: {counts.get(KILLED, 0)} killed, "
            f"{counts.get(SURVIVED, 0)} survived, {counts.get(NOT_JUDGED, 0)} not judged"
        )
        if done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return show


_BREAK_ID = re.compile(r"^(?P<path>.*?):(?P<line>[0-9]+)(?::(?P<col>[0-9]+))? (?P<kind>\S+)$")


def _from_cache(target: Target, entry: CachedClaim) -> ClaimResult:
    result = ClaimResult(target, baseline=Outcome("passed"), cached=True)
    target.equivalent = entry.equivalent
    for b in entry.breaks:
        match = _BREAK_ID.match(b.id)
        if match is None:
            brk = Break("", "", 0, b.kind, b.what, b"")
        else:
            col = int(match["col"] or 0)
            brk = Break("", match["path"], int(match["line"]), match["kind"], b.what, b"", col)
        if b.status == SKIPPED:
            brk = Break(brk.span, brk.path, brk.line, brk.kind, brk.what, b"", brk.col, b.cause)
        result.results.append(BreakResult(brk, Outcome(b.status, list(b.tests), b.cause)))
    return result


def _targets(root: Path, options: Options) -> tuple[Any, Any, list[Target]]:
    """(configuration, the documents' claims, the targets of the chosen claims)."""
    from zodyssey.claims.ledger import read_ledger
    from zodyssey.claims.markers import collect_claims
    from zodyssey.config import load_config

    if not root.is_dir():
        raise UsageError(f"--root {root} is not a directory")
    config = load_config(root)
    ledger = read_ledger(root / config.claims_lock)
    claims = collect_claims(root, config)
    unknown = [i for i in options.ids if i not in claims.claims]
    if unknown:
        raise UsageError(f"no claim with id {', '.join(unknown)} in the claims documents")
    chosen = [claims.claims[i] for i in options.ids] or list(claims.claims.values())
    tests = _linked_tests(root, config, ledger, chosen)
    return config, claims, [plan(root, c, tests.get(c.id, []), with_breaks=False) for c in chosen]


def _linked_tests(root: Path, config: Any, ledger: Any, chosen: list[Any]) -> dict[str, list[str]]:
    """Each claim's linked tests: the ledger's, collected when it lacks a chosen claim."""
    tests: dict[str, list[str]] = {}
    if ledger is not None:
        tests = {cid: list(e.tests) for cid, e in ledger.entries.items()}
    if any(c.id not in tests for c in chosen):
        tests.update(_collected(root, config))
    return tests


def _split_cached(
    context: KeyContext, targets: list[Target], cached: dict[str, CachedClaim]
) -> tuple[dict[str, ClaimResult], list[Target]]:
    """(results the cache answers, the targets to drill)."""
    results: dict[str, ClaimResult] = {}
    to_drill: list[Target] = []
    for target in targets:
        entry = cached.get(target.claim.id)
        usable = entry is not None and target.spans and not target.problems
        if usable and entry is not None and cache_key(context, target, entry.deps) == entry.key:
            results[target.claim.id] = _from_cache(target, entry)
        else:
            to_drill.append(target)
    return results, to_drill


def _save_cache(
    path: Path,
    context: KeyContext,
    cached: dict[str, CachedClaim],
    known: set[str],
    ordered: list[ClaimResult],
) -> None:
    looked = {result.target.claim.id for result in ordered}
    named = {r.target.claim.id for r in ordered if r.target.spans and not r.target.problems}
    # Kept: what this run did not look at, of claims that still exist; dropped:
    # a claim that names no (existing) code any more.
    entries = {
        cid: e for cid, e in cached.items() if cid in known and (cid not in looked or cid in named)
    }
    for result in ordered:
        if result.target.claim.id not in named or not result.complete or result.cached:
            continue
        key = cache_key(context, result.target, result.deps)
        if key is not None:
            entries[result.target.claim.id] = entry_of(result, key)
        else:
            entries.pop(result.target.claim.id, None)  # not known what it read
    if entries or cached:
        write_cache(path, entries)


def run_drill(root: Path, options: Options) -> tuple[Report, int]:
    config, claims, targets = _targets(root, options)
    path = cache_path(root, config.raw, config.claims_lock, options.cache)
    cached = read_cache(path) if options.use_cache else {}
    for target in targets:
        if target.spans and not target.problems:
            add_breaks(root, target)  # each break is part of the key
    context = KeyContext(root)
    results, to_drill = _split_cached(context, targets, cached)
    if options.shard is not None:
        from zodyssey.claims.drill_shard import select

        to_drill = select(to_drill, options.shard)
        targets = [t for t in targets if t.claim.id in results or t in to_drill]
    for result in _drill_changed(root, to_drill, options):
        results[result.target.claim.id] = result
    ordered = [results[t.claim.id] for t in targets]
    if options.write and options.shard is None and (options.use_cache or options.cache):
        _save_cache(path, context, cached, set(claims.claims), ordered)
    return build_report(root, ordered)


def _drill_changed(root: Path, to_drill: list[Target], options: Options) -> list[ClaimResult]:
    """The drill of the claims the cache did not answer."""
    from zodyssey.claims.drill_fork import WarmPool

    return drill(
        root,
        to_drill,
        jobs=options.jobs,
        budget=options.budget,
        timeout=options.timeout,
        progress=_terminal_progress() if options.progress else None,
        fresh=options.fresh,
        warm_pool=WarmPool,
    )


def _collected(root: Path, config: Any) -> dict[str, list[str]]:
    from zodyssey.claims.collect import collect_links
    from zodyssey.claims.report import test_paths

    # Collection imports the test modules: no bytecode into the user's tree.
    before = os.environ.get("PYTHONDONTWRITEBYTECODE")
    os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
    try:
        collection = collect_links(root, test_paths(config, None))
    finally:
        if before is None:
            os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        else:
            os.environ["PYTHONDONTWRITEBYTECODE"] = before
    out: dict[str, list[str]] = {}
    for link in collection.links:
        for claim_id in link.claims:
            out.setdefault(claim_id, []).append(link.nodeid)
    return out


def _exit_code(results: list[ClaimResult]) -> int:
    statuses = [r.status for r in results]
    if any(s in (SURVIVED, "bad-code") for s in statuses):
        return Exit.PROBLEMS
    if NOT_JUDGED in statuses or "drilled" not in statuses:
        return Exit.EMPTY
    return Exit.OK


def _break_finding(claim: Any, r: BreakResult) -> Finding | None:
    """`survived` (error) or `not-judged` (warning) for one break, else None."""
    brk, outcome = r.brk, r.outcome
    if outcome.status not in (SURVIVED, NOT_JUDGED, SKIPPED):
        return None
    spot = f"{brk.path}:{brk.line}" + (f":{brk.col}" if brk.col else "")
    where = f"claim {claim.id}: break {brk.kind} `{brk.what}` ({spot})"
    extra: dict[str, Any] = {
        "id": claim.id,
        "key": f"{claim.id} {brk.id}",
        "break": brk.id,
        "related": [{"file": brk.path, "line": brk.line, "message": brk.what}],
    }
    if outcome.status == SKIPPED:
        extra["reason"] = outcome.cause
        message = f"{where} skipped by drill-skip: {outcome.cause}"
        return Finding("drill", "skipped", "note", message, claim.doc, claim.line, extra)
    if outcome.status == SURVIVED:
        extra["tests"] = outcome.tests
        message = f"{where} survived: every linked test passed ({', '.join(outcome.tests)})"
        return Finding("drill", "survived", "error", message, claim.doc, claim.line, extra)
    extra["cause"] = outcome.cause
    message = f"{where} not judged: {outcome.cause}"
    return Finding("drill", "not-judged", "warning", message, claim.doc, claim.line, extra)


def _claim_findings(result: ClaimResult) -> list[Finding]:
    claim = result.target.claim
    findings = [
        Finding(
            "drill",
            "bad-code",
            "error",
            f"claim {claim.id}: {problem}",
            claim.doc,
            claim.marker_line or claim.line,
            {"id": claim.id},
        )
        for problem in result.target.problems
    ]
    findings.extend(f for f in (_break_finding(claim, r) for r in result.results) if f)
    if result.status == "not-drillable":
        message = f"claim {claim.id} names no code; not drilled"
        findings.append(
            Finding(
                "drill", "not-drillable", "note", message, claim.doc, claim.line, {"id": claim.id}
            )
        )
    return findings


def _case(result: ClaimResult, findings: list[Finding]) -> Case:
    claim, status = result.target.claim, result.status
    label = f"{claim.id} ({claim.where})"
    if status in (SURVIVED, "bad-code"):
        failure = "\n".join(
            f.message for f in findings if f.extra.get("id") == claim.id and f.severity == "error"
        )
        return Case(label, "zodyssey.drill", failure=failure)
    if status == "drilled":
        return Case(label, "zodyssey.drill")
    return Case(label, "zodyssey.drill", skipped=status)


def _claim_doc(result: ClaimResult) -> dict[str, Any]:
    claim = result.target.claim
    return {
        "id": claim.id,
        "doc": claim.doc,
        "line": claim.line,
        "status": result.status,
        "cached": result.cached,
        "code": list(result.target.specs),
        "tests": result.target.tests,
        "problems": result.target.problems,
        "mutants": mutation(result),
        **(
            {"shard": {"index": t.shard[0], "total": t.shard[1], "breaks": t.planned}}
            if (t := result.target).shard is not None and not result.cached
            else {}
        ),
        "breaks": [
            {
                "id": r.brk.id,
                "file": r.brk.path,
                "line": r.brk.line,
                "col": r.brk.col,
                "kind": r.brk.kind,
                "what": r.brk.what,
                "status": r.outcome.status,
                "tests": r.outcome.tests,
                "cause": r.outcome.cause,
                "seconds": round(r.outcome.seconds, 3),
            }
            for r in result.results
        ],
    }


def mutation(result: ClaimResult) -> dict[str, Any]:
    """The claim's breaks counted: tried (run), killed, survived, not judged, skipped
    by the marker, left out as equivalent, and the mutation score (killed / tried)."""
    seen = Counter(r.outcome.status for r in result.results)
    tried = sum(n for status, n in seen.items() if status != SKIPPED)
    return {
        "tried": tried,
        "killed": seen[KILLED],
        "survived": seen[SURVIVED],
        "not-judged": seen[NOT_JUDGED],
        "skipped": seen[SKIPPED],
        "equivalent": result.target.equivalent,
        "score": round(seen[KILLED] / tried, 4) if tried else None,
    }


def _row(result: ClaimResult) -> str | None:
    if result.status == "not-drillable":
        return None
    claim = result.target.claim
    counts = mutation(result)
    cached = " (cached)" if result.cached else ""
    score = f", score {counts['score']:.0%}" if counts["score"] is not None else ""
    more = "".join(
        f", {counts[k]} {k.replace('-', ' ')}"
        for k in ("survived", "not-judged", "skipped", "equivalent")
        if counts[k]
    )
    return (
        f"  {result.status:<13} {claim.id} ({claim.where}): "
        f"{counts['killed']}/{counts['tried']} breaks killed{more}{score}{cached}"
    )


def _summary(results: list[ClaimResult], code: int) -> tuple[str, dict[str, int], dict[str, int]]:
    """(summary text, claims per status, breaks per outcome)."""
    rows = [row for row in (_row(r) for r in results) if row is not None]
    counts = dict(Counter(result.status for result in results))
    breaks = [r for result in results for r in result.results]
    seen = Counter(r.outcome.status for r in breaks)
    tally = {s: seen[s] for s in (KILLED, SURVIVED, NOT_JUDGED, SKIPPED)}
    summary = (
        "\n".join(rows)
        + ("\n" if rows else "")
        + f"drill: {counts.get('drilled', 0)} claim(s) drilled, {counts.get(SURVIVED, 0)} survived, "
        f"{counts.get(NOT_JUDGED, 0)} not judged, {counts.get('bad-code', 0)} bad code, "
        f"{counts.get('not-drillable', 0)} not drillable; {len(breaks)} break(s): "
        f"{tally[KILLED]} killed, {tally[SURVIVED]} survived, {tally[NOT_JUDGED]} not judged"
        + (f", {tally[SKIPPED]} skipped" if tally[SKIPPED] else "")
        + f"; exit {code}"
    )
    return summary, counts, tally


def build_report(root: Path, results: list[ClaimResult]) -> tuple[Report, int]:
    findings: list[Finding] = []
    cases: list[Case] = []
    for result in results:
        own = _claim_findings(result)
        findings.extend(own)
        cases.append(_case(result, own))
    code = _exit_code(results)
    summary, counts, tally = _summary(results, code)
    payload = {
        "tool": "drill",
        "version": 1,
        "ok": code == Exit.OK,
        "exit_code": code,
        "root": str(root),
        "counts": counts,
        "breaks": tally,
        "claims": [_claim_doc(r) for r in results],
        "mutants": {r.target.claim.id: mutation(r) for r in results if r.status != "not-drillable"},
        "findings": [f.to_dict() for f in findings],
    }
    report = Report(
        tool="drill",
        title="zodyssey claims drill",
        findings=findings,
        summary=summary,
        payload=payload,
        cases=cases,
        rules=dict(RULES),
    )
    return report, code
