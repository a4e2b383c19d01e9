"""The evidence chain: append-only, hash-chained JSONL records of executions.

Each record carries `prev` (the previous record's `hash`) and `hash` (sha256
of its own canonical JSON without `hash`), so editing, deleting or reordering
records is detectable by `verify_chain`. The audit reuses `read_evidence`,
`verify_chain`, `canonical_bytes` and `criterion_gaps` from here, so the rule
that decides "this criterion passed" is the same in `run todo ... done` and in
`zodyssey audit`.

Standard library only (plus the store); records are plain dicts whose shape is
`zodyssey.runs.models.EvidenceRecord`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zodyssey.core.atomic import write_atomic
from zodyssey.core.files import read_regular, read_regular_text
from zodyssey.core.paths import evidence_path, state_path, verify_dir
from zodyssey.core.plan import Criterion, Todo
from zodyssey.core.store import StateError, file_lock, jsonl_values, read_json
from zodyssey.core.vocabulary import GENESIS_HASH

OUTPUT_STORE_LIMIT = 1024 * 1024  # full output kept when a stream is at most this many bytes
TAIL_BYTES = 4096


def output_dir(root: Path, slug: str) -> Path:
    return verify_dir(root, slug) / "output"


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def canonical_bytes(record: Mapping[str, Any]) -> bytes:
    """The bytes `hash` is computed over: the record without `hash`, keys sorted, compact."""
    body = {key: value for key, value in record.items() if key != "hash"}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode(
        "utf-8"
    )


def record_hash(record: Mapping[str, Any]) -> str:
    return hashlib.sha256(canonical_bytes(record)).hexdigest()


def capture_output(root: Path, slug: str, data: bytes) -> dict[str, Any]:
    """Describe one output stream; keep the full bytes content-addressed when small enough."""
    digest = hashlib.sha256(data).hexdigest()
    stored = len(data) <= OUTPUT_STORE_LIMIT
    if stored:
        target = output_dir(root, slug) / digest
        if not target.is_file():
            write_atomic(target, data)
    return {
        "sha256": digest,
        "size": len(data),
        "tail": data[-TAIL_BYTES:].decode("utf-8", errors="replace"),
        "stored": stored,
    }


def append_record(root: Path, slug: str, record: dict[str, Any]) -> dict[str, Any]:
    """Append `record` to the run's chain under the lock; fills seq, prev and hash.

    Returns the completed record. The previous record is taken from the file as
    it is on disk now, under the same lock every appender takes, so parallel
    writers extend one chain rather than forking it.
    """
    path = evidence_path(root, slug)
    with file_lock(path):
        try:
            existing = read_regular(path, "evidence chain")
        except FileNotFoundError:
            existing = b""
        except OSError as exc:
            raise StateError(f"cannot read the evidence chain {path}: {exc.strerror}") from exc
        last = _last_record(existing)
        completed = dict(record)
        completed.pop("hash", None)
        run_id = run_identity(root, slug)
        if run_id is not None:
            completed.setdefault("run_id", run_id)
        completed["seq"] = (int(last.get("seq", 0)) if last else 0) + 1
        completed["prev"] = str(last.get("hash", "")) if last else GENESIS_HASH
        completed["hash"] = record_hash(completed)
        if existing and not existing.endswith(b"\n"):
            existing += b"\n"
        line = json.dumps(completed, sort_keys=True, ensure_ascii=False) + "\n"
        write_atomic(path, existing + line.encode("utf-8"))
        from zodyssey.runs.anchor import write_anchor

        write_anchor(root, slug, run_id, int(completed["seq"]), str(completed["hash"]))
    return completed


def run_identity(root: Path, slug: str) -> str | None:
    """The `run_id` of the run's state (None when it has none or cannot be read)."""
    try:
        state = read_json(state_path(root, slug))
    except (StateError, FileNotFoundError, RecursionError):
        return None
    value = state.get("run_id") if isinstance(state, dict) else None
    return value if isinstance(value, str) and value else None


