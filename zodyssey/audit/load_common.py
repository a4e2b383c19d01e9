"""Loading steps shared by both sources: the plan, review artifacts, ungated calls."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from zodyssey.audit.artifacts import (
    ArtifactMissing,
    as_dict,
    as_int,
    as_str,
    decode_json,
    display_path,
    inside,
    read_bytes,
    sha256_hex,
)
from zodyssey.audit.model import AuditedNonce, AuditedRound, AuditedRun, UngatedCall, clip
from zodyssey.audit.validation import validate
from zodyssey.core import paths
from zodyssey.core.store import jsonl_values


def _recorded_path(recorded: str, root: Path, state: Any) -> Path:
    """A path the state names, as a path now (relative to the root; an absolute
    one under the state's `project_dir` moved with a renamed folder)."""
    return Path(paths.in_repository(recorded, str(root), state if isinstance(state, dict) else {}))


def load_plan(run: AuditedRun, root: Path, recorded: Any, state: Any = None) -> None:
    """Find and read the plan; a run without a readable plan cannot be audited (exit 3)."""
    default = paths.plan_path(root, run.slug)
    candidates: list[Path] = []
    if isinstance(recorded, str) and recorded and "\x00" not in recorded:
        path = _recorded_path(recorded, root, state)
        # The plan must lie inside the repository; never read elsewhere on an artifact's word.
        if inside(path, root):
            candidates.append(path)
    if default not in candidates:
        candidates.append(default)
    reasons: list[str] = []
    for path in candidates:
        data, reason = read_bytes(path)
        if data is None:
            reasons.append(f"{path} {reason}")
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            reasons.append(f"{path} is not UTF-8 text")
            continue
        run.plan_path = display_path(path, root)
        run.plan_text = text
        run.plan_sha256_on_disk = sha256_hex(data)
        return
    raise ArtifactMissing("plan unreadable: " + "; ".join(reasons))


def review_artifact_path(
    root: Path, slug: str, number: int, recorded: Any, state: Any = None
) -> Path:
    if isinstance(recorded, str) and recorded and "\x00" not in recorded:
        path = _recorded_path(recorded, root, state)
        if inside(path, root):
            return path
    return paths.reviews_dir(root) / f"{slug}-r{number}.json"


def read_review_artifact(
    run: AuditedRun, root: Path, entry: AuditedRound, path: Path, schema: str | None
) -> dict[str, Any]:
    """Fill `entry.artifact_*` from the file at `path`; returns the parsed object."""
    entry.artifact = display_path(path, root)
    data, reason = read_bytes(path)
    if data is None:
        entry.artifact_problem = reason
        return {}
    entry.artifact_found = True
    entry.artifact_sha256 = sha256_hex(data)
    value, reason = decode_json(data)
    if reason is not None:
        entry.artifact_problem = reason
        return {}
    if schema is not None:
        violations, total = validate(value, schema)
        for violation in violations:
            run.problem(
                "schema-violation",
                f"{violation.json_path}: {violation.message}",
                entry.artifact,
                json_path=violation.json_path,
            )
        if total > len(violations):
            run.problem(
                "schema-violation",
                f"{total - len(violations)} more schema violations not listed",
                entry.artifact,
            )
    return as_dict(value)


def load_ungated(run: AuditedRun, root: Path) -> None:
    """`.zcode/state/<slug>.ungated.jsonl`: one line per shell call the gate let through."""
    path = paths.ungated_path(root, run.slug)
    where = display_path(path, root)
    data, reason = read_bytes(path)
    if data is None:
        if reason != "does not exist":
            run.problem("schema-violation", f"cannot read the ungated-call log: {reason}", where)
        return
    text = data.decode("utf-8", errors="replace")
    for number, line, value, error in jsonl_values(text):
        if error is not None:
            run.problem(
                "schema-violation", "line is not valid JSON", where, line=number, json_path="$"
            )
            run.ungated.append(UngatedCall(clip(line, 300), None, f"{where}:{number}"))
            continue
        violations, _ = validate(value, "ungated-call.schema.json")
        for violation in violations:
            run.problem(
                "schema-violation",
                f"{violation.json_path}: {violation.message}",
                where,
                line=number,
                json_path=violation.json_path,
            )
        record = as_dict(value)
        command = as_str(record.get("command")) or as_str(record.get("cmd")) or ""
        run.ungated.append(
            UngatedCall(clip(command, 500), as_str(record.get("at")), f"{where}:{number}")
        )


def load_review_header(run: AuditedRun, review: dict[str, Any], sha_key: str) -> None:
    """Verdict, rounds, bound plan hash, pending and consumed nonces: the review
    fields both pipelines write alike. `sha_key` names the consumed-nonce field
    holding the artifact's hash (the pipelines spell it differently)."""
    state = run.review
    state.verdict = as_str(review.get("verdict"))
    state.round = as_int(review.get("round"))
    state.max_rounds = as_int(review.get("max_rounds")) or 3
    state.plan_sha256 = as_str(review.get("plan_sha256")) or None
    pending = review.get("pending_nonce")
    state.pending_nonce = as_str(pending) or as_str(as_dict(pending).get("nonce"))
    for nonce, raw in as_dict(review.get("consumed_nonces")).items():
        entry = as_dict(raw)
        state.consumed.append(
            AuditedNonce(
                nonce=nonce,
                round=as_int(entry.get("round")),
                artifact=as_str(entry.get("artifact")),
                sha256=as_str(entry.get(sha_key)),
                plan_sha256=as_str(entry.get("plan_sha256")),
            )
        )
