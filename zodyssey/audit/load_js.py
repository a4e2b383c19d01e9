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
    AuditedRound,
    AuditedRun,
    AuditedTodo,
    CriterionRecord,
    ExternalAudit,
    FinalItem,
    FinalWave,
    PhaseEvent,
    WindowRecord,
    clip,
    short_hash,
)
from zodyssey.audit.validation import validate
from zodyssey.core import paths

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
    _load_final(run, root, doc)
    _cross_check_summaries(run, doc)
    _check_worktree(run, root, doc)
    load_ungated(run, root)
    _load_phases(run, doc)
    return run


def _load_phases(run: AuditedRun, doc: dict[str, Any]) -> None:
    """Every phase transition `set-phase.mjs` recorded in `checkpoints[]`."""
    for raw in as_list(doc.get("checkpoints")):
        entry = as_dict(raw)
        phase = as_str(entry.get("phase"))
        if phase:
            run.phases.append(
                PhaseEvent(
                    clip(phase, 40), as_str(entry.get("at")), clip(as_str(entry.get("note")), 200)
                )
            )
    if run.phases:
        return
    # No checkpoints: the start and the phase at the last update are all there is.
    run.phases.append(PhaseEvent("plan", run.started_at))
    if run.phase and run.updated_at:
        run.phases.append(PhaseEvent(run.phase, run.updated_at))


