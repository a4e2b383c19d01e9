"""Review rounds: the reviewer agent's verdict as the harness reported it, or a person's.

Nothing the orchestrating agent holds can open the gate. A reviewer agent's
verdict is never handed in by the agent: the gate's pre-tool hook records the
reviewer's dispatch (`review.pending_dispatch`, a digest of the harness's call
id, never a secret the agent could replay), and the post-tool hook the harness
runs when that dispatch returns takes the reviewer's final answer from the
harness's own report (`record_reported`). `zodyssey run review` records a
person's verdict (`--human`) only. OKAY needs a clean plan lint and binds the
sha256 of the plan on disk; a verdict on a plan changed since the dispatch is
recorded as REJECT.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zodyssey.core.atomic import write_atomic
from zodyssey.core.exits import Exit
from zodyssey.core.files import NotRegularFile, open_regular
from zodyssey.core.paths import reviews_dir, stored
from zodyssey.core.store import dump_json, now_iso
from zodyssey.core.vocabulary import BLOCKED, HALTED_PHASES
from zodyssey.errors import UsageError, ZodysseyError
from zodyssey.runs.checks import load_checks, test_command
from zodyssey.runs.context import RunContext, gate_entry
from zodyssey.runs.lint import lint_plan

_VERDICT_LINE = re.compile(r"^\s*\**VERDICT\**\s*:\s*\**\s*(OKAY|REJECT)\s*\**\s*$")
_VERDICT_ANY = re.compile(r"^\s*\**VERDICT\**\s*:", re.IGNORECASE)
_NONCE_LINE = re.compile(r"^\s*\**NONCE\**\s*:\s*`?([A-Za-z0-9._:-]+)`?\s*$", re.IGNORECASE)
_BLOCKERS_HEAD = re.compile(r"^\s*\**BLOCKERS\**\s*:\s*$", re.IGNORECASE)
# The digest of the plan the reviewer read, as its answer names it (the required form).
_PLAN_LINE = re.compile(r"^\s*\**PLAN-SHA256\**\s*:\s*`?([0-9A-Fa-f]{64})`?\s*$", re.IGNORECASE)
_PLAN_ANY = re.compile(r"^\s*\**PLAN-SHA256\**\s*:", re.IGNORECASE)
PRE_EXECUTION = frozenset({"plan", "consult", "review", BLOCKED})


@dataclass
class ParsedArtifact:
    verdict: str
    nonce: str | None
    blockers: list[Any] = field(default_factory=list)
    plan_sha256: str | None = None
    fmt: str = "json"


def parse_artifact(text: str, source: str) -> ParsedArtifact:
    """The verdict of a reviewer artifact: JSON, or prose with exactly one VERDICT line."""
    stripped = text.strip()
    if stripped.startswith("{"):
        return _json_artifact(stripped, source)
    return _prose_artifact(text, source)


def _json_artifact(stripped: str, source: str) -> ParsedArtifact:
    try:
        data = json.loads(stripped)
    except json.JSONDecodeError as exc:
        raise UsageError(f"review artifact {source} is not valid JSON ({exc.msg})") from exc
    except RecursionError as exc:
        raise UsageError(f"review artifact {source} nests too deeply to be a verdict") from exc
    if not isinstance(data, dict):
        raise UsageError(f"review artifact {source} is not a JSON object")
    verdict = data.get("verdict")
    if verdict not in ("OKAY", "REJECT"):
        raise UsageError(
            f'review artifact {source}: verdict must be "OKAY" or "REJECT", got {verdict!r}'
        )
    nonce = data.get("nonce")
    provenance = data.get("_provenance")
    if nonce is None and isinstance(provenance, dict):
        nonce = provenance.get("nonce")  # the JavaScript pipeline's place for it
    if nonce is not None and not isinstance(nonce, str):
        raise UsageError(f"review artifact {source}: nonce must be a string")
    blockers = data.get("blockers", [])
    if not isinstance(blockers, list):
        raise UsageError(f"review artifact {source}: blockers must be a list")
    plan_sha = data.get("plan_sha256")
    return ParsedArtifact(
        verdict, nonce, blockers, plan_sha if isinstance(plan_sha, str) else None, "json"
    )


def _prose_artifact(text: str, source: str) -> ParsedArtifact:
    lines = text.splitlines()
    claimed = [line for line in lines if _VERDICT_ANY.match(line)]
    verdicts = [m.group(1) for line in claimed if (m := _VERDICT_LINE.match(line))]
    if not claimed:
        raise UsageError(
            f"review artifact {source} has no verdict: expected one line `VERDICT: OKAY` "
            "or `VERDICT: REJECT` (or a JSON artifact)"
        )
    if len(claimed) != 1 or len(verdicts) != 1:
        raise UsageError(
            f"review artifact {source} is ambiguous: {len(claimed)} VERDICT lines "
            f"({'; '.join(line.strip()[:40] for line in claimed[:3])}); exactly one "
            "`VERDICT: OKAY|REJECT` line is required"
        )
    nonces = [m.group(1) for line in lines if (m := _NONCE_LINE.match(line))]
    if len(nonces) > 1:
        raise UsageError(f"review artifact {source} carries {len(nonces)} NONCE lines; one only")
    return ParsedArtifact(
        verdicts[0],
        nonces[0] if nonces else None,
        _prose_blockers(lines),
        _named_plan(lines, source),
        "prose",
    )


def _named_plan(lines: list[str], source: str) -> str | None:
    """The plan digest a prose answer names (`PLAN-SHA256: <64 hex>`), lower-cased; None
    when it names none. Two lines, or one that is not a whole digest, name no plan."""
    claimed = [line for line in lines if _PLAN_ANY.match(line)]
    digests = {m.group(1).lower() for line in claimed if (m := _PLAN_LINE.match(line))}
    if not claimed:
        return None
    if len(claimed) != 1 or len(digests) != 1:
        raise UsageError(
            f"review artifact {source} names the plan it read ambiguously: exactly one "
            "`PLAN-SHA256: <64 hex digits>` line is required"
        )
    return digests.pop()


def _prose_blockers(lines: list[str]) -> list[Any]:
    """The `- item` lines under a BLOCKERS heading, up to the first other text."""
    blockers: list[Any] = []
    collecting = False
    for line in lines:
        if _BLOCKERS_HEAD.match(line):
            collecting = True
            continue
        if not collecting:
            continue
        item = re.match(r"^\s*[-*]\s+(.*\S)\s*$", line)
        if item:
            blockers.append(item.group(1))
        elif line.strip():
            collecting = False
    return blockers


def _read_arguments(args: argparse.Namespace) -> None:
    """Check the flags of a person's verdict."""
    if not args.human:
        raise UsageError("give --human OKAY|REJECT --by NAME (a person's verdict)")
    if not (args.by or "").strip():
        raise UsageError("--human needs --by NAME (who decided)")


