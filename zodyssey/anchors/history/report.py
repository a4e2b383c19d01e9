"""`check-anchors --history` and `--update --from-history`: citations judged by git history.

The checker's CLI calls these two functions lazily (they pull in git and
process pools, which a normal check never needs):

- `history_report`: compare each citation with the span as it was when the
  citing line was written; `--fix` rewrites the numbers of moved citations.
- `seed_lock_from_history`: write a lock pinning that historical content, so
  citations that were already stale show up as drift in the next check
  instead of being blessed as they are now.

The git work is in `plumbing`, `trace` (per-citation
tracing) and `compare` (where a span went); this module turns the
traces into a `Report` and an exit code. Documented in docs/citation-history.md.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, get_args

from zodyssey.anchors.history.trace import Trace, TraceKind, TraceRun, trace_citations
from zodyssey.anchors.model import Citation, Tally, make_key
from zodyssey.config import Config
from zodyssey.core.exits import Exit
from zodyssey.findings import Case, Finding, Report, Severity

if TYPE_CHECKING:
    from zodyssey.anchors.fingerprint import TargetFile
    from zodyssey.anchors.lock import LockFile

# JSON payload version of both modes (documented in docs/citation-history.md).
SCHEMA_VERSION = 1
# The verdicts in order: ok, the problems, unknown. The problems fail the check (exit 9);
# the last three are the lock check's words for the same findings (a permalink judged at
# its commit, a cited path that is no regular file).
KINDS: tuple[str, ...] = get_args(TraceKind)
PROBLEM_KINDS = tuple(kind for kind in KINDS if kind not in ("ok", "unknown"))

RULES = {
    "moved": "The cited content is unchanged but now sits at other lines (or in the renamed file).",
    "drift": "The cited lines changed since the citing line was written.",
    "gone": "The cited file was deleted since the citing line was written.",
    "contentless": "The cited lines are blank or bare comment markers; nothing to judge.",
    "out-of-range": "A permalink's lines are past the end of the file at its commit.",
    "unreadable": "The cited path is no regular file (a FIFO, socket or device) or cannot be read.",
    "unverifiable": "A permalink whose commit, path or object this clone lacks (never the work "
    "tree).",
    "unknown": "History cannot judge this citation (untracked, uncommitted, shallow clone, ...).",
}

_SHOW_LINES = 3  # lines of "then" and "now" shown per finding in text output
_SHOW_WIDTH = 110


def history_report(
    root: Path,
    config: Config,
    citations: list[Citation],
    *,
    jobs: int,
    fix: bool,
    dry_run: bool,
    allow_unknown: bool = False,
    progress_stream: TextIO | None = None,
    scanned: int | None = None,
) -> tuple[Report, int]:
    """Judge every citation against the commit that wrote it; exit 0, 4 or 9.

    `unknown` proves nothing, so it fails (exit 9) unless `allow_unknown`; when
    every citation is unknown nothing was proven at all (exit 4, with the causes).

    Raises `GitUnavailable` (a ZodysseyError, exit 2) when git is missing or
    `root` is not in a work tree. With `fix`, moved citations get their
    numbers (and, after a git rename, their path) rewritten and an existing
    lock is re-pinned for them; `dry_run` only writes the diff to stderr.
    """
    selected = _not_exempt(citations, config, _lock_exempt(root, config))
    # The check's wording of counts (`scanned`: the documents discovery read).
    documents = len({c.site.doc for c in citations})
    tally = Tally.of(citations, scanned if scanned is not None else documents)
    run = trace_citations(root, selected, jobs=jobs, progress_stream=progress_stream)
    fixed = _Fixed()
    if fix:
        fixed = _apply_fix(root, config, run, dry_run)
    report = _build_report(
        run, fixed.rewritten, fix=fix, dry_run=dry_run, diff=fixed.diff, tally=tally
    )
    if len(selected) < len(citations):
        report.summary += f"; {len(citations) - len(selected)} exempt (not judged)"
    if fix and dry_run:
        report.summary += (
            f"; --dry-run: would rewrite {len(fixed.would_rewrite)} moved citation(s), "
            "nothing written"
        )
    if fixed.repinned:
        many = "y" if fixed.repinned == 1 else "ies"
        report.summary += f"; re-pinned {fixed.repinned} lock entr{many}"
    if not selected:
        return report, Exit.EMPTY
    return report, _verdict(report, run, fixed.rewritten, allow_unknown)


@dataclass
class _Fixed:
    """What `--fix` did: the diff, the traces rewritten (or, dry, would be), pins renewed."""

    diff: str = ""
    rewritten: set[int] = field(default_factory=set)
    would_rewrite: set[int] = field(default_factory=set)
    repinned: int = 0


def _apply_fix(root: Path, config: Config, run: TraceRun, dry_run: bool) -> _Fixed:
    fixable = [t for t in run.traces if _fixable(t)]
    if not fixable:
        return _Fixed()
    diff, would_rewrite = _rewrite_moves(root, config, fixable, dry_run)
    fixed = _Fixed(diff, set() if dry_run else would_rewrite, would_rewrite)
    if fixed.rewritten:
        fixed.repinned = _repin_rewritten(root, config, run.traces, fixable, fixed.rewritten)
    if diff:
        # stdout carries the report (maybe JSON); the diff goes beside it.
        sys.stderr.write(diff)
    return fixed


def _repin_rewritten(
    root: Path, config: Config, traces: list[Trace], fixable: list[Trace], rewritten: set[int]
) -> int:
    """Re-pin the lock for the rewritten traces (`rewritten` holds their ids)."""
    moved = [t for t in fixable if id(t) in rewritten]
    kept = [t.citation for t in traces if id(t) not in rewritten]
    return _repin_moved(root, config, moved, kept)


def _verdict(report: Report, run: TraceRun, rewritten: set[int], allow_unknown: bool) -> int:
    """Exit 4 when nothing was proven, 9 for problems or (unless allowed) unknowns, else 0."""
    unknown = [t for t in run.traces if t.kind == "unknown"]
    if unknown and len(unknown) == len(run.traces):
        _fail(report, "\nnothing proven: every citation is unknown. " + _causes(unknown))
        return Exit.EMPTY
    if unknown and not allow_unknown:
        _fail(report, _unknown_fails(unknown))
        return Exit.PROBLEMS
    failing = any(t.kind in PROBLEM_KINDS and id(t) not in rewritten for t in run.traces)
    return Exit.PROBLEMS if failing else Exit.OK


def _fail(report: Report, why: str) -> None:
    """Mark the report failed, `why` added to its summary."""
    report.summary += why
    if report.payload is not None:
        report.payload["ok"] = False


def _unknown_fails(unknown: list[Trace]) -> str:
    """Why unknown citations fail the check, and how to accept them."""
    return (
        f"\n{_plural(len(unknown), 'citation')} unknown: history could not judge "
        f"{'it' if len(unknown) == 1 else 'them'}, which fails the check "
        "(--allow-unknown accepts that). " + _causes(unknown)
    )


def _causes(unknown: list[Trace]) -> str:
    """The most frequent reasons, shortest form first (commit ids and paths vary)."""
    counts: dict[str, int] = {}
    for trace in unknown:
        reason = trace.reason.split(" [")[0]
        counts[reason] = counts.get(reason, 0) + 1
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    shown = "; ".join(f"{n} x {reason}" for reason, n in ranked[:3])
    more = f"; and {len(ranked) - 3} other causes" if len(ranked) > 3 else ""
    return f"Causes: {shown}{more}"


def _fixable(trace: Trace) -> bool:
    """Moved, and the move is known: rewrite the numbers (and the path after a rename)."""
    return trace.kind == "moved" and trace.moved_to is not None


def _rewrite_moves(
    root: Path, config: Config, traces: list[Trace], dry_run: bool
) -> tuple[str, set[int]]:
    """Rewrite moved citations via the checker's `apply_moves`; (diff, traces rewritten)."""
    from zodyssey.anchors.fix import apply_moves

    new_paths = _renamed_paths(root, config, traces)
    moves: list[tuple[Citation, int, int]] = []
    for trace in traces:
        assert trace.moved_to is not None
        moves.append((trace.citation, trace.moved_to[1], trace.moved_to[2]))
    refused = _refused(root, moves, new_paths)
    diff = apply_moves(root, moves, dry_run, new_paths=new_paths)
    return diff, {id(t) for t in traces if t.citation not in refused}


