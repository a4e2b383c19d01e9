"""Turn an audit outcome into a `Report`: summary, JSON payload, JUnit cases, HTML context.

The JSON payload's shape is `zodyssey/schemas/audit-report.schema.json`
(documented in docs/audit.md); a test validates real payloads against it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from zodyssey.audit.checks import RULES, TOOL, AuditOutcome, CriterionResult
from zodyssey.audit.model import AuditedRun, clip
from zodyssey.core.exits import VERDICT_CODES
from zodyssey.findings import Case, Report

PAYLOAD_SCHEMA = "zodyssey-audit/1"


VERDICT_WORDS = {"passed": "passed", "failed": "FAILED", "empty": "found NOTHING TO JUDGE"}


def _counts(outcome: AuditOutcome) -> dict[str, int]:
    results = outcome.criteria
    required = [c for c in results if c.required]
    severities = {"error": 0, "warning": 0, "note": 0}
    for finding in outcome.findings:
        severities[finding.severity] += 1
    run = outcome.run
    return {
        "criteria_declared": len(results),
        "criteria_required": len(required),
        "criteria_executed": outcome.executed,
        "criteria_passed": sum(1 for c in required if c.status == "passed"),
        # every failed criterion, whatever its todo's status (pending, forced, done)
        "criteria_failed": sum(1 for c in results if c.status == "failed"),
        "criteria_unproven": sum(
            1 for c in required if c.status not in ("passed", "failed", "forced")
        ),
        "todos_forced": len(forced_todos(outcome)),
        "todos_open": sum(
            1
            for t in outcome.plan.todos
            if not t.final and (run.todos[t.id].status if t.id in run.todos else "") != "done"
        ),
        "windows": len(run.windows),
        "windows_clean": sum(1 for w in run.windows if w.present and w.violation is False),
        "ungated_calls": len(run.ungated),
        "overrides": sum(1 for e in run.gate_events if e.override),
        "evidence_records": run.evidence_records,
        "errors": severities["error"],
        "warnings": severities["warning"],
        "notes": severities["note"],
    }


def forced_todos(outcome: AuditOutcome) -> list[str]:
    return [t.id for t in outcome.run.todos.values() if t.status == "done" and t.forced]


def summary_line(outcome: AuditOutcome, counts: dict[str, int]) -> str:
    verdict = VERDICT_WORDS[outcome.verdict]
    review = outcome.run.review
    review_text = f"review {review.verdict or 'none'}"
    if review.rounds:
        review_text += f" after {len(review.rounds)} round(s)"
    forced = forced_todos(outcome)
    forced_text = f"{len(forced)} forced"
    if forced:
        named = ", ".join(clip(t, 40) for t in forced[:10])
        forced_text += f" (todo {named}{' and more' if len(forced) > 10 else ''})"
    parts = [
        f"phase {outcome.run.phase or 'unknown'}",
        f"{counts['criteria_executed']}/{counts['criteria_declared']} criteria executed",
        f"{counts['criteria_failed']} failed",
        f"{counts['criteria_unproven']} unproven",
        forced_text,
        f"{counts['windows_clean']}/{counts['windows']} windows clean",
        review_text,
        f"{counts['ungated_calls']} ungated shell calls",
    ]
    return (
        f"audit {verdict}: run {outcome.run.slug}: "
        + ", ".join(parts)
        + f" ({counts['errors']} errors, {counts['warnings']} warnings, {counts['notes']} notes)"
    )


def _criterion_doc(result: CriterionResult) -> dict[str, Any]:
    record = result.record
    return {
        "todo": result.todo,
        "index": result.index,
        "text": result.text,
        "todo_status": result.todo_status,
        "status": result.status,
        "forced": result.forced,
        "attempts": result.attempts,
        "message": result.message,
        "executed": record.executed if record else None,
        "exit_code": record.exit_code if record else None,
        "timed_out": record.timed_out if record else False,
        "duration_s": record.duration_s if record else None,
        "finished_at": record.finished_at if record else None,
        "where": record.where if record else None,
    }


def payload(outcome: AuditOutcome, counts: dict[str, int], summary: str) -> dict[str, Any]:
    run = outcome.run
    review = run.review
    return {
        "schema": PAYLOAD_SCHEMA,
        "tool": TOOL,
        "ok": outcome.verdict == "passed",
        "verdict": outcome.verdict,
        "exit_code": VERDICT_CODES[outcome.verdict],
        "strict": outcome.strict,
        "require_complete": outcome.require_complete,
        "summary": summary,
        "run": {
            "slug": run.slug,
            "title": run.title,
            "source": run.source,
            "phase": run.phase,
            "state_path": run.state_path,
            "plan_path": run.plan_path,
            "plan_sha256": run.plan_sha256_on_disk,
            "started_at": run.started_at,
            "updated_at": run.updated_at,
            "chain_intact": run.chain_intact,
        },
        "counts": counts,
        "forced_todos": forced_todos(outcome),
        "review": {
            "verdict": review.verdict,
            "round": review.round,
            "max_rounds": review.max_rounds,
            "plan_sha256": review.plan_sha256,
            "rounds": [
                {
                    "round": r.round,
                    "verdict": r.verdict,
                    "at": r.at,
                    "human_by": r.human_by,
                    "artifact": r.artifact,
                    "artifact_found": r.artifact_found,
                }
                for r in review.rounds
            ],
        },
        "criteria": [_criterion_doc(c) for c in outcome.criteria],
        "windows": [
            {
                "label": w.label,
                "readOnlyViolation": w.violation,
                "recorded": w.present,
                "where": w.where,
                "duration_s": w.duration_s,
                "finished_at": w.finished_at,
            }
            for w in run.windows
        ],
        "ungated": [{"command": u.command, "at": u.at, "where": u.where} for u in run.ungated],
        "phases": [{"phase": p.phase, "at": p.at, "note": p.note} for p in run.phases],
        "final_wave": _final_doc(run),
        "external_audits": [
            {
                "round": a.round,
                "verdict": a.verdict,
                "at": a.at,
                "summary": a.summary,
                "gaps": a.gaps,
            }
            for a in run.external_audits
        ],
        "not_verifiable": list(run.not_verifiable),
        "findings": [f.to_dict() for f in outcome.findings],
    }


def _final_doc(run: AuditedRun) -> dict[str, Any] | None:
    final = run.final
    if final is None:
        return None
    return {
        "verdict": final.verdict,
        "at": final.at,
        "waived": final.waived,
        "waived_reason": final.waived_reason,
        "artifact": final.artifact,
        "items": [
            {
                "name": i.name,
                "passed": i.passed,
                "skipped": i.skipped,
                "not_evaluated": i.not_evaluated,
                "reason": i.reason,
            }
            for i in final.items
        ],
    }


def cases(outcome: AuditOutcome) -> list[Case]:
    """JUnit: one testcase per declared criterion and per read-only window."""
    out: list[Case] = []
    slug = outcome.run.slug
    for result in outcome.criteria:
        name = f"todo {result.todo} criterion {result.index}: {clip(result.text, 100)}"
        seconds = (result.record.duration_s or 0.0) if result.record else 0.0
        classname = f"zodyssey.audit.{slug}.criteria"
        if result.status == "failed":
            forced = " (todo forced to done)" if result.forced else ""
            out.append(
                Case(name, classname, failure=f"failed{forced}: {result.message}", seconds=seconds)
            )
        elif result.status == "forced":
            out.append(Case(name, classname, skipped="todo forced to done", seconds=seconds))
        elif not result.required:
            out.append(
                Case(name, classname, skipped=f"todo is {result.todo_status}", seconds=seconds)
            )
        elif result.status == "passed":
            out.append(Case(name, classname, seconds=seconds))
        else:
            out.append(
                Case(name, classname, failure=f"{result.status}: {result.message}", seconds=seconds)
            )
    for window in outcome.run.windows:
        classname = f"zodyssey.audit.{slug}.windows"
        failure = None
        if not window.present:
            failure = "no readOnlyViolation recorded"
        elif window.violation is True:
            failure = "read-only window violated"
        elif window.violation is None:
            failure = "readOnlyViolation is null: could not verify"
        out.append(
            Case(
                f"window {clip(window.label, 100)}",
                classname,
                failure=failure,
                seconds=window.duration_s or 0.0,
            )
        )
    # Findings that no criterion or window case stands for (plan drift, review, final
    # wave, ...): one case per error, so the suite fails exactly when the audit does.
    covered = {
        "criterion-not-executed",
        "criterion-failed",
        "criterion-asserted",
        "criterion-text-mismatch",
        "criterion-wrong-plan",
        "window-violated",
        "window-unknown",
    }
    for finding in outcome.findings:
        if finding.severity != "error" or finding.rule in covered:
            continue
        where = f" ({finding.file})" if finding.file else ""
        out.append(
            Case(
                f"{finding.rule}: {clip(finding.message, 100)}",
                f"zodyssey.audit.{slug}.run",
                failure=f"{finding.rule}{where}: {finding.message}",
            )
        )
    verdict = outcome.verdict
    out.append(
        Case(
            f"audit verdict: {verdict}",
            f"zodyssey.audit.{slug}.run",
            failure=None if verdict == "passed" else f"audit {VERDICT_WORDS[verdict]}",
        )
    )
    return out


# ----------------------------------------------------------------------------- HTML timeline


@dataclass
class _Mark:
    lane: str
    start: datetime
    end: datetime | None
    label: str
    css: str


def _when(value: str | None) -> datetime | None:
    if not value or len(value) > 64:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _phase_marks(run: AuditedRun) -> list[_Mark]:
    points = [(p.phase, _when(p.at)) for p in run.phases]
    dated = [(name, at) for name, at in points if at is not None]
    marks = []
    for position, (name, at) in enumerate(dated):
        following = dated[position + 1][1] if position + 1 < len(dated) else None
        marks.append(_Mark("phases", at, following, name, f"phase phase-{_css(name)}"))
    return marks


def _review_marks(run: AuditedRun) -> list[_Mark]:
    marks = []
    for entry in run.review.rounds:
        at = _when(entry.at)
        if at is None:
            continue
        who = f" by {entry.human_by}" if entry.human_by else ""
        label = f"round {entry.round}: {entry.verdict}{who}"
        marks.append(
            _Mark("review", at, None, label, "okay" if entry.verdict == "OKAY" else "reject")
        )
    return marks


def _criterion_marks(outcome: AuditOutcome) -> list[_Mark]:
    # Every recorded execution of a declared criterion, not only its latest: a
    # criterion that failed and then passed shows both runs ("runs 2" in the table).
    declared = {(result.todo, result.index) for result in outcome.criteria}
    runs: dict[tuple[str, int], list[Any]] = {}
    for record in outcome.run.criteria:
        if (record.todo, record.index) in declared:
            runs.setdefault((record.todo, record.index), []).append(record)
    marks = []
    for (todo, index), records in runs.items():
        for number, record in enumerate(records, start=1):
            attempt = f" (run {number} of {len(records)})" if len(records) > 1 else ""
            mark = _execution_mark(record, f"{todo}.{index}", attempt)
            if mark is not None:
                marks.append(mark)
    return marks


def _execution_mark(record: Any, name: str, attempt: str) -> _Mark | None:
    """One execution of a criterion on the timeline (None: it has no time)."""
    end = _when(record.finished_at)
    start = _when(record.started_at) or end
    if start is None:
        return None
    status = record.status or ("passed" if record.passed else "failed")
    css = "okay" if record.passed else "reject"
    return _Mark("criteria", start, end, f"{name} {status}{attempt}", css)


def _window_marks(run: AuditedRun) -> list[_Mark]:
    marks = []
    for window in run.windows:
        end = _when(window.finished_at)
        start = _when(window.started_at) or end
        if start is None:
            continue
        css = "okay" if window.present and window.violation is False else "reject"
        marks.append(_Mark("windows", start, end, window.label, css))
    return marks


def _placed(mark: _Mark, first: datetime, last: datetime, span: float) -> dict[str, Any]:
    """A mark positioned on the track: left and width in percent."""
    left = (mark.start - first).total_seconds() / span * 100
    end = mark.end if mark.end is not None and mark.end >= mark.start else None
    if mark.lane == "phases" and end is None:
        end = last
    width = ((end - mark.start).total_seconds() / span * 100) if end is not None else 0.0
    return {
        "left": round(min(max(left, 0.0), 100.0), 3),
        "width": round(min(max(width, 0.0), 100.0 - left), 3),
        "label": clip(mark.label, 200),
        "css": mark.css,
        "at": mark.start.isoformat(timespec="seconds"),
    }


def _lane(name: str, items: list[dict[str, Any]]) -> dict[str, Any]:
    lane: dict[str, Any] = {"name": name, "marks": items}
    if name != "phases":
        # Overlapping marks (two windows at once, criteria run together) are
        # stacked in rows so that every one stays visible.
        lane["rows"] = _pack(items, _mark_extent, "row")
        return lane
    # Phases are contiguous bands (one row); their names are written under
    # them, in as many rows as it takes for no two names to overlap.
    lane["rows"] = 1
    for item in items:
        item["row"] = 0
    lane["label_rows"] = _pack(items, _label_extent, "label_row")
    for item in items:
        # a name that would run past the right edge is written leftwards
        item["label_end"] = float(item["left"]) + _label_extent(item) > 100.0
    return lane


def timeline(outcome: AuditOutcome) -> dict[str, Any]:
    """Lanes of positioned marks (percent of the run's span) for the HTML page."""
    run = outcome.run
    marks = _phase_marks(run) + _review_marks(run) + _criterion_marks(outcome) + _window_marks(run)
    moments = [m.start for m in marks] + [m.end for m in marks if m.end is not None]
    moments += [at for at in (_when(run.started_at), _when(run.updated_at)) if at is not None]
    if not moments:
        return {"lanes": [], "start": None, "end": None}
    first, last = min(moments), max(moments)
    span = max((last - first).total_seconds(), 1.0)
    lanes: dict[str, list[dict[str, Any]]] = {
        "phases": [],
        "review": [],
        "criteria": [],
        "windows": [],
    }
    for mark in marks:
        lanes[mark.lane].append(_placed(mark, first, last, span))
    return {
        "lanes": [_lane(name, items) for name, items in lanes.items() if items],
        "start": first.isoformat(timespec="seconds"),
        "end": last.isoformat(timespec="seconds"),
        "seconds": span,
    }


MIN_MARK_PERCENT = 0.8  # the drawn width of a mark without duration, in percent of the track
MAX_ROWS = 12  # beyond this, marks share the last row


def _mark_extent(item: dict[str, Any]) -> float:
    return max(float(item["width"]), MIN_MARK_PERCENT) + 0.2


def _label_extent(item: dict[str, Any]) -> float:
    # a phase name at about 0.65 % of the track per character, plus a gap
    return len(str(item["label"])) * 0.65 + 1.5


def _pack(items: list[dict[str, Any]], extent: Any, key: str) -> int:
    """Give each item the first row where it overlaps nothing; returns the row count."""
    ends: list[float] = []
    for item in sorted(items, key=lambda i: float(i["left"])):
        left = float(item["left"])
        stop = left + float(extent(item))
        for row, end in enumerate(ends):
            if end <= left:
                ends[row] = stop
                item[key] = row
                break
        else:
            if len(ends) < MAX_ROWS:
                ends.append(stop)
                item[key] = len(ends) - 1
            else:
                item[key] = MAX_ROWS - 1
                ends[-1] = max(ends[-1], stop)
    return max(len(ends), 1)


def _css(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum() or ch == "-")[:30] or "unknown"


def build_report(outcome: AuditOutcome) -> Report:
    counts = _counts(outcome)
    summary = summary_line(outcome, counts)
    document = payload(outcome, counts, summary)
    run: AuditedRun = outcome.run
    return Report(
        tool=TOOL,
        title=f"zodyssey audit: {run.slug}",
        findings=list(outcome.findings),
        summary=summary,
        payload=document,
        cases=cases(outcome),
        rules=dict(RULES),
        html_template="audit.html.j2",
        html_context={
            "audit": document,
            "timeline": timeline(outcome),
            "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
        },
    )
