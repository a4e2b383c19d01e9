"""Turn a check result into the shared `Report` (every output format renders it).

JSON payload schema (version 1; stable, documented in docs/citation-lock.md):

    {
      "tool": "anchors", "schema": 1, "ok": bool, "mode": "check|update|fix",
      "checked": int,        # distinct citation keys discovered (exempt ones included);
                             # the one count text, JUnit (cases of zodyssey.anchors) and
                             # `zodyssey init` use too
      "documents": int,      # documents scanned
      "skipped_documents": int,  # documents opted out by the ignore marker
      "exempted": int,       # keys every citation of which is exempt (not checked)
      "counts": {kind: int},
      "problems": [{
        "kind": str, "key": str, "cited_as": str,
        "sites": [{"doc": str, "line": int}],
        "detail": str,
        "target": str | null, "lines": [a, b] | null, "now_reads": str | null,
        "moved_to": {"path": str, "start": int, "end": int, "key": str} | null,
        "citedAs": str, "where": str      # the JS checker's names, for old consumers
      }],
      "stale": [key, ...],   # only with --strict or --update
      "left_out": {"documents": [doc], "why": {doc: "hidden|excluded"}, "counted": bool,
                   "folders": [dir], "summary": str},  # documents a rule left out
      "notes": [problem, ...]  # only under a JavaScript checker's lock: problems of
                             # citations it could not see (same shape; not failures)
    }
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from zodyssey.anchors.check import KIND_HELP, CheckResult, Problem, printable
from zodyssey.anchors.discover import LeftOut
from zodyssey.findings import Case, Finding, Report

SCHEMA_VERSION = 1
# Rule id of the notes: problems of citations a JavaScript checker's lock could not hold.
UNSEEN_RULE = "js-unseen"
UNSEEN_HELP = (
    "a citation the JavaScript checker could not see (other extension, Markdown link, blob "
    "URL, a document it skipped), checked against its lock: a note, not a failure"
)


def _where(problem: Problem) -> str:
    return ", ".join(f"{s.doc}:{s.line}" for s in problem.sites)


def _lines_text(problem: Problem) -> str:
    if problem.target is None or problem.lines is None:
        return ""
    a, b = problem.lines
    return f" -> {problem.target}:{a}" + (f"-{b}" if b != a else "")


def _site_payloads(problem: Problem) -> list[dict[str, Any]]:
    """Each site with the citation as written there (what `exempt` and the baseline take):
    one entry per site and spelling, so `a.go:2 and src/a.go:2` on one line is two."""
    from zodyssey.anchors.baseline import units

    return [{"doc": d, "line": n, "cited_as": c} for d, n, c in units(problem)]


def problem_payload(problem: Problem) -> dict[str, Any]:
    return {
        "kind": problem.kind,
        "key": problem.key,
        "cited_as": problem.cited_as,
        "sites": _site_payloads(problem),
        "detail": printable(problem.detail),
        "target": problem.target,
        "lines": list(problem.lines) if problem.lines else None,
        "now_reads": printable(problem.now_reads) if problem.now_reads is not None else None,
        "moved_to": problem.moved_to,
        "was_reads": printable(problem.was_reads) if problem.was_reads is not None else None,
        "suggestion": problem.suggestion,
        "citedAs": problem.cited_as,
        "where": _where(problem),
    }


def _finding(problem: Problem) -> Finding:
    site = problem.sites[0] if problem.sites else None
    message = f"`{problem.cited_as}`{_lines_text(problem)}: {problem.detail}"
    if len(problem.sites) > 1:
        others = ", ".join(f"{s.doc}:{s.line}" for s in problem.sites[1:6])
        more = len(problem.sites) - 6
        message += f"\n(also cited at {others}{f' and {more} more' if more > 0 else ''})"
    return Finding(
        tool="anchors",
        rule=problem.kind,
        severity="error",
        message=_safe(message),
        file=site.doc if site else None,
        line=site.line if site else None,
        extra={
            "key": problem.key,
            "cited_as": problem.cited_as,
            "moved_to": problem.moved_to,
            "edits": _moved_edits(problem),
            "now_reads": problem.now_reads,
            "was_reads": problem.was_reads,
        },
    )


def _moved_edits(problem: Problem) -> list[tuple[int, int, int, str, str]]:
    """The number edits `--fix` makes in the finding's document, as (line, begin, end,
    new text, old text) with character offsets; for the rdjson suggestion. None after
    a rename (the new path text needs the file index --fix has)."""
    moved = problem.moved_to
    if problem.kind != "moved" or not moved or moved.get("path") != problem.target:
        return []
    doc = problem.sites[0].doc if problem.sites else None
    start, end = int(str(moved["start"])), int(str(moved["end"]))
    edits: list[tuple[int, int, int, str, str]] = []
    for citation in problem.citations:
        if citation.site.doc != doc:
            continue
        olds = (citation.start, citation.end)
        for (begin, stop), new, old in zip(citation.number_spans, (start, end), olds, strict=False):
            edits.append((citation.site.line, begin, stop, str(new), str(old)))
    return edits


def _safe(message: str) -> str:
    """The message with control bytes shown as `?` (line breaks kept)."""
    return "\n".join(printable(line) for line in message.split("\n"))


def _stale_problem(key: str, written: str | None = None) -> Problem:
    detail = "lock entry no citation uses any more"
    if written is not None:
        detail += f" (still written at {written}, where it is not read as a citation)"
    return Problem("stale", key, key, [], detail)


def _group(problem: Problem) -> str:
    """The discovery key of a problem (what `checked` counts), whatever key it reports."""
    if problem.citations:
        first = problem.citations[0]
        return first.key if first.key is not None else "?" + first.cited_as
    return problem.key


def _skipped(key: str, result: CheckResult, noted: dict[str, Problem]) -> str | None:
    """Why a key that did not fail was not checked as usual (None: it passed)."""
    if key in result.exempt_keys:
        return "exempt: listed in `exempt`, not checked"
    if key in noted:
        return f"note ({UNSEEN_RULE}): {noted[key].kind}"
    return None


def _cases(result: CheckResult, problems: list[Problem]) -> list[Case]:
    """One test case per discovered key (the `checked` count), then stale entries apart."""
    failing = {_group(p): p for p in problems if p.kind != "stale"}
    noted = {_group(p): p for p in result.notes}
    cases: list[Case] = []
    for key in sorted(result.keys):
        failed = failing.get(key)
        cases.append(
            Case(
                name=key,
                classname="zodyssey.anchors",
                failure=f"[{failed.kind}] {failed.detail}" if failed else None,
                skipped=None if failed else _skipped(key, result, noted),
            )
        )
    for p in problems:
        if p.kind == "stale":
            cases.append(Case(p.key, "zodyssey.anchors.stale", failure=f"[stale] {p.detail}"))
    return cases


def build_report(
    result: CheckResult,
    *,
    mode: str,
    strict: bool,
    summary: str,
    fmt: str,
    extra_problems: list[Problem] | None = None,
) -> Report:
    problems = list(result.problems)
    if strict and mode == "check":
        problems += [_stale_problem(k, result.stale_written.get(k)) for k in result.stale]
    problems += extra_problems or []
    return Report(
        tool="anchors",
        title="citation lock",
        findings=[_finding(p) for p in problems]
        + [_note_finding(n) for n in result.notes]
        + _baseline_findings(result, mode),
        summary=summary,
        payload=_payload(result, problems, mode=mode, strict=strict),
        cases=_cases(result, problems) if fmt == "junit" else [],
        rules={**KIND_HELP, UNSEEN_RULE: UNSEEN_HELP, **BASELINE_RULES},
    )


BASELINE_RULES = {
    "baselined": "a citation that cannot be pinned, accepted in the adoption baseline "
    "(check-anchors --update --baseline): not a failure, still to fix",
    "baseline-fixed": "a baseline entry whose citation has no problem now (or is no longer "
    "written): `check-anchors --update --baseline` drops it",
}


def _baseline_findings(result: CheckResult, mode: str) -> list[Finding]:
    """Fixed entries as warnings; with --update, each baselined problem as a note."""
    state = result.baseline
    if state is None:
        return []
    out = [
        Finding(
            tool="anchors",
            rule="baseline-fixed",
            severity="warning",
            message=_safe(
                f"`{e.cited_as}` (baselined as {e.kind}) has no problem now, or is no longer "
                "written here: `check-anchors --update --baseline` drops the entry"
            ),
            file=e.doc,
            line=e.line,
            extra={"cited_as": e.cited_as},
        )
        for e in state.fixed
    ]
    if mode == "update":
        out += [replace(_finding(p), rule="baselined", severity="note") for p in state.baselined]
    return out


def _payload(
    result: CheckResult, problems: list[Problem], *, mode: str, strict: bool
) -> dict[str, Any]:
    """The JSON payload (the schema at the top of this module)."""
    counts: dict[str, int] = {}
    for p in problems:
        counts[p.kind] = counts.get(p.kind, 0) + 1
    payload: dict[str, Any] = {
        "tool": "anchors",
        "schema": SCHEMA_VERSION,
        "ok": not problems,
        "mode": mode,
        "checked": result.checked,
        "documents": result.documents,
        "exempted": result.exempted,
        "skipped_documents": result.skipped_documents,
        "tally": result.tally.payload() if result.tally is not None else None,
        "counts": counts,
        "problems": [problem_payload(p) for p in problems],
    }
    if strict or mode == "update":
        payload["stale"] = result.stale
    if result.left_out is not None:
        payload["left_out"] = _left_out_payload(result.left_out)
    if result.notes:
        payload["notes"] = [problem_payload(p) for p in result.notes]
    if result.baseline is not None:
        payload["baseline"] = result.baseline.payload()
        payload["baselined"] = [problem_payload(p) for p in result.baseline.baselined]
    return payload


def _left_out_payload(left_out: LeftOut) -> dict[str, Any]:
    """The documents and folders the scan left out, for the JSON payload."""
    return {
        "documents": [d for d, _ in left_out.by_rule],
        "why": dict(left_out.by_rule),
        "counted": left_out.counted,
        "folders": [f for f, _ in left_out.folders],
        "summary": left_out.summary(),
    }


def _note_finding(note: Problem) -> Finding:
    """A note (what the JavaScript checker never saw) as a finding of its own rule."""
    finding = _finding(note)
    message = f"[{note.kind}; unseen by the JavaScript checker] {finding.message}"
    return replace(finding, rule=UNSEEN_RULE, severity="note", message=message)
