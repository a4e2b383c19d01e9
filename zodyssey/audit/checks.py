"""The audit's rules: an `AuditedRun` in, findings and per-criterion results out.

Pure functions of the model (no file access), so every rule is tested with a
crafted run as well as through real artifacts. Rule ids are stable: CI
configurations and SARIF baselines refer to them.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from zodyssey.audit.model import (
    AuditedRound,
    AuditedRun,
    CriterionRecord,
    WindowRecord,
    clip,
    short_hash,
)
from zodyssey.core.plan import Plan, parse_plan
from zodyssey.core.vocabulary import COMPLETED_PHASES
from zodyssey.findings import Finding, Severity
from zodyssey.runs.criteria import describe, parse_criterion

TOOL = "audit"

RULES: dict[str, str] = {
    "criterion-not-executed": "a done todo has no executed record for a criterion its plan declares",
    "criterion-failed": "the latest executed record of a declared criterion did not pass, whatever its todo's status",
    "criterion-asserted": "a criterion's result was asserted by the caller, not executed",
    "criterion-text-mismatch": "the recorded criterion differs from the text the plan declares",
    "criterion-wrong-plan": "a criterion ran under a plan other than the one bound at OKAY",
    "todo-forced": "a todo was forced to done without passing evidence",
    "nothing-executed": "no declared criterion was executed: the run proves nothing (exit 4)",
    "run-unfinished": "the run has not finished: its phase is not done/audited or plan todos are not done",
    "done-with-open-todos": "the run's phase says done/audited but a plan todo is not done",
    "chain-broken": "the evidence hash chain is broken (edited, missing or reordered records)",
    "output-mismatch": "stored output does not hash to the recorded output hash",
    "review-not-okay": "the run has no OKAY review verdict",
    "review-artifact": "the deciding review round's artifact is missing, unreadable or contradicts the state",
    "nonce-reuse": "a review nonce was not consumed exactly once by its own round",
    "review-transcript": "a reviewer verdict whose dispatch the harness transcript does not record",
    "gate-unproven": "a tool call the harness transcript records in the run's window has no gate decision",
    "plan-drift": "the plan on disk differs from the plan bound at OKAY",
    "review-rounds-exceeded": "more review rounds than max_rounds",
    "window-violated": "a read-only window changed the work tree or HEAD",
    "window-unknown": "a read-only window could not be verified (readOnlyViolation is null)",
    "window-missing": "the run claims an external audit but has no read-only window for it",
    "window-auditor-failed": "the auditor in a read-only window did not run to exit 0: an audit that did not run is not clean",
    "evidence-disagrees": "the state's own records of executions (verify.history, gate_log, windows) disagree with the evidence chain",
    "evidence-unanchored": "the evidence chain's head is not anchored in git (a cut or rehashed chain would not show)",
    "ungated-shell": "a shell call was let through the gate's opt-out hatch",
    "check-override": "a quality-check gate decision was overridden",
    "schema-violation": "an artifact does not match its schema",
    "final-wave-failed": "the final verification wave did not pass (or its artifact contradicts the state)",
    "final-wave-waived": "final-wave items were waived (skipped) instead of passed",
    "final-wave-missing": "the run says done but records no final verification wave",
    "external-audit-rejected": "the external auditor's verdict is not ACCEPT",
    "external-audit-missing": "the run says audited but records no external audit",
    "summary-mismatch": "a verify record contradicts the summary written with it (edited evidence)",
    "evidence-stale": "verify records were made on an older work tree than the current one",
    "not-verifiable": "something this run's artifacts cannot prove (JS pipeline runs)",
}


@dataclass
class CriterionResult:
    """One declared criterion of the plan and what the evidence says about it."""

    todo: str
    index: int
    text: str
    todo_status: str
    status: str  # passed, failed, not-executed, asserted, text-mismatch, wrong-plan, forced, open
    record: CriterionRecord | None = None
    attempts: int = 0
    message: str = ""

    forced: bool = False

    @property
    def required(self) -> bool:
        """Whether the criterion's result decides the run: its todo is marked done
        (forced or not), or its latest execution under the bound plan failed."""
        return self.todo_status == "done" or self.status == "failed"


@dataclass
class AuditOutcome:
    run: AuditedRun
    plan: Plan
    findings: list[Finding] = field(default_factory=list)
    criteria: list[CriterionResult] = field(default_factory=list)
    strict: bool = False
    require_complete: bool = False
    allow_stale: bool = False

    @property
    def executed(self) -> int:
        """Declared criteria with at least one executed record (any result)."""
        return sum(1 for c in self.criteria if c.record is not None and c.record.executed)

    @property
    def verdict(self) -> str:
        """`failed` (exit 1), `empty` (nothing was executed: exit 4) or `passed` (exit 0).

        Every format reads this one value, so no badge can contradict the exit code."""
        errors = {f.rule for f in self.findings if f.severity == "error"}
        if "nothing-executed" in errors and errors <= {"nothing-executed", "run-unfinished"}:
            # Nothing ran, and nothing else is wrong but that the run is not finished.
            return "empty"
        return "failed" if errors else "passed"


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _normal_command(text: str | None) -> str:
    """A command as compared: exactly as written, only the outer blanks (and, for a
    criterion's whole text, its backticks) removed. Case and inner spacing count:
    `grep -q Hello` is not `grep -q hello`."""
    return (text or "").replace("`", "").strip()


_AND = re.compile(r"\s*&&\s*")


def _covers(recorded: str | None, text: str, command: str | None) -> bool:
    """Whether a recorded command runs the whole criterion, not a part of it.

    The recorded command may be the criterion's text itself, its only command,
    or, for a criterion naming several commands ("`A` and `B` both exit 0"),
    every one of them joined by `&&` (so its exit status is theirs together)."""
    from zodyssey.audit.js_plan import commands

    ran = _normal_command(recorded)
    if not ran:
        return False
    if ran == _normal_command(text):
        return True
    named = [_normal_command(c) for c in commands(text)] or [_normal_command(command)]
    return _runs_all(ran, [c for c in named if c])


def _runs_all(ran: str, named: list[str]) -> bool:
    """Whether `ran` is the one named command, or all of several joined by `&&` only."""
    if not named:
        return False
    if len(named) == 1:
        return ran == named[0]
    parts = [_normal_command(p) for p in _AND.split(ran)]
    return set(named) <= set(parts) and "||" not in ran and ";" not in ran


class _Emitter:
    def __init__(self, outcome: AuditOutcome) -> None:
        self.outcome = outcome

    def __call__(
        self,
        rule: str,
        severity: Severity,
        message: str,
        file: str | None = None,
        line: int | None = None,
        **extra: object,
    ) -> None:
        if self.outcome.strict and severity == "warning":
            severity = "error"
        self.outcome.findings.append(
            Finding(TOOL, rule, severity, message, file, line, {k: v for k, v in extra.items()})
        )


def audit(
    run: AuditedRun,
    *,
    strict: bool = False,
    require_complete: bool = False,
    allow_stale: bool = False,
) -> AuditOutcome:
    if run.source == "js-pipeline":
        from zodyssey.audit.js_plan import parse_js_plan

        plan = parse_js_plan(run.plan_text or "")
    else:
        plan = parse_plan(run.plan_text or "")
    outcome = AuditOutcome(
        run=run,
        plan=plan,
        strict=strict,
        require_complete=require_complete,
        allow_stale=allow_stale,
    )
    emit = _Emitter(outcome)
    _artifact_problems(run, emit, allow_stale)
    _criteria(outcome, emit)
    _stale(outcome, emit)
    _completion(outcome, emit)
    _review(run, emit)
    _windows(run, emit)
    _final_wave(run, emit)
    _external_audit(run, emit)
    _ungated_and_overrides(run, emit)
    _effect_violations(run, emit)
    from zodyssey.audit.transcript import check as gate_ran

    gate_ran(run, emit)
    for text in run.not_verifiable:
        emit(
            "not-verifiable",
            "note",
            f"not verifiable for JS-pipeline runs: {text}",
            run.state_path,
            key=text[:40],
        )
    return outcome


def _artifact_problems(run: AuditedRun, emit: _Emitter, allow_stale: bool) -> None:
    for problem in run.problems:
        extra: dict[str, object] = {}
        if problem.json_path:
            extra["json_path"] = problem.json_path
        severity = problem.severity
        if problem.rule == "evidence-stale" and allow_stale:
            severity = "note"  # stale evidence accepted on purpose (`--allow-stale`)
        emit(problem.rule, severity, problem.message, problem.file, problem.line, **extra)


def _recorded_elsewhere(result: CriterionResult, now: str) -> bool:
    """Whether the criterion's record names a work-tree digest other than `now`."""
    digest = result.record.worktree_digest if result.record is not None else None
    return digest is not None and digest != now


def _stale(outcome: AuditOutcome, emit: _Emitter) -> None:
    """Ours: a passing criterion whose record was made on another work tree than today's.

    Each criterion record carries the work tree's content digest after it ran
    (`zodyssey.runs.worktree.content_digest`: every tracked and untracked file,
    `.zcode/` excluded, independent of commits). A file changed since then may
    have changed the result, so the evidence no longer says what it said."""
    run = outcome.run
    now = run.worktree_digest_now
    if run.source != "zodyssey" or now is None:
        return
    stale = [c for c in outcome.criteria if c.status == "passed" and _recorded_elsewhere(c, now)]
    if not stale:
        return
    names = ", ".join(f"{c.todo}.{c.index}" for c in stale[:20])
    # Advice that can be followed: a done run refuses `run verify`.
    fix = (
        "the run is done, so it cannot verify again: put the files changed since back as "
        "they were verified, or audit with --allow-stale"
        if run.phase in ("done", "audited")
        else "verify again (or audit with --allow-stale)"
    )
    emit(
        "evidence-stale",
        "note" if outcome.allow_stale else "error",
        f"the work tree changed after the last passing record of criteria {names} (content "
        f"digest now {short_hash(now)}, recorded {short_hash(stale[-1].record.worktree_digest if stale[-1].record else None)}): "
        f"their evidence describes another tree; {fix}",
        run.state_path,
        key="stale",
        criteria=[f"{c.todo}.{c.index}" for c in stale],
    )


# ----------------------------------------------------------------------------- criteria


def _criteria(outcome: AuditOutcome, emit: _Emitter) -> None:
    run, plan = outcome.run, outcome.plan
    by_key: dict[tuple[str, int], list[CriterionRecord]] = {}
    for record in run.criteria:
        by_key.setdefault((record.todo, record.index), []).append(record)
    bound = run.review.plan_sha256
    for todo in plan.todos:
        state = run.todos.get(todo.id)
        status = state.status if state else "pending"
        forced = bool(state and state.status == "done" and state.forced)
        if forced and state is not None:
            reason = clip(state.forced_reason or "no reason recorded", 300)
            emit(
                "todo-forced",
                "warning",
                f"todo {todo.id} was forced to done: {reason}",
                run.state_path,
                todo=todo.id,
                key=f"forced/{todo.id}",
            )
        if todo.final and not todo.criteria and status == "done" and not forced:
            _final_row(run, todo.id, emit)
        for criterion in todo.criteria:
            records = by_key.get((todo.id, criterion.index), [])
            result = _judge(
                run, todo.id, criterion.index, criterion.text, criterion.command, records, bound
            )
            result.todo_status = status
            result.attempts = len(records)
            result.forced = forced
            if result.status == "failed":
                # A failed latest execution is an error whatever the todo says: pending,
                # in flight, forced to done or done.
                _emit_criterion(emit, run, result)
            elif forced:
                result.status = "forced"
            elif status != "done":
                if result.status != "passed":
                    result.status = "open"
            elif result.status != "passed":
                _emit_criterion(emit, run, result)
            outcome.criteria.append(result)
    if not any(c.record is not None and c.record.executed for c in outcome.criteria):
        declared = len(outcome.criteria)
        emit(
            "nothing-executed",
            "error",
            f"no declared criterion was executed ({declared} declared, "
            f"{len(run.criteria)} records): the run proves nothing",
            run.state_path,
            key="nothing-executed",
        )


def _final_row(run: AuditedRun, todo: str, emit: _Emitter) -> None:
    """A final-wave row with no criteria is proven by its read-only window (label = id)."""
    mine = [w for w in run.windows if w.label == todo and w.present]
    latest = mine[-1] if mine else None
    if latest is not None and latest.violation is False and latest.exit_code == 0:
        return
    why = (
        "no read-only window labelled with its id was recorded"
        if latest is None
        else "its read-only window did not pass"
    )
    emit(
        "criterion-not-executed",
        "error",
        f"final-wave row {todo} is done without evidence: it declares no criteria and {why}",
        run.state_path,
        todo=todo,
        key=f"final-row/{todo}",
    )


def _completion(outcome: AuditOutcome, emit: _Emitter) -> None:
    """A run that has not finished, or that says it has while a plan todo is open."""
    run, plan = outcome.run, outcome.plan
    open_todos: list[str] = []
    for todo in plan.todos:
        if todo.final:
            continue  # final-wave rows are judged by the final wave, not as todos
        state = run.todos.get(todo.id)
        status = state.status if state else "pending"
        if status != "done":
            open_todos.append(f"{todo.id} ({status})")
    shown = ", ".join(open_todos[:20]) + (
        f" and {len(open_todos) - 20} more" if len(open_todos) > 20 else ""
    )
    phase = run.phase or "unknown"
    if phase in COMPLETED_PHASES:
        if open_todos:
            emit(
                "done-with-open-todos",
                "error",
                f"phase is {phase} but plan todo(s) are not done: {shown}",
                run.state_path,
                key="done-open",
                todos=[t.split(" ")[0] for t in open_todos],
            )
        return
    pending = f"; todos not done: {shown}" if open_todos else "; every plan todo is done"
    emit(
        "run-unfinished",
        "error" if outcome.require_complete else "warning",
        f"the run has not finished: phase {phase}{pending}",
        run.state_path,
        key="unfinished",
        phase=phase,
        todos=[t.split(" ")[0] for t in open_todos],
    )


@dataclass
class _Judging:
    """One criterion being judged: what the plan says and the result so far."""

    run: AuditedRun
    text: str
    command: str | None
    bound: str | None
    result: CriterionResult


def _by_text(j: _Judging, records: list[CriterionRecord]) -> list[CriterionRecord]:
    """Records of this criterion's text (the JS pipeline: of its command)."""
    if j.run.source == "zodyssey":
        want = _sha(j.text)
        matching = [r for r in records if (r.text_sha256 or _sha(r.text or "")) == want]
    else:
        # The JS pipeline records the command it ran, not a hash of the plan's text.
        matching = [r for r in records if _covers(r.command, j.text, j.command)]
    if matching:
        return matching
    j.result.status = "text-mismatch"
    j.result.message = (
        f"recorded criterion {clip(records[-1].text, 200)!r} is not the plan's "
        f"{clip(j.text, 200)!r}"
    )
    if j.run.source != "zodyssey":
        from zodyssey.audit.js_plan import commands

        named = commands(j.text)
        ran = {_normal_command(p) for p in _AND.split(_normal_command(records[-1].command))}
        if len(named) > 1 and ran & {_normal_command(c) for c in named}:
            j.result.message = (
                f"the recorded command {clip(records[-1].command, 200)!r} runs only part "
                f"of the criterion, which names {len(named)} commands: "
                + ", ".join(repr(clip(c, 100)) for c in named)
            )
    return []


def _by_steps(j: _Judging, records: list[CriterionRecord]) -> list[CriterionRecord]:
    """The commands recorded must be the ones the criterion names, each judged as it says."""
    if j.run.source != "zodyssey":
        return records
    wanted = [step.as_dict() for step in parse_criterion(j.text).steps]
    matching = [r for r in records if _recorded_steps(r) == wanted]
    if not matching:
        j.result.status = "text-mismatch"
        shown = "; ".join(f"`{clip(s['command'], 80)}` {describe(s['expect'])}" for s in wanted)
        latest = j.result.record.command if j.result.record else None
        j.result.message = (
            f"no record ran every command of the criterion as it states ({shown or 'none'}); "
            f"the latest ran {clip(latest, 200)!r}"
        )
    return matching


def _by_plan(j: _Judging, records: list[CriterionRecord]) -> list[CriterionRecord]:
    """Records made under the plan bound at OKAY."""
    if j.run.source != "zodyssey" or not j.bound:
        return records
    matching = [r for r in records if r.plan_sha256 == j.bound]
    if not matching:
        j.result.status = "wrong-plan"
        recorded = j.result.record.plan_sha256 if j.result.record else None
        j.result.message = (
            f"every record ran under plan {short_hash(recorded)}, "
            f"not the plan bound at OKAY ({short_hash(j.bound)})"
        )
    return matching


def _by_execution(result: CriterionResult, records: list[CriterionRecord]) -> CriterionResult:
    """The latest record that was executed decides."""
    executed = [r for r in records if r.executed is True]
    if not executed:
        if any(r.executed is False for r in records):
            result.status = "asserted"
            result.message = "its exit code was supplied by the caller, the criterion was not run"
        else:
            result.message = "no verify artifact shows that it was executed"
        return result
    latest = executed[-1]
    result.record = latest
    if latest.passed:
        result.status = "passed"
        return result
    result.status = "failed"
    how = latest.status or "failed"
    code = "timed out" if latest.timed_out else f"exit {latest.exit_code}"
    result.message = f"latest executed run {how} ({code})"
    return result


def _judge(
    run: AuditedRun,
    todo: str,
    index: int,
    text: str,
    command: str | None,
    records: list[CriterionRecord],
    bound: str | None,
) -> CriterionResult:
    result = CriterionResult(todo, index, clip(text, 500), "", "not-executed")
    if not records:
        result.message = "no record of it was ever executed"
        return result
    result.record = records[-1]
    judging = _Judging(run, text, command, bound, result)
    matching = records
    for narrow in (_by_text, _by_steps, _by_plan):
        matching = narrow(judging, matching)
        if not matching:
            return result
        result.record = matching[-1]
    return _by_execution(result, matching)


def _recorded_steps(record: CriterionRecord) -> list[dict[str, object]]:
    """The (command, expectation) steps a record ran; a record from before steps were
    recorded ran its one command, judged by exit 0."""
    if record.steps is not None:
        return record.steps
    return [{"command": (record.command or "").strip(), "expect": {"exit": 0}}]


_CRITERION_RULE = {
    "not-executed": "criterion-not-executed",
    "failed": "criterion-failed",
    "asserted": "criterion-asserted",
    "text-mismatch": "criterion-text-mismatch",
    "wrong-plan": "criterion-wrong-plan",
}


def _emit_criterion(emit: _Emitter, run: AuditedRun, result: CriterionResult) -> None:
    rule = _CRITERION_RULE[result.status]
    where = result.record.where if result.record else run.plan_path
    file, line, extra = _split_where(where)
    emit(
        rule,
        "error",
        f"todo {result.todo} criterion {result.index} ({clip(result.text, 120)}): {result.message}",
        file,
        line,
        **extra,
        todo=result.todo,
        criterion=result.index,
        key=f"{rule}/{result.todo}/{result.index}",
    )


def _split_where(where: str | None) -> tuple[str | None, int | None, dict[str, object]]:
    """`path:12` -> (path, 12, {}); `path $.a[0]` -> (path, None, {"json_path": "$.a[0]"})."""
    if not where:
        return None, None, {}
    path, sep, json_path = where.partition(" $")
    extra: dict[str, object] = {"json_path": "$" + json_path} if sep else {}
    head, sep, tail = path.rpartition(":")
    if sep and tail.isdigit():
        return head, int(tail), extra
    return path, None, extra


# ----------------------------------------------------------------------------- review


def _review(run: AuditedRun, emit: _Emitter) -> None:
    review = run.review
    state = run.state_path
    if review.verdict != "OKAY":
        said = review.verdict or "no verdict"
        emit(
            "review-not-okay",
            "error",
            f"review verdict is {said}: the plan was never accepted",
            state,
            key="verdict",
        )
    deciding = _deciding_round(review.rounds) if review.verdict == "OKAY" else None
    if review.verdict == "OKAY" and deciding is None:
        emit(
            "review-artifact",
            "error",
            "verdict OKAY but no OKAY round is recorded in review.history",
            state,
            key="no-round",
        )
    if deciding is not None:
        _deciding_artifact(run, deciding, emit)
    _nonces(run, emit)
    _transcripts(run, emit)
    bound = review.plan_sha256
    if review.verdict == "OKAY":
        if not bound:
            emit("plan-drift", "error", "verdict OKAY binds no plan hash", state, key="unbound")
        elif bound != run.plan_sha256_on_disk:
            emit(
                "plan-drift",
                "error",
                f"plan on disk ({short_hash(run.plan_sha256_on_disk)}) is not the plan bound at "
                f"OKAY ({short_hash(bound)}): it changed after review",
                run.plan_path,
                key="drift",
            )
    if review.verdict == "OKAY" and deciding is not None:
        _bound_elsewhere(run, deciding, emit)
    numbers = [r.round for r in review.rounds if r.round is not None]
    highest = max([*numbers, review.round or 0])
    if highest > review.max_rounds:
        emit(
            "review-rounds-exceeded",
            "error",
            f"{highest} review rounds recorded; the bound is {review.max_rounds}",
            state,
            key="rounds",
        )


def _bound_elsewhere(run: AuditedRun, deciding: AuditedRound, emit: _Emitter) -> None:
    """The plan hash is also bound where the state's editable field is not: in the
    consumed nonce of the deciding round and in its review artifact. Both must name
    the plan on disk, or the plan changed after review and the state was edited."""
    disk = run.plan_sha256_on_disk
    consumed = {c.nonce: c for c in run.review.consumed}
    bindings: list[tuple[str, str | None, str | None]] = []
    if deciding.nonce is not None and deciding.nonce in consumed:
        bindings.append(
            (
                f"review.consumed_nonces[{clip(deciding.nonce, 40)}].plan_sha256",
                consumed[deciding.nonce].plan_sha256,
                run.state_path,
            )
        )
    if deciding.artifact_found:
        bindings.append(
            ("the review artifact's plan_sha256", deciding.artifact_plan_sha256, deciding.artifact)
        )
    for label, value, where in bindings:
        if value is None or value == disk:
            continue
        emit(
            "plan-drift",
            "error",
            f"{label} ({short_hash(value)}) is not the plan on disk ({short_hash(disk)}): the "
            f"plan reviewed in round {deciding.round} is not the plan this run has",
            where,
            key=f"bound/{label[:40]}",
        )


def _deciding_round(rounds: list[AuditedRound]) -> AuditedRound | None:
    for entry in reversed(rounds):
        if entry.verdict == "OKAY":
            return entry
    return None


def _deciding_artifact(run: AuditedRun, deciding: AuditedRound, emit: _Emitter) -> None:
    label = f"round {deciding.round}"
    if (
        deciding.human_by is not None
        and not deciding.artifact_found
        and deciding.recorded_sha256 is None
    ):
        return  # a person's verdict that recorded no artifact has none to check
    if not deciding.artifact_found or deciding.artifact_problem:
        reason = deciding.artifact_problem or "is missing"
        emit(
            "review-artifact",
            "error",
            f"OKAY {label}: review artifact {deciding.artifact or '(none recorded)'} {reason}",
            deciding.artifact or run.state_path,
            key=f"artifact/{deciding.round}",
        )
        return
    if (deciding.artifact_verdict or "").upper() != "OKAY":
        emit(
            "review-artifact",
            "error",
            f"OKAY {label}: the artifact says {clip(deciding.artifact_verdict, 40)!r}",
            deciding.artifact,
            key=f"verdict/{deciding.round}",
        )
    if deciding.artifact_round is not None and deciding.artifact_round != deciding.round:
        emit(
            "review-artifact",
            "error",
            f"OKAY {label}: the artifact belongs to round {deciding.artifact_round}",
            deciding.artifact,
            key=f"round/{deciding.round}",
        )
    if deciding.recorded_sha256 and deciding.recorded_sha256 != deciding.artifact_sha256:
        emit(
            "review-artifact",
            "error",
            f"OKAY {label}: the artifact changed after it was recorded (sha256 now "
            f"{short_hash(deciding.artifact_sha256)}, recorded {short_hash(deciding.recorded_sha256)})",
            deciding.artifact,
            key=f"sha/{deciding.round}",
        )


def _nonces(run: AuditedRun, emit: _Emitter) -> None:
    review = run.review
    consumed = {c.nonce: c for c in review.consumed}
    seen: dict[str, int | None] = {}
    deciding = _deciding_round(review.rounds)
    for entry in review.rounds:
        if entry.human_by is not None:
            continue  # a person's verdict needs no reviewer nonce
        nonce = entry.nonce
        if nonce is None:
            if entry is deciding:
                emit(
                    "nonce-reuse",
                    "error",
                    f"OKAY round {entry.round} carries no review nonce",
                    entry.artifact or run.state_path,
                    key=f"none/{entry.round}",
                )
            continue
        shown = clip(nonce, 16)
        if nonce in seen:
            emit(
                "nonce-reuse",
                "error",
                f"nonce {shown} is used by round {seen[nonce]} and round {entry.round}",
                entry.artifact,
                key=f"dup/{entry.round}",
            )
        seen[nonce] = entry.round
        record = consumed.get(nonce)
        if record is None:
            emit(
                "nonce-reuse",
                "error",
                f"round {entry.round}: nonce {shown} was never consumed (not minted for a "
                "dispatched reviewer)",
                entry.artifact,
                key=f"unconsumed/{entry.round}",
            )
        elif record.round is not None and entry.round is not None and record.round != entry.round:
            emit(
                "nonce-reuse",
                "error",
                f"round {entry.round}: nonce {shown} was consumed by round {record.round}",
                entry.artifact,
                key=f"other/{entry.round}",
            )
    if review.pending_nonce is not None and review.pending_nonce in consumed:
        emit(
            "nonce-reuse",
            "error",
            f"pending nonce {clip(review.pending_nonce, 16)} was already consumed",
            run.state_path,
            key="pending",
        )


def _transcripts(run: AuditedRun, emit: _Emitter) -> None:
    """Each reviewer verdict taken from a harness report is checked against the
    harness's own transcript of the session, when the report named one."""
    from zodyssey.runs.review import transcript_holds

    for entry in run.review.rounds:
        if entry.dispatch_sha256 is None or not entry.transcript_path:
            continue
        found = transcript_holds(entry.transcript_path, entry.dispatch_sha256, entry.dispatch_agent)
        if found is None:
            emit(
                "review-transcript",
                "warning",
                f"round {entry.round}: the harness transcript {entry.transcript_path} cannot be "
                "read here, so the reviewer dispatch is not cross-checked",
                entry.artifact or run.state_path,
                key=f"unread/{entry.round}",
            )
        elif not found:
            emit(
                "review-transcript",
                "error",
                f"round {entry.round}: the harness transcript {entry.transcript_path} records no "
                f"dispatch of the reviewer {entry.dispatch_agent or ''} this verdict came from",
                entry.artifact or run.state_path,
                key=f"absent/{entry.round}",
            )


# ----------------------------------------------------------------------------- windows


def _windows(run: AuditedRun, emit: _Emitter) -> None:
    for position, window in enumerate(run.windows):
        file, line, extra = _split_where(window.where)
        if not window.present:
            emit(
                "window-missing",
                "error",
                f"{window.label}: no readOnlyViolation recorded, the window was not witnessed",
                file,
                line,
                key=f"missing/{window.label}",
                **extra,
            )
        elif window.violation is True:
            detail = f": {window.detail}" if window.detail else ""
            emit(
                "window-violated",
                "error",
                f"{window.label}: the read-only window was violated{detail}",
                file,
                line,
                key=f"violated/{window.label}",
                **extra,
            )
        elif (
            window.violation is False
            and run.source == "zodyssey"
            and (window.timed_out or window.exit_code != 0)
            and not _passed_later(run.windows[position + 1 :], window.label)
        ):
            how = "timed out" if window.timed_out else f"exited {window.exit_code}"
            emit(
                "window-auditor-failed",
                "error",
                f"{window.label}: the auditor {how}; the tree stayed unchanged, but an audit "
                "that did not run to its end is not a clean audit",
                file,
                line,
                key=f"auditor/{window.label}",
                **extra,
            )
        elif window.violation is None:
            emit(
                "window-unknown",
                "error",
                f"{window.label}: readOnlyViolation is null (git state could not be read); "
                "could not verify is not a pass",
                file,
                line,
                key=f"unknown/{window.label}",
                **extra,
            )
    witnessed = [w for w in run.windows if w.present]
    if run.claims_external_audit and not witnessed:
        emit(
            "window-missing",
            "error",
            "the run claims an external audit but records no read-only window",
            run.state_path,
            key="claimed",
        )


def _passed_later(later: list[WindowRecord], label: str) -> bool:
    """An auditor that failed is superseded by a later clean run of the same window
    (a violation never is: what it changed stays changed)."""
    return any(
        w.label == label and w.violation is False and w.exit_code == 0 and not w.timed_out
        for w in later
    )


def _final_wave(run: AuditedRun, emit: _Emitter) -> None:
    """The JS pipeline's final verification wave (F1 scope, F2 code review, F3 QA
    checklist, F4 scope review, F5 routing): it must have passed, unwaived."""
    final = run.final
    if final is None:
        if run.source == "js-pipeline" and run.phase in COMPLETED_PHASES:
            emit(
                "final-wave-missing",
                "error",
                f"phase is {run.phase} but no final verification wave is recorded",
                run.state_path,
                key="final-missing",
            )
        return
    file, line, extra = _split_where(final.where)
    failed = [i for i in final.items if i.passed is not True]
    if final.verdict != "pass" or failed:
        detail = "; ".join(
            f"{i.name}: {'not evaluated' if i.not_evaluated else 'failed'}"
            + (f" ({clip(i.reason, 200)})" if i.reason else "")
            for i in failed
        )
        emit(
            "final-wave-failed",
            "error",
            f"final.verdict is {clip(final.verdict or 'missing', 40)}"
            + (f": {detail}" if detail else ""),
            file,
            line,
            key="final-failed",
            **extra,
        )
    if final.artifact_found and final.artifact_all_pass is not None:
        if final.artifact_all_pass != (final.verdict == "pass"):
            emit(
                "final-wave-failed",
                "error",
                f"{final.artifact} says all_pass is {str(final.artifact_all_pass).lower()} but "
                f"final.verdict is {clip(final.verdict, 40)}: one of them was edited",
                final.artifact,
                key="final-artifact",
            )
    elif run.source == "js-pipeline":
        emit(
            "final-wave-failed",
            "error",
            f"the final wave's artifact {final.artifact} is missing or unreadable",
            final.artifact or run.state_path,
            key="final-artifact-missing",
        )
    skipped = [i.name for i in final.items if i.skipped]
    waived = list(dict.fromkeys([*final.waived, *skipped]))
    if waived:
        reason = clip(final.waived_reason or "no reason recorded", 300)
        emit(
            "final-wave-waived",
            "warning",
            f"final-wave item(s) {', '.join(waived)} were waived, not passed: {reason}",
            file,
            line,
            key="final-waived",
            **extra,
        )


def _external_audit(run: AuditedRun, emit: _Emitter) -> None:
    """The JS pipeline's external audit (consult.mjs), reported by its own verdict."""
    if run.source != "js-pipeline":
        return
    audits = run.external_audits
    verdict = run.external_verdict or (audits[-1].verdict if audits else None)
    if not audits and verdict is None:
        if run.phase == "audited":
            emit(
                "external-audit-missing",
                "error",
                "phase is audited but no external audit round is recorded (consult.history)",
                run.state_path,
                key="audit-missing",
            )
        return
    if verdict == "ACCEPT":
        return
    last = audits[-1] if audits else None
    gaps = "; ".join(last.gaps[:5]) if last else ""
    summary = f": {last.summary}" if last and last.summary else ""
    file, line, extra = _split_where(last.where if last else run.state_path)
    emit(
        "external-audit-rejected",
        "error",
        f"the external auditor's verdict is {clip(verdict or 'missing', 40)}"
        f"{' in round ' + str(last.round) if last and last.round is not None else ''}"
        f"{summary}{' (gaps: ' + gaps + ')' if gaps else ''}",
        file,
        line,
        key="audit-rejected",
        **extra,
    )


def _ungated_and_overrides(run: AuditedRun, emit: _Emitter) -> None:
    for call in run.ungated:
        file, line, extra = _split_where(call.where)
        emit(
            "ungated-shell",
            "warning",
            f"ungated shell call: {clip(call.command, 300)}",
            file,
            line,
            key=call.where,
            **extra,
        )
    for event in run.gate_events:
        if not event.override:
            continue
        file, line, extra = _split_where(event.where)
        by = f" by {event.by}" if event.by else ""
        emit(
            "check-override",
            "warning",
            f"gate overridden{by}: {event.check}: "
            f"{clip(event.reason or 'no reason recorded', 300)}",
            file,
            line,
            key=event.where,
            **extra,
        )


def _effect_violations(run: AuditedRun, emit: _Emitter) -> None:
    """Every change the post-call effect check caught (zodyssey/sandbox/violations.py)
    fails the audit, resolved or not: the run let a forbidden change happen."""
    if run.source != "zodyssey":
        return
    from pathlib import Path

    from zodyssey.core.paths import evidence_path
    from zodyssey.runs import evidence as chain

    root = Path(run.state_path).resolve().parent.parent.parent
    path = evidence_path(root, run.slug)
    read = chain.read_evidence(path)
    for number, record in zip(read.lines, read.records, strict=False):
        if record.get("kind") != chain.VIOLATION:
            continue
        raw = record.get("changes")
        changes: list[object] = raw if isinstance(raw, list) else []
        paths = ", ".join(str(c.get("path")) for c in changes[:5] if isinstance(c, dict))
        emit(
            "effect-violation",
            "error",
            f"{record.get('when') or 'a tool call'} changed what the run did not allow: "
            f"{clip(paths, 300)} (tool_use_id {record.get('tool_use_id')})",
            str(path),
            number,
            key=f"violation-{record.get('seq')}",
        )
