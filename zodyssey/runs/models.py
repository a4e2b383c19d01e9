"""Pydantic models of what `zodyssey run` writes: run state, evidence records,
review rounds and artifacts, read-only windows.

These models document and validate; the writers build plain dicts and the
audit validates what it reads with them. Every model allows extra fields: the
JavaScript pipeline and later versions of ours add fields, and reading them
must not fail. Field names follow the reference (`docs/runs.md`); they are
added to, never renamed.

Import cost matters (pydantic is heavy): only import this module from command
handlers and the audit, never from the gate hook's hot path.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from zodyssey.core.vocabulary import GENESIS_HASH

# The genesis `prev` of an evidence chain: the first record points at no record.

TodoStatus = Literal["pending", "in_flight", "done", "failed", "blocked"]
Verdict = Literal["OKAY", "REJECT"]
# "violation": a change the post-call effect check caught (zodyssey/sandbox/violations.py)
EvidenceKind = Literal["criterion", "check", "window", "override", "violation"]


class _Open(BaseModel):
    """Base: unknown fields are kept (forward and JS-pipeline compatibility)."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)


# --------------------------------------------------------------------------- review


class ReportedDispatch(_Open):
    """The reviewer dispatch a verdict was taken from, as the harness reported it."""

    sha256: str  # digest of the dispatch's id: nothing that could be handed back
    agent: str
    harness: str
    dispatched_at: str | None = None
    transcript_path: str | None = None  # the harness's transcript the report named


class PendingDispatch(_Open):
    """Written by the gate's pre-tool hook when the reviewer is dispatched."""

    sha256: str
    agent: str
    harness: str
    plan_sha256: str | None = None  # the plan the reviewer is about to read
    at: str
    agent_sha256: str | None = None  # digest of the background agent its launch report named
    # Stops of reviewer-typed agents that came before the launch report, by agent digest.
    held_stops: dict[str, Any] | None = None


class ReviewRound(_Open):
    """One entry of `review.history`: every round, agent or human, accepted or refused."""

    round: int
    at: str
    verdict: Verdict  # the verdict that took effect for this round
    blockers: list[Any] = Field(default_factory=list)
    source: Literal["agent", "human"] = "agent"
    by: str | None = None  # the person, or the reviewer agent whose answer was reported
    comment: str | None = None
    nonce: str | None = None  # older gates' consumed nonce; null since verdicts are reported
    dispatch: ReportedDispatch | None = None  # the reviewer dispatch the verdict came from
    artifact: str | None = None  # recorded artifact, `.zcode/reviews/<slug>-r<N>.json`
    artifact_sha256: str | None = None  # sha256 of the recorded artifact file bytes
    plan_sha256: str | None = None  # plan on disk when the round was decided
    lint_clean: bool | None = None
    # When the reviewer said OKAY but the OKAY could not take effect (plan lint
    # failed, or the plan changed since the reviewer was dispatched), the round
    # is recorded as REJECT with the reviewer's own word and the reason here.
    reviewer_verdict: Verdict | None = None
    refused: str | None = None


class ConsumedNonce(_Open):
    round: int
    at: str
    artifact: str | None = None
    artifact_sha256: str | None = None


class Review(_Open):
    round: int = 0
    max_rounds: int = 3
    verdict: Verdict | None = None
    plan_sha256: str | None = None  # plan bound at OKAY
    history: list[ReviewRound] = Field(default_factory=list)
    blockers: list[Any] = Field(default_factory=list)
    # The reviewer dispatch whose reported answer will be the next verdict.
    pending_dispatch: PendingDispatch | None = None
    consumed_dispatches: dict[str, ConsumedNonce] = Field(default_factory=dict)
    # Written by older versions of the gate (a nonce minted at dispatch); read, never accepted.
    pending_nonce: str | dict[str, Any] | None = None
    consumed_nonces: dict[str, ConsumedNonce] = Field(default_factory=dict)
    source: Literal["agent", "human"] | None = None  # who decided the current verdict
    by: str | None = None