def _renamed_paths(root: Path, config: Config, traces: list[Trace]) -> dict[Citation, str]:
    """How to write the new path of each citation whose file git renamed."""
    renamed = [t for t in traces if t.moved_to and t.moved_to[0] != t.citation.resolved]
    if not renamed:
        return {}
    from zodyssey.anchors.discover import discover
    from zodyssey.anchors.rewrite import new_cited_text

    index = discover(root, config).index
    new_paths: dict[Citation, str] = {}
    for trace in renamed:
        assert trace.moved_to is not None
        new_paths[trace.citation] = new_cited_text(
            trace.citation, trace.moved_to[0], index, trace.then_path
        )
    return new_paths


def _refused(
    root: Path, moves: list[tuple[Citation, int, int]], new_paths: dict[Citation, str]
) -> set[Citation]:
    """Which moves the rewrite will refuse (the document changed under the
    citation, or cannot be read): those stay problems."""
    from zodyssey.anchors.discover import read_document_text
    from zodyssey.anchors.fix import plan_edits
    from zodyssey.core.files import NotRegularFile

    refused: set[Citation] = set()
    by_doc: dict[str, list[tuple[Citation, int, int]]] = {}
    for move in moves:
        by_doc.setdefault(move[0].site.doc, []).append(move)
    for doc, doc_moves in by_doc.items():
        try:
            lines = read_document_text(root, doc).split("\n")
        except (OSError, NotRegularFile):
            refused.update(c for c, _, _ in doc_moves)
            continue
        _, skipped = plan_edits(lines, doc_moves, new_paths)
        refused.update(skipped)
    return refused


