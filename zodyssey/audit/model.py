"""What the audit knows about one run, whichever pipeline wrote it.

Both loaders (ours: `zodyssey/audit/load_ours.py`; the JavaScript pipeline's:
`zodyssey/audit/load_js.py`) turn untrusted artifacts into these plain
dataclasses. The checks (`zodyssey/audit/checks.py`) only ever see this
shape, so a rule is written once and applies to both sources. Fields a source
does not record are `None`, never a guessed value: "unknown" must stay
distinguishable from "false" all the way to the report.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Source = Literal["zodyssey", "js-pipeline"]

# Artifact text is untrusted and can be arbitrarily large; everything that is
# shown to a person is cut to this many characters first.
MAX_TEXT = 2000


HASH_PREFIX = 12


def short_hash(value: object) -> str:
    """A hash shown to a person: a fixed-length prefix, never a cut-off sentence."""
    text = value if isinstance(value, str) else ("" if value is None else repr(value))
    text = "".join(ch for ch in text[:200] if ch.isprintable())
    return text[:HASH_PREFIX] if text else "(none)"


def clip(value: object, limit: int = MAX_TEXT) -> str:
    """A printable, bounded string for any artifact value."""
    text = value if isinstance(value, str) else ("" if value is None else repr(value))
    if len(text) > limit:
        return text[:limit] + f"... [{len(text) - limit} more characters]"
    return text


@dataclass
class CriterionRecord:
    """One recorded execution (or assertion) of an acceptance criterion."""

    todo: str
    index: int
    where: str  # artifact path, with :line for JSONL records
    text: str | None = None
    text_sha256: str | None = None
    command: str | None = None
    executed: bool | None = None  # None: the source does not say
    exit_code: int | None = None
    timed_out: bool = False
    passed: bool = False
    status: str = ""  # passed / failed / flaky / timeout, for display
    duration_s: float | None = None
    started_at: str | None = None
    finished_at: str | None = None
    plan_sha256: str | None = None
    seq: int | None = None
    stdout_tail: str | None = None
    stderr_tail: str | None = None
    # ours: the (command, expect) of each command the record ran; None when not recorded
    steps: list[dict[str, object]] | None = None
    worktree_digest: str | None = None  # ours: the work tree's content digest after it ran


@dataclass
class WindowRecord:
    """A read-only window around an external auditor."""

    label: str
    violation: bool | None  # the tri-state readOnlyViolation; None = could not verify
    where: str
    present: bool = True  # False when the record lacks the field altogether
    command: str | None = None
    started_at: str | None = None
    finished_at: str | None = None
    duration_s: float | None = None
    detail: str = ""
    exit_code: int | None = None  # the auditor's exit status (None: unknown or killed)
    timed_out: bool = False


@dataclass
class AuditedRound:
    round: int | None
    verdict: str | None
    at: str | None = None
    human_by: str | None = None  # set when a person decided instead of a reviewer
    artifact: str | None = None
    nonce: str | None = None
    blockers: int = 0
    # What the artifact on disk says (filled by the loaders when it can be read).
    artifact_found: bool = False
    artifact_problem: str | None = None  # why it could not be read
    artifact_verdict: str | None = None
    artifact_nonce: str | None = None
    artifact_round: int | None = None
    artifact_plan_sha256: str | None = None  # the plan the artifact says it reviewed
    artifact_sha256: str | None = None  # of the bytes on disk
    recorded_sha256: str | None = None  # what the state says the bytes hashed to
    # A reviewer verdict the gate took from the harness's report of the dispatch:
    # the digest of the dispatch's id, the reviewer and the harness's transcript.
    dispatch_sha256: str | None = None
    dispatch_agent: str | None = None
    transcript_path: str | None = None


@dataclass
class AuditedNonce:
    nonce: str
    round: int | None
    artifact: str | None = None
    sha256: str | None = None
    plan_sha256: str | None = None


@dataclass
class ReviewState:
    verdict: str | None = None
    round: int | None = None
    max_rounds: int = 3
    plan_sha256: str | None = None
    human_by: str | None = None
    artifact: str | None = None  # the artifact of the deciding round, as recorded
    rounds: list[AuditedRound] = field(default_factory=list)
    consumed: list[AuditedNonce] = field(default_factory=list)
    pending_nonce: str | None = None


@dataclass
class AuditedTodo:
    id: str
    status: str
    forced: bool = False
    forced_reason: str | None = None
    attempts: int | None = None


@dataclass
class PhaseEvent:
    phase: str
    at: str | None
    note: str = ""


@dataclass
class GateEvent:
    """A quality-check gate decision; `override` marks a forced one."""

    check: str
    decision: str
    at: str | None
    override: bool
    reason: str | None
    by: str | None
    where: str


@dataclass
class UngatedCall:
    command: str
    at: str | None
    where: str


@dataclass
class ArtifactProblem:
    """A load-time problem that becomes a finding (schema, chain, output)."""

    rule: str
    message: str
    file: str | None
    line: int | None = None
    json_path: str | None = None
    severity: Literal["error", "warning", "note"] = "error"


@dataclass
class FinalItem:
    """One item (F1..F5) of a JS run's final verification wave."""

    name: str
    passed: bool | None
    skipped: bool = False
    not_evaluated: bool = False
    reason: str = ""