class ReviewArtifact(_Open):
    """What `run review` writes to `.zcode/reviews/<slug>-r<N>.json`."""

    slug: str
    round: int
    verdict: Verdict  # the verdict that took effect
    reviewer_verdict: Verdict | None = None  # what the reviewer said (agent rounds)
    refused: str | None = None
    blockers: list[Any] = Field(default_factory=list)
    source: Literal["agent", "human"]
    by: str | None = None
    comment: str | None = None
    nonce: str | None = None
    dispatch: ReportedDispatch | None = None
    plan_sha256: str | None = None
    recorded_at: str
    input_path: str | None = None  # (older versions: the artifact file handed in)
    input_sha256: str | None = None  # of the reviewer's answer
    input_format: Literal["json", "prose"] | None = None
    response: str | None = None  # the reviewer's answer as the harness reported it


# --------------------------------------------------------------------------- state lanes


class TodoState(_Open):
    status: TodoStatus = "pending"
    attempts: int = 0
    forced: bool | None = None
    forced_reason: str | None = None
    forced_at: str | None = None
    updated_at: str | None = None


class FileLock(_Open):
    session: str
    todo: str | None = None
    acquired_at: str


class VerifyHistoryEntry(_Open):
    """`verify.history[]`, in the JavaScript pipeline's shape (latest per todo+criterion)."""

    todo_id: str
    criterion_index: int
    passed: bool
    status: Literal["passed", "failed", "flaky"]
    flaky: bool = False
    criterion: str  # the criterion text as in the plan
    exit_code: int | None
    worktree: str | None  # work-tree fingerprint the criterion ran on (None outside git)
    at: str
    artifact: str  # ours: path of evidence.jsonl holding the record
    seq: int | None = None  # ours: the evidence record's seq
    plan_sha256: str | None = None  # ours


class VerifySummary(_Open):
    total: int = 0
    passed: int = 0
    failed: int = 0
    flaky: int = 0
    history: list[VerifyHistoryEntry] = Field(default_factory=list)


class Acceptance(_Open):
    """`acceptance[todo]` (JS shape): every declared criterion ran and its latest passed."""

    pass_: bool = Field(alias="pass")
    at: str
    evidence: str
    criteria_run: int
    criteria_declared: int | None = None


class GateLogEntry(_Open):
    """One gate decision of a `zodyssey run` command (`gate_log[]`)."""

    at: str
    command: str  # start, review, verify, todo, phase, window
    phase: str | None  # the run's phase when the decision was made
    decision: Literal["allow", "refuse", "override", "pass", "fail", "warn", "skip"]
    by: str  # what decided: "zodyssey run <cmd>", "check:<name>", "human:<name>"
    subject: str | None = None  # todo id, check name, target phase, window label
    reason: str | None = None
    override_reason: str | None = None  # set whenever --force/--force-done was used


class PhaseChange(_Open):
    from_: str | None = Field(alias="from")
    to: str
    at: str
    note: str | None = None
    forced: bool = False
    reason: str | None = None
    verdict_invalidated: bool = False


class WindowSummary(_Open):
    """`windows[]` in the state: one per `run window`."""

    label: str
    at: str
    readOnlyViolation: bool | None  # reference field name (camelCase)
    exit_code: int | None
    seq: int  # the evidence record holding the snapshots


class EvidenceHead(_Open):
    """`evidence` in the state: the chain's last record, so a truncated chain shows."""

    count: int = 0
    head: str = GENESIS_HASH
    path: str | None = None


class RunState(_Open):
    slug: str
    run_id: str | None = None  # random, set by `run start`; every evidence record names it
    title: str = ""
    phase: str
    started_at: str
    updated_at: str | None = None
    run_start_sha: str = ""
    dirty_at_start: bool | None = None
    plan_path: str
    project_dir: str | None = None
    review: Review = Field(default_factory=Review)
    todos: dict[str, TodoState] = Field(default_factory=dict)
    file_locks: dict[str, FileLock] = Field(default_factory=dict)
    active_todos: dict[str, str] = Field(default_factory=dict)
    verify: VerifySummary = Field(default_factory=VerifySummary)
    acceptance: dict[str, Acceptance] = Field(default_factory=dict)
    gate_log: list[GateLogEntry] = Field(default_factory=list)
    phase_history: list[PhaseChange] = Field(default_factory=list)
    windows: list[WindowSummary] = Field(default_factory=list)
    evidence: EvidenceHead = Field(default_factory=EvidenceHead)
    created_by: str | None = None  # "zodyssey <version>" for runs we started


# --------------------------------------------------------------------------- evidence


