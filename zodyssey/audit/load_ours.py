"""Runs written by `zodyssey run`, read into the audit's model.

The state is validated with our pydantic models (`zodyssey/runs/models.py`),
the evidence chain with the very functions `zodyssey run` uses
(`zodyssey/runs/evidence.py`: `read_evidence`, `verify_chain`,
`record_passed`), so "passed" means the same thing in both places.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from zodyssey.audit.artifacts import (
    as_bool,
    as_dict,
    as_float,
    as_int,
    as_list,
    as_str,
    display_path,
    read_bytes,
)
from zodyssey.audit.load_common import (
    load_plan,
    load_review_header,
    load_ungated,
    read_review_artifact,
    review_artifact_path,
)
from zodyssey.audit.model import (
    AuditedNonce,
    AuditedRound,
    AuditedRun,
    AuditedTodo,
    CriterionRecord,
    GateEvent,
    PhaseEvent,
    WindowRecord,
    clip,
)
from zodyssey.audit.validation import MAX_VIOLATIONS
from zodyssey.core.paths import evidence_path

_FORCED_TODO = re.compile(r"^todo (\S+) done$")

# Commands whose --force is stamped into the evidence chain (see `_override`).
CHAINED_OVERRIDES = frozenset({"todo", "phase"})

# Where the evidence log may not be read whole: far beyond any real run.
MAX_EVIDENCE_BYTES = 256 * 1024 * 1024


def is_ours(state: Any, root: Path, slug: str) -> bool:
    """A run we wrote: marked by its creator, or carrying our evidence lanes or log."""

    doc = as_dict(state)
    created = as_str(doc.get("created_by")) or ""
    if created.startswith("zodyssey"):
        return True
    if any(key in doc for key in ("evidence", "gate_log", "phase_history")):
        return True
    return evidence_path(root, slug).exists()


def json_path(loc: tuple[Any, ...]) -> str:
    out = "$"
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def _pydantic_problems(
    run: AuditedRun, model: Any, value: Any, where: str, line: int | None = None
) -> bool:
    """Validate `value` with `model`; record each violation with its JSON path."""
    from pydantic import ValidationError

    try:
        model.model_validate(value)
        return True
    except ValidationError as exc:
        errors = exc.errors(include_url=False, include_input=False)
        for error in errors[:MAX_VIOLATIONS]:
            path = json_path(tuple(error.get("loc", ())))
            run.problem(
                "schema-violation",
                f"{path}: {clip(error.get('msg', 'invalid'), 200)}",
                where,
                line=line,
                json_path=path,
            )
        if len(errors) > MAX_VIOLATIONS:
            run.problem(
                "schema-violation",
                f"{len(errors) - MAX_VIOLATIONS} more violations",
                where,
                line=line,
            )
        return False


def load(root: Path, slug: str, state: Any, state_file: Path) -> AuditedRun:
    from zodyssey.runs.models import RunState

    where = display_path(state_file, root)
    run = AuditedRun(slug=slug, source="zodyssey", state_path=where)
    _pydantic_problems(run, RunState, state, where)
    doc = as_dict(state)
    run.title = clip(as_str(doc.get("title")) or "", 300)
    run.phase = clip(as_str(doc.get("phase")) or "", 40)
    run.started_at = as_str(doc.get("started_at"))
    run.updated_at = as_str(doc.get("updated_at"))
    load_plan(run, root, doc.get("plan_path"), doc)
    _load_todos(run, doc)
    _load_review(run, root, doc)
    records = _load_evidence(run, root, doc)
    _cross_check(run, root, doc, records)
    _check_latest(run, root, doc, state_file)
    _load_criteria(run, records)
    _load_windows(run, doc, records)
    _load_gate_log(run, doc)
    _load_phases(run, doc)
    load_ungated(run, root)
    from zodyssey.runs.worktree import content_digest

    run.worktree_digest_now = content_digest(root)
    return run


def _load_todos(run: AuditedRun, doc: dict[str, Any]) -> None:
    for key, raw in as_dict(doc.get("todos")).items():
        todo = as_dict(raw)
        reason = todo.get("forced_reason")
        run.todos[clip(key, 40)] = AuditedTodo(
            id=clip(key, 40),
            status=as_str(todo.get("status")) or "unknown",
            forced=as_bool(todo.get("forced")) is True,
            forced_reason=clip(reason, 500) if reason is not None else None,
            attempts=as_int(todo.get("attempts")),
        )


def _load_review(run: AuditedRun, root: Path, doc: dict[str, Any]) -> None:
    from zodyssey.runs.models import ReviewArtifact

    review = as_dict(doc.get("review"))
    state = run.review
    load_review_header(run, review, "artifact_sha256")
    # A verdict from a reported reviewer dispatch is spent like a nonce: its digest.
    for digest, raw in as_dict(review.get("consumed_dispatches")).items():
        entry = as_dict(raw)
        state.consumed.append(
            AuditedNonce(
                nonce=digest,
                round=as_int(entry.get("round")),
                artifact=as_str(entry.get("artifact")),
                sha256=as_str(entry.get("artifact_sha256")),
            )
        )
    if as_str(review.get("source")) == "human":
        state.human_by = clip(as_str(review.get("by")) or "a person", 100)
    for raw in as_list(review.get("history")):
        entry = as_dict(raw)
        number = as_int(entry.get("round"))
        human = as_str(entry.get("source")) == "human"
        dispatch = as_dict(entry.get("dispatch"))
        rnd = AuditedRound(
            round=number,
            verdict=as_str(entry.get("verdict")),
            at=as_str(entry.get("at")),
            human_by=clip(as_str(entry.get("by")) or "a person", 100) if human else None,
            nonce=as_str(entry.get("nonce")) or as_str(dispatch.get("sha256")),
            blockers=len(as_list(entry.get("blockers"))),
            recorded_sha256=as_str(entry.get("artifact_sha256")),
            dispatch_sha256=as_str(dispatch.get("sha256")),
            dispatch_agent=as_str(dispatch.get("agent")),
            transcript_path=as_str(dispatch.get("transcript_path")),
        )
        if number is not None and number >= 1:
            path = review_artifact_path(root, run.slug, number, entry.get("artifact"), doc)
            artifact = read_review_artifact(run, root, rnd, path, None)
            if rnd.artifact_found and rnd.artifact_problem is None:
                _pydantic_problems(run, ReviewArtifact, artifact, rnd.artifact or "")
            rnd.artifact_verdict = as_str(artifact.get("verdict"))
            rnd.artifact_nonce = as_str(artifact.get("nonce"))
            rnd.artifact_round = as_int(artifact.get("round"))
            if (
                rnd.artifact_nonce is not None
                and rnd.nonce is not None
                and (rnd.artifact_nonce != rnd.nonce)
            ):
                run.problem(
                    "review-artifact",
                    f"round {number}: the artifact's nonce is not the one the state recorded",
                    rnd.artifact,
                )
        state.rounds.append(rnd)


def _load_evidence(run: AuditedRun, root: Path, doc: dict[str, Any]) -> list[dict[str, Any]]:
    from zodyssey.runs.evidence import read_evidence, verify_chain
    from zodyssey.runs.models import EvidenceRecord

    path = _evidence_file(root, run.slug, doc)
    where = display_path(path, root)
    head = as_dict(doc.get("evidence"))
    expected_count = as_int(head.get("count")) if "count" in head else None
    expected_head = as_str(head.get("head"))
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        size = 0
    except OSError as exc:
        run.problem("chain-broken", f"cannot read the evidence log: {exc.strerror}", where)
        run.chain_intact = False
        return []
    if size > MAX_EVIDENCE_BYTES:
        run.problem("chain-broken", f"evidence log is {size} bytes, over the audit's limit", where)
        run.chain_intact = False
        return []
    result = read_evidence(path)
    problems = list(result.problems)
    lines = list(result.lines)
    try:
        problems += verify_chain(
            result.records,
            lines=lines,
            expected_count=expected_count,
            expected_head=expected_head,
        )
    except (TypeError, ValueError, RecursionError) as exc:
        # A record whose values cannot be serialised back (not JSON-shaped) is tampering too.
        problems.append(_chain_problem(str(exc)))
    for problem in problems:
        run.problem(
            "chain-broken",
            clip(problem.message, 300),
            where,
            line=problem.line or None,
        )
    run.chain_intact = not problems
    shown = 0
    records: list[dict[str, Any]] = []
    for position, record in enumerate(result.records):
        line = lines[position] if position < len(lines) else position + 1
        if shown < MAX_VIOLATIONS and not _pydantic_problems(
            run, EvidenceRecord, record, where, line
        ):
            shown += 1
        # `_line` is ours, added to a copy after hashing: where each record sits in the file.
        records.append({**record, "_line": line})
    run.evidence_records = len(records)
    _check_outputs(run, root, records, where, path.parent / "output")
    return records


_SEQ_IN_REASON = re.compile(r"\((?:evidence )?seq (\d+)\)")


def _cross_check(
    run: AuditedRun, root: Path, doc: dict[str, Any], records: list[dict[str, Any]]
) -> None:
    """Every place the state speaks of an execution must agree with the chain.

    The chain's records must name this run (slug and run id); the state's own
    `evidence` head, its `verify.history` (seq, todo, criterion, result, exit
    code), its gate log's `(evidence seq N)` decisions and its windows must
    each point at a record that says the same; and the chain's head must be
    the one anchored in git (`zodyssey/runs/anchor.py`).
    """
    from zodyssey.runs.anchor import read_anchors

    state = run.state_path
    evidence_file = evidence_path("", run.slug)  # as the repository names it
    by_seq: dict[int, dict[str, Any]] = {}
    for record in records:
        seq = as_int(record.get("seq"))
        if seq is not None:
            by_seq.setdefault(seq, record)
    run_id = as_str(doc.get("run_id"))
    _foreign_records(run, records, run_id, evidence_file)
    head = doc.get("evidence")
    if records and (not isinstance(head, dict) or "count" not in head or "head" not in head):
        run.problem(
            "chain-broken",
            "the run state records no evidence head (`evidence.count` and `evidence.head`): "
            "a shortened chain could not be told from a whole one",
            state,
            json_path="$.evidence",
        )
    _history_agrees(run, doc, by_seq)
    _gate_log_agrees(run, doc, by_seq)
    anchors = read_anchors(root, run.slug, run_id)
    if not anchors.available:
        run.problem(
            "evidence-unanchored",
            "the repository is not a git work tree: the chain's head is kept nowhere but "
            "the state, so a chain cut short together with the state cannot be detected",
            state,
            severity="note",
        )
    elif records or anchors.entries:
        _check_anchor(run, anchors.entries, anchors.problem, by_seq, len(records), evidence_file)
        if anchors.expired:
            run.problem(
                "evidence-unanchored",
                "the anchor's reflog has expired (`git gc`, `git reflog expire`): the chain's "
                "head was checked against the anchor ref itself, which pins every record up to "
                "it; what the reflog proved beyond that, that no record anchored earlier was "
                "cut off and the chain grown again, can no longer be checked",
                evidence_file,
                severity="note",
            )


def _foreign_records(
    run: AuditedRun, records: list[dict[str, Any]], run_id: str | None, evidence_file: str
) -> None:
    """Records naming another slug or run id than the state's."""
    foreign = 0
    for record in records:
        named_slug = record.get("slug")
        named_run = record.get("run_id")
        if named_slug == run.slug and (named_run is None or named_run == run_id):
            continue
        foreign += 1
        if foreign > MAX_VIOLATIONS:
            continue
        run.problem(
            "chain-broken",
            f"record seq {clip(record.get('seq'), 20)} belongs to another run (slug "
            f"{clip(named_slug, 60)!r}, run id {clip(named_run, 40)}), not "
            f"{run.slug!r} ({clip(run_id, 40)})",
            evidence_file,
            line=as_int(record.get("_line")),
        )