ARTIFACT_REFUSED = (
    "a reviewer's verdict is not handed in by a file: the gate takes it from the "
    "harness's own report of the reviewer dispatch (Claude Code: the PostToolUse of the "
    "Agent/Task call; Gemini CLI: the AfterTool of invoke_agent), so dispatch the "
    "reviewer again; on a harness that identifies no agents (Cursor, Codex) or cannot "
    "rewrite the reviewer's dispatch (ZCode) a person decides: `zodyssey run review SLUG "
    "--human OKAY|REJECT --by NAME`"
)


def _refuse_halted(ctx: RunContext, phase: Any, human: bool) -> None:
    """A finished or halted run takes no verdict; `blocked` takes a person's."""
    if phase in HALTED_PHASES and not (human and phase == BLOCKED):
        ctx.refuse(
            "review",
            f"run {ctx.slug!r} is in terminal phase {phase}; "
            + (
                f"ask the user: a person can decide with `zodyssey run review {ctx.slug} "
                "--human OKAY|REJECT --by NAME`"
                if phase == "blocked"
                else "start a new run to review again"
            ),
            Exit.REFUSED_STATE,
        )


def _okay_refused(seen: str | None, problems: list[Any], plan_sha: str) -> str | None:
    """Why a reviewer's OKAY cannot stand (lint problems, a plan changed since it was read)."""
    if problems:
        return f"plan lint: {len(problems)} problem(s)"
    if seen and seen != plan_sha:
        return (
            f"the plan changed after the reviewer read it "
            f"(reviewed {str(seen)[:12]}, on disk {plan_sha[:12]})"
        )
    return None


# The most of a reviewer's answer kept in its round's artifact.
MAX_RESPONSE = 64 * 1024


@dataclass
class _Round:
    """One review round as decided, before it is written into the state."""

    verdict: str  # what was asked for (the reviewer's or the person's)
    effective: str  # what is recorded (an OKAY refused is a REJECT)
    refused: str | None
    parsed: ParsedArtifact | None  # the reviewer's answer (None: a person's verdict)
    by: str | None
    comment: str | None
    dispatch: dict[str, Any] | None = None  # the reported reviewer dispatch
    response: str = ""  # the reviewer's final answer as the harness reported it


