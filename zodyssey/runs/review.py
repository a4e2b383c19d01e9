"""`run review`: record the reviewer's verdict (or a person's) for one review round.

An agent verdict is accepted only with the nonce the gate minted when it
dispatched the reviewer (`review.pending_nonce`); the nonce is then moved to
`review.consumed_nonces` and can never be used again. OKAY needs a clean plan
lint and binds the sha256 of the plan on disk.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zodyssey.core.atomic import write_atomic
from zodyssey.core.exits import Exit
from zodyssey.core.paths import reviews_dir
from zodyssey.core.store import dump_json, now_iso
from zodyssey.core.vocabulary import BLOCKED, HALTED_PHASES
from zodyssey.errors import UsageError, ZodysseyError
from zodyssey.runs.checks import load_checks, test_command
from zodyssey.runs.context import RunContext, RunRefused, gate_entry
from zodyssey.runs.lint import lint_plan

_VERDICT_LINE = re.compile(r"^\s*\**VERDICT\**\s*:\s*\**\s*(OKAY|REJECT)\s*\**\s*$")
_VERDICT_ANY = re.compile(r"^\s*\**VERDICT\**\s*:", re.IGNORECASE)
_NONCE_LINE = re.compile(r"^\s*\**NONCE\**\s*:\s*`?([A-Za-z0-9._:-]+)`?\s*$", re.IGNORECASE)
_BLOCKERS_HEAD = re.compile(r"^\s*\**BLOCKERS\**\s*:\s*$", re.IGNORECASE)
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
    prose_blockers: list[Any] = []
    collecting = False
    for line in lines:
        if _BLOCKERS_HEAD.match(line):
            collecting = True
            continue
        if collecting:
            item = re.match(r"^\s*[-*]\s+(.*\S)\s*$", line)
            if item:
                prose_blockers.append(item.group(1))
            elif line.strip():
                collecting = False
    return ParsedArtifact(verdicts[0], nonces[0] if nonces else None, prose_blockers, None, "prose")


def _pending_nonce(review: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
    pending = review.get("pending_nonce")
    if isinstance(pending, str) and pending:
        return pending, {}
    if isinstance(pending, dict) and isinstance(pending.get("nonce"), str):
        return str(pending["nonce"]), pending
    return None, {}


def _read_arguments(args: argparse.Namespace) -> tuple[ParsedArtifact | None, bytes, Path | None]:
    """Check the flags; read and parse `--artifact` (None, b"", None for `--human`)."""
    if bool(args.artifact) == bool(args.human):
        raise UsageError("give either --artifact FILE or --human OKAY|REJECT --by NAME")
    if args.human and not (args.by or "").strip():
        raise UsageError("--human needs --by NAME (who decided)")
    if (args.by or args.comment) and not args.human:
        raise UsageError("--by and --comment go with --human")
    if not args.artifact:
        return None, b"", None
    input_path = Path(args.artifact).resolve()
    try:
        raw_bytes = input_path.read_bytes()
        text = raw_bytes.decode("utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read review artifact {args.artifact}: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise UsageError(f"review artifact {args.artifact} is not UTF-8 text") from exc
    return parse_artifact(text, args.artifact), raw_bytes, input_path


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


def _agent_nonce(
    review: dict[str, Any], parsed: ParsedArtifact, slug: str
) -> tuple[str, dict[str, Any]]:
    """The artifact's nonce if it is the one pending for this round (else RunRefused)."""
    round_now = int(review.get("round", 0) or 0)
    max_rounds = int(review.get("max_rounds", 3) or 3)
    if round_now >= max_rounds:
        raise RunRefused(
            f"review round {round_now}/{max_rounds} was the last one; the run is "
            f"blocked: ask the user (`zodyssey run review {slug} --human "
            "OKAY|REJECT --by NAME`)",
            Exit.REFUSED_STATE,
        )
    nonce = parsed.nonce
    pending, pending_info = _pending_nonce(review)
    if not nonce:
        raise RunRefused(
            "the review artifact carries no nonce: the reviewer must echo the nonce "
            "the gate minted when it was dispatched",
            Exit.REFUSED_STATE,
        )
    consumed = review.get("consumed_nonces") or {}
    if nonce in consumed:
        used = consumed[nonce]
        raise RunRefused(
            f"nonce {nonce[:12]} was already used in round "
            f"{used.get('round') if isinstance(used, dict) else '?'}; a review nonce is "
            "good for one verdict: dispatch the reviewer again",
            Exit.REFUSED_STATE,
        )
    if pending is None:
        raise RunRefused(
            "no reviewer dispatch is pending: the gate mints a nonce when the reviewer "
            "agent is dispatched, and the artifact must carry it",
            Exit.REFUSED_STATE,
        )
    if nonce != pending:
        raise RunRefused(
            f"the artifact's nonce {nonce[:12]} is not the one minted for the pending "
            f"reviewer dispatch ({pending[:12]})",
            Exit.REFUSED_STATE,
        )
    return nonce, pending_info