@dataclass
class FinalWave:
    """`state.final` of a JS run, with what `final-wave.json` says beside it."""

    verdict: str | None
    at: str | None
    where: str
    items: list[FinalItem] = field(default_factory=list)
    waived: list[str] = field(default_factory=list)
    waived_reason: str | None = None
    artifact: str | None = None  # display path of final-wave.json
    artifact_found: bool = False
    artifact_all_pass: bool | None = None
    artifact_at: str | None = None


@dataclass
class ExternalAudit:
    """One round of the JS pipeline's external audit (`consult.history[]`)."""

    round: int | None
    verdict: str | None
    at: str | None
    where: str
    summary: str = ""
    gaps: list[str] = field(default_factory=list)


@dataclass
class AuditedRun:
    slug: str
    source: Source
    state_path: str
    title: str = ""
    phase: str = ""
    started_at: str | None = None
    updated_at: str | None = None
    plan_path: str | None = None
    plan_text: str | None = None
    plan_sha256_on_disk: str | None = None
    todos: dict[str, AuditedTodo] = field(default_factory=dict)
    review: ReviewState = field(default_factory=ReviewState)
    criteria: list[CriterionRecord] = field(default_factory=list)
    windows: list[WindowRecord] = field(default_factory=list)
    claims_external_audit: bool = False
    phases: list[PhaseEvent] = field(default_factory=list)
    gate_events: list[GateEvent] = field(default_factory=list)
    ungated: list[UngatedCall] = field(default_factory=list)
    problems: list[ArtifactProblem] = field(default_factory=list)
    # What this source cannot prove, said plainly (JS pipeline runs).
    not_verifiable: list[str] = field(default_factory=list)
    evidence_records: int = 0
    worktree_digest_now: str | None = None  # ours: the work tree's content digest at audit time
    chain_intact: bool | None = None  # None: the source keeps no chain
    final: FinalWave | None = None  # JS runs: the final verification wave
    external_audits: list[ExternalAudit] = field(default_factory=list)
    external_verdict: str | None = None  # JS runs: `consult.verdict`

    def problem(
        self,
        rule: str,
        message: str,
        file: str | None,
        *,
        line: int | None = None,
        json_path: str | None = None,
        severity: Literal["error", "warning", "note"] = "error",
    ) -> None:
        self.problems.append(ArtifactProblem(rule, message, file, line, json_path, severity))


__all__ = [
    "MAX_TEXT",
    "ArtifactProblem",
    "AuditedNonce",
    "AuditedRound",
    "AuditedRun",
    "AuditedTodo",
    "CriterionRecord",
    "ExternalAudit",
    "FinalItem",
    "FinalWave",
    "GateEvent",
    "PhaseEvent",
    "ReviewState",
    "Source",
    "UngatedCall",
    "WindowRecord",
    "clip",
    "short_hash",
]
