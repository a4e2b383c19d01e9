"""`run verify`: execute a todo's acceptance criteria from the plan, then the quality checks.

Every execution becomes one evidence record (see `zodyssey/runs/evidence.py`).
The command run is always the one in the plan the review bound: the agent
names a todo and optionally a criterion index, never a command.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zodyssey.config import load_config
from zodyssey.core import paths
from zodyssey.core.exits import Exit
from zodyssey.core.plan import Criterion, Todo
from zodyssey.errors import UsageError
from zodyssey.runs import evidence as chain
from zodyssey.runs.checks import QualityCheck, load_checks
from zodyssey.runs.context import RunContext, gate_entry
from zodyssey.runs.criteria import Step, describe, parse_criterion, step_passed
from zodyssey.runs.execution import DEFAULT_TIMEOUT_S, Execution, execute
from zodyssey.runs.preconditions import (
    check_chain,
    note_evidence_head,
    require_active,
    require_bound_plan,
    require_todo,
)
from zodyssey.runs.worktree import content_digest, snapshot
from zodyssey.sandbox.contain import contained


@dataclass
class CheckResult:
    name: str
    on_failure: str
    passed: bool
    skipped: bool
    seq: int | None

    @property
    def blocking_failure(self) -> bool:
        return not self.passed and not self.skipped and self.on_failure == "block"


def configured_timeout(root: Path) -> float:
    value = load_config(root).section("runs").get("timeout")
    if value is None:
        return DEFAULT_TIMEOUT_S
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise UsageError("[tool.zodyssey.runs] timeout must be a positive number of seconds")
    return float(value)


def execution_fields(
    ctx: RunContext,
    run: Execution,
    timeout_s: float,
    before: dict[str, Any],
    after: dict[str, Any],
) -> dict[str, Any]:
    """What every executed-command evidence record says about the execution itself."""
    return {
        "cwd": str(ctx.root),
        "started_at": run.started_at,
        "finished_at": run.finished_at,
        "duration_s": run.duration_s,
        "exit_code": run.exit_code,
        "signal": run.signal,
        "timed_out": run.timed_out,
        "timeout_s": timeout_s,
        "stdout": chain.capture_output(ctx.root, ctx.slug, run.stdout),
        "stderr": chain.capture_output(ctx.root, ctx.slug, run.stderr),
        "head_before": before.get("head"),
        "head_after": after.get("head"),
        "tree_before": before.get("fingerprint"),
        "tree_after": after.get("fingerprint"),
    }


def record_execution(
    ctx: RunContext,
    *,
    kind: str,
    command: str,
    timeout_s: float,
    plan_sha: str | None,
    extra: dict[str, Any],
    before: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Run one shell command between two snapshots and append its evidence record."""
    snap_before = before if before is not None else snapshot(ctx.root)
    run = execute(contained(ctx.root, command), ctx.root, timeout_s)
    snap_after = snapshot(ctx.root)
    record: dict[str, Any] = {
        "kind": kind,
        "slug": ctx.slug,
        **extra,
        "command": command,
        **execution_fields(ctx, run, timeout_s, snap_before, snap_after),
        "plan_sha256": plan_sha,
        "passed": run.passed,
    }
    return chain.append_record(ctx.root, ctx.slug, record)