def _record_round(
    st: dict[str, Any],
    ctx: RunContext,
    decided: _Round,
    problems: list[Any],
    todo_ids: list[str],
    plan_sha: str,
) -> dict[str, Any]:
    """The transition: write the round's artifact, spend the dispatch, move the phase."""
    review = st.setdefault("review", {})
    round_new = int(review.get("round", 0) or 0) + 1
    max_rounds = int(review.get("max_rounds", 3) or 3)
    at = now_iso()
    artifact_path = reviews_dir(ctx.root) / f"{ctx.slug}-r{round_new}.json"
    document = _round_document(ctx.slug, round_new, decided, problems, plan_sha, at)
    artifact_text = dump_json(document)
    write_atomic(artifact_path, artifact_text)
    artifact_sha = hashlib.sha256(artifact_text.encode("utf-8")).hexdigest()
    artifact_name = stored(artifact_path, ctx.root)  # relative: a renamed folder keeps it
    if decided.dispatch is not None:
        _spend_dispatch(review, decided.dispatch, round_new, at, artifact_name, artifact_sha)
    review["pending_nonce"] = None  # (minted by older versions of the gate; never accepted)
    review.update(
        round=round_new,
        max_rounds=max_rounds,
        verdict=document["verdict"],
        source=document["source"],
        by=document["by"],
        blockers=document["blockers"],
        artifact=artifact_name,
    )
    if document["verdict"] == "OKAY":
        review["plan_sha256"] = plan_sha
    review.setdefault("history", []).append(
        {
            "round": round_new,
            "at": at,
            "verdict": document["verdict"],
            "blockers": document["blockers"],
            "source": document["source"],
            "by": document["by"],
            "comment": document["comment"],
            "nonce": None,
            "dispatch": decided.dispatch,
            "artifact": artifact_name,
            "artifact_sha256": artifact_sha,
            "plan_sha256": plan_sha,
            "lint_clean": not problems,
            "reviewer_verdict": document["reviewer_verdict"],
            "refused": decided.refused,
        }
    )
    _move_phase(st, decided, todo_ids, round_new, max_rounds, at)
    who = f"reviewer:{decided.by}" if decided.parsed else f"human:{document['by']}"
    gate_entry(
        st,
        "review",
        "allow" if decided.effective == "OKAY" else "refuse",
        by=who,
        subject=f"round {round_new}",
        reason=decided.refused or f"verdict {decided.effective}",
    )
    return {
        "round": round_new,
        "max_rounds": max_rounds,
        "verdict": decided.effective,
        "refused": decided.refused,
        "phase": st.get("phase"),
        "path": artifact_path,
    }


def _round_blockers(decided: _Round, problems: list[Any]) -> list[Any]:
    """What a REJECT names: the reviewer's blockers, then why an OKAY was refused."""
    blockers: list[Any] = list(decided.parsed.blockers) if decided.parsed else []
    if decided.refused and problems:
        return blockers + [p.render() for p in problems]
    if decided.refused:
        return [*blockers, decided.refused]
    return blockers


def _round_document(
    slug: str, round_new: int, decided: _Round, problems: list[Any], plan_sha: str, at: str
) -> dict[str, Any]:
    """The round's artifact (`.zcode/reviews/SLUG-rN.json`)."""
    parsed, effective = decided.parsed, decided.effective
    response = decided.response.encode("utf-8", "surrogatepass")
    blockers = _round_blockers(decided, problems)
    return {
        "slug": slug,
        "round": round_new,
        "verdict": effective,
        "reviewer_verdict": decided.verdict if parsed else None,
        "refused": decided.refused,
        "blockers": blockers if effective == "REJECT" else [],
        "source": "agent" if parsed else "human",
        "by": decided.by,
        "comment": decided.comment,
        "nonce": None,
        "dispatch": decided.dispatch,
        "plan_sha256": plan_sha,
        "recorded_at": at,
        "input_path": None,
        "input_sha256": hashlib.sha256(response).hexdigest() if parsed else None,
        "input_format": parsed.fmt if parsed else None,
        "response": decided.response[:MAX_RESPONSE] if parsed else None,
    }


