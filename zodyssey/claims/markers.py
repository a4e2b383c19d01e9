"""Find `<!-- claim: id -->` markers in Markdown and the block each one marks.

A marker written inside a paragraph, list item, table row or heading marks that
block. A marker on a line of its own (an HTML block for CommonMark) marks the
list item it is indented under, else the block that closed just before it.
Markers inside code spans and fences are code, not claims, so documents can
show the syntax. The structure comes from markdown-it-py, not from regexes
over raw Markdown.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from zodyssey.claims.model import CLAIM_ID, Claim, ClaimSet, normalise

if TYPE_CHECKING:
    from markdown_it.token import Token

    from zodyssey.config import Config

# The prefix is matched case-insensitively so `<!-- Claim: x -->` is reported
# as a bad marker instead of being silently ignored.
MARKER = re.compile(r"<!--\s*claim\s*:(.*?)-->", re.IGNORECASE | re.DOTALL)
# A claims marker that cannot be parsed at all (no closing `-->`).
_OPEN_MARKER = re.compile(r"<!--\s*claim\s*:", re.IGNORECASE)


@dataclass
class _Block:
    kind: str  # paragraph | list_item | table_row | heading
    line: int  # 1-based
    parts: list[str] = field(default_factory=list)
    markers: list[tuple[str, int]] = field(default_factory=list)  # (marker body, 1-based line)

    def text(self) -> str:
        joiner = " | " if self.kind == "table_row" else " "
        return normalise(MARKER.sub(" ", joiner.join(self.parts)))


@dataclass
class ParsedDocument:
    claims: list[Claim]
    problems: list[tuple[int, str]]  # (line, why)


def _parser() -> object:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table")


# `code=SPEC[,SPEC...]` after the ids names the claim's code (docs/claims.md, the drill).
_CODE_FIELD = re.compile(r"\s+code=(\S*)")


def _marker_ids(body: str) -> list[str]:
    return [part.strip() for part in _CODE_FIELD.sub(" ", body).split(",")]


def _marker_code(body: str) -> tuple[str, ...]:
    specs = (s.strip() for m in _CODE_FIELD.finditer(body) for s in m.group(1).split(","))
    return tuple(s for s in specs if s)


def _inline_marker_lines(token: Token) -> list[tuple[str, int]]:
    """Marker bodies of an inline token's html_inline children, with their lines."""
    found: list[tuple[str, int]] = []
    line = (token.map[0] + 1) if token.map else 1
    for child in token.children or []:
        if child.type in ("softbreak", "hardbreak"):
            line += 1
        elif child.type == "text":
            line += child.content.count("\n")
        elif child.type == "html_inline":
            for match in MARKER.finditer(child.content):
                found.append((match.group(1), line))
    return found


def parse_document(text: str, doc: str) -> ParsedDocument:
    """Every claim marked in one Markdown document (ids not yet validated)."""
    tokens: list[Token] = _parser().parse(text)  # type: ignore[attr-defined]
    blocks: list[_Block] = []
    # Mirrors markdown-it's nesting: one entry per open token, the block it
    # opened when that block can carry a claim, else None.
    stack: list[tuple[str, _Block | None]] = []
    last_closed: _Block | None = None
    problems: list[tuple[int, str]] = []

    for token in tokens:
        kind = token.type
        line = (token.map[0] + 1) if token.map else 1
        if token.nesting == 1:
            block: _Block | None = None
            if kind == "list_item_open":
                block = _Block("list_item", line)
            elif kind == "tr_open":
                block = _Block("table_row", line)
            elif kind == "heading_open":
                block = _Block("heading", line)
            elif kind == "paragraph_open" and not (stack and stack[-1][0] == "list_item_open"):
                # A paragraph that is a list item's own text belongs to the item.
                block = _Block("paragraph", line)
            if block is not None:
                blocks.append(block)
            stack.append((kind, block))
        elif token.nesting == -1:
            if stack:
                _, closed = stack.pop()
                if closed is not None:
                    last_closed = closed
        elif kind == "inline":
            target = _innermost(stack)
            if target is not None:
                target.parts.append(token.content)
                target.markers.extend(_inline_marker_lines(token))
        elif kind == "html_block":
            found = list(MARKER.finditer(token.content))
            if not found:
                if _OPEN_MARKER.search(token.content):
                    problems.append((line, "claim marker without a closing `-->`"))
                # Other HTML keeps the attachment point.
                continue
            target = _innermost(stack, kinds=("list_item", "table_row")) or last_closed
            if target is None:
                problems.append(
                    (line, "claim marker with no paragraph, list item or table row before it")
                )
                continue
            for match in found:
                offset = token.content[: match.start()].count("\n")
                target.markers.append((match.group(1), line + offset))
        elif kind in ("fence", "code_block", "hr"):
            # A marker after code or a rule cannot mean the text before them.
            last_closed = None

    claims: list[Claim] = []
    for block in blocks:
        text = block.text()
        for body, marker_line in block.markers:
            code = _marker_code(body)
            for claim_id in _marker_ids(body):
                claims.append(Claim(claim_id, doc, block.line, text, block.kind, marker_line, code))
    return ParsedDocument(claims=claims, problems=problems)


def _innermost(
    stack: list[tuple[str, _Block | None]], kinds: tuple[str, ...] | None = None
) -> _Block | None:
    for _, block in reversed(stack):
        if block is not None and (kinds is None or block.kind in kinds):
            return block
    return None


def scan_documents(root: Path, patterns: Iterable[str], exclude: Iterable[str]) -> list[str]:
    """Repo-relative POSIX paths of the documents the globs select, sorted."""
    excluded = set(exclude)
    found: set[str] = set()
    for pattern in patterns:
        for path in root.glob(pattern):
            if not path.is_file():
                continue
            rel = path.relative_to(root)
            if any(part in excluded for part in rel.parts[:-1]):
                continue
            found.add(rel.as_posix())
    return sorted(found)


def collect_claims(root: Path, config: Config) -> ClaimSet:
    """Parse every claims document of the repository at `root`."""
    result = ClaimSet()
    result.documents = scan_documents(root, config.claims_documents, config.exclude)
    for doc in result.documents:
        try:
            text = (root / doc).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            result.marker_problems.append((doc, 1, f"cannot read document: {exc}"))
            continue
        if "claim" not in text.lower():
            continue  # no marker can be there; skip the parse
        parsed = parse_document(text, doc)
        for line, why in parsed.problems:
            result.marker_problems.append((doc, line, why))
        for claim in parsed.claims:
            if not CLAIM_ID.match(claim.id):
                shown = claim.id or "(empty)"
                result.marker_problems.append(
                    (doc, claim.marker_line, f"claim id {shown!r} is not lowercase kebab-case")
                )
                continue
            result.occurrences.append(claim)
            result.claims.setdefault(claim.id, claim)
    return result