def _repin_moved(root: Path, config: Config, traces: list[Trace], unmoved: list[Citation]) -> int:
    """Keep an existing lock in step with rewritten citations: pin their new keys.

    History showed the content unchanged since the citing line was written,
    so the lines at the new place are the cited content. Old keys no other
    citation uses are dropped. No lock, nothing to do (--history needs none).
    """
    from zodyssey.anchors.lock import read_lock, write_lock
    from zodyssey.errors import ZodysseyError

    lock_path = root / config.lock
    try:
        lock = read_lock(lock_path)
    except ZodysseyError:
        return 0
    if not lock.exists:
        return 0
    for trace in traces:
        _pin_new_place(lock, trace)
    still_used = {c.key for c in unmoved}
    for trace in traces:
        old = trace.citation.key
        if old is not None and old not in still_used:
            lock.citations.pop(old, None)
            lock.spans.pop(old, None)
    write_lock(lock_path, lock)
    return len(traces)


def _pin_new_place(lock: LockFile, trace: Trace) -> None:
    """Pin a moved citation's new key to the lines it now cites."""
    from zodyssey.anchors.fingerprint import fingerprint, hash_text, normalise

    assert trace.moved_to is not None
    path, start, end = trace.moved_to
    key = make_key(path, start, end, trace.citation.ranged)
    lines = list(trace.now_text)
    lock.citations[key] = fingerprint(lines, 1, len(lines))
    if len(lines) > 1:  # the lock keeps per-line pins for ranges only
        lock.spans[key] = [hash_text(normalise(line)) for line in lines]


def _lock_exempt(root: Path, config: Config) -> list[str]:
    """The lock's exempt list when there is a readable lock; --history needs none."""
    from zodyssey.anchors.lock import read_lock
    from zodyssey.errors import ZodysseyError

    try:
        return read_lock(root / config.lock).exempt
    except ZodysseyError:
        return []


def _not_exempt(
    citations: Sequence[Citation], config: Config, extra: Sequence[str] = ()
) -> list[Citation]:
    exempt = set(config.exempt) | set(extra)
    return [c for c in citations if c.cited_as not in exempt]


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _span(start: int, end: int) -> str:
    return str(start) if start == end else f"{start}-{end}"


def _clip(lines: Sequence[str]) -> list[str]:
    shown = [line if len(line) <= _SHOW_WIDTH else line[: _SHOW_WIDTH - 1] + "…" for line in lines]
    if len(shown) > _SHOW_LINES:
        shown = [*shown[:_SHOW_LINES], f"… ({len(lines) - _SHOW_LINES} more lines)"]
    return shown


