"""The data that flows through the citation lock checker.

Shape of the pipeline (each module does one step):

    docs --discover.py--> citations --resolve.py--> targets --fingerprint.py--> spans
         --check.py (compare with lock.py)--> problems --report.py--> Report
         --fix.py--> docs | --update (check.py)--> lock

Public entry points other parts rely on (keep their signatures stable):

- `zodyssey.anchors.discover.collect_citations(root, config) -> list[Citation]`:
  every citation of every scanned document, resolved against the file index.
- `zodyssey.anchors.fingerprint.fingerprint(lines, start, end) -> str`:
  the 12-hex pin of lines start..end (1-based, inclusive) of a `\\n`-split file.
- `zodyssey.anchors.lock.read_lock(path) -> LockFile` and
  `zodyssey.anchors.lock.write_lock(path, lock)` (atomic).
- `zodyssey.anchors.fix.apply_moves(root, moves, dry_run) -> str`: rewrite the
  numbers of moved citations in their documents; returns the unified diff.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Site:
    """Where a citation is written: repo-relative POSIX doc path, 1-based line."""

    doc: str
    line: int


@dataclass(frozen=True, slots=True)
class Citation:
    """One cited span. Every number of a chain is its own citation."""

    cited: str  # the path as written in the document
    start: int  # 1-based, inclusive
    end: int  # 1-based, inclusive; end == start for a single line
    site: Site
    resolved: str | None  # repo-relative POSIX target; None when unresolved/ambiguous
    key: str | None  # lock key "<resolved>:<a>" or "<resolved>:<a>-<b>"
    # Added fields (all defaulted, so the contract above stays valid):
    ranged: bool = False  # written as a range `a-b` (even `12-12`), which changes the key
    dialect: str = "path"  # path | chain | bare | link | blob
    # Character offsets [begin, stop) in the citing line of the written numbers
    # (one pair for a single line, two for a range); --fix rewrites exactly these.
    number_spans: tuple[tuple[int, int], ...] = ()
    candidates: tuple[str, ...] = ()  # the competing files when ambiguous
    # Columns [begin, stop) of the path as written (of the antecedent for chain and
    # bare elements); (-1, -1) when unknown. --fix rewrites it after a git rename.
    path_span: tuple[int, int] = (-1, -1)
    # A symbol citation `<cited>::<symbol>` (dialect `symbol`, anchors/symbols/): its key is
    # `<resolved>::<symbol>`, start/end the symbol's span now (0 when it is not defined).
    symbol: str | None = None

    @property
    def span_text(self) -> str:
        return f"{self.start}-{self.end}" if self.ranged else str(self.start)

    @property
    def cited_as(self) -> str:
        """The citation as written (`<cited>:<a>[-<b>]`), the form `exempt` lists use."""
        if self.symbol is not None:
            return f"{self.cited}::{self.symbol}"
        return f"{self.cited}:{self.span_text}"


def make_key(resolved: str, start: int, end: int, ranged: bool) -> str:
    return f"{resolved}:{start}-{end}" if ranged else f"{resolved}:{start}"


def key_path(key: str) -> str:
    """The file of a lock key: `a.py:3-5` and `a.py::Class.method` both name `a.py`."""
    if "::" in key:
        return key.split("::", 1)[0]
    return key.rsplit(":", 1)[0]


def span_key(citation: Citation) -> str:
    """The span a citation names: its lock key, or `?<as written>` when it resolves to none."""
    return citation.key if citation.key is not None else "?" + citation.cited_as


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


@dataclass(frozen=True, slots=True)
class Tally:
    """The one wording of counts every mode and format uses (issue 23, item 6).

    `sites`: citations as written (each occurrence); `spans`: the distinct
    spans they name (lock keys; a pin each); `documents`: documents holding at
    least one; `scanned`: documents read. Counted from the same discovery in
    the lock check and in `--history`, so both say the same of a repository.
    """

    sites: int
    spans: int
    documents: int
    scanned: int

    @classmethod
    def of(cls, citations: Iterable[Citation], scanned: int) -> Tally:
        listed = list(citations)
        return cls(
            sites=len(listed),
            spans=len({span_key(c) for c in listed}),
            documents=len({c.site.doc for c in listed}),
            scanned=scanned,
        )

    def text(self) -> str:
        return (
            f"{_plural(self.sites, 'citation site')} ({_plural(self.spans, 'span')}) "
            f"in {self.documents} of {_plural(self.scanned, 'document')}"
        )

    def payload(self) -> dict[str, Any]:
        return {
            "sites": self.sites,
            "spans": self.spans,
            "documents": self.documents,
            "scanned": self.scanned,
        }