def _history_agrees(
    run: AuditedRun, doc: dict[str, Any], by_seq: dict[int, dict[str, Any]]
) -> None:
    """Each `verify.history` entry says what the record it names says."""
    from zodyssey.runs.evidence import record_passed

    verify = as_dict(doc.get("verify"))
    for position, raw in enumerate(as_list(verify.get("history"))):
        entry = as_dict(raw)
        seq = as_int(entry.get("seq"))
        chained = by_seq.get(seq) if seq is not None else None
        path = f"$.verify.history[{position}]"
        label = f"verify.history[{position}] (todo {clip(entry.get('todo_id'), 40)} criterion {clip(entry.get('criterion_index'), 10)})"
        if chained is None or chained.get("kind") != "criterion":
            run.problem(
                "evidence-disagrees",
                f"{label} names evidence seq {clip(seq, 20)}, which the chain does not hold",
                run.state_path,
                json_path=path,
            )
            continue
        if not _entry_matches(entry, chained):
            run.problem(
                "evidence-disagrees",
                f"{label} says {'passed' if entry.get('passed') is True else 'failed'} with exit "
                f"{clip(entry.get('exit_code'), 20)}; record seq {seq} says "
                f"{'passed' if record_passed(chained) else 'failed'} with exit "
                f"{clip(chained.get('exit_code'), 20)}",
                run.state_path,
                json_path=path,
            )


