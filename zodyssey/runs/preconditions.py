"""Preconditions every recording `zodyssey run` command shares.

Kept apart from `lifecycle` (start, todo, phase, status, list) so that
`verification` and `window` can use them while `lifecycle` uses
`verification` for the quality checks at `phase done`: no import cycle.
"""

from __future__ import annotations

from typing import Any

from zodyssey.core import paths
from zodyssey.core.exits import Exit
from zodyssey.core.plan import Todo
from zodyssey.core.store import file_lock, now_iso
from zodyssey.core.vocabulary import HALTED_PHASES
from zodyssey.errors import UsageError
from zodyssey.runs import evidence as chain
from zodyssey.runs.context import LoadedPlan, RunContext


def require_bound_plan(ctx: RunContext, state: dict[str, Any], command: str) -> LoadedPlan:
    """Refuse unless review said OKAY and the plan on disk is the plan it bound."""
    review = state.get("review") or {}
    if review.get("verdict") != "OKAY":
        ctx.refuse(
            command,
            f"run {ctx.slug!r} has no OKAY review verdict (verdict {review.get('verdict')}, "
            f"round {review.get('round', 0)}/{review.get('max_rounds', 3)}); "
            f"record one with `zodyssey run review {ctx.slug} ...` first",
            Exit.REFUSED_STATE,
        )
    loaded = ctx.load_plan(state)
    bound = review.get("plan_sha256")
    if loaded.sha256 != bound:
        ctx.refuse(
            command,
            f"the plan changed since review said OKAY (bound {str(bound)[:12]}, "
            f"on disk {loaded.sha256[:12]}); restore it or review the new plan",
            Exit.REFUSED_STATE,
        )
    return loaded


def require_todo(loaded: LoadedPlan, todo_id: str) -> Todo:
    """The plan's todo `todo_id` (a usage error naming the plan's todos when it has none)."""
    todo = loaded.plan.todo(todo_id)
    if todo is None:
        known = ", ".join(t.id for t in loaded.plan.todos) or "none"
        raise UsageError(f"the plan has no todo {todo_id!r} (todos: {known})")
    return todo


def require_active(ctx: RunContext, state: dict[str, Any], command: str) -> None:
    phase = state.get("phase")
    if phase in HALTED_PHASES:
        ctx.refuse(
            command,
            f"run {ctx.slug!r} is blocked: nothing more can be recorded for it until a person "
            f"decides (ask the user to run `zodyssey run review {ctx.slug} --human OKAY|REJECT "
            "--by NAME` in their own terminal)"
            if phase == "blocked"
            else f"run {ctx.slug!r} is in terminal phase {phase}; nothing more can be recorded for it",
            Exit.REFUSED_STATE,
        )


def stamp_override(
    ctx: RunContext, command: str, subject: str, reason: str, plan_sha: str | None
) -> dict[str, Any]:
    """Put a --force decision into the evidence chain, where the audit will see it."""
    now = now_iso()
    record = chain.append_record(
        ctx.root,
        ctx.slug,
        {
            "kind": "override",
            "slug": ctx.slug,
            "subject": subject,
            "reason": reason,
            "by": f"zodyssey run {command}",
            "started_at": now,
            "finished_at": now,
            "duration_s": 0.0,
            "plan_sha256": plan_sha,
            "passed": False,
        },
    )
    return record


def note_evidence_head(state: dict[str, Any], record: dict[str, Any]) -> None:
    head = state.get("evidence")
    if not isinstance(head, dict):
        head = state["evidence"] = {}
    # Parallel appenders may finish out of order: keep the highest seq.
    if int(record["seq"]) >= int(head.get("count", 0) or 0):
        head["count"] = record["seq"]
        head["head"] = record["hash"]


def check_chain(ctx: RunContext, state: dict[str, Any], command: str) -> list[dict[str, Any]]:
    path = paths.evidence_path(ctx.root, ctx.slug)
    # The chain and its git anchor are read under the appenders' lock: a record
    # appended (and anchored) between the two reads is not a cut.
    with file_lock(path):
        result = chain.read_evidence(path)
        anchored = anchor_problems(ctx, state, result.records)
    problems = list(result.problems) + chain.verify_chain(result.records, lines=result.lines)
    head = state.get("evidence")
    recorded = int(head.get("count", 0) or 0) if isinstance(head, dict) else 0
    if len(result.records) < recorded:
        # Fewer records than the state saw appended: the tail was cut off.
        problems.append(
            chain.ChainProblem(
                0, None, f"it holds {len(result.records)} records but {recorded} were recorded"
            )
        )
    if not problems:
        problems += anchored
    if problems:
        ctx.refuse(
            command,
            f"the evidence chain {path} is broken: {problems[0].message}"
            + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""),
            Exit.REFUSED_STATE,
        )
    return result.records


def anchor_problems(
    ctx: RunContext, state: dict[str, Any], records: list[dict[str, Any]]
) -> list[chain.ChainProblem]:
    """Where the chain disagrees with the head anchored in git (zodyssey/runs/anchor.py)."""
    from zodyssey.runs.anchor import read_anchors

    run_id = state.get("run_id")
    anchors = read_anchors(ctx.root, ctx.slug, run_id if isinstance(run_id, str) else None)
    if not anchors.entries:
        return []
    by_seq = {record.get("seq"): record for record in records}
    for seq, digest in anchors.entries:
        held = by_seq.get(seq)
        if held is None or held.get("hash") != digest:
            return [
                chain.ChainProblem(
                    0, seq, f"record seq {seq} is not the one anchored in git (cut off or rehashed)"
                )
            ]
    return []
