"""What history says about one citation: the record `trace.py` produces.

Its own module so that per-form comparisons (`anchors/symbols/history.py`)
build traces without importing the tracer that calls them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from zodyssey.anchors.model import Citation

TraceKind = Literal[
    "ok",
    "moved",
    "drift",
    "gone",
    "contentless",
    "out-of-range",
    "unreadable",
    "unverifiable",
    "unknown",
]

CONTENTLESS_REASON = (
    "the cited lines carry no content (blank, or a bare comment marker); history judges "
    "them no more than the lock pins them: point the citation at the line that carries the claim"
)


@dataclass(frozen=True, slots=True)
class Trace:
    """What history says about one citation."""

    citation: Citation
    kind: TraceKind
    reason: str  # one line for people: why unknown, or what happened
    commit: str | None = None  # the commit that last wrote the citing line
    shallow: bool = False  # that commit is a shallow boundary: the line may be older
    then_path: str | None = None  # root-relative name of the cited file at `commit`
    then_text: tuple[str, ...] = ()  # the cited lines as they were at `commit`
    now_path: str | None = None  # root-relative name of that file now
    now_text: tuple[str, ...] = ()  # the cited lines now (or the moved lines)
    moved_to: tuple[str, int, int] | None = None  # (path, start, end) for moved
    nearby: tuple[int, int] | None = None  # drift: where the diff places the span now
    possibly: tuple[int, ...] = ()  # drift: starts that hold the text now, none certain