def _entry_matches(entry: dict[str, Any], chained: dict[str, Any]) -> bool:
    """A history entry says what its criterion record says (todo, index, outcome, exit)."""
    from zodyssey.runs.evidence import record_passed

    return (
        str(chained.get("todo")) == str(entry.get("todo_id"))
        and chained.get("criterion_index") == entry.get("criterion_index")
        and record_passed(chained) == (entry.get("passed") is True)
        and chained.get("exit_code") == entry.get("exit_code")
    )


def _logged_outcome(decision: str, logged: dict[str, Any]) -> tuple[bool, bool] | None:
    """(what the gate log said, what the record says) as passed/not; None: not comparable."""
    from zodyssey.runs.evidence import record_passed

    kind = logged.get("kind")
    if kind == "window":
        return decision == "pass", logged.get("readOnlyViolation") is False
    if kind in ("criterion", "check") and decision in ("pass", "fail", "warn"):
        return decision == "pass", record_passed(logged)
    return None


def _gate_log_agrees(
    run: AuditedRun, doc: dict[str, Any], by_seq: dict[int, dict[str, Any]]
) -> None:
    """Each gate-log decision naming `(evidence seq N)` says what record N says."""
    for position, raw in enumerate(as_list(doc.get("gate_log"))):
        entry = as_dict(raw)
        found = _SEQ_IN_REASON.search(as_str(entry.get("reason")) or "")
        if found is None:
            continue
        seq = int(found.group(1))
        logged = by_seq.get(seq)
        path = f"$.gate_log[{position}]"
        command = as_str(entry.get("command")) or "?"
        decision = as_str(entry.get("decision")) or "?"
        if logged is None:
            run.problem(
                "evidence-disagrees",
                f"gate_log[{position}] ({command} {decision}) names evidence seq {seq}, which the chain does not hold",
                run.state_path,
                json_path=path,
            )
            continue
        compared = _logged_outcome(decision, logged)
        if compared is not None and compared[0] != compared[1]:
            run.problem(
                "evidence-disagrees",
                f"gate_log[{position}] says {command} {decision} for evidence seq {seq}; the "
                f"record says it {'passed' if compared[1] else 'did not pass'}",
                run.state_path,
                json_path=path,
            )


