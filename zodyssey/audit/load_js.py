"""Runs of the JavaScript ZOdyssey pipeline, read into the audit's model.

Its evidence is thinner than ours: `verify.history[]` keeps only the latest
attempt of each criterion, per-criterion artifacts are overwritten on retry,
and nothing is hash-chained, timed or output-hashed. What cannot be checked is
listed in `AuditedRun.not_verifiable` (reported as notes), never assumed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from zodyssey.audit.artifacts import (
    as_bool,
    as_dict,
    as_int,
    as_list,
    as_str,
    display_path,
    read_optional_json,
)
from zodyssey.audit.load_common import (
    load_plan,
    load_review_header,
    load_ungated,
    read_review_artifact,
    review_artifact_path,
)
from zodyssey.audit.model import (
    AuditedRun,
    CriterionRecord,
    PhaseEvent,
    ReviewRound,
    TodoState,
    WindowRecord,
    clip,
)
from zodyssey.audit.validation import validate
from zodyssey.runs import store

NOT_VERIFIABLE = (
    "evidence is not hash-chained: an edited, deleted or reordered verify record cannot be detected",
    "no output hashes are recorded: the output shown cannot be checked against what the command printed",
    "no timings are recorded: criterion durations are unknown",
    "only the last attempt of each criterion is kept (history and artifacts are overwritten on "
    "retry): earlier failures are not visible",
    "the plan hash a criterion ran under is not recorded: a pass under an earlier plan looks the "
    "same as a pass under the reviewed plan",
    "criteria are matched to the plan by command text, not by a recorded hash of the criterion",
)


def _todo_key(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    number = as_int(value)
    return str(number) if number is not None else None


def load(root: Path, slug: str, state: Any, state_file: Path) -> AuditedRun:
    where = display_path(state_file, root)
    run = AuditedRun(slug=slug, source="js-pipeline", state_path=where)
    violations, total = validate(state, "js-state.schema.json")
    for violation in violations:
        run.problem(
            "schema-violation",
            f"{violation.json_path}: {violation.message}",
            where,
            json_path=violation.json_path,
        )
    if total > len(violations):
        run.problem("schema-violation", f"{total - len(violations)} more violations", where)
    doc = as_dict(state)
    run.title = clip(as_str(doc.get("title")) or "", 300)
    run.phase = clip(as_str(doc.get("phase")) or "", 40)
    run.started_at = as_str(doc.get("started_at"))
    run.updated_at = as_str(doc.get("updated_at"))
    run.not_verifiable = list(NOT_VERIFIABLE)
    load_plan(run, root, doc.get("plan_path"))
    _load_todos(run, doc)
    _load_review(run, root, doc)
    _load_criteria(run, root, doc)
    _load_windows(run, doc, where)
    load_ungated(run, root)
    # No phase history is kept; the start and the phase at the last update are all there is.
    run.phases.append(PhaseEvent("plan", run.started_at))
    if run.phase and run.updated_at:
        run.phases.append(PhaseEvent(run.phase, run.updated_at))
    return run


def _load_todos(run: AuditedRun, doc: dict[str, Any]) -> None:
    for key, raw in as_dict(doc.get("todos")).items():
        todo = as_dict(raw)
        run.todos[clip(key, 40)] = TodoState(
            id=clip(key, 40),
            status=as_str(todo.get("status")) or "unknown",
            forced=as_bool(todo.get("forced")) is True,
            forced_reason=clip(as_str(todo.get("forced_reason")), 500)
            if todo.get("forced_reason") is not None
            else None,
            attempts=as_int(todo.get("attempts")),
        )


def _load_review(run: AuditedRun, root: Path, doc: dict[str, Any]) -> None:
    review = as_dict(doc.get("review"))
    state = run.review
    load_review_header(run, review, "sha256")
    verdict = state.verdict
    for raw in as_list(review.get("history")):
        entry = as_dict(raw)
        number = as_int(entry.get("round"))
        rnd = ReviewRound(
            round=number,
            verdict=as_str(entry.get("verdict")),
            at=as_str(entry.get("at")),
            blockers=len(as_list(entry.get("blockers"))),
        )
        if number is not None and number >= 1:
            recorded = review.get("momus_artifact") if number == state.round else None
            path = review_artifact_path(root, run.slug, number, recorded)
            artifact = read_review_artifact(run, root, rnd, path, "js-review-artifact.schema.json")
            provenance = as_dict(artifact.get("_provenance"))
            rnd.artifact_verdict = as_str(artifact.get("verdict"))
            rnd.artifact_nonce = as_str(provenance.get("nonce"))
            rnd.artifact_round = as_int(provenance.get("round"))
            rnd.nonce = rnd.artifact_nonce
            for consumed in state.consumed:
                if rnd.nonce is not None and consumed.nonce == rnd.nonce:
                    rnd.recorded_sha256 = consumed.sha256
        state.rounds.append(rnd)
    if verdict is not None and state.rounds:
        state.artifact = state.rounds[-1].artifact


def _load_criteria(run: AuditedRun, root: Path, doc: dict[str, Any]) -> None:
    verify_dir = store.verify_dir(root, run.slug)
    missing_executed = 0
    history = as_list(as_dict(doc.get("verify")).get("history"))
    state_where = run.state_path
    for position, raw in enumerate(history):
        entry = as_dict(raw)
        todo = _todo_key(entry.get("todo_id"))
        index = as_int(entry.get("criterion_index"))
        if todo is None or index is None:
            continue  # reported as a schema violation already
        passed = as_bool(entry.get("passed")) is True
        status = as_str(entry.get("status")) or ("passed" if passed else "failed")
        if as_bool(entry.get("flaky")) is True:
            passed, status = False, "flaky"
        command = as_str(entry.get("criterion"))
        record = CriterionRecord(
            todo=clip(todo, 40),
            index=index,
            where=f"{state_where} $.verify.history[{position}]",
            text=clip(command) if command is not None else None,
            command=clip(command) if command is not None else None,
            exit_code=as_int(entry.get("exit_code")),
            passed=passed,
            status=status,
            finished_at=as_str(entry.get("at")),
        )
        # The per-criterion artifact is the only place that says whether the criterion
        # was executed by the writer or its exit code asserted (--trust-argv).
        if "/" not in todo and "\x00" not in todo and todo not in (".", ".."):
            path = verify_dir / f"{todo}-{index}.json"
            artifact, reason = read_optional_json(path)
            if reason is None:
                _merge_artifact(run, root, record, path, artifact)
        if record.executed is None:
            missing_executed += 1
        run.criteria.append(record)
    run.evidence_records = len(run.criteria)
    if missing_executed:
        run.not_verifiable.append(
            f"whether a criterion was executed or only asserted is recorded only in its "
            f"verify artifact: {missing_executed} of {len(run.criteria)} records have none"
        )


def _merge_artifact(
    run: AuditedRun, root: Path, record: CriterionRecord, path: Path, artifact: Any
) -> None:
    where = display_path(path, root)
    violations, _ = validate(artifact, "js-verify-record.schema.json")
    for violation in violations:
        run.problem(
            "schema-violation",
            f"{violation.json_path}: {violation.message}",
            where,
            json_path=violation.json_path,
        )
    doc = as_dict(artifact)
    same = _todo_key(doc.get("todo_id")) == record.todo and (
        as_int(doc.get("criterion_index")) == record.index
    )
    if not same:
        run.problem(
            "schema-violation",
            f"artifact names todo {clip(doc.get('todo_id'), 40)} criterion "
            f"{clip(doc.get('criterion_index'), 20)}, not {record.todo} #{record.index}",
            where,
        )
        return
    record.where = where
    record.executed = as_bool(doc.get("executed"))
    artifact_passed = as_bool(doc.get("passed"))
    if artifact_passed is not None and artifact_passed != record.passed:
        # State and artifact disagree: trust neither with a pass.
        record.passed = False
        record.status = "conflict"
    if as_bool(doc.get("flaky")) is True:
        record.passed, record.status = False, "flaky"
    output = as_str(doc.get("output"))
    if output:
        record.stdout_tail = clip(output[-2000:], 2000)
    record.finished_at = as_str(doc.get("recorded_at")) or record.finished_at


def _load_windows(run: AuditedRun, doc: dict[str, Any], where: str) -> None:
    consult = as_dict(doc.get("consult"))
    history = as_list(consult.get("history"))
    for position, raw in enumerate(history):
        entry = as_dict(raw)
        present = "readOnlyViolation" in entry
        value = entry.get("readOnlyViolation")
        violation = value if isinstance(value, bool) else None
        number = as_int(entry.get("round"))
        verdict = clip(as_str(entry.get("verdict")) or "?", 40)
        run.windows.append(
            WindowRecord(
                label=f"external audit round {number if number is not None else position + 1}"
                f" ({verdict})",
                violation=violation,
                where=f"{where} $.consult.history[{position}]",
                present=present,
                finished_at=as_str(entry.get("at")),
                detail=clip(as_str(entry.get("summary")) or "", 300),
            )
        )
    run.claims_external_audit = bool(history) or run.phase == "audited"