def _message(trace: Trace, rewritten: bool) -> str:
    citation = trace.citation
    head = f"{citation.cited_as}: {trace.reason}"
    if rewritten and trace.moved_to is not None:
        head = f"{citation.cited_as}: rewritten to {_span(*trace.moved_to[1:])} ({trace.reason})"
    if trace.commit and trace.commit[:12] not in head:
        head += f" [citing line from {trace.commit[:12]}]"
    lines = [head]
    if trace.kind == "drift":
        then_at = f"{trace.then_path}:{_span(citation.start, citation.end)}"
        lines.append(f"then ({then_at}):")
        lines += [f"  | {text}" for text in _clip(trace.then_text)]
        now_at = f"{trace.now_path}:{_span(citation.start, citation.end)}"
        lines.append(f"now ({now_at}):")
        lines += [f"  | {text}" for text in _clip(trace.now_text)] or ["  (past the end of file)"]
    return "\n".join(lines)


def _problem(trace: Trace, rewritten: bool) -> dict[str, Any]:
    citation = trace.citation
    moved = trace.moved_to
    return {
        "kind": trace.kind,
        "key": citation.key,
        "cited_as": citation.cited_as,
        "sites": [{"doc": citation.site.doc, "line": citation.site.line}],
        "detail": trace.reason,
        "commit": trace.commit,
        "shallow": trace.shallow,
        "then_path": trace.then_path,
        "then": list(trace.then_text),
        "now_path": trace.now_path,
        "now": list(trace.now_text),
        "moved_to": {
            "path": moved[0],
            "start": moved[1],
            "end": moved[2],
            "key": make_key(moved[0], moved[1], moved[2], citation.ranged),
        }
        if moved
        else None,
        "nearby": list(trace.nearby) if trace.nearby else None,
        "possibly": list(trace.possibly),
        "rewritten": rewritten,
    }


def _history_facts(run: TraceRun) -> dict[str, Any]:
    info = run.info
    return {
        "head": info.head,
        "commits": info.commit_count,
        "shallow": bool(info.shallow),
        "boundary": sorted(info.shallow),
    }


def _depth_note(run: TraceRun) -> str:
    info = run.info
    if not info.shallow:
        return f"history: {info.commit_count} commits"
    return (
        f"shallow clone: history holds only {info.commit_count} commits (boundary "
        f"{', '.join(sorted(c[:12] for c in info.shallow))}); lines older than that are "
        "dated to the boundary; `git fetch --unshallow` lets history look further"
    )


def _build_report(
    run: TraceRun,
    rewritten: set[int],
    *,
    fix: bool,
    dry_run: bool,
    diff: str,
    tally: Tally | None = None,
) -> Report:
    counts = dict.fromkeys(KINDS, 0)
    findings: list[Finding] = []
    cases: list[Case] = []
    problems: list[dict[str, Any]] = []
    unknown: list[dict[str, Any]] = []
    for trace in run.traces:
        counts[trace.kind] += 1
        done = id(trace) in rewritten
        cases.append(_case(trace, done))
        if trace.kind == "ok":
            continue
        entry = _problem(trace, done)
        (unknown if trace.kind == "unknown" else problems).append(entry)
        findings.append(_finding(trace, done, entry))
    tally = tally if tally is not None else _traced_tally(run)
    failing = sum(1 for p in problems if not p["rewritten"])
    payload: dict[str, Any] = {
        "tool": "anchors",
        "schema": SCHEMA_VERSION,
        "mode": "history",
        "ok": failing == 0,
        "checked": tally.spans,  # as in the check: distinct spans, and documents read
        "documents": tally.scanned,
        "tally": tally.payload(),
        "history": _history_facts(run),
        "counts": counts,
        "problems": problems,
        "unknown": unknown,
        "fix": {"dry_run": dry_run, "rewritten": len(rewritten), "diff": diff} if fix else None,
    }
    return Report(
        tool="anchors",
        title="citation history",
        findings=findings,
        summary=_history_summary(run, tally, counts, len(rewritten)),
        payload=payload,
        cases=cases,
        rules=dict(RULES),
    )


def _case(trace: Trace, rewritten: bool) -> Case:
    """The JUnit case of one trace: passed, skipped when unknown, failed unless rewritten."""
    citation = trace.citation
    name = f"{citation.cited_as} @ {citation.site.doc}:{citation.site.line}"
    if trace.kind == "ok":
        return Case(name, "anchors.history")
    if trace.kind == "unknown":
        return Case(name, "anchors.history", skipped=trace.reason)
    return Case(name, "anchors.history", failure=None if rewritten else trace.reason)