def record_criterion(
    ctx: RunContext,
    todo: Todo,
    criterion: Criterion,
    steps: list[Step],
    *,
    timeout_s: float,
    plan_sha: str,
    before: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Run every command of one criterion, judge each by its expectation, append one record.

    Every step runs, a failed one included, so the record shows what each
    command did. The record's top-level exit code and output are those of the
    first step that did not pass (else of the last step).
    """
    snap_before = before if before is not None else snapshot(ctx.root)
    # Criteria import product code the agent edits: they run in the run's sandbox.
    ran = [
        (step, execute(contained(ctx.root, step.command), ctx.root, timeout_s)) for step in steps
    ]
    snap_after = snapshot(ctx.root)
    docs: list[dict[str, Any]] = []
    for step, run in ran:
        doc: dict[str, Any] = {
            "command": step.command,
            "expect": dict(step.expect),
            "started_at": run.started_at,
            "finished_at": run.finished_at,
            "duration_s": run.duration_s,
            "exit_code": run.exit_code,
            "signal": run.signal,
            "timed_out": run.timed_out,
            "stdout": chain.capture_output(ctx.root, ctx.slug, run.stdout),
            "stderr": chain.capture_output(ctx.root, ctx.slug, run.stderr),
        }
        doc["passed"] = step_passed(doc)
        docs.append(doc)
    deciding = next((d for d in docs if not d["passed"]), docs[-1])
    record: dict[str, Any] = {
        "kind": "criterion",
        "slug": ctx.slug,
        "todo": todo.id,
        "criterion_index": criterion.index,
        "criterion_text": criterion.text,
        "criterion_sha256": chain.sha256_text(criterion.text),
        "command": "\n".join(step.command for step in steps),
        "cwd": str(ctx.root),
        "started_at": docs[0]["started_at"],
        "finished_at": docs[-1]["finished_at"],
        "duration_s": round(sum(float(d["duration_s"]) for d in docs), 6),
        "exit_code": deciding["exit_code"],
        "signal": deciding["signal"],
        "timed_out": deciding["timed_out"],
        "timeout_s": timeout_s,
        "stdout": deciding["stdout"],
        "stderr": deciding["stderr"],
        "head_before": snap_before.get("head"),
        "head_after": snap_after.get("head"),
        "tree_before": snap_before.get("fingerprint"),
        "tree_after": snap_after.get("fingerprint"),
        "worktree_digest": content_digest(ctx.root),
        "plan_sha256": plan_sha,
        "steps": docs,
        "passed": all(d["passed"] for d in docs),
    }
    return chain.append_record(ctx.root, ctx.slug, record)


def run_quality_checks(
    ctx: RunContext,
    checks: list[QualityCheck],
    plan_sha: str | None,
    *,
    todo: str | None,
    stage: str,
) -> list[CheckResult]:
    """Run every configured check, record each as evidence and as a gate decision."""
    results: list[CheckResult] = []
    decisions: list[_Decision] = []
    default_timeout = configured_timeout(ctx.root) if checks else DEFAULT_TIMEOUT_S
    for check in checks:
        result, decision = _run_check(ctx, check, plan_sha, todo, stage, default_timeout)
        results.append(result)
        decisions.append(decision)
    if decisions:
        ctx.store.update(lambda state: _record_decisions(state, decisions, stage))
    return results


_Decision = tuple[str, str, str, "dict[str, Any] | None"]  # (check, decision, why, record)


def _run_check(
    ctx: RunContext,
    check: QualityCheck,
    plan_sha: str | None,
    todo: str | None,
    stage: str,
    default_timeout: float,
) -> tuple[CheckResult, _Decision]:
    """Run one check (a `skip` check is only noted), print its outcome."""
    if check.on_failure == "skip":
        print(f"check {check.name}: skipped (on_failure = skip)")
        return CheckResult(check.name, check.on_failure, False, True, None), (
            check.name,
            "skip",
            f"{stage}: configured on_failure = skip",
            None,
        )
    record = record_execution(
        ctx,
        kind="check",
        command=check.command,
        timeout_s=check.timeout_s or default_timeout,
        plan_sha=plan_sha,
        extra={"todo": todo, "check": check.name, "on_failure": check.on_failure},
    )
    passed = bool(record["passed"])
    decision = "pass" if passed else ("fail" if check.on_failure == "block" else "warn")
    why = f"{stage}: exit {record['exit_code']}" + (" (timed out)" if record["timed_out"] else "")
    label = "PASS" if passed else ("FAIL (blocks)" if decision == "fail" else "FAIL (warning)")
    print(f"check {check.name}: {label} (exit {record['exit_code']}, {record['duration_s']:.2f}s)")
    result = CheckResult(check.name, check.on_failure, passed, False, record["seq"])
    return result, (check.name, decision, why, record)


def _record_decisions(state: dict[str, Any], decisions: list[_Decision], stage: str) -> None:
    """Each check's outcome as a gate decision (its evidence record moves the head)."""
    for name, decision, why, record in decisions:
        if record is not None:
            note_evidence_head(state, record)
        gate_entry(
            state,
            stage if stage == "verify" else "phase",
            decision,
            by=f"check:{name}",
            subject=name,
            reason=why + (f" (evidence seq {record['seq']})" if record else ""),
        )


def _history_entry(record: dict[str, Any], path: Path) -> dict[str, Any]:
    return {
        "todo_id": record["todo"],
        "criterion_index": record["criterion_index"],
        "passed": record["passed"],
        "status": "passed" if record["passed"] else "failed",
        "flaky": False,
        "criterion": record["criterion_text"],
        "exit_code": record["exit_code"],
        "worktree": record["tree_before"],
        "at": record["finished_at"],
        "artifact": str(path),
        "seq": record["seq"],
        "plan_sha256": record["plan_sha256"],
    }


def _update_summaries(
    state: dict[str, Any], todo: Todo, records: list[dict[str, Any]], path: Path
) -> None:
    verify = state.get("verify")
    if not isinstance(verify, dict):
        verify = state["verify"] = {}
    _record_history(state, verify, todo, records, path)
    state.setdefault("acceptance", {})[todo.id] = _acceptance(
        todo, verify["history"], records, path
    )


def _record_history(
    state: dict[str, Any],
    verify: dict[str, Any],
    todo: Todo,
    records: list[dict[str, Any]],
    path: Path,
) -> None:
    """Each record replaces its criterion's history entry; the counts follow."""
    history = verify.get("history")
    history = history if isinstance(history, list) else []
    for record in records:
        note_evidence_head(state, record)
        history = [h for h in history if not _same_criterion(h, record)]
        history.append(_history_entry(record, path))
        gate_entry(
            state,
            "verify",
            "pass" if record["passed"] else "fail",
            subject=f"{todo.id}#{record['criterion_index']}",
            reason=f"exit {record['exit_code']} (evidence seq {record['seq']})",
        )
    verify["history"] = history
    verify["total"] = len(history)
    verify["passed"] = sum(1 for h in history if h.get("passed"))
    verify["flaky"] = sum(1 for h in history if h.get("flaky"))
    verify["failed"] = verify["total"] - verify["passed"] - verify["flaky"]


def _same_criterion(entry: object, record: dict[str, Any]) -> bool:
    """Whether the history entry is about the criterion `record` executed."""
    return (
        isinstance(entry, dict)
        and str(entry.get("todo_id")) == str(record["todo"])
        and entry.get("criterion_index") == record["criterion_index"]
    )


def _acceptance(
    todo: Todo, history: list[Any], records: list[dict[str, Any]], path: Path
) -> dict[str, Any]:
    """The state's acceptance summary of `todo` after `records` joined the history."""
    mine = {h.get("criterion_index"): h for h in history if str(h.get("todo_id")) == todo.id}
    declared = {c.index for c in todo.criteria}
    return {
        "pass": bool(declared) and all(mine.get(i, {}).get("passed") for i in declared),
        "at": records[-1]["finished_at"] if records else None,
        "evidence": str(path),
        "criteria_run": len(declared & set(mine)),
        "criteria_declared": len(declared),
    }


FAILURE_LINES = 40  # lines of a failing criterion's output shown by `run verify`


def _output_where(root: Path, slug: str, record: Mapping[str, Any]) -> str:
    """Where the full output of a record is kept, stream by stream."""
    places = []
    for stream in ("stdout", "stderr"):
        info = record.get(stream)
        if not isinstance(info, dict) or not info.get("size"):
            continue
        if info.get("stored") and isinstance(info.get("sha256"), str):
            places.append(f"{stream} {chain.output_dir(root, slug) / info['sha256']}")
        else:
            places.append(f"{stream} not kept ({info.get('size')} bytes; only its tail)")
    return ", ".join(places) or "no output"


def failure_excerpt(root: Path, slug: str, record: dict[str, Any]) -> list[str]:
    """The last FAILURE_LINES lines of a failed execution's output, and where the rest is."""
    lines: list[str] = []
    for stream in ("stdout", "stderr"):
        info = record.get(stream)
        tail = info.get("tail") if isinstance(info, dict) else None
        if isinstance(tail, str) and tail.strip():
            lines.extend(f"    {stream}| {line}" for line in tail.rstrip().splitlines())
    shown = lines[-FAILURE_LINES:]
    if len(lines) > len(shown):
        shown.insert(0, f"    ... ({len(lines) - len(shown)} earlier lines not shown)")
    shown.append(f"    full output: {_output_where(root, slug, record)}")
    return shown


def _selected(args: argparse.Namespace, todo: Todo) -> list[Criterion]:
    """The criteria `run verify` runs: all of the todo's, or the one `--criterion` names."""
    if args.criterion is None:
        return list(todo.criteria)
    selected = [c for c in todo.criteria if c.index == args.criterion]
    if not selected:
        raise UsageError(
            f"todo {todo.id} has {len(todo.criteria)} acceptance criteria; "
            f"there is no criterion {args.criterion}"
        )
    return selected


def _refuse_unrunnable(
    ctx: RunContext, todo: Todo, selected: list[Criterion], checks: list[QualityCheck]
) -> None:
    if not selected and not checks:
        ctx.refuse(
            "verify", f"todo {todo.id} declares no acceptance criteria to run", Exit.REFUSED_STATE
        )
    for criterion in selected:
        spec = parse_criterion(criterion.text)
        if spec.problem is not None:
            ctx.refuse(
                "verify",
                f"criterion {criterion.index} of todo {todo.id} (plan line {criterion.line}) "
                f"cannot be verified as written: {spec.problem}",
                Exit.LINT,
                subject=f"{todo.id}#{criterion.index}",
            )


def _refuse_stalled(
    ctx: RunContext,
    todo: Todo,
    selected: list[Criterion],
    records: list[dict[str, Any]],
    plan_sha: str,
    current: dict[str, Any],
) -> None:
    """Before running anything: a failure on this exact tree is already known."""
    if not current["ok"]:
        return
    for criterion in selected:
        last = chain.latest_criterion_record(records, todo.id, criterion, plan_sha)
        if (
            last is not None
            and not chain.record_passed(last)
            and current["fingerprint"] in (last.get("tree_before"), last.get("tree_after"))
        ):
            ctx.refuse(
                "verify",
                f"not re-running criterion {criterion.index} of todo {todo.id}: the work "
                f"tree is byte-identical to its last failure (record seq {last.get('seq')}, "
                f"fingerprint {current['fingerprint'][:12]}); change a file the plan "
                "declares so the criterion can pass (its last output: "
                f"{_output_where(ctx.root, ctx.slug, last)}), or ask the user to re-plan "
                "if the criterion itself is wrong",
                Exit.REFUSED,
                subject=f"{todo.id}#{criterion.index}",
            )


def _run_criteria(
    ctx: RunContext,
    todo: Todo,
    selected: list[Criterion],
    timeout_s: float,
    plan_sha: str,
    current: dict[str, Any],
) -> list[dict[str, Any]]:
    """Run each criterion once, recording evidence and printing its outcome."""
    done: list[dict[str, Any]] = []
    for criterion in selected:
        record = record_criterion(
            ctx,
            todo,
            criterion,
            parse_criterion(criterion.text).steps,
            timeout_s=timeout_s,
            plan_sha=plan_sha,
            before=current if not done else None,
        )
        done.append(record)
        outcome = "PASS" if record["passed"] else "FAIL"
        print(
            f"todo {todo.id} criterion {criterion.index}: {outcome} "
            f"({record['duration_s']:.2f}s, evidence seq {record['seq']})"
        )
        for step in record["steps"]:
            why = "timed out" if step["timed_out"] else f"exit {step['exit_code']}"
            if step["signal"] is not None:
                why = f"signal {step['signal']}"
            mark = "ok" if step["passed"] else "FAILED"
            print(f"    `{step['command']}`: {mark} ({why}; expected: {describe(step['expect'])})")
        if not record["passed"]:
            for line in failure_excerpt(ctx.root, ctx.slug, record):
                print(line)
    return done


def cmd_verify(args: argparse.Namespace) -> int:
    ctx = RunContext.open(args.repo, args.slug)
    if args.timeout is not None and args.timeout <= 0:
        raise UsageError("--timeout must be a positive number of seconds")
    checks = load_checks(ctx.root)
    timeout_s = args.timeout or configured_timeout(ctx.root)
    state = ctx.state()
    require_active(ctx, state, "verify")
    loaded = require_bound_plan(ctx, state, "verify")
    todo = require_todo(loaded, args.todo)
    selected = _selected(args, todo)
    _refuse_unrunnable(ctx, todo, selected, checks)
    records = check_chain(ctx, state, "verify")
    current = snapshot(ctx.root)
    _refuse_stalled(ctx, todo, selected, records, loaded.sha256, current)
    done = _run_criteria(ctx, todo, selected, timeout_s, loaded.sha256, current)
    path = Path(paths.stored(paths.evidence_path(ctx.root, ctx.slug), ctx.root))
    if done:
        ctx.store.update(lambda state: _update_summaries(state, todo, done, path))
    results = run_quality_checks(ctx, checks, loaded.sha256, todo=todo.id, stage="verify")
    return _verify_verdict(todo, done, results)


def _verify_verdict(todo: Todo, done: list[dict[str, Any]], results: list[CheckResult]) -> int:
    """Print what `run verify` found; its exit code (FAILED when a criterion or a
    blocking check failed)."""
    failed = [str(r["criterion_index"]) for r in done if not r["passed"]]
    blocking = [r.name for r in results if r.blocking_failure]
    parts = [
        f"{what} failed: {', '.join(names)}"
        for what, names in (("criteria", failed), ("blocking checks", blocking))
        if names
    ]
    if parts:
        print(f"verify todo {todo.id}: FAILED ({'; '.join(parts)})")
        return Exit.FAILED
    print(f"verify todo {todo.id}: passed")
    return 0
