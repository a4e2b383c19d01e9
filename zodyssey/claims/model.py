"""The data that flows through the claims ledger.

    docs --markers.py--> claims;  pytest items --@claim--> links (+ outcomes)
         --ledger.py (compare with the lock)--> findings --report.py--> Report

Standard library only: the pytest plugin imports this in every session that
uses a claim marker, so it must stay cheap.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

# Lowercase kebab-case: `bash-gate`, `zero-citations-fails`, `v2-api`.
CLAIM_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")

# Rule ids of claim findings (stable: SARIF, JSON and the docs use them).
RULES: dict[str, str] = {
    "uncovered": "a claim has no linked test",
    "not-passed": "no linked test of the claim ran and passed in this session",
    "test-failed": "a linked test of the claim failed or errored in this session",
    "never-ran": "a locked test of the claim ran in none of the CI shards' results",
    "workers-silent": "a pytest-xdist worker ended without sending its claim outcomes",
    "missing-test": "a test id recorded in the ledger for a claim no longer exists or links it",
    "changed": "the claim's text changed since the ledger was written; re-read its tests",
    "duplicate-id": "the same claim id is marked in more than one place",
    "bad-marker": "a claim marker with an invalid id or no block to attach to",
    "unknown-claim": "a test marker names a claim id that no document declares",
    "unlocked": "a claim that the ledger does not record yet",
    "removed": "the ledger records a claim that no document declares any more",
    "new-test": "a linked test that the ledger does not record yet",
    "collection-error": "pytest could not collect part of the test suite",
    "no-claims": "no claim markers found in the claims documents",
    "not-in-use": "claims not in use: no claim marker, no ledger, no claims configuration",
}


def fingerprint(text: str) -> str:
    """sha256 hex of the whitespace-normalised claim text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def normalise(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True, slots=True)
class Claim:
    """One promise marked in a document."""

    id: str
    doc: str  # repo-relative POSIX path of the document
    line: int  # 1-based first line of the enclosing block
    text: str  # whitespace-normalised block text without the marker
    block: str  # paragraph | list_item | table_row | heading
    marker_line: int = 0  # 1-based line of the marker comment itself
    code: tuple[str, ...] = ()  # the marker's `code=` specs (what the drill breaks)
    # The marker's `drill-skip=` fields: (break id, reason), breaks the drill does not run.
    skips: tuple[tuple[str, str], ...] = ()

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.text)

    @property
    def where(self) -> str:
        return f"{self.doc}:{self.line}"


@dataclass(frozen=True, slots=True)
class LinkedTest:
    """A collected test and the claim ids its `@pytest.mark.claim` names."""

    nodeid: str  # root-relative pytest node id
    claims: tuple[str, ...]
    file: str | None = None
    line: int | None = None


@dataclass
class ClaimSet:
    """Everything the markers of the claims documents declare."""

    claims: dict[str, Claim] = field(default_factory=dict)  # first occurrence per id
    occurrences: list[Claim] = field(default_factory=list)  # every marker id, in order
    documents: list[str] = field(default_factory=list)
    marker_problems: list[tuple[str, int, str]] = field(default_factory=list)  # doc, line, why

    def duplicates(self) -> dict[str, list[Claim]]:
        seen: dict[str, list[Claim]] = {}
        for claim in self.occurrences:
            seen.setdefault(claim.id, []).append(claim)
        return {cid: places for cid, places in seen.items() if len(places) > 1}