def _finding(trace: Trace, rewritten: bool, entry: dict[str, Any]) -> Finding:
    """The finding of a trace that is not ok: a warning when unknown, a note once
    rewritten, else an error."""
    severity: Severity = "warning" if trace.kind == "unknown" else "note" if rewritten else "error"
    return Finding(
        tool="anchors",
        rule=trace.kind,
        severity=severity,
        message=_message(trace, rewritten),
        file=trace.citation.site.doc,
        line=trace.citation.site.line,
        extra=entry,
    )


def _history_summary(run: TraceRun, tally: Tally, counts: dict[str, int], rewrote: int) -> str:
    """The one-line summary: what was read, the count of each kind, the history's depth."""
    shown = ", ".join(f"{counts[k]} {k}" for k in KINDS if counts[k] or k == "ok")
    summary = f"history: {tally.text()}: {shown} ({_depth_note(run)})"
    if rewrote:
        summary += f"; rewrote {rewrote} moved citation(s)"
    return summary


def _traced_tally(run: TraceRun) -> Tally:
    """The counts of the traced citations, when the caller gave none."""
    tally = Tally.of([t.citation for t in run.traces], 0)
    return replace(tally, scanned=tally.documents)


@dataclass
class _Pin:
    fingerprint: str
    line_hashes: list[str]
    source: str  # "history" or "now"
    differs: bool  # the pinned content is not what the cited lines hold now
    trace: Trace


def seed_lock_from_history(
    root: Path,
    config: Config,
    citations: list[Citation],
    lock_path: Path,
    *,
    jobs: int,
    progress_stream: TextIO | None = None,
) -> tuple[Report, int]:
    """Write a lock pinning each citation's content as it was when its line was written.

    Citations history cannot date (untracked or uncommitted documents: they
    are being written now) are pinned as they are now, and say so. Problem
    citations (unresolved, out of range now, contentless) are not pinned,
    like `--update`. The existing lock's exempt list and comment are kept.
    Exit 0 once written, 9 when some citations could not be pinned (as
    `--update`), 4 with zero citations; the next normal check reports the
    stale pins as drift or moved.
    """
    from zodyssey.anchors.lock import DEFAULT_COMMENT, LockFile, read_lock, write_lock

    old = read_lock(lock_path)
    selected = _not_exempt(citations, config, old.exempt)
    run = trace_citations(root, selected, jobs=jobs, progress_stream=progress_stream)
    pins, skipped = _pins(root, run.traces)
    lock = LockFile(
        citations={k: p.fingerprint for k, p in pins.items()},
        exempt=list(old.exempt),
        spans={k: p.line_hashes for k, p in pins.items() if len(p.line_hashes) > 1},
        evidence=_seed_evidence(root, run, pins),
        comment=old.comment if old.exists else DEFAULT_COMMENT,
        exists=True,
        extra=dict(old.extra),
    )
    dropped = sorted(set(old.citations) - set(lock.citations))
    if selected:
        write_lock(lock_path, lock)
    report = _seed_report(run, pins, skipped, dropped, lock_path, written=bool(selected))
    if not selected:
        return report, Exit.EMPTY
    # Like --update: a lock is written, but problem citations left unpinned fail.
    return report, Exit.PROBLEMS if skipped else Exit.OK


def _pins(root: Path, traces: list[Trace]) -> tuple[dict[str, _Pin], list[tuple[Trace, str]]]:
    """The pin of each key, and the traces that get none with why."""
    pins: dict[str, _Pin] = {}
    skipped: list[tuple[Trace, str]] = []
    current_files: dict[str, list[str] | None] = {}
    for trace in traces:
        permalink = trace.citation.dialect == "permalink"
        outcome = _permalink_pin(trace) if permalink else _pin_for(root, trace, current_files)
        if isinstance(outcome, str):
            skipped.append((trace, outcome))
            continue
        key = trace.citation.key
        assert key is not None  # _pin_for refuses citations without a key
        earlier = pins.get(key)
        # Several sites cite one key: keep the pin that exposes staleness.
        if earlier is None or (outcome.differs and not earlier.differs):
            pins[key] = outcome
    return pins, skipped


def _seed_evidence(root: Path, run: TraceRun, pins: dict[str, _Pin]) -> dict[str, str]:
    """Each pin's evidence (neighbours, uniqueness) from the version it was pinned from.

    Without it the next check could not tell a move from a coincidence and would
    call every moved span drift (docs/citation-lock.md, "moved only when certain").
    """

    wanted, blobs = _pinned_versions(run, pins)
    files: dict[tuple[str, str], TargetFile] = {}
    out: dict[str, str] = {}
    for key, pin in pins.items():
        source = _evidence_source(root, run, pin, wanted.get(key), blobs, files)
        evidence = None if source is None else _evidence_at(source, pin)
        if evidence is not None:
            out[key] = evidence
    return out