def _okay_refused(
    parsed: ParsedArtifact, pending_info: dict[str, Any], problems: list[Any], plan_sha: str
) -> str | None:
    """Why a reviewer's OKAY cannot stand (lint problems, a plan changed since it was read)."""
    seen = pending_info.get("plan_sha256") or parsed.plan_sha256
    if problems:
        return f"plan lint: {len(problems)} problem(s)"
    if seen and seen != plan_sha:
        return (
            f"the plan changed after the reviewer read it "
            f"(reviewed {str(seen)[:12]}, on disk {plan_sha[:12]})"
        )
    return None


@dataclass
class _Round:
    """One review round as decided, before it is written into the state."""

    verdict: str  # what was asked for (the reviewer's or the person's)
    effective: str  # what is recorded (an OKAY refused is a REJECT)
    refused: str | None
    nonce: str | None
    parsed: ParsedArtifact | None
    by: str | None
    comment: str | None
    raw_bytes: bytes
    input_path: Path | None


def _record_round(
    st: dict[str, Any],
    ctx: RunContext,
    decided: _Round,
    problems: list[Any],
    todo_ids: list[str],
    plan_sha: str,
) -> dict[str, Any]:
    """The transition: write the round's artifact, spend the nonce, move the phase."""
    review = st.setdefault("review", {})
    round_now = int(review.get("round", 0) or 0)
    max_rounds = int(review.get("max_rounds", 3) or 3)
    consumed = review.setdefault("consumed_nonces", {})
    parsed, refused, effective, nonce = (
        decided.parsed,
        decided.refused,
        decided.effective,
        decided.nonce,
    )
    round_new = round_now + 1
    at = now_iso()
    artifact_path = reviews_dir(ctx.root) / f"{ctx.slug}-r{round_new}.json"
    blockers: list[Any] = list(parsed.blockers) if parsed else []
    if refused and problems:
        blockers = blockers + [p.render() for p in problems]
    elif refused:
        blockers = [*blockers, refused]
    document = {
        "slug": ctx.slug,
        "round": round_new,
        "verdict": effective,
        "reviewer_verdict": decided.verdict if parsed else None,
        "refused": refused,
        "blockers": blockers if effective == "REJECT" else [],
        "source": "agent" if parsed else "human",
        "by": decided.by,
        "comment": decided.comment,
        "nonce": nonce,
        "plan_sha256": plan_sha,
        "recorded_at": at,
        "input_path": str(decided.input_path) if decided.input_path else None,
        "input_sha256": (
            hashlib.sha256(decided.raw_bytes).hexdigest() if decided.input_path else None
        ),
        "input_format": parsed.fmt if parsed else None,
    }
    artifact_text = dump_json(document)
    write_atomic(artifact_path, artifact_text)
    artifact_sha = hashlib.sha256(artifact_text.encode("utf-8")).hexdigest()
    if nonce:
        consumed[nonce] = {
            "round": round_new,
            "at": at,
            "artifact": str(artifact_path),
            "artifact_sha256": artifact_sha,
        }
        review["pending_nonce"] = None
    review["round"] = round_new
    review["max_rounds"] = max_rounds
    review["verdict"] = effective
    review["source"] = document["source"]
    review["by"] = document["by"]
    review["blockers"] = document["blockers"]
    review["artifact"] = str(artifact_path)
    if effective == "OKAY":
        review["plan_sha256"] = plan_sha
    review.setdefault("history", []).append(
        {
            "round": round_new,
            "at": at,
            "verdict": effective,
            "blockers": document["blockers"],
            "source": document["source"],
            "by": document["by"],
            "comment": document["comment"],
            "nonce": nonce,
            "artifact": str(artifact_path),
            "artifact_sha256": artifact_sha,
            "plan_sha256": plan_sha,
            "lint_clean": not problems,
            "reviewer_verdict": document["reviewer_verdict"],
            "refused": refused,
        }
    )
    before = st.get("phase")
    if effective == "OKAY":
        todos = st.setdefault("todos", {})
        for todo_id in todo_ids:
            todos.setdefault(todo_id, {"status": "pending", "attempts": 0})
        if before in PRE_EXECUTION:
            st["phase"] = "execute"
    elif parsed is not None and round_new >= max_rounds:
        st["phase"] = "blocked"
    if st.get("phase") != before:
        st.setdefault("phase_history", []).append(
            {
                "from": before,
                "to": st["phase"],
                "at": at,
                "note": f"review round {round_new}: {effective}",
                "forced": False,
                "reason": refused,
                "verdict_invalidated": False,
            }
        )
    who = f"human:{document['by']}" if not parsed else "zodyssey run review"
    gate_entry(
        st,
        "review",
        "allow" if effective == "OKAY" else "refuse",
        by=who,
        subject=f"round {round_new}",
        reason=refused or f"verdict {effective}",
    )
    return {
        "round": round_new,
        "max_rounds": max_rounds,
        "verdict": effective,
        "refused": refused,
        "phase": st.get("phase"),
        "path": artifact_path,
    }


