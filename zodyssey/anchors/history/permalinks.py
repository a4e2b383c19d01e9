"""`--history` of a commit-sha permalink: judged at its commit, exactly as the lock judges it.

A permalink (`https://github.com/o/r/blob/<sha>/src/a.py#L5`, resolved to
the key `src/a.py@<sha>:5`, remote.py) says what line 5 read at that
commit. That content never changes, so it never `moved` and never drifted
since the citing line was written: history reads it from git's objects
(`read_at_commit`, the lock's own reader) and finds what the lock check
finds on the same repository: `ok`, `contentless`, `out-of-range`, or
`unverifiable` when this clone lacks the commit, the path at it, or the
object (a shallow or partial clone). No blame is needed: when the citing
line was written does not change what the commit holds.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from zodyssey.anchors.fingerprint import TargetFile, is_contentless
from zodyssey.anchors.history.traced import CONTENTLESS_REASON, Trace
from zodyssey.anchors.model import Citation
from zodyssey.anchors.remote import at_commit, read_at_commit


def is_permalink(citation: Citation) -> bool:
    """A citation resolved to `path@sha` (a blob URL at a commit)."""
    return citation.resolved is not None and at_commit(citation.resolved) is not None


def read_permalink(top: Path, resolved: str) -> tuple[TargetFile | None, str | None]:
    """The file `path@sha` as that commit holds it, or None and why not."""
    pinned = at_commit(resolved)
    assert pinned is not None
    data, why = read_at_commit(top, *pinned)
    if data is None:
        return None, why
    return TargetFile.from_bytes(resolved, data), None


def judge_permalink(top: Path, citation: Citation) -> Trace:
    """The verdict of one permalink citation (the lock check's, in history's words)."""
    assert citation.resolved is not None
    resolved = citation.resolved
    base = Trace(citation, "unverifiable", "", then_path=resolved, now_path=resolved)
    source, why = read_permalink(top, resolved)
    if source is None or source.lines is None:
        return replace(base, reason=f"cannot check {citation.cited_as}: {why}")
    lines, start, end = source.lines, citation.start, citation.end
    if end < start:
        return replace(
            base,
            kind="out-of-range",
            reason=f"the range `{start}-{end}` is reversed and covers no line; "
            "put the smaller number first",
        )
    if start < 1 or end > len(lines):
        where = f"{resolved} has {len(lines)} lines; the citation points past its end"
        return replace(
            base, kind="out-of-range", reason=where if start >= 1 else "line numbers start at 1"
        )
    span = tuple(lines[start - 1 : end])
    if is_contentless(list(span)):
        return replace(base, kind="contentless", reason=CONTENTLESS_REASON, then_text=span)
    sha = resolved.rsplit("@", 1)[1]
    return replace(
        base,
        kind="ok",
        reason=f"a permalink: the lines as commit {sha[:12]} holds them, which never change",
        then_text=span,
        now_text=span,
    )