def _evidence_source(
    root: Path,
    run: TraceRun,
    pin: _Pin,
    request: tuple[str, str] | None,
    blobs: dict[tuple[str, str], bytes],
    files: dict[tuple[str, str], TargetFile],
) -> TargetFile | None:
    """The version of the cited file a pin was taken from: the historical blob, the
    work tree (pinned now), or a permalink's commit; None when none can be read."""
    from zodyssey.anchors.fingerprint import TargetFile

    resolved = pin.trace.citation.resolved
    if request is not None and request in blobs:
        if request not in files:
            files[request] = TargetFile.from_bytes(request[1], blobs[request])
        return files[request]
    if pin.source == "now" and resolved is not None:
        return TargetFile.read(root, resolved)
    if pin.source == "commit" and resolved is not None:
        return _at_commit(run, resolved, files)
    return None


def _at_commit(
    run: TraceRun, resolved: str, files: dict[tuple[str, str], TargetFile]
) -> TargetFile | None:
    """A permalink's file as its commit holds it, read once per `path@sha`."""
    from zodyssey.anchors.history.permalinks import read_permalink

    request = ("@", resolved)
    if request not in files:
        found, _ = read_permalink(run.info.top, resolved)
        if found is None:
            return None
        files[request] = found
    return files[request]


def _pinned_versions(
    run: TraceRun, pins: dict[str, _Pin]
) -> tuple[dict[str, tuple[str, str]], dict[tuple[str, str], bytes]]:
    """For each key pinned from history, the (commit, path) it was pinned from; and
    the bytes of those versions (none that git cannot read)."""
    from zodyssey.anchors.history.plumbing import read_blobs
    from zodyssey.git import GitError

    prefix = run.info.prefix
    wanted = {
        key: (pin.trace.commit, prefix + pin.trace.then_path)
        for key, pin in pins.items()
        if pin.source == "history" and pin.trace.commit and pin.trace.then_path
    }
    try:
        blobs = read_blobs(run.info.top, [w for w in wanted.values() if w[0]])
    except (GitError, OSError):
        blobs = {}
    return wanted, blobs


def _evidence_at(source: TargetFile, pin: _Pin) -> str | None:
    """The encoded evidence of the pinned span in `source`; None when `source` does
    not hold the pinned content at the cited lines."""
    citation = pin.trace.citation
    if source.lines is None or citation.end > len(source.lines) or citation.start < 1:
        return None
    if source.span_hash(citation.start, citation.end) != pin.fingerprint:
        return None
    return source.evidence(citation.start, citation.end).encode()


def _pin_for(root: Path, trace: Trace, files: dict[str, list[str] | None]) -> _Pin | str:
    """The pin for one citation, or why it gets none."""
    from zodyssey.anchors.fingerprint import fingerprint, hash_text, is_contentless, normalise

    citation = trace.citation
    if citation.key is None or citation.resolved is None:
        return "does not resolve to one file now (the check reports it)"
    path = citation.resolved
    current_file = _current_lines(root, path, files)
    if current_file is None:
        return f"{path} cannot be read"
    start, end = citation.start, citation.end
    if start < 1 or end < start or end > len(current_file):
        return "out of range now (the check reports it)"
    now = current_file[start - 1 : end]
    lines = _pinned_lines(trace, now)
    if is_contentless(lines):
        return "the span is blank or only comment markers (the check reports it)"
    pinned = fingerprint(lines, 1, len(lines))
    return _Pin(
        fingerprint=pinned,
        line_hashes=[hash_text(normalise(line)) for line in lines],
        source="history" if lines is not now else "now",
        differs=pinned != fingerprint(now, 1, len(now)),
        trace=trace,
    )


def _permalink_pin(trace: Trace) -> _Pin | str:
    """A permalink is pinned as its commit holds it (history/permalinks.py), as `--update` does."""
    from zodyssey.anchors.fingerprint import fingerprint, hash_text, normalise

    if trace.kind != "ok":
        return trace.reason
    lines = list(trace.then_text)
    return _Pin(
        fingerprint=fingerprint(lines, 1, len(lines)),
        line_hashes=[hash_text(normalise(line)) for line in lines],
        source="commit",
        differs=False,
        trace=trace,
    )