def _check_latest(run: AuditedRun, root: Path, doc: dict[str, Any], state_file: Path) -> None:
    """The state is a run `run start` began here; the live state is the latest of its slug.

    An older run's state and chain copied over the current one (or another
    repository's) pass every other check: they agree with themselves.
    """
    from zodyssey.core.paths import state_path
    from zodyssey.runs.anchor import latest_started, started_runs

    started = started_runs(root, run.slug)
    run_id = as_str(doc.get("run_id"))
    try:
        live = state_file.resolve() == state_path(root, run.slug).resolve()
    except (OSError, RuntimeError):
        live = True
    if started is None:
        # No reflog (expired, or runs started before start anchors existed, or outside
        # git): the ref still names the latest run, which the live state must be;
        # which runs were started before it can no longer be told.
        latest = latest_started(root, run.slug)
        if latest is None or not live or latest == run_id:
            return
        started = [latest]
    elif run_id not in started:
        message = f"run id {clip(run_id, 40)} was never started in this repository"
        run.problem("chain-broken", message, run.state_path, json_path="$.run_id")
        return
    if live and started[-1] != run_id:
        message = (
            f"the state is run {clip(run_id, 40)}, but run {started[-1]} of {run.slug!r} was "
            "started after it: an older run's state stands where the current one should"
        )
        run.problem("chain-broken", message, run.state_path, json_path="$.run_id")