def link_records(records: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Chain records in memory (seq, prev, hash), as `append_record` would one by one.

    For fixtures and benchmarks that need a large valid chain quickly; the
    writers always go through `append_record`.
    """
    linked: list[dict[str, Any]] = []
    previous = GENESIS_HASH
    for seq, raw in enumerate(records, start=1):
        record = {key: value for key, value in raw.items() if key != "hash"}
        record["seq"] = seq
        record["prev"] = previous
        record["hash"] = previous = record_hash(record)
        linked.append(record)
    return linked


def dump_records(records: Iterable[Mapping[str, Any]]) -> str:
    """The JSONL text of records, one per line, as `append_record` writes them."""
    return "".join(json.dumps(dict(r), sort_keys=True, ensure_ascii=False) + "\n" for r in records)


def _last_record(data: bytes) -> dict[str, Any] | None:
    for line in reversed(data.splitlines()):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            # A damaged tail: chain on from nothing rather than guess; verify_chain reports it.
            return None
        return value if isinstance(value, dict) else None
    return None


@dataclass(frozen=True)
class ChainProblem:
    line: int  # 1-based line of evidence.jsonl (0 when not tied to a line)
    seq: int | None
    message: str


@dataclass
class ReadResult:
    records: list[dict[str, Any]] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)  # line number of each record in the file
    problems: list[ChainProblem] = field(default_factory=list)


def read_evidence(path: Path) -> ReadResult:
    """Read every record; a line that is not a JSON object is a problem, not an exception."""
    result = ReadResult()
    try:
        text = read_regular_text(path, "evidence chain")
    except FileNotFoundError:
        return result
    except (OSError, UnicodeDecodeError) as exc:
        result.problems.append(ChainProblem(0, None, f"cannot read {path}: {exc}"))
        return result
    for number, _line, value, error in jsonl_values(text):
        if error is not None:
            result.problems.append(
                ChainProblem(number, None, f"line {number} is not JSON ({error})")
            )
            continue
        if not isinstance(value, dict):
            result.problems.append(ChainProblem(number, None, f"line {number} is not an object"))
            continue
        result.records.append(value)
        result.lines.append(number)
    return result


def verify_chain(
    records: Iterable[Mapping[str, Any]],
    *,
    lines: Sequence[int] | None = None,
    expected_count: int | None = None,
    expected_head: str | None = None,
) -> list[ChainProblem]:
    """Every break in the chain; empty when intact.

    Checks, record by record: `hash` equals the recomputed hash (an edit),
    `prev` equals the previous record's `hash` (a deletion or reordering), and
    `seq` counts 1, 2, 3... Optionally the chain's length and last hash against
    the state's `evidence` head (a truncated tail). `lines` (from
    `read_evidence`) only improves the positions reported.
    """
    problems: list[ChainProblem] = []
    previous_hash = GENESIS_HASH
    count = 0
    for position, record in enumerate(records, start=1):
        line = lines[position - 1] if lines is not None and position <= len(lines) else position
        count = position
        problems += _link_problems(record, position, line, previous_hash)
        stated = record.get("hash")
        previous_hash = stated if isinstance(stated, str) else record_hash(record)
    return problems + _head_problems(count, previous_hash, expected_count, expected_head)


def _link_problems(
    record: Mapping[str, Any], position: int, line: int, previous_hash: str
) -> list[ChainProblem]:
    """What is wrong with one record as the `position`th link after `previous_hash`."""
    seq = record.get("seq")
    seq_int = seq if isinstance(seq, int) and not isinstance(seq, bool) else None
    found = []
    if record.get("hash") != record_hash(record):
        found.append(f"record seq {seq} was altered (hash does not match its content)")
    if record.get("prev") != previous_hash:
        found.append(
            f"record seq {seq} does not follow the record before it "
            "(a record was deleted, inserted or reordered)"
        )
    if seq_int != position:
        found.append(f"record at position {position} has seq {seq}")
    return [ChainProblem(line, seq_int, message) for message in found]


def _head_problems(
    count: int, last_hash: str, expected_count: int | None, expected_head: str | None
) -> list[ChainProblem]:
    """The chain's length and last hash against the run state's `evidence` head."""
    if expected_count is not None and count != expected_count:
        return [
            ChainProblem(
                0,
                None,
                f"the chain has {count} records but the run state recorded {expected_count}",
            )
        ]
    if expected_head is not None and count and last_hash != expected_head:
        return [
            ChainProblem(0, None, "the chain's last record is not the one the run state recorded")
        ]
    return []


def latest_criterion_record(
    records: Iterable[Mapping[str, Any]], todo_id: str, criterion: Criterion, plan_sha: str | None
) -> Mapping[str, Any] | None:
    """The latest executed record of this criterion, under this plan, with this text."""
    text_sha = sha256_text(criterion.text)
    found: Mapping[str, Any] | None = None
    for record in records:
        if (
            record.get("kind") == "criterion"
            and str(record.get("todo")) == todo_id
            and record.get("criterion_index") == criterion.index
            and record.get("criterion_sha256") == text_sha
            and record.get("plan_sha256") == plan_sha
        ):
            found = record
    return found


def record_passed(record: Mapping[str, Any]) -> bool:
    """Whether a record's execution did what was asked of it.

    A criterion record carries `steps`, one per command the criterion names,
    each with the `expect`ation the plan states ("exits 1", "prints 0"): it
    passed when every step did. Any other record (and a criterion record
    without steps, from before they were recorded) passed on exit 0 with no
    signal and no timeout.
    """
    steps = record.get("steps")
    if record.get("kind") == "criterion" and steps is not None:
        from zodyssey.runs.criteria import step_passed

        return (
            isinstance(steps, list)
            and bool(steps)
            and all(isinstance(step, dict) and step_passed(step) for step in steps)
        )
    return (
        record.get("exit_code") == 0
        and not record.get("timed_out")
        and record.get("signal") is None
    )


def criterion_gaps(
    records: Iterable[Mapping[str, Any]], todo: Todo, plan_sha: str | None
) -> list[str]:
    """Why `todo` cannot count as verified; empty when every declared criterion passed.

    The rule: for every criterion the plan declares for the todo, the LATEST
    executed record with the same todo id, criterion index, criterion text hash
    and plan hash exists and passed (exit 0, no signal, no timeout). A later
    failure supersedes an earlier pass.
    """
    listed = list(records)
    gaps: list[str] = []
    for criterion in todo.criteria:
        latest = latest_criterion_record(listed, todo.id, criterion, plan_sha)
        if latest is None:
            gaps.append(f"criterion {criterion.index} has no executed record under this plan")
        elif not record_passed(latest):
            gaps.append(
                f"criterion {criterion.index} last failed "
                f"(record seq {latest.get('seq')}, exit {latest.get('exit_code')})"
            )
    return gaps


# ---------------------------------------------------------------- violations
# Records of the post-call effect check (zodyssey/sandbox/violations.py): a
# change a tool call was not allowed to make. `kind: "violation"` carries
# `tool_use_id`, `tool_name`, `command`, `changes` [{path, before, after,
# action}]; a person's `kind: "violation-resolved"` names the `resolves` seq.
VIOLATION = "violation"
VIOLATION_RESOLVED = "violation-resolved"


def open_violations(records: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The violation records no later `violation-resolved` record names."""
    listed = list(records)
    resolved = {r.get("resolves") for r in listed if r.get("kind") == VIOLATION_RESOLVED}
    return [r for r in listed if r.get("kind") == VIOLATION and r.get("seq") not in resolved]


def final_row_gaps(records: Iterable[Mapping[str, Any]], todo: Todo) -> list[str]:
    """Why a final-wave row that declares no criteria cannot count as done.

    Such a row (an audit, a review) is proven by a read-only window labelled
    with its id (`zodyssey run window SLUG --label F1 -- CMD`): the latest one
    must have left the tree unchanged and its auditor must have exited 0.
    """
    latest: Mapping[str, Any] | None = None
    for record in records:
        if record.get("kind") == "window" and record.get("label") == todo.id:
            latest = record
    if latest is None:
        return [
            f"final-wave row {todo.id} declares no criteria and no read-only window labelled "
            f"{todo.id} was recorded (`zodyssey run window SLUG --label {todo.id} -- CMD`)"
        ]
    if latest.get("readOnlyViolation") is not False or not record_passed(latest):
        return [
            f"the latest read-only window labelled {todo.id} (record seq {latest.get('seq')}) "
            "did not pass"
        ]
    return []