def _spend_dispatch(
    review: dict[str, Any],
    dispatch: dict[str, Any],
    round_new: int,
    at: str,
    artifact_name: str,
    artifact_sha: str,
) -> None:
    """The reported dispatch (and a background reviewer's agent) can give no second round."""
    review.setdefault("consumed_dispatches", {})[dispatch["sha256"]] = {
        "round": round_new,
        "at": at,
        "artifact": artifact_name,
        "artifact_sha256": artifact_sha,
    }
    review["pending_dispatch"] = None
    if isinstance(dispatch.get("agent_sha256"), str):  # a background reviewer's agent
        review.setdefault("consumed_agents", {})[dispatch["agent_sha256"]] = round_new


def _move_phase(
    st: dict[str, Any],
    decided: _Round,
    todo_ids: list[str],
    round_new: int,
    max_rounds: int,
    at: str,
) -> None:
    """OKAY opens execution (its todos pending); a reviewer's last REJECT blocks the run."""
    before = st.get("phase")
    if decided.effective == "OKAY":
        todos = st.setdefault("todos", {})
        for todo_id in todo_ids:
            todos.setdefault(todo_id, {"status": "pending", "attempts": 0})
        if before in PRE_EXECUTION:
            st["phase"] = "execute"
    elif decided.parsed is not None and round_new >= max_rounds:
        st["phase"] = "blocked"
    if st.get("phase") == before:
        return
    st.setdefault("phase_history", []).append(
        {
            "from": before,
            "to": st["phase"],
            "at": at,
            "note": f"review round {round_new}: {decided.effective}",
            "forced": False,
            "reason": decided.refused,
            "verdict_invalidated": False,
        }
    )


def cmd_review(args: argparse.Namespace) -> int:
    ctx = RunContext.open(args.repo, args.slug)
    if args.artifact:
        if ctx.store.exists():
            ctx.refuse("review", ARTIFACT_REFUSED.replace("SLUG", ctx.slug), Exit.REFUSED_STATE)
        raise ZodysseyError(ARTIFACT_REFUSED.replace("SLUG", ctx.slug), Exit.REFUSED_STATE)
    _read_arguments(args)
    state = ctx.state()
    _refuse_halted(ctx, state.get("phase"), True)
    loaded = ctx.load_plan(state)
    problems = lint_plan(loaded.plan, test_command(load_checks(ctx.root)))
    verdict = str(args.human)

    if verdict == "OKAY" and problems:
        for problem in problems:
            print(problem.render())
        ctx.refuse(
            "review",
            f"OKAY refused: the plan has {len(problems)} lint problem(s) (listed above)",
            Exit.LINT,
        )

    outcome: dict[str, Any] = {}
    todo_ids = [todo.id for todo in loaded.plan.todos]

    def mutate(st: dict[str, Any]) -> None:
        # A person's review re-reviews the configuration the gate judges by.
        from zodyssey.config import config_digest

        digest, source = config_digest(ctx.root)
        st["gate_config"] = {"sha256": digest, "source": source}
        decided = _Round(
            verdict=verdict,
            effective=verdict,
            refused=None,
            parsed=None,
            by=args.by.strip(),
            comment=args.comment,
        )
        outcome["last_reviewed"] = _last_reviewed_plan(st)
        outcome.update(_record_round(st, ctx, decided, problems, todo_ids, loaded.sha256))

    ctx.store.update(mutate)
    print(
        f"review round {outcome['round']}/{outcome['max_rounds']}: {outcome['verdict']} "
        f"(human verdict); recorded {outcome['path']}; phase {outcome['phase']}"
    )
    last = outcome.get("last_reviewed")
    if verdict == "OKAY" and last is not None and last[1] != loaded.sha256:
        # An agent may edit the plan while the run is blocked or rejected: the person
        # must know this OKAY binds a plan no earlier round saw.
        print(
            f"note: this OKAY binds a plan that changed since round {last[0]} was reviewed "
            f"(plan sha256 {last[1][:16]} then, {loaded.sha256[:16]} now): read "
            f"{loaded.path} before the run goes on; a REJECT now re-closes the gate"
        )
    return 0


def _last_reviewed_plan(st: dict[str, Any]) -> tuple[int, str] | None:
    """(round, plan sha256) of the latest recorded round, before this one."""
    review = st.get("review")
    history = review.get("history") if isinstance(review, dict) else None
    for entry in reversed(history if isinstance(history, list) else []):
        sha = entry.get("plan_sha256") if isinstance(entry, dict) else None
        if isinstance(sha, str) and sha:
            return int(entry.get("round") or 0), sha
    return None


def dispatch_digest(key: str) -> str:
    """What the run state keeps of a reviewer dispatch's id: a digest, nothing to replay."""
    return hashlib.sha256(
        f"zodyssey-review-dispatch\x00{key}".encode("utf-8", "surrogatepass")
    ).hexdigest()


