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
    kind: str  # paragraph | list_item | table_row | heading | html
    line: int  # 1-based
    parts: list[str] = field(default_factory=list)
    markers: list[tuple[str, int]] = field(default_factory=list)  # (marker body, 1-based line)
    header: list[str] = field(default_factory=list)  # a table row's column headers

    def text(self) -> str:
        joiner = " | " if self.kind == "table_row" else " "
        body = joiner.join(self.parts)
        if self.header:
            # The row's cells mean what their columns say: the headers are part of it.
            body = " | ".join(self.header) + " || " + body
        return normalise(MARKER.sub(" ", body))


@dataclass
class ParsedDocument:
    claims: list[Claim]
    problems: list[tuple[int, str]]  # (line, why)


def _parser() -> object:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table")


# `code=SPEC[,SPEC...]` after the ids names the claim's code (docs/claims.md, the drill).
_CODE_FIELD = re.compile(r"\s+code=(\S*)")
# `drill-skip=PATH:LINE[:COL]:KIND(reason)`: a break the drill does not run, with the
# reason its report prints (an equivalent mutant no test can tell apart).
_SKIP_FIELD = re.compile(r"\s+drill-skip=([^\s(]*)(?:\(([^)]*)\))?")


def _marker_ids(body: str) -> list[str]:
    rest = _SKIP_FIELD.sub(" ", _CODE_FIELD.sub(" ", body))
    return [part.strip() for part in rest.split(",")]


def _marker_skips(body: str) -> tuple[tuple[str, str], ...]:
    """(break id, reason) of every `drill-skip=` field; the id `path:line[:col]:kind`
    is written with a colon where a break's id has its space."""
    found: list[tuple[str, str]] = []
    for match in _SKIP_FIELD.finditer(body):
        where, _, kind = match.group(1).rpartition(":")
        found.append(
            (f"{where} {kind}" if where else match.group(1), (match.group(2) or "").strip())
        )
    return tuple(found)


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


# Opening tokens that start a block a claim can mark (paragraphs: see `_Walk.open`).
_OPENS = {"list_item_open": "list_item", "tr_open": "table_row", "heading_open": "heading"}
_LISTS = ("bullet_list_open", "ordered_list_open")
_TAG = re.compile(r"<[^>]*>")
_HTML_ROW = re.compile(r"<tr\b.*?</tr\s*>", re.IGNORECASE | re.DOTALL)


def _html_text(html: str) -> str:
    return normalise(_TAG.sub(" ", MARKER.sub(" ", html)))


