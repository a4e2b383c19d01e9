"""What the lock check reports about one cited key, and the one text cleaner its messages use.

Kept apart from `check.py` so that the symbol checks (`anchors/symbols/check.py`)
build problems without importing the checker that calls them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from zodyssey.anchors.fingerprint import Evidence
from zodyssey.anchors.model import Citation, Site


@dataclass
class Problem:
    kind: str
    key: str
    cited_as: str
    sites: list[Site]
    detail: str
    citations: list[Citation] = field(default_factory=list)
    target: str | None = None
    lines: tuple[int, int] | None = None
    now_reads: str | None = None
    moved_to: dict[str, object] | None = None  # {"path", "start", "end", "key"}
    possibly: list[int] = field(default_factory=list)  # uncertain places of the pinned content
    evidence: Evidence | None = None  # the pin's evidence, when a search was made
    suggestion: str | None = None  # ambiguous: the candidate the evidence decides (baseline.py)
    was_reads: str | None = None  # drift: what the quoted line said when pinned


_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """Text safe for a terminal or a CI log: control bytes (a binary file's) shown as `?`."""
    return _CONTROL.sub("?", text)