def agent_digest(agent_id: str) -> str:
    """What the run state keeps of the agent id a harness reported for a background
    reviewer dispatch (Claude Code's `agentId`): a digest, never the id."""
    return hashlib.sha256(
        f"zodyssey-review-agent\x00{agent_id}".encode("utf-8", "surrogatepass")
    ).hexdigest()


def record_reported(
    root: str | Path,
    slug: str,
    key: str,
    agent: str,
    harness: str,
    answer: str | None,
    transcript: str | None = None,
    agent_id: str | None = None,
) -> str | None:
    """Record the verdict of the reviewer dispatch `key` from the harness's report of it.

    Called by the post-tool hook, which the harness runs when the dispatch
    returns; `answer` is the reviewer's final answer as the harness reports it
    (None when the report carries none), `agent_id` the agent the report says
    gave it (Claude Code's `agentId`): an agent whose answer an earlier round
    took (continued or resumed by the orchestrator) records nothing. Nothing happens unless `key` is the
    reviewer dispatch the pre-tool hook recorded as pending for this run.
    Returns one line saying what was recorded, or None when the dispatch is
    not this run's pending review.
    """
    digest = dispatch_digest(key)
    report = _Report(
        agent, harness, answer, transcript, agent_digest(agent_id) if agent_id else None
    )
    return _record_answer(root, slug, lambda p: p.get("sha256") == digest, report)


def record_stopped(
    root: str | Path,
    slug: str,
    agent_id: str,
    agent_type: str,
    harness: str,
    answer: str | None,
    transcript: str | None = None,
) -> str | None:
    """Record the verdict of a background reviewer from the harness's report of its end.

    Called by the hook on Claude Code's SubagentStop: `agent_id` and
    `agent_type` name the agent that stopped, `answer` is its last message.
    Nothing happens unless the pending reviewer dispatch was reported launched
    as this very agent (`bind_launch`, from the harness's PostToolUse of the
    dispatch) and the agent is of the dispatched type.
    """
    bound = agent_digest(agent_id)
    report = _Report(agent_type, harness, answer, transcript)
    line = _record_answer(root, slug, _stopped_matcher(bound, agent_type), report)
    if line is None:
        line = _hold_stop(root, slug, bound, report)
    return line