class _Walk:
    """One pass over markdown-it's tokens, building the blocks markers attach to."""

    def __init__(self) -> None:
        self.blocks: list[_Block] = []
        # Mirrors markdown-it's nesting: one entry per open token, the block it
        # opened when that block can carry a claim, else None.
        self.stack: list[tuple[str, _Block | None]] = []
        self.last_closed: _Block | None = None
        self.problems: list[tuple[int, str]] = []
        self.header: list[str] = []  # the current table's header row
        self.in_head = False
        # A paragraph ending in ":" that just closed, and the depth it closed at:
        # a list opening right after it at that depth is part of its promise.
        self.intro: tuple[_Block, int] | None = None
        # The paragraphs whose introduced list is open, with the list's depth.
        self.feeding: list[tuple[_Block, int]] = []

    def token(self, token: Token) -> None:
        line = (token.map[0] + 1) if token.map else 1
        if token.nesting == 1:
            self.open(token.type, line)
        elif token.nesting == -1:
            self.close(token.type)
        else:
            handler = _LEAVES.get(token.type)
            if handler is not None:
                handler(self, token, line)

    def open(self, kind: str, line: int) -> None:
        intro, self.intro = self.intro, None
        if kind in _LISTS and intro is not None and intro[1] == len(self.stack):
            self.feeding.append((intro[0], len(self.stack)))
        name = _OPENS.get(kind)
        if kind == "paragraph_open" and not (self.stack and self.stack[-1][0] == "list_item_open"):
            name = "paragraph"  # a list item's own paragraph belongs to the item
        if kind == "thead_open":
            self.in_head, self.header = True, []
        block = _Block(name, line) if name else None
        if block is not None:
            if name == "table_row" and not self.in_head:
                block.header = list(self.header)
            self.blocks.append(block)
        self.stack.append((kind, block))

    def close(self, kind: str) -> None:
        if not self.stack:
            return
        _, closed = self.stack.pop()
        if self.feeding and self.feeding[-1][1] == len(self.stack):
            self.feeding.pop()  # the introduced list ended
        if kind == "thead_close":
            self.in_head = False
        if closed is None:
            return
        self.last_closed = closed
        if closed.kind == "paragraph" and closed.text().endswith(":"):
            self.intro = (closed, len(self.stack))
        if closed.kind == "table_row" and self.in_head:
            self.header = list(closed.parts)

    def _nested_in(self, text: str, skip: _Block | None = None) -> None:
        """A list item's text is everything nested in it (paragraphs, code, sublists);
        a paragraph introducing a list (ending in ":") holds the whole list."""
        for _, block in self.stack:
            if block is not None and block.kind == "list_item" and block is not skip:
                block.parts.append(text)
        for paragraph, _ in self.feeding:
            paragraph.parts.append(text)

    def inline(self, token: Token, line: int) -> None:
        target = _innermost(self.stack)
        if target is not None:
            target.parts.append(token.content)
            target.markers.extend(_inline_marker_lines(token))
        self._nested_in(token.content, skip=target)

    def code(self, token: Token, line: int) -> None:
        self._nested_in(token.content)
        self.last_closed = None  # a marker after code cannot mean the text before it
        self.intro = None

    def rule(self, token: Token, line: int) -> None:
        self.last_closed = None
        self.intro = None

    def html(self, token: Token, line: int) -> None:
        content = token.content
        found = list(MARKER.finditer(content))
        own = _html_text(content)
        if own:
            self._nested_in(own)
        if not found:
            if _OPEN_MARKER.search(content):
                self.problems.append((line, "claim marker without a closing `-->`"))
            return  # other HTML keeps the attachment point
        if own:
            # Markup with text of its own (<details>, a raw <table>): the marker
            # marks that markup, its table row with the header row for a table.
            for match in found:
                self._html_claim(content, match, line)
            return
        target = _innermost(self.stack, kinds=("list_item", "table_row")) or self.last_closed
        if target is None:
            self.problems.append(
                (line, "claim marker with no paragraph, list item or table row before it")
            )
            return
        for match in found:
            offset = content[: match.start()].count("\n")
            target.markers.append((match.group(1), line + offset))

    def _html_claim(self, content: str, match: re.Match[str], line: int) -> None:
        rows = list(_HTML_ROW.finditer(content))
        row = next((r for r in rows if r.start() <= match.start() < r.end()), None)
        start = row.start() if row is not None else 0
        block = _Block("html", line + content[:start].count("\n"))
        if row is None:
            block.parts.append(_html_text(content))
        else:
            head = next((r for r in rows if "<th" in r.group(0).lower()), None)
            if head is not None and head is not row:
                block.header = [_html_text(head.group(0))]
            block.parts.append(_html_text(row.group(0)))
        block.markers.append((match.group(1), line + content[: match.start()].count("\n")))
        self.blocks.append(block)


_LEAVES = {
    "inline": _Walk.inline,
    "html_block": _Walk.html,
    "fence": _Walk.code,
    "code_block": _Walk.code,
    "hr": _Walk.rule,
}


def parse_document(text: str, doc: str) -> ParsedDocument:
    """Every claim marked in one Markdown document (ids not yet validated)."""
    tokens: list[Token] = _parser().parse(text)  # type: ignore[attr-defined]
    walk = _Walk()
    for token in tokens:
        walk.token(token)
    claims: list[Claim] = []
    for block in walk.blocks:
        text_of = block.text()
        for body, marker_line in block.markers:
            code = _marker_code(body)
            skips = _marker_skips(body)
            for claim_id in _marker_ids(body):
                claims.append(
                    Claim(claim_id, doc, block.line, text_of, block.kind, marker_line, code, skips)
                )
    return ParsedDocument(claims=claims, problems=walk.problems)


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