def cmd_review(args: argparse.Namespace) -> int:
    ctx = RunContext.open(args.repo, args.slug)
    parsed, raw_bytes, input_path = _read_arguments(args)
    state = ctx.state()
    _refuse_halted(ctx, state.get("phase"), bool(args.human))
    loaded = ctx.load_plan(state)
    problems = lint_plan(loaded.plan, test_command(load_checks(ctx.root)))
    verdict = parsed.verdict if parsed else str(args.human)

    if args.human and verdict == "OKAY" and problems:
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
        refused: str | None = None
        nonce: str | None = None
        if args.human:
            # A person's review re-reviews the configuration the gate judges by.
            from zodyssey.config import config_digest

            digest, source = config_digest(ctx.root)
            st["gate_config"] = {"sha256": digest, "source": source}
        if parsed is not None:
            nonce, pending_info = _agent_nonce(st.setdefault("review", {}), parsed, ctx.slug)
            # Valid: the nonce is spent whatever the outcome, so an artifact cannot be
            # replayed against a plan edited after the reviewer saw it.
            if verdict == "OKAY":
                refused = _okay_refused(parsed, pending_info, problems, loaded.sha256)
        decided = _Round(
            verdict=verdict,
            effective="REJECT" if refused else verdict,
            refused=refused,
            nonce=nonce,
            parsed=parsed,
            by=None if parsed else args.by.strip(),
            comment=None if parsed else args.comment,
            raw_bytes=raw_bytes,
            input_path=input_path,
        )
        outcome.update(_record_round(st, ctx, decided, problems, todo_ids, loaded.sha256))

    try:
        ctx.store.update(mutate)
    except RunRefused as exc:
        ctx.refuse("review", exc.message, exc.exit_code)
    source = "human verdict" if args.human else "reviewer verdict"
    print(
        f"review round {outcome['round']}/{outcome['max_rounds']}: {outcome['verdict']} "
        f"({source}); recorded {outcome['path']}; phase {outcome['phase']}"
    )
    if outcome["refused"]:
        for problem in problems:
            print(problem.render())
        code = Exit.LINT if problems else Exit.REFUSED_STATE
        raise ZodysseyError(
            f"the reviewer's OKAY was not accepted ({outcome['refused']}); the round is "
            "recorded as REJECT: fix the plan and dispatch the reviewer again",
            code,
        )
    if outcome["verdict"] == "REJECT" and outcome["phase"] == "blocked":
        print(
            f"review rejected {outcome['round']} times (max {outcome['max_rounds']}): the run is "
            f"blocked; ask the user to decide (`zodyssey run review {ctx.slug} --human "
            "OKAY|REJECT --by NAME`)"
        )
    return 0