def _open_dispatch(st: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """(the state's review, its pending reviewer dispatch), the dispatch None when there
    is none or the run is halted."""
    review = st.get("review")
    if not isinstance(review, dict):
        return {}, None
    pending = review.get("pending_dispatch")
    if not isinstance(pending, dict) or st.get("phase") in HALTED_PHASES:
        return review, None
    return review, pending


def _stopped_matcher(bound: str, agent_type: str) -> Any:
    """Accepts the pending dispatch reported launched as agent `bound` of `agent_type`."""
    return lambda p: p.get("agent_sha256") == bound and p.get("agent") == agent_type


# At most this many stops are held for one pending dispatch (each at most MAX_RESPONSE).
MAX_HELD_STOPS = 4


def _hold_stop(root: str | Path, slug: str, bound: str, report: _Report) -> str | None:
    """A reviewer-typed agent stopped while the pending dispatch's launch report has not
    come yet (Claude Code may run the SubagentStop hook before the PostToolUse hook of
    the dispatch). Keep the harness's report of that stop on the pending dispatch;
    it becomes the verdict only if the launch report then names that very agent
    (`bind_launch`). Nothing is held for a dispatch already bound, a spent agent or a
    halted run."""
    if report.answer is not None and len(report.answer) > MAX_RESPONSE:
        return None
    ctx = RunContext.open(str(root), slug)
    outcome: dict[str, str] = {}

    def mutate(st: dict[str, Any]) -> None:
        review, pending = _open_dispatch(st)
        if pending is None or pending.get("agent_sha256") is not None:
            return
        if pending.get("agent") != report.agent or bound in (review.get("consumed_agents") or {}):
            return
        held = pending.get("held_stops")
        held = held if isinstance(held, dict) else {}
        if bound in held or len(held) >= MAX_HELD_STOPS:
            return  # the first stop of an agent is its answer: a later one (replayed, or
            # the agent continued) never replaces it
        held[bound] = {
            "harness": report.harness,
            "answer": report.answer,
            "transcript": report.transcript,
        }
        pending["held_stops"] = held
        outcome["line"] = (
            "the reviewer stopped before the harness reported its launch: its answer is "
            "held until the launch report names this agent"
        )

    ctx.store.update(mutate)
    return outcome.get("line")


def bind_launch(root: str | Path, slug: str, key: str, agent_id: str) -> str | None:
    """The harness reports the pending reviewer dispatch `key` running in the background
    as agent `agent_id`: keep its digest, so that agent's SubagentStop is the verdict.

    An agent whose answer an earlier round already took is no fresh reviewer: the
    dispatch is dropped (dispatch the reviewer again). Returns a line to show, or None.
    """
    ctx = RunContext.open(str(root), slug)
    digest, bound = dispatch_digest(key), agent_digest(agent_id)
    outcome: dict[str, str] = {}

    def mutate(st: dict[str, Any]) -> None:
        review, pending = _open_dispatch(st)
        if pending is None or pending.get("sha256") != digest:
            return
        spent = review.get("consumed_agents")
        if isinstance(spent, dict) and bound in spent:
            review["pending_dispatch"] = None
            reason = f"the reviewer agent already gave round {spent[bound]}'s verdict"
            gate_entry(
                st,
                "review",
                "refuse",
                by=f"reviewer:{pending.get('agent')}",
                subject="reviewer dispatch",
                reason=f"{reason}; dispatch a new reviewer",
            )
            outcome["line"] = f"no verdict will be recorded: {reason}"
            return
        pending["agent_sha256"] = bound
        held = pending.pop("held_stops", None)
        early = held.get(bound) if isinstance(held, dict) else None
        if isinstance(early, dict):
            answers.append({**early, "agent": pending.get("agent")})

    answers: list[dict[str, Any]] = []
    ctx.store.update(mutate)
    if answers:  # this agent stopped before its launch was reported
        early = answers[0]
        report = _Report(
            str(early.get("agent")),
            str(early.get("harness") or ""),
            early.get("answer") if isinstance(early.get("answer"), str) else None,
            early.get("transcript") if isinstance(early.get("transcript"), str) else None,
        )
        return _record_answer(root, slug, _stopped_matcher(bound, report.agent), report)
    return outcome.get("line")


@dataclass
class _Report:
    """What the harness reported of a reviewer dispatch."""

    agent: str
    harness: str
    answer: str | None
    transcript: str | None
    agent_sha256: str | None = None  # the agent the harness says answered (foreground)


def _parse_answer(answer: str | None, agent: str) -> tuple[ParsedArtifact | None, str | None]:
    """(the parsed verdict, or why there is none)."""
    if answer is None or not answer.strip():
        return None, "the harness reported no answer of the reviewer"
    try:
        return parse_artifact(answer, f"of the reviewer {agent}"), None
    except UsageError as exc:
        return None, exc.message


def _no_round(st: dict[str, Any], agent: str, reason: str) -> None:
    """Spend the pending dispatch without a round, saying why in the gate log."""
    st["review"]["pending_dispatch"] = None
    gate_entry(
        st, "review", "refuse", by=f"reviewer:{agent}", subject="reviewer dispatch", reason=reason
    )


def _reported_round(
    current: dict[str, Any],
    parsed: ParsedArtifact,
    problems: list[Any],
    plan_sha: str,
    report: _Report,
) -> _Round:
    """The round a reported answer makes: an OKAY on a changed or unclean plan is a REJECT."""
    seen = current.get("plan_sha256")
    refused = (
        _okay_refused(seen if isinstance(seen, str) else None, problems, plan_sha)
        if parsed.verdict == "OKAY"
        else None
    )
    dispatch = {
        "sha256": current.get("sha256"),
        "agent": report.agent,
        "harness": report.harness,
        "dispatched_at": current.get("at"),
        "transcript_path": report.transcript,
    }
    if isinstance(current.get("agent_sha256"), str):
        dispatch["agent_sha256"] = current["agent_sha256"]
    return _Round(
        verdict=parsed.verdict,
        effective="REJECT" if refused else parsed.verdict,
        refused=refused,
        parsed=parsed,
        by=report.agent,
        comment=None,
        dispatch=dispatch,
        response=report.answer or "",
    )


def _not_this_review(
    review: dict[str, Any], pending: dict[str, Any], parsed: ParsedArtifact | None, report: _Report
) -> str | None:
    """Why a reported answer is no verdict on this round's plan: the answering agent
    already gave an earlier round's verdict (the orchestrator continued or resumed it),
    the answer names the digest of another plan than the one dispatched, or it is an
    OKAY that names no digest at all (a REJECT without one still counts: it opens
    nothing)."""
    if report.harness not in BRIEFING_HARNESSES:
        return (
            f"on {report.harness or 'this harness'} the gate cannot write the reviewer's brief "
            "(no hook may rewrite the dispatch), so the orchestrator chose the reviewer's "
            "instructions: a person decides (`zodyssey run review SLUG --human OKAY|REJECT "
            "--by NAME`)"
        )
    spent = review.get("consumed_agents")
    if report.agent_sha256 is not None and isinstance(spent, dict) and report.agent_sha256 in spent:
        return (
            f"the reviewer agent that answered already gave round {spent[report.agent_sha256]}'s "
            "verdict (an earlier reviewer continued or resumed records nothing)"
        )
    named, dispatched = parsed.plan_sha256 if parsed else None, pending.get("plan_sha256")
    if named is None and parsed is not None and parsed.verdict == "OKAY":
        return (
            "the reviewer's OKAY names no plan digest (a `PLAN-SHA256:` line with the sha256 "
            f"of the plan it read; dispatched: {str(dispatched)[:12]}): an OKAY must name the "
            "plan it approves"
        )
    if named is not None and named.lower() != str(dispatched).lower():
        return (
            f"the answer names plan {named[:12]}, not the plan dispatched for review "
            f"({str(dispatched)[:12]}): a reviewer that read another plan gives no verdict"
        )
    return None


def _record_answer(root: str | Path, slug: str, matches: Any, report: _Report) -> str | None:
    """The round of the pending reviewer dispatch `matches` accepts, from `report`."""
    ctx = RunContext.open(str(root), slug)
    state = ctx.state()
    review = state.get("review") if isinstance(state.get("review"), dict) else {}
    pending = review.get("pending_dispatch") if isinstance(review, dict) else None
    if not isinstance(pending, dict) or not matches(pending):
        return None
    if state.get("phase") in HALTED_PHASES:
        return None
    loaded = ctx.load_plan(state)
    problems = lint_plan(loaded.plan, test_command(load_checks(ctx.root)))
    todo_ids = [todo.id for todo in loaded.plan.todos]
    agent = report.agent
    parsed, problem = _parse_answer(report.answer, agent)
    outcome: dict[str, Any] = {}

    def mutate(st: dict[str, Any]) -> None:
        now = st.setdefault("review", {})
        current = now.get("pending_dispatch")
        if not isinstance(current, dict) or not matches(current):
            return  # another hook process recorded it meanwhile
        if current.get("sha256") in (now.get("consumed_dispatches") or {}):
            return
        refused = problem or _not_this_review(now, current, parsed, report)
        if parsed is None or refused:
            _no_round(st, agent, f"{refused}; no round recorded: dispatch a new reviewer")
            outcome["line"] = f"no verdict recorded: {refused}"
            return
        if report.agent_sha256 is not None:
            current["agent_sha256"] = report.agent_sha256  # spent with the round
        round_now = int(now.get("round", 0) or 0)
        max_rounds = int(now.get("max_rounds", 3) or 3)
        if round_now >= max_rounds:
            _no_round(st, agent, f"review round {round_now}/{max_rounds} was the last one")
            outcome["line"] = "no verdict recorded: the round cap is reached"
            return
        decided = _reported_round(current, parsed, problems, loaded.sha256, report)
        result = _record_round(st, ctx, decided, problems, todo_ids, loaded.sha256)
        outcome["line"] = (
            f"review round {result['round']}/{result['max_rounds']}: {result['verdict']} "
            f"(reviewer {agent}, reported by {report.harness})"
            + (
                f"; the reviewer's OKAY was not accepted: {decided.refused}"
                if decided.refused
                else ""
            )
            + f"; phase {result['phase']}"
        )

    ctx.store.update(mutate)
    line = outcome.get("line")
    return str(line) if line is not None else None


# The most of a harness transcript the audit reads.
MAX_TRANSCRIPT = 256 * 1024 * 1024
_ID_KEYS = ("id", "tool_use_id", "toolUseId", "callId", "call_id")


def read_transcript(path: str) -> list[Any] | None:
    """The JSON documents of a harness transcript: the whole file when it is one
    JSON document (Gemini CLI's chat file), else one per JSON line (Claude Code,
    Codex); lines that are not JSON are skipped. None when the file cannot be
    read or is larger than MAX_TRANSCRIPT. Also the audit's reader
    (`zodyssey/audit/transcript.py`)."""
    try:
        with os.fdopen(open_regular(path, "transcript"), "rb") as handle:
            raw = handle.read(MAX_TRANSCRIPT + 1)
    except (OSError, NotRegularFile):
        return None  # a FIFO as the transcript is unreadable, never waited on
    if len(raw) > MAX_TRANSCRIPT:
        return None
    text = raw.decode("utf-8", "replace")
    documents: list[Any] = []
    try:
        documents.append(json.loads(text))
    except (ValueError, RecursionError):
        for line in text.splitlines():
            try:
                documents.append(json.loads(line))
            except (ValueError, RecursionError):
                continue
    return documents


def transcript_holds(path: str, digest: str, agent: str | None) -> bool | None:
    """Whether the harness transcript at `path` records the reviewer dispatch `digest`.

    Claude Code's transcript (JSON lines) names every tool call by its
    `tool_use_id`: the dispatch is there when one of its ids digests to
    `digest`. A harness without call ids (Gemini CLI) is matched by the
    `invoke_agent` call naming the reviewer. None when the file cannot be read.
    """
    documents = read_transcript(path)
    if documents is None:
        return None
    stack = documents
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            for key in _ID_KEYS:
                value = item.get(key)
                if isinstance(value, str) and dispatch_digest(value) == digest:
                    return True
            args = item.get("args")
            if (
                agent
                and item.get("name") == "invoke_agent"
                and isinstance(args, dict)
                and args.get("agent_name") == agent
            ):
                return True
            stack.extend(item.values())
    return False


def _reporting_harnesses() -> list[str]:
    """Harnesses whose post-tool report carries a dispatched subagent's final answer
    (their module names reviewer tools)."""
    from zodyssey.gate.harness import adapters

    return [a.name for a in adapters() if a.reviewer_tools]


def _declared_harnesses(root: Path) -> list[str]:
    """`[tool.zodyssey.gate] harnesses` as a list of names ([] when unreadable)."""
    from zodyssey.config import load_config

    try:
        declared = load_config(root).section("gate").get("harnesses", [])
    except ZodysseyError:
        return []
    if isinstance(declared, str):
        declared = [declared]
    return [h for h in declared if isinstance(h, str)] if isinstance(declared, list) else []


# Harnesses on which the hook replaces the reviewer dispatch's prompt with the gate's
# brief (zodyssey/gate/brief.py's HARNESSES, wired in zodyssey/gate/hook.py).
BRIEFING_HARNESSES = ("claude-code", "gemini")


def verdict_sources(root: Path, slug: str) -> str:
    """What `run start` says about how this run's plan gets approved: the two ways
    (the reviewer agent, a person), and on which declared harnesses each holds."""
    declared = _declared_harnesses(root)
    person = (
        f"a person, on every harness, in their own terminal: `zodyssey run review {slug} "
        "--human OKAY|REJECT --by NAME`"
    )
    known = _reporting_harnesses()
    briefed = [h for h in declared if h in known and h in BRIEFING_HARNESSES]
    written = [h for h in declared if h in known and h not in BRIEFING_HARNESSES]
    silent = [h for h in declared if h not in known]
    lines = ["the plan is approved (review verdict) by either:"]
    if briefed or not declared:
        names = ", ".join(briefed) or "Claude Code and Gemini CLI"
        lines.append(
            f"  - the reviewer agent ({_reviewer(root)}): on {names} the gate takes its verdict "
            "from the client's own report of the reviewer's dispatch (no verdict file, no "
            "nonce); its instructions are the definition `zodyssey hook install` wrote, which "
            "`zodyssey check` holds to the one zodyssey ships"
        )
        lines.append(
            f"  the gate writes the reviewer's brief on {names} (the plan's path and digest, "
            "the rules; the orchestrator's prompt only as marked context), and an OKAY must "
            "name the plan's digest"
        )
    lines.append(f"  - {person}")
    if written:
        lines.append(
            f"  on {', '.join(written)} the gate cannot rewrite the reviewer's dispatch (the "
            "orchestrator would choose its instructions): a person decides, with "
            "`zodyssey run review SLUG --human`"
        )
    if silent:
        lines.append(
            f"  on {', '.join(silent)} (no agent reports) a person decides, with "
            "`zodyssey run review SLUG --human`"
        )
    elif not declared:
        lines.append(
            "  on ZCode (which lets no hook rewrite the reviewer's dispatch), Cursor and Codex "
            "(which report no agents) a person decides"
        )
    return "\n".join(lines).replace("SLUG", slug)


def _reviewer(root: Path) -> str:
    """The configured reviewer agent's name (the default when unreadable)."""
    from zodyssey.config import load_config

    try:
        value = load_config(root).section("gate").get("reviewer_agent", "momus")
    except ZodysseyError:
        return "momus"
    return value if isinstance(value, str) and value else "momus"