def _check_anchor(
    run: AuditedRun,
    entries: list[tuple[int, str]],
    problem: str | None,
    by_seq: dict[int, dict[str, Any]],
    count: int,
    where: str,
) -> None:
    if problem is not None and not entries:
        run.problem(
            "evidence-unanchored",
            f"the evidence chain's head is not anchored in git: {problem}",
            where,
        )
        return
    if problem is not None:
        run.problem("chain-broken", f"the evidence anchor: {problem}", where)
    for seq, digest in entries:
        record = by_seq.get(seq)
        if record is None or record.get("hash") != digest:
            run.problem(
                "chain-broken",
                f"git anchored record seq {seq} with hash {digest[:12]}; the chain "
                + ("no longer holds it" if record is None else "holds another record there")
                + " (records were cut off, or edited and rehashed)",
                where,
            )
            return
    last = entries[-1][0] if entries else 0
    if last != count:
        run.problem(
            "chain-broken",
            f"the chain holds {count} records; the last one anchored in git is seq {last}",
            where,
        )


def _evidence_file(root: Path, slug: str, doc: dict[str, Any]) -> Path:
    """The chain the state names (`evidence.path`, e.g. an archived run's), when it lies
    under the repository's `.zcode/`; else the slug's default place. Whatever file it
    is, its records must name this run (`_cross_check`)."""
    from zodyssey.core.paths import zcode_dir

    named = as_str(as_dict(doc.get("evidence")).get("path"))
    if named and "\x00" not in named:
        path = Path(named)
        path = path if path.is_absolute() else root / path
        try:
            if path.resolve().is_relative_to(zcode_dir(root).resolve()):
                return path
        except (OSError, RuntimeError):
            pass
    return evidence_path(root, slug)


def _chain_problem(message: str) -> Any:
    from zodyssey.runs.evidence import ChainProblem

    return ChainProblem(0, None, f"the chain cannot be verified: {message}")


def _check_outputs(
    run: AuditedRun, root: Path, records: list[dict[str, Any]], where: str, folder: Path
) -> None:
    """Recorded output hashes must match the stored bytes, where bytes were stored."""
    checked: dict[str, str | None] = {}
    for record in records:
        line = as_int(record.get("_line"))
        for stream in ("stdout", "stderr"):
            capture = as_dict(record.get(stream))
            digest = as_str(capture.get("sha256"))
            if not digest or capture.get("stored") is not True:
                continue
            if not _is_hex64(digest):
                run.problem(
                    "output-mismatch",
                    f"{stream} hash {clip(digest, 20)!r} is not a sha256",
                    where,
                    line=line,
                )
                continue
            if digest not in checked:
                checked[digest] = _stored_output_problem(folder, digest, capture)
            problem = checked[digest]
            if problem is not None:
                run.problem(
                    "output-mismatch",
                    f"record seq {clip(record.get('seq'), 20)} {stream}: {problem} "
                    f"(output/{digest[:12]}...)",
                    where,
                    line=line,
                )


def _stored_output_problem(folder: Path, digest: str, capture: dict[str, Any]) -> str | None:
    """What is wrong with the output stored under `digest` (None: it is what was recorded)."""
    data, reason = read_bytes(folder / digest)
    if data is None:
        return f"stored output is missing ({reason})"
    if hashlib.sha256(data).hexdigest() != digest:
        return "stored output does not hash to the recorded sha256"
    if as_int(capture.get("size")) not in (None, len(data)):
        return "stored output size differs from the recorded size"
    return None


def _is_hex64(value: str) -> bool:
    return len(value) == 64 and all(ch in "0123456789abcdef" for ch in value)


def _where(run: AuditedRun, record: dict[str, Any]) -> str:
    line = as_int(record.get("_line"))
    base = evidence_path("", run.slug)  # relative to the repository
    return f"{base}:{line}" if line else base


def _load_criteria(run: AuditedRun, records: list[dict[str, Any]]) -> None:
    for record in records:
        kind = record.get("kind")
        if kind == "override":
            _override(run, record)
            continue
        todo_id = record.get("todo")
        index = as_int(record.get("criterion_index"))
        if kind != "criterion" or index is None:
            continue
        if isinstance(todo_id, str | int) and not isinstance(todo_id, bool):
            run.criteria.append(_criterion_record(run, record, str(todo_id), index))