def _pinned_lines(trace: Trace, now: list[str]) -> list[str]:
    """The cited lines as they were written when history knows them (in a shallow
    clone, as at the boundary); else `now`, the lines as they are now."""
    dated = trace.kind in ("ok", "moved", "drift") or (trace.kind == "unknown" and trace.shallow)
    return list(trace.then_text) if dated and trace.then_text else now


def _current_lines(root: Path, path: str, files: dict[str, list[str] | None]) -> list[str] | None:
    """The lines of `path` in the work tree, read once into `files`; None when unreadable."""
    from zodyssey.anchors.fingerprint import read_source
    from zodyssey.core.files import NotRegularFile

    if path not in files:
        try:
            text = read_source(root, path).decode("utf-8", errors="replace")
        except (OSError, NotRegularFile):
            files[path] = None
        else:
            files[path] = text.split("\n")
    return files[path]


def _seed_report(
    run: TraceRun,
    pins: dict[str, _Pin],
    skipped: list[tuple[Trace, str]],
    dropped: list[str],
    lock_path: Path,
    *,
    written: bool,
) -> Report:
    findings: list[Finding] = []
    stale: list[dict[str, Any]] = []
    pinned_now: list[dict[str, Any]] = []
    for key, pin in sorted(pins.items()):
        citation = pin.trace.citation
        where = {"doc": citation.site.doc, "line": citation.site.line}
        if pin.differs:
            commit = (pin.trace.commit or "")[:12]
            stale.append(
                {
                    "key": key,
                    "cited_as": citation.cited_as,
                    "site": where,
                    "commit": pin.trace.commit,
                    "kind": pin.trace.kind,
                }
            )
            findings.append(
                Finding(
                    tool="anchors",
                    rule="seeded-stale",
                    severity="warning",
                    message=f"{citation.cited_as}: pinned as written at {commit}; the lines "
                    f"changed since, so the next check reports it ({pin.trace.reason})",
                    file=citation.site.doc,
                    line=citation.site.line,
                    extra={"key": key},
                )
            )
        elif pin.source == "now":
            pinned_now.append(
                {
                    "key": key,
                    "cited_as": citation.cited_as,
                    "site": where,
                    "reason": pin.trace.reason,
                }
            )
            findings.append(
                Finding(
                    tool="anchors",
                    rule="seeded-now",
                    severity="note",
                    message=f"{citation.cited_as}: pinned as it is now: {pin.trace.reason}",
                    file=citation.site.doc,
                    line=citation.site.line,
                    extra={"key": key},
                )
            )
    for trace, why in skipped:
        citation = trace.citation
        findings.append(
            Finding(
                tool="anchors",
                rule="not-seeded",
                severity="warning",
                message=f"{citation.cited_as}: not pinned: {why}",
                file=citation.site.doc,
                line=citation.site.line,
            )
        )
    from_history = sum(1 for p in pins.values() if p.source == "history")
    summary = (
        f"seeded {lock_path}: {len(pins)} pins ({from_history} as written, per git history; "
        f"{len(pins) - from_history} as they are now); {len(stale)} already stale will show "
        f"in the next check; {len(skipped)} not pinned; {len(dropped)} stale lock entries "
        f"dropped ({_depth_note(run)})"
    )
    if not written:
        summary = "no citations discovered; the lock was left unchanged"
    payload: dict[str, Any] = {
        "tool": "anchors",
        "schema": SCHEMA_VERSION,
        "mode": "seed-from-history",
        "lock": str(lock_path),
        "written": written,
        "pinned": len(pins),
        "from_history": from_history,
        "history": _history_facts(run),
        "stale": stale,
        "pinned_now": pinned_now,
        "skipped": [
            {
                "cited_as": t.citation.cited_as,
                "key": t.citation.key,
                "site": {"doc": t.citation.site.doc, "line": t.citation.site.line},
                "reason": why,
            }
            for t, why in skipped
        ],
        "dropped": dropped,
    }
    return Report(
        tool="anchors",
        title="citation lock seeded from history",
        findings=findings,
        summary=summary,
        payload=payload,
        rules={
            "seeded-stale": "Pinned as written; the cited lines changed since.",
            "seeded-now": "History could not date the citation; pinned as it is now.",
            "not-seeded": "A problem citation; not pinned (the check reports it).",
        },
    )