def _load_todos(run: AuditedRun, doc: dict[str, Any]) -> None:
    for key, raw in as_dict(doc.get("todos")).items():
        todo = as_dict(raw)
        run.todos[clip(key, 40)] = AuditedTodo(
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
        rnd = AuditedRound(
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
            rnd.artifact_plan_sha256 = as_str(provenance.get("plan_sha256"))
            rnd.nonce = rnd.artifact_nonce
            for consumed in state.consumed:
                if rnd.nonce is not None and consumed.nonce == rnd.nonce:
                    rnd.recorded_sha256 = consumed.sha256
        state.rounds.append(rnd)
    if verdict is not None and state.rounds:
        state.artifact = state.rounds[-1].artifact


def _load_criteria(run: AuditedRun, root: Path, doc: dict[str, Any]) -> None:
    verify_dir = paths.verify_dir(root, run.slug)
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
    """The external audit (`consult.mjs`): judged by its verdict. The pipeline records
    no read-only window around its auditor; where a round does carry a
    `readOnlyViolation` (a later pipeline, a fork), it is judged like ours."""
    consult = as_dict(doc.get("consult"))
    history = as_list(consult.get("history"))
    unwitnessed = 0
    for position, raw in enumerate(history):
        entry = as_dict(raw)
        number = as_int(entry.get("round"))
        verdict = clip(as_str(entry.get("verdict")) or "", 40) or None
        gaps = [
            clip(as_str(as_dict(g).get("detail")) or as_str(g) or "", 200)
            for g in as_list(entry.get("gaps"))[:20]
        ]
        run.external_audits.append(
            ExternalAudit(
                round=number,
                verdict=verdict,
                at=as_str(entry.get("at")),
                where=f"{where} $.consult.history[{position}]",
                summary=clip(as_str(entry.get("summary")) or "", 300),
                gaps=[g for g in gaps if g],
            )
        )
        if "readOnlyViolation" not in entry:
            unwitnessed += 1
            continue
        value = entry.get("readOnlyViolation")
        run.windows.append(
            WindowRecord(
                label=f"external audit round {number if number is not None else position + 1}"
                f" ({verdict or '?'})",
                violation=value if isinstance(value, bool) else None,
                where=f"{where} $.consult.history[{position}]",
                finished_at=as_str(entry.get("at")),
                detail=clip(as_str(entry.get("summary")) or "", 300),
            )
        )
    run.external_verdict = clip(as_str(consult.get("verdict")) or "", 40) or None
    if unwitnessed:
        run.not_verifiable.append(
            f"the external auditor's read-only window: the pipeline records no readOnlyViolation, "
            f"so whether the auditor changed the work tree cannot be checked ({unwitnessed} "
            f"round(s))"
        )


def _load_final(run: AuditedRun, root: Path, doc: dict[str, Any]) -> None:
    """`state.final` (written by record-final-wave.mjs) and its `final-wave.json`."""
    raw = doc.get("final")
    path = paths.verify_dir(root, run.slug) / "final-wave.json"
    artifact, reason = read_optional_json(path)
    if raw is None and reason is not None:
        return  # no final wave was ever recorded
    final = as_dict(raw)
    wave = FinalWave(
        verdict=clip(as_str(final.get("verdict")) or "", 40) or None,
        at=as_str(final.get("at")),
        where=f"{run.state_path} $.final",
        waived=[clip(as_str(w) or "?", 10) for w in as_list(final.get("waived"))[:10]],
        waived_reason=clip(as_str(final.get("waived_reason")), 500)
        if final.get("waived_reason") is not None
        else None,
        artifact=display_path(path, root),
    )
    for name, item in sorted(as_dict(final.get("results")).items())[:20]:
        result = as_dict(item)
        why = (
            as_str(result.get("reason"))
            or as_str(result.get("error"))
            or (
                "out of scope: " + ", ".join(clip(as_str(p), 120) for p in as_list(out)[:10])
                if (out := result.get("out_of_scope"))
                else ""
            )
        )
        wave.items.append(
            FinalItem(
                name=clip(name, 10),
                passed=as_bool(result.get("passed")),
                skipped=as_bool(result.get("skipped")) is True,
                not_evaluated=as_bool(result.get("not_evaluated")) is True,
                reason=clip(why or "", 300),
            )
        )
    if reason is None:
        body = as_dict(artifact)
        wave.artifact_found = True
        wave.artifact_all_pass = as_bool(body.get("all_pass"))
        wave.artifact_at = as_str(body.get("at"))
    run.final = wave


def _cross_check_summaries(run: AuditedRun, doc: dict[str, Any]) -> None:
    """The pipeline writes summaries in the same write as each verify record: the
    counts in `verify` and `acceptance[todo]` (stamped with the record's time). A
    record edited afterwards no longer agrees with them."""
    verify = as_dict(doc.get("verify"))
    history = [as_dict(h) for h in as_list(verify.get("history"))]
    _verify_counts_agree(run, verify, history)
    for todo, raw in as_dict(doc.get("acceptance")).items():
        summary = as_dict(raw)
        contradiction = _acceptance_contradiction(summary, history, todo)
        if contradiction is None:
            continue
        run.problem(
            "summary-mismatch",
            f"acceptance[{clip(todo, 40)}] written at {clip(as_str(summary.get('at')), 40)} "
            f"with the latest verify record of todo {clip(todo, 40)} {contradiction}: the "
            "record was edited",
            run.state_path,
            json_path=f"$.acceptance.{clip(todo, 40)}",
        )


def _verify_counts_agree(
    run: AuditedRun, verify: dict[str, Any], history: list[dict[str, Any]]
) -> None:
    passed = sum(1 for h in history if as_bool(h.get("passed")) is True)
    flaky = sum(1 for h in history if as_bool(h.get("flaky")) is True)
    expected = {
        "total": len(history),
        "passed": passed,
        "flaky": flaky,
        "failed": len(history) - passed - flaky,
    }
    for key, value in expected.items():
        recorded = as_int(verify.get(key))
        if key in verify and recorded != value:
            run.problem(
                "summary-mismatch",
                f"verify.{key} is {clip(verify.get(key), 20)} but verify.history holds {value}: "
                "a verify record was edited or removed after it was written",
                run.state_path,
                json_path=f"$.verify.{key}",
            )


def _acceptance_contradiction(
    summary: dict[str, Any], history: list[dict[str, Any]], todo: str
) -> str | None:
    """How `acceptance[todo]` contradicts the records it was written with (None: it does not)."""
    at = as_str(summary.get("at"))
    claimed = as_bool(summary.get("pass"))
    records = [h for h in history if _todo_key(h.get("todo_id")) == todo]
    if at is None or claimed is None or not records:
        return None
    latest = [h for h in records if as_str(h.get("at")) == at]
    if not latest or as_str(latest[-1].get("at")) != max(
        as_str(h.get("at")) or "" for h in records
    ):
        return None  # the summary is not the one written with the latest record
    all_passed = all(as_bool(h.get("passed")) is True for h in records)
    if claimed is True and not all_passed:
        return "says the todo passed, but a record of it now says failed"
    distinct = len({as_int(h.get("criterion_index")) for h in records})
    run_count = as_int(summary.get("criteria_run"))
    declared = as_int(summary.get("criteria_declared"))
    if (
        claimed is False
        and all_passed
        and run_count == distinct
        and (declared is None or distinct >= declared)
    ):
        return "says the todo did not pass, but every record of it now says passed"
    return None


def _check_worktree(run: AuditedRun, root: Path, doc: dict[str, Any]) -> None:
    """Evidence older than the work tree: each verify record carries the fingerprint
    of the tree it ran on (`worktree`); compare with the tree as it is now."""
    from zodyssey.audit.js_worktree import fingerprint, head_commit

    history = [as_dict(h) for h in as_list(as_dict(doc.get("verify")).get("history"))]
    recorded = [(h, as_str(h.get("worktree"))) for h in history]
    recorded = [(h, w) for h, w in recorded if w]
    if not recorded:
        return
    current, reason = fingerprint(root)
    start = as_str(doc.get("run_start_sha"))
    if current is not None and start:
        head = head_commit(root)
        if head is not None and head != start:
            # The fingerprint is taken against HEAD: once the run's work is committed it
            # changes although the work did not, so it no longer compares.
            current, reason = (
                None,
                (
                    f"HEAD moved since the run started ({short_hash(start)} -> {short_hash(head)}); "
                    "the fingerprints describe uncommitted work on the start commit"
                ),
            )
    if current is None:
        run.not_verifiable.append(
            f"whether the evidence describes the current work tree: its fingerprint cannot be "
            f"computed ({reason})"
        )
        return
    stale = [(h, w) for h, w in recorded if w != current]
    if not stale:
        return
    names = ", ".join(
        f"{clip(_todo_key(h.get('todo_id')), 20)}.{as_int(h.get('criterion_index'))}"
        for h, _ in stale[:20]
    )
    if len(stale) == len(recorded):
        latest = max(recorded, key=lambda pair: as_str(pair[0].get("at")) or "")
        run.problem(
            "evidence-stale",
            f"the work tree changed after the last verification: no verify record was made on "
            f"the current tree (fingerprint now {short_hash(current)}, latest record "
            f"{short_hash(latest[1])} at {clip(as_str(latest[0].get('at')), 40)}); criteria "
            f"{names} describe an older tree",
            run.state_path,
            json_path="$.verify.history",
            severity="error",
        )
    else:
        run.problem(
            "evidence-stale",
            f"criteria {names} were verified on an earlier work tree than the current one "
            f"(later work may have changed their result)",
            run.state_path,
            json_path="$.verify.history",
            severity="note",
        )