def _criterion_status(record: dict[str, Any], passed: bool, timed_out: bool) -> str:
    """passed, timeout, signal N or failed."""
    signal = as_int(record.get("signal"))
    if signal is not None and not timed_out:
        return f"signal {signal}"
    if passed:
        return "passed"
    return "timeout" if timed_out else "failed"


def _criterion_record(
    run: AuditedRun, record: dict[str, Any], todo_id: str, index: int
) -> CriterionRecord:
    from zodyssey.runs.evidence import record_passed

    stdout = as_dict(record.get("stdout"))
    stderr = as_dict(record.get("stderr"))
    timed_out = as_bool(record.get("timed_out")) is True
    passed = record_passed(record)
    text = record.get("criterion_text")
    return CriterionRecord(
        todo=clip(todo_id, 40),
        index=index,
        where=_where(run, record),
        text=clip(as_str(text)) if text is not None else None,
        text_sha256=as_str(record.get("criterion_sha256")),
        command=clip(as_str(record.get("command")) or ""),
        executed=True,  # our writer runs the criterion itself; nothing is asserted
        exit_code=as_int(record.get("exit_code")),
        timed_out=timed_out,
        passed=passed,
        status=_criterion_status(record, passed, timed_out),
        duration_s=as_float(record.get("duration_s")),
        started_at=as_str(record.get("started_at")),
        finished_at=as_str(record.get("finished_at")),
        plan_sha256=as_str(record.get("plan_sha256")),
        seq=as_int(record.get("seq")),
        stdout_tail=clip(as_str(stdout.get("tail")) or "", 1000),
        stderr_tail=clip(as_str(stderr.get("tail")) or "", 1000),
        steps=_steps(record),
        worktree_digest=as_str(record.get("worktree_digest")),
    )


def _steps(record: dict[str, Any]) -> list[dict[str, object]] | None:
    """Each recorded step's command and expectation, as the plan's criterion states them."""
    raw = record.get("steps")
    if raw is None:
        return None
    out: list[dict[str, object]] = []
    for step in as_list(raw):
        entry = as_dict(step)
        out.append(
            {"command": as_str(entry.get("command")), "expect": as_dict(entry.get("expect"))}
        )
    return out


def _mark_forced(todo: Any, reason: str) -> None:
    """The chain says this todo was forced; a done todo the state no longer says it of."""
    if todo.status == "done" and not todo.forced:
        todo.forced = True
        todo.forced_reason = reason


def _override(run: AuditedRun, record: dict[str, Any]) -> None:
    """A `--force` stamped into the chain: a forced todo, or an overridden quality gate."""
    subject = as_str(record.get("subject")) or ""
    reason = clip(as_str(record.get("reason")) or "", 500)
    # `run todo --force-done` stamps the subject "todo <id> done".
    named = _FORCED_TODO.match(subject)
    todo = run.todos.get(named.group(1) if named else subject)
    if todo is not None:
        _mark_forced(todo, reason)
        return  # reported as todo-forced
    run.gate_events.append(
        GateEvent(
            check=clip(subject or "?", 200),
            decision="override",
            at=as_str(record.get("finished_at")),
            override=True,
            reason=reason or None,
            by=clip(as_str(record.get("by")) or "", 100) or None,
            where=_where(run, record),
        )
    )


def _load_windows(run: AuditedRun, doc: dict[str, Any], records: list[dict[str, Any]]) -> None:
    seen: set[int] = set()
    for record in records:
        if record.get("kind") != "window":
            continue
        seq = as_int(record.get("seq"))
        if seq is not None:
            seen.add(seq)
        run.windows.append(_window_record(run, record, seq))
    _state_windows_agree(run, doc, records, seen)
    run.claims_external_audit = run.phase == "audited" or any(
        as_str(as_dict(p).get("to")) == "audited" for p in as_list(doc.get("phase_history"))
    )