class OutputCapture(_Open):
    """One output stream of an execution."""

    sha256: str  # of the full stream bytes
    size: int  # bytes
    tail: str  # last bytes (bounded), decoded as UTF-8 with replacement
    stored: bool  # full bytes kept at `.zcode/verify/<slug>/output/<sha256>`


class TreeSnapshot(_Open):
    """Git state of the work tree (`.zcode/` excluded). `ok` False outside git."""

    ok: bool
    error: str | None = None
    head: str | None = None  # commit id, "" in a repository without commits
    branch: str | None = None  # None when detached
    index_digest: str | None = None  # sha256 of `git ls-files -s -z`
    status_sha256: str | None = None  # sha256 of `git status --porcelain=v2 -z ...`
    status: str | None = None  # the porcelain text, NUL shown as "\n" (windows only)
    files: dict[str, str] | None = None  # changed/untracked path -> content sha256
    fingerprint: str | None = None  # sha256 over everything above


class CriterionStep(_Open):
    """One command of a criterion as it ran (`EvidenceRecord.steps`)."""

    command: str
    expect: dict[str, Any]
    started_at: str
    finished_at: str
    duration_s: float
    exit_code: int | None = None
    signal: int | None = None
    timed_out: bool = False
    stdout: OutputCapture | None = None
    stderr: OutputCapture | None = None
    passed: bool


class EvidenceRecord(_Open):
    """One line of `.zcode/verify/<slug>/evidence.jsonl` (append-only, hash-chained)."""

    seq: int  # 1-based position in the chain
    kind: EvidenceKind
    slug: str
    run_id: str | None = None  # the run's `run_id`: a record copied from another run shows
    todo: str | None = None
    criterion_index: int | None = None  # 1-based, within the todo, plan order
    criterion_text: str | None = None  # exactly as in the plan
    criterion_sha256: str | None = None  # sha256 of criterion_text (UTF-8)
    check: str | None = None  # kind "check": name in [tool.zodyssey.checks]
    on_failure: Literal["block", "warn", "skip"] | None = None
    label: str | None = None  # kind "window"
    command: str | None = None  # the shell string actually run
    argv: list[str] | None = None  # kind "window": the argv actually run
    cwd: str | None = None
    started_at: str
    finished_at: str
    duration_s: float
    exit_code: int | None = None  # None when killed by a signal or timed out
    signal: int | None = None
    timed_out: bool = False
    timeout_s: float | None = None
    stdout: OutputCapture | None = None
    stderr: OutputCapture | None = None
    head_before: str | None = None
    head_after: str | None = None
    tree_before: str | None = None  # work-tree fingerprint, None outside git
    tree_after: str | None = None
    plan_sha256: str | None = None  # sha256 of the plan file the command ran under
    # kind "criterion": one step per command the criterion names, each with the result
    # the criterion states (`expect`: {"exit": N}, {"exit": "nonzero"}, {"stdout": "..."})
    steps: list[CriterionStep] | None = None
    worktree_digest: str | None = None  # content digest of the work tree after it ran
    passed: bool  # criterion: every step as expected; windows: read-only AND exit 0; else exit 0
    # kind "window"
    readOnlyViolation: bool | None = None  # reference field name (camelCase)
    snapshot_before: TreeSnapshot | None = None
    snapshot_after: TreeSnapshot | None = None
    changed_paths: list[str] | None = None
    # kind "override": --force/--force-done, stamped into the chain
    subject: str | None = None
    reason: str | None = None
    by: str | None = None
    # kind "violation": which call (or "something between tool calls") changed what
    when: str | None = None
    tool_use_id: str | None = None
    tool_name: str | None = None
    changes: list[dict[str, Any]] | None = None  # path, before, after, action (, protected)
    prev: str  # `hash` of the previous record, GENESIS_HASH for seq 1
    hash: str  # sha256 of this record's canonical JSON without `hash`


def json_schemas() -> dict[str, dict[str, Any]]:
    """JSON Schemas of the artifact models (for docs and the audit)."""
    models: dict[str, type[BaseModel]] = {
        "run-state": RunState,
        "evidence-record": EvidenceRecord,
        "review-artifact": ReviewArtifact,
        "review-round": ReviewRound,
        "window-summary": WindowSummary,
    }
    return {name: model.model_json_schema(by_alias=True) for name, model in models.items()}
