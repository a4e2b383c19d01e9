"""Trace each citation back to the commit that wrote it, then forward to now.

For every citation: git blame dates the citing line (one blame per
document), the cited file is followed from that commit to the work tree
through renames, the span is read as it was then, and `compare`
says whether it is still there (`ok`), elsewhere (`moved`) or changed
(`drift`). A file deleted since is `gone`; anything that cannot be dated or
read is `unknown` with the reason.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TextIO
from urllib.parse import unquote

from zodyssey.anchors.fingerprint import TargetFile, is_contentless, read_source, why_unreadable
from zodyssey.anchors.history.compare import SpanLocation, locate_span, map_old_to_new
from zodyssey.anchors.history.permalinks import is_permalink, judge_permalink
from zodyssey.anchors.history.plumbing import (
    UNCOMMITTED,
    BlameLine,
    BlameResult,
    Fate,
    GitHistory,
    RepoInfo,
    TreeChanges,
    blame_document,
    open_repository,
    read_blobs,
)
from zodyssey.anchors.history.progress import Progress
from zodyssey.anchors.history.traced import CONTENTLESS_REASON
from zodyssey.anchors.history.traced import Trace as Trace
from zodyssey.anchors.history.traced import TraceKind as TraceKind
from zodyssey.anchors.model import Citation
from zodyssey.core.files import NotRegularFile
from zodyssey.git import GitError


@dataclass
class TraceRun:
    info: RepoInfo
    traces: list[Trace] = field(default_factory=list)
    documents: int = 0  # documents blamed


@dataclass
class _Pending:
    """A citation whose files are named; waiting for the blob read."""

    citation: Citation
    commit: str
    shallow: bool
    then_top: str
    now_top: str
    same_place: bool


def trace_citations(
    root: Path,
    citations: Sequence[Citation],
    *,
    jobs: int = 1,
    progress_stream: TextIO | None = None,
) -> TraceRun:
    """Trace every citation; raises GitUnavailable (exit 2) when git cannot be used."""
    info = open_repository(root)
    run = TraceRun(info)
    if info.head is None:
        run.traces = [
            Trace(c, "unknown", "the repository has no commits yet, so there is no history")
            for c in citations
        ]
        return run
    history = GitHistory(info)
    tracked = history.tracked()
    prefix = info.prefix

    by_doc: dict[str, list[Citation]] = {}
    for citation in citations:
        by_doc.setdefault(citation.site.doc, []).append(citation)
    blame_docs = {doc: cites for doc, cites in by_doc.items() if prefix + doc in tracked}
    blames = _blame_all(info, blame_docs, jobs, progress_stream)
    run.documents = len(blame_docs)

    progress = Progress("history: trace", len(citations), progress_stream)
    traces, pending = _name_all(history, tracked, citations, blames, progress)
    blobs = read_blobs(info.top, [(p.commit, p.then_top) for p in pending.values()])
    now_cache: dict[str, list[str] | None] = {}
    map_cache: dict[tuple[str, str, str], list[int | None]] = {}
    file_cache: dict[tuple[str, str], TargetFile] = {}
    for index, item in pending.items():
        traces[index] = _compare(item, blobs, now_cache, map_cache, info, file_cache)
        progress.advance()
    progress.close()
    run.traces = [
        _refuse_contentless(traces[i], info.top, now_cache) for i in range(len(citations))
    ]
    return run


def _name_all(
    history: GitHistory,
    tracked: set[str],
    citations: Sequence[Citation],
    blames: dict[str, BlameResult],
    progress: Progress,
) -> tuple[dict[int, Trace], dict[int, _Pending]]:
    """Name each citation's files (by its index): the traces already judged, and
    the citations pending the blob read."""
    traces: dict[int, Trace] = {}
    pending: dict[int, _Pending] = {}
    prefix = history.info.prefix
    for index, citation in enumerate(citations):
        if is_permalink(citation):  # judged at its commit, as the lock judges it
            traces[index] = judge_permalink(history.info.top, citation)
            progress.advance()
            continue
        outcome = _name_files(history, tracked, prefix, citation, blames.get(citation.site.doc))
        if isinstance(outcome, Trace):
            traces[index] = outcome
            progress.advance()
        else:
            pending[index] = outcome
    return traces, pending


def _refuse_contentless(trace: Trace, top: Path, now_cache: dict[str, list[str] | None]) -> Trace:
    """A citation whose lines carry no content now is `contentless`, as in the lock.

    The lock refuses to pin blank lines and bare comment markers (a pin on them
    would never change); history judges them no more than the lock does, so a
    history check and a lock seeded from it agree (issue 23, item 2). A span
    that certainly moved keeps its verdict: the content is elsewhere.
    """
    citation = trace.citation
    if trace.kind in ("moved", "gone", "contentless") or citation.resolved is None:
        return trace
    start, end = citation.start, citation.end
    lines = _read_now(top, citation.resolved, now_cache)
    if lines is None or start < 1 or end < start or end > len(lines):
        return trace
    if not is_contentless(lines[start - 1 : end]):
        return trace
    return replace(trace, kind="contentless", reason=CONTENTLESS_REASON)


def _blame_all(
    info: RepoInfo,
    by_doc: dict[str, list[Citation]],
    jobs: int,
    progress_stream: TextIO | None,
) -> dict[str, BlameResult]:
    """One blame per document; several processes when `jobs` > 1."""
    requests = [(doc, tuple(sorted({c.site.line for c in cites}))) for doc, cites in by_doc.items()]
    # Longest first, so one big document does not start last and finish alone.
    requests.sort(key=lambda item: -len(item[1]))
    top = str(info.top)
    workers = jobs if jobs > 0 else (os.cpu_count() or 1)
    workers = min(workers, len(requests))
    progress = Progress("history: blame", len(requests), progress_stream)
    results: dict[str, BlameResult] = {}
    if workers <= 1:
        for doc, lines in requests:
            results[doc] = blame_document(top, info.prefix + doc, lines)
            progress.advance()
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = {
                pool.submit(blame_document, top, info.prefix + doc, lines): doc
                for doc, lines in requests
            }
            for future in as_completed(futures):
                results[futures[future]] = future.result()
                progress.advance()
    progress.close()
    return results


def _name_files(
    history: GitHistory,
    tracked: set[str],
    prefix: str,
    citation: Citation,
    blame: BlameResult | None,
) -> Trace | _Pending:
    """Date the citing line and name the cited file then and now (or say why not)."""
    origin = _citing_origin(citation, blame)
    if isinstance(origin, Trace):
        return origin
    commit = history.written_in(origin, prefix + citation.site.doc, _holds(citation))
    base = Trace(citation, "unknown", "", commit=commit, shallow=commit in history.info.shallow)
    try:
        worktree = history.worktree_changes()
        if citation.resolved is not None:
            return _name_resolved(history, tracked, worktree, base, citation.resolved)
        return _name_by_text(history, worktree, base, prefix)
    except GitError as exc:
        return replace(base, reason=f"git failed: {exc}")


def _citing_origin(citation: Citation, blame: BlameResult | None) -> BlameLine | Trace:
    """What git blame says of the citing line: its origin, or why it has none."""
    doc = citation.site.doc
    if blame is None:
        return Trace(
            citation,
            "unknown",
            f"document {doc} is not tracked by git; commit it to date its citations",
        )
    if blame.error is not None:
        return Trace(citation, "unknown", f"git blame of {doc} failed: {blame.error}")
    origin = blame.lines.get(citation.site.line)
    if origin is None:
        return Trace(
            citation, "unknown", f"git blame gave no origin for {doc} line {citation.site.line}"
        )
    if origin.commit == UNCOMMITTED:
        return Trace(
            citation,
            "unknown",
            "the citing line has changes that are not committed yet, so it has no history",
        )
    return origin


def _name_resolved(
    history: GitHistory, tracked: set[str], worktree: TreeChanges, base: Trace, resolved: str
) -> Trace | _Pending:
    """Name the file of a citation that resolves now: followed back to the commit
    that wrote the citing line (`base.commit`)."""
    now_top = history.info.prefix + resolved
    if now_top not in tracked:
        return replace(base, reason=f"target {resolved} is not tracked by git")
    head_name = worktree.backward(now_top)
    if head_name is None:
        return replace(base, reason=f"target {resolved} was added after the last commit")
    assert base.commit is not None
    then_top = history.name_then(base.commit, head_name)
    if then_top is None:
        return replace(
            base,
            reason=f"target {resolved} did not exist yet at {base.commit[:12]}, "
            "the commit that wrote the citing line",
        )
    return _Pending(base.citation, base.commit, base.shallow, then_top, now_top, True)


def _name_by_text(
    history: GitHistory, worktree: TreeChanges, base: Trace, prefix: str
) -> Trace | _Pending:
    """Name the file of a citation that does not resolve now: the cited text resolved
    at the commit that wrote the citing line, then followed forward to now."""
    citation = base.citation
    assert base.commit is not None
    commit, short = base.commit, base.commit[:12]
    then_top = _resolve_at_commit(history, commit, prefix, citation)
    if then_top is None:
        return replace(
            base,
            reason=f"{citation.cited} resolves to no single file now, nor at {short}, "
            "the commit that wrote the citing line",
        )
    fate = history.name_at_head(commit, then_top)
    head_name = fate.head_name
    current_top = worktree.forward(head_name) if head_name is not None else None
    then_rel = then_top[len(prefix) :]
    if current_top is None:
        return replace(
            base,
            kind="gone",
            reason=f"{_deleted(then_top, fate, prefix)}; the citing line is from {short}",
            then_path=then_rel,
        )
    if not current_top.startswith(prefix):
        return replace(
            base,
            kind="gone",
            reason=f"{then_rel} was moved out of the checked root (now {current_top})",
            then_path=then_rel,
        )
    if citation.candidates:
        return replace(
            base,
            reason=f"{citation.cited} is ambiguous now ({', '.join(citation.candidates)}); "
            f"at {short} it meant {then_rel}",
            then_path=then_rel,
        )
    return _Pending(citation, commit, base.shallow, then_top, current_top, False)


def _holds(citation: Citation) -> Callable[[str], bool]:
    """Whether an older version of the citing line already wrote this citation."""
    numbers = [re.compile(rf"(?<!\d){n}(?!\d)") for n in {citation.start, citation.end}]

    def holds(text: str) -> bool:
        return citation.cited in text and all(n.search(text) for n in numbers)

    return holds


def _deleted(then_top: str, fate: Fate, prefix: str) -> str:
    """`a was deleted by X`, or `a was renamed -> b and deleted as b by X`."""
    then_rel = then_top[len(prefix) :]
    if fate.head_name is not None:
        return f"{then_rel} was deleted in the work tree (not committed yet)"
    when = f"by {fate.deleter[:12]}" if fate.deleter else "since"
    last = fate.deleted_as or then_top
    if last == then_top:
        return f"{then_rel} was deleted {when}"
    names = " -> ".join(name[len(prefix) :] for name in (then_top, *fate.renames))
    return f"renamed {names} and deleted as {last[len(prefix) :]} {when}"


def _resolve_at_commit(
    history: GitHistory, commit: str, prefix: str, citation: Citation
) -> str | None:
    """Resolve the cited text against the commit's tree, by the checker's rules.

    Markdown links resolve relative to their document (or to the root with a
    leading `/`), blob URLs name a root path; other citations try the exact
    path, the path relative to the document, the unique path suffix and the
    unique basename. Several candidates resolve to nothing.
    """
    files = [f[len(prefix) :] for f in history.tree_files(commit) if f.startswith(prefix)]
    present = set(files)
    doc_dir = posixpath.dirname(citation.site.doc)
    if citation.dialect in ("link", "blob"):
        path = _root_path(citation, doc_dir)
        return prefix + path if path in present else None
    found = _resolve_text(files, present, citation.cited, doc_dir)
    return None if found is None else prefix + found


def _root_path(citation: Citation, doc_dir: str) -> str:
    """The root-relative path a link (relative to its document, or to the root with
    a leading `/`) or a blob URL names."""
    if citation.dialect == "blob":
        return citation.cited.lstrip("/")
    target = unquote(citation.cited)
    if target.startswith("/"):
        return target.lstrip("/")
    return posixpath.normpath(posixpath.join(doc_dir, target))


def _resolve_text(files: list[str], present: set[str], cited: str, doc_dir: str) -> str | None:
    """A path form against one tree's `files`: the exact path, the path relative to the
    document, then the unique suffix or basename."""
    while cited.startswith("./"):
        cited = cited[2:]
    relative = posixpath.normpath(posixpath.join(doc_dir, cited)) if doc_dir else cited
    for candidate in (cited, relative):
        if candidate in present:
            return candidate
    return _unique_match(files, cited)


def _unique_match(files: list[str], cited: str) -> str | None:
    """The one file whose path ends with `/` + cited; failing that, when the text has
    no `/`, the one file whose basename ends with it. None when none or several do."""
    suffix = [f for f in files if f.endswith("/" + cited)]
    if len(suffix) == 1:
        return suffix[0]
    if suffix or "/" in cited:
        return None
    by_name = [f for f in files if posixpath.basename(f).endswith(cited)]
    return by_name[0] if len(by_name) == 1 else None


def _read_now(root_top: Path, path: str, cache: dict[str, list[str] | None]) -> list[str] | None:
    if path not in cache:
        try:
            # Invalid UTF-8 decodes to U+FFFD, as the checker reads files (hashes agree).
            text = read_source(root_top, path).decode("utf-8", "replace")
        except (OSError, NotRegularFile):
            cache[path] = None
        else:
            cache[path] = text.split("\n")  # the fingerprint's line model
    return cache[path]


def _unreadable(base: Trace, top: Path, now_top: str, now_rel: str) -> Trace | None:
    """The `unreadable` trace of a file the work tree holds but that cannot be read
    (a FIFO, socket or device; permissions), as the lock says; None when it is
    simply missing (deleted: `gone`)."""
    why = why_unreadable(top, now_top)
    if why is None:
        return None
    return replace(base, kind="unreadable", reason=f"cannot read {now_rel}: {why}")


def _compare(
    item: _Pending,
    blobs: dict[tuple[str, str], bytes],
    now_cache: dict[str, list[str] | None],
    map_cache: dict[tuple[str, str, str], list[int | None]],
    info: RepoInfo,
    file_cache: dict[tuple[str, str], TargetFile] | None = None,
) -> Trace:
    citation = item.citation
    prefix = info.prefix
    then_rel = item.then_top[len(prefix) :]
    now_rel = item.now_top[len(prefix) :]
    short = item.commit[:12]
    base = Trace(
        citation, "unknown", "", commit=item.commit, shallow=item.shallow, then_path=then_rel
    )
    blob = blobs.get((item.commit, item.then_top))
    if blob is None:
        return replace(base, reason=f"cannot read {then_rel} at {short}")
    now = _read_now(info.top, item.now_top, now_cache)
    unreadable = _unreadable(base, info.top, item.now_top, now_rel) if now is None else None
    if unreadable is not None:
        return unreadable
    if citation.symbol is not None:  # found by name then and now (anchors/symbols/)
        from zodyssey.anchors.symbols.history import compare_symbol

        return compare_symbol(base, blob, then_rel, now, now_rel, short)
    return _compare_lines(item, base, blob, now, map_cache, info.prefix, file_cache)


def _compare_lines(
    item: _Pending,
    base: Trace,
    blob: bytes,
    now_lines: list[str] | None,
    map_cache: dict[tuple[str, str, str], list[int | None]],
    prefix: str,
    file_cache: dict[tuple[str, str], TargetFile] | None,
) -> Trace:
    """A line citation: its span in the file then (`blob`) against the work tree now."""
    citation = base.citation
    then_rel, now_rel = base.then_path, item.now_top[len(prefix) :]
    short = item.commit[:12]
    then_lines = blob.decode("utf-8", "replace").split("\n")
    start, end = citation.start, citation.end
    if start < 1 or end < start or end > len(then_lines):
        return replace(
            base,
            kind="unknown",
            reason=f"lines {start}-{end} were already out of range of {then_rel} "
            f"({len(then_lines)} lines) at {short}, when the citing line was written",
        )
    then_text = tuple(then_lines[start - 1 : end])
    if is_contentless(list(then_text)):
        # Nothing to compare; blank now too, it is `contentless` (_refuse_contentless).
        return replace(
            base,
            reason=f"the cited lines were blank or bare comment markers at {short}, when the "
            "citing line was written, so history has nothing to compare",
            then_text=then_text,
        )
    if now_lines is None:
        return replace(
            base,
            kind="gone",
            reason=f"{now_rel} cannot be read from the work tree",
            then_text=then_text,
        )
    place = _place_now(item, then_lines, now_lines, map_cache, prefix, file_cache)
    compared = replace(base, then_text=then_text, now_path=now_rel)
    if place.kind == "ok":
        return _unchanged(compared, item, now_lines)
    if place.kind == "moved":
        return _moved(compared, item, place, now_lines)
    return _drifted(compared, item, place, now_lines)


def _place_now(
    item: _Pending,
    then_lines: list[str],
    now_lines: list[str],
    map_cache: dict[tuple[str, str, str], list[int | None]],
    prefix: str,
    file_cache: dict[tuple[str, str], TargetFile] | None,
) -> SpanLocation:
    """Where the cited span of `then_lines` is in `now_lines`; the line mapping and
    the files are built once per (commit, file then, file now) in the caches."""
    cache_key = (item.commit, item.then_top, item.now_top)
    mapping = map_cache.get(cache_key)
    if mapping is None:
        mapping = map_old_to_new(then_lines, now_lines)
        map_cache[cache_key] = mapping
    cache = file_cache if file_cache is not None else {}
    then_key, now_key = (item.commit, item.then_top), ("", item.now_top)
    if then_key not in cache:
        then_rel = item.then_top[len(prefix) :]
        cache[then_key] = TargetFile(then_rel, then_lines, None, "\n".join(then_lines))
    if now_key not in cache:
        now_rel = item.now_top[len(prefix) :]
        cache[now_key] = TargetFile(now_rel, now_lines, None, "\n".join(now_lines))
    return locate_span(
        then_lines,
        item.citation.start,
        item.citation.end,
        now_lines,
        same_place=item.same_place,
        mapping=mapping,
        files=(cache[then_key], cache[now_key]),
    )


def _since(item: _Pending) -> str:
    short = item.commit[:12]
    return f"since {short}" + (" (the shallow clone's oldest commit)" if item.shallow else "")


def _renamed(trace: Trace) -> str:
    """`renamed a -> b; ` when the cited file has another name now, else nothing."""
    if trace.then_path == trace.now_path:
        return ""
    return f"renamed {trace.then_path} -> {trace.now_path}; "


def _unchanged(compared: Trace, item: _Pending, now_lines: list[str]) -> Trace:
    """The span is where it was, unchanged: ok, unless the commit is a shallow boundary."""
    short = item.commit[:12]
    if item.shallow:
        return replace(
            compared,
            kind="unknown",
            reason=f"unchanged since {short}, the shallow boundary; the citing line may be "
            "older than the history this clone holds (fetch more with git fetch --deepen)",
            now_text=compared.then_text,
        )
    start, end = compared.citation.start, compared.citation.end
    return replace(
        compared,
        kind="ok",
        reason=f"unchanged since {short}",
        now_text=tuple(now_lines[start - 1 : end]),
    )


def _moved(compared: Trace, item: _Pending, place: SpanLocation, now_lines: list[str]) -> Trace:
    """The span is unchanged at other lines (or in the renamed file)."""
    now_rel = compared.now_path
    assert now_rel is not None
    where = f"{now_rel}:{_span(place.start, place.end)}"
    return replace(
        compared,
        kind="moved",
        reason=f"{_renamed(compared)}the cited lines are now at {where} (unchanged {_since(item)})",
        now_text=tuple(now_lines[place.start - 1 : place.end]),
        moved_to=(now_rel, place.start, place.end),
    )


def _drifted(compared: Trace, item: _Pending, place: SpanLocation, now_lines: list[str]) -> Trace:
    """The cited lines changed: where their place is now, and where the text possibly is."""
    start, end = compared.citation.start, compared.citation.end
    now_rel = compared.now_path
    detail = f"{_renamed(compared)}the cited lines changed {_since(item)}"
    if place.nearby is not None:
        detail += f"; their place is now around {now_rel}:{_span(*place.nearby)}"
    if place.possibly:
        shown = ", ".join(f"{now_rel}:{_span(p, p + end - start)}" for p in place.possibly[:5])
        more = f" and {len(place.possibly) - 5} more" if len(place.possibly) > 5 else ""
        detail += (
            f"; the cited text is possibly now at {shown}{more} (not certain, so --fix "
            "leaves it: check and correct the citation by hand)"
        )
    if end > len(now_lines):
        detail += f"; {now_rel} has only {len(now_lines)} lines now"
    return replace(
        compared,
        kind="drift",
        reason=detail,
        now_text=tuple(now_lines[start - 1 : end]) if end <= len(now_lines) else (),
        nearby=place.nearby,
        possibly=place.possibly,
    )


def _span(start: int, end: int) -> str:
    return str(start) if start == end else f"{start}-{end}"