def _window_record(run: AuditedRun, record: dict[str, Any], seq: int | None) -> WindowRecord:
    value = record.get("readOnlyViolation")
    argv = [a for a in as_list(record.get("argv")) if isinstance(a, str)]
    changed = [p for p in as_list(record.get("changed_paths")) if isinstance(p, str)]
    return WindowRecord(
        label=clip(as_str(record.get("label")) or f"window seq {seq}", 200),
        violation=value if isinstance(value, bool) else None,
        where=_where(run, record),
        present="readOnlyViolation" in record,
        command=clip(" ".join(argv) or as_str(record.get("command")) or "", 500),
        started_at=as_str(record.get("started_at")),
        finished_at=as_str(record.get("finished_at")),
        duration_s=as_float(record.get("duration_s")),
        detail=_changed_detail(changed),
        exit_code=as_int(record.get("exit_code")),
        timed_out=as_bool(record.get("timed_out")) is True,
    )


def _changed_detail(changed: list[str]) -> str:
    """The first ten paths a window changed, and how many more."""
    if not changed:
        return ""
    detail = "changed: " + ", ".join(clip(p, 120) for p in changed[:10])
    return detail + (f" and {len(changed) - 10} more" if len(changed) > 10 else "")


def _state_windows_agree(
    run: AuditedRun, doc: dict[str, Any], records: list[dict[str, Any]], seen: set[int]
) -> None:
    """Each window the state summarises is one the chain holds, as the chain holds it."""
    by_seq = {as_int(r.get("seq")): r for r in records if r.get("kind") == "window"}
    for position, raw in enumerate(as_list(doc.get("windows"))):
        entry = as_dict(raw)
        seq = as_int(entry.get("seq"))
        chained = by_seq.get(seq) if seq is not None and seq in seen else None
        if (
            chained is not None
            and chained.get("label") == entry.get("label")
            and chained.get("readOnlyViolation") == entry.get("readOnlyViolation")
        ):
            continue
        # Summarised in the state but not what the chain holds (added or edited by hand):
        # it does not count as a window, and the disagreement fails the run.
        run.problem(
            "evidence-disagrees",
            f"windows[{position}] ({clip(entry.get('label'), 80)!r}, readOnlyViolation "
            f"{clip(entry.get('readOnlyViolation'), 10)}) is not a window the evidence chain "
            f"records (seq {clip(entry.get('seq'), 20)}): it does not count",
            run.state_path,
            json_path=f"$.windows[{position}]",
        )


def _load_gate_log(run: AuditedRun, doc: dict[str, Any]) -> None:
    """Overrides logged by commands that do not stamp them into the chain.

    `run todo --force-done` and `run phase done --force` put an `override`
    record into the evidence chain (tamper-evident, read by `_override`); their
    gate-log entries would only repeat it.
    """
    for position, raw in enumerate(as_list(doc.get("gate_log"))):
        event = _logged_override(as_dict(raw), f"{run.state_path} $.gate_log[{position}]")
        if event is not None:
            run.gate_events.append(event)


def _logged_override(entry: dict[str, Any], where: str) -> GateEvent | None:
    """A gate-log entry as an override event; None when it is none (or chained)."""
    command = as_str(entry.get("command")) or ""
    decision = as_str(entry.get("decision")) or ""
    override_reason = as_str(entry.get("override_reason"))
    if command in CHAINED_OVERRIDES or not (decision == "override" or override_reason):
        return None
    return GateEvent(
        check=clip(f"{command} {as_str(entry.get('subject')) or ''}".strip() or "?", 200),
        decision=clip(decision, 40),
        at=as_str(entry.get("at")),
        override=True,
        reason=clip(override_reason or as_str(entry.get("reason")) or "", 500) or None,
        by=clip(as_str(entry.get("by")) or "", 100) or None,
        where=where,
    )


def _load_phases(run: AuditedRun, doc: dict[str, Any]) -> None:
    history = as_list(doc.get("phase_history"))
    first = as_dict(history[0]) if history else {}
    if as_str(first.get("to")) != "plan":
        # the start is a phase of its own unless the history records it
        run.phases.append(PhaseEvent("plan", run.started_at))
    for raw in history:
        entry = as_dict(raw)
        target = as_str(entry.get("to"))
        if target:
            run.phases.append(
                PhaseEvent(
                    clip(target, 40),
                    as_str(entry.get("at")),
                    clip(as_str(entry.get("note")) or "", 200),
                )
            )
