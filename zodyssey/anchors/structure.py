"""Document structure from markdown-it-py: HTML comments, markers and link targets.

Citations are found by the line grammar (grammar.py) on the raw lines, the
way the JavaScript checker found them, so text in code spans and fenced code
blocks still counts (people write `zodyssey/x.py:12` in backticks, and
grammar examples in fences were always checked; `anchor-lock: ignore-next`
opts one out). markdown-it supplies what a line regex cannot see reliably:

- HTML comments (`<!-- ... -->`, block or inline, real ones only, not the
  same text inside code): citations inside them are skipped;
- markers, which count only as real comments (so a document may *mention*
  a marker in backticks without being skipped):
  `<!-- anchor-lock: ignore -->` skips the whole document,
  `<!-- anchor-lock: ignore-line -->` skips citations on its own line,
  `<!-- anchor-lock: ignore-next -->` skips the next non-blank line,
  `<!-- anchor-lock: ignore-begin -->` ... `<!-- anchor-lock: ignore-end -->`
  skips every line from the first marker to the second (both included);
- link targets (inline links, reference definitions) with `#L10` /
  `#L10-L20` fragments, located back on their source line.

Only documents that contain `<!--`, or a `#L` fragment next to link syntax,
are parsed at all; inline parsing runs only for the blocks that need it.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

MARKER_IGNORE = "anchor-lock: ignore"
MARKER_IGNORE_LINE = "anchor-lock: ignore-line"
MARKER_IGNORE_NEXT = "anchor-lock: ignore-next"
MARKER_IGNORE_BEGIN = "anchor-lock: ignore-begin"
MARKER_IGNORE_END = "anchor-lock: ignore-end"
MARKERS = (
    MARKER_IGNORE,
    MARKER_IGNORE_LINE,
    MARKER_IGNORE_NEXT,
    MARKER_IGNORE_BEGIN,
    MARKER_IGNORE_END,
)
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:")

_PARSERS: tuple[MarkdownIt, MarkdownIt] | None = None


def _parsers() -> tuple[MarkdownIt, MarkdownIt]:
    """(block parser, inline parser), built once.

    The block parser skips inline parsing (done below only where needed) and
    setext headings: `Title` over `===` then reads as a paragraph, which holds
    the same inline text, and markdown-it's setext rule re-scans every
    paragraph (it was most of the parse time). The inline parser keeps only
    the rules that decide what is a link, a code span or raw HTML.
    """
    global _PARSERS
    if _PARSERS is None:
        from markdown_it import MarkdownIt

        block = MarkdownIt("commonmark")
        block.disable(["inline", "lheading"])
        inline = MarkdownIt("commonmark")
        inline.disable(["newline", "emphasis", "entity", "balance_pairs", "fragments_join"])
        # Keep link targets as written (no percent-encoding): we look them up in the text.
        inline.normalizeLink = lambda url: url  # type: ignore[method-assign]
        _PARSERS = (block, inline)
    return _PARSERS


@dataclass(frozen=True, slots=True)
class LinkTarget:
    line: int  # 0-based
    column: int  # where the target text starts in that line, -1 when not located
    target: str  # the path part as written (before `?` or `#`)
    fragment: str  # the part after `#`
    fragment_column: int = -1  # where the fragment starts in that line, -1 when not located


@dataclass
class DocStructure:
    ignore_doc: bool = False
    comments: list[tuple[int, int]] = field(default_factory=list)  # absolute [start, end)
    ignored_lines: set[int] = field(default_factory=set)  # 0-based
    links: list[LinkTarget] = field(default_factory=list)
    unclosed: int | None = None  # 1-based line of an ignore-begin without ignore-end

    def in_comment(self, offset: int) -> bool:
        if not self.comments:
            return False
        i = bisect.bisect_right(self.comments, (offset, 1 << 62)) - 1
        return i >= 0 and self.comments[i][0] <= offset < self.comments[i][1]


def needs_structure(text: str) -> bool:
    return "<!--" in text or ("#L" in text and ("](" in text or "]:" in text))


def _marker(comment: str) -> str | None:
    inner = comment[4:-3].strip()
    if inner in MARKERS:
        return inner
    return None


class _Source:
    """Absolute offsets <-> (line, column) for one document."""

    def __init__(self, text: str, lines: list[str]) -> None:
        self.text = text
        self.lines = lines
        starts = [0]
        total = 0
        for line in lines[:-1]:
            total += len(line) + 1
            starts.append(total)
        self.starts = starts

    def offset(self, line: int) -> int:
        return self.starts[line] if line < len(self.starts) else len(self.text)

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset) - 1


def analyse(text: str, lines: list[str]) -> DocStructure:
    """The document's comments, markers and line-fragment links: without the parser
    when its links are plain (`_plain_links`), else from markdown-it (`parsed`)."""
    plain = _plain_links(text, lines)
    return plain if plain is not None else parsed(text, lines)


def parsed(text: str, lines: list[str]) -> DocStructure:
    """`analyse` by markdown-it, whatever the document."""
    result = DocStructure()
    source = _Source(text, lines)
    env: dict[str, Any] = {}
    parser, inline_parser = _parsers()
    tokens = parser.parse(text, env)
    marks: list[tuple[int, int, str]] = []  # absolute start, end, kind of marker comments
    link_cursor: dict[str, int] = {}
    # A reference definition with a line fragment (`[two]: ../a.py#L5`) is used by a
    # paragraph that need not hold `#L` itself (`[x][two]`): parse those paragraphs too.
    fragment_refs = any(
        "#L" in str(ref.get("href", "")) for ref in env.get("references", {}).values()
    )
    for token in tokens:
        if token.map is None:
            continue
        begin, stop = token.map
        lo, hi = source.offset(begin), source.offset(stop)
        if token.type == "html_block":
            for match in _COMMENT.finditer(text, lo, hi):
                _add_comment(result, marks, match.start(), match.end(), match.group(0))
        elif token.type == "inline" and _inline_needed(text[lo:hi], fragment_refs):
            children: list[Any] = []
            inline_parser.inline.parse(token.content, inline_parser, env, children)
            _inline_structure(children, _Block(source, lo, hi), link_cursor, result, marks)
    result.comments.sort()
    _apply_markers(result, source, marks)
    return result


# What keeps a document out of `_plain_links`: anything by which CommonMark could
# read a `[text](target)` otherwise than as that link, or find a link it does not
# show (HTML, comments and autolinks `<`, code spans and fences, escapes, entities,
# images, reference links and definitions, indentation, tabs, CR, NUL).
_NOT_PLAIN = re.compile(r"[<`\\&\t\r\x00]|~~~|!\[|\]\[|\]:|\[\]|(?:^|\n)[ ]")
_PLAIN_LINK = re.compile(r"\[[^\[\]\n]*\]\(([^\s()<>\[\]\x00-\x1f\x7f]*)\)")


def _plain_links(text: str, lines: list[str]) -> DocStructure | None:
    """The structure of a document whose links need no parser, else None.

    A document without any of `_NOT_PLAIN` holds no comment, no marker and no
    code, and each of its inline links is `[text](target)` on one line, the text
    without brackets, the target without spaces or parentheses: when every `](`
    in it begins such a link, those are exactly the links markdown-it finds.
    Each is located as the full parse locates it (`_link_target`, searching the
    whole document from the last place of the same target) and kept only when
    that lands on the link itself; anything else goes to the parser.
    """
    if _NOT_PLAIN.search(text) is not None:
        return None
    found = list(_PLAIN_LINK.finditer(text))
    if len(found) != text.count("]("):
        return None  # a `](` no plain link accounts for
    result = DocStructure()
    source = _Source(text, lines)
    cursor: dict[str, int] = {}
    for match in found:
        href = match.group(1)
        link = _link_target(href, source, 0, len(text), cursor, [])
        if link is None:
            continue
        if link.column < 0 or source.offset(link.line) + link.column != match.start(1):
            return None
        result.links.append(link)
    return result


def _inline_needed(raw: str, fragment_refs: bool) -> bool:
    """Whether an inline block's text can hold a comment or a line-fragment link."""
    return "<!--" in raw or "#L" in raw or (fragment_refs and "]" in raw)


def _add_comment(
    result: DocStructure, marks: list[tuple[int, int, str]], start: int, end: int, comment: str
) -> None:
    """Record the comment at [start, end) and, when it is a marker, the marker."""
    result.comments.append((start, end))
    kind = _marker(comment)
    if kind is not None:
        marks.append((start, end, kind))


class _Block:
    """One inline block, text[lo:hi], and its code spans (found once, when first asked)."""

    def __init__(self, source: _Source, lo: int, hi: int) -> None:
        self.source = source
        self.lo = lo
        self.hi = hi
        self._spans: list[tuple[int, int]] | None = None

    @property
    def spans(self) -> list[tuple[int, int]]:
        if self._spans is None:
            self._spans = _code_spans(self.source.text, self.lo, self.hi)
        return self._spans

    def find_comment(self, comment: str, cursor: int) -> int:
        """Where the comment itself is written from `cursor` on (not the same text
        shown earlier in a code span); -1 when it is not found."""
        text = self.source.text
        where = text.find(comment, cursor, self.hi)
        while where >= 0 and _inside(self.spans, where):
            where = text.find(comment, where + 1, self.hi)
        return where


def _inline_structure(
    children: list[Any],
    block: _Block,
    link_cursor: dict[str, int],
    result: DocStructure,
    marks: list[tuple[int, int, str]],
) -> None:
    """Comments and line-fragment link targets of one inline block's tokens."""
    cursor = block.lo
    for child in children:
        if child.type == "html_inline" and child.content.startswith("<!--"):
            where = block.find_comment(child.content, cursor)
            if where >= 0:
                cursor = where + len(child.content)
                _add_comment(result, marks, where, cursor, child.content)
        elif child.type == "link_open":
            href = str(child.attrs.get("href", ""))
            found = _link_target(href, block.source, block.lo, block.hi, link_cursor, block.spans)
            if found is not None:
                result.links.append(found)


def _apply_markers(
    result: DocStructure, source: _Source, marks: list[tuple[int, int, str]]
) -> None:
    region_start: int | None = None
    for start, end, kind in sorted(marks):
        if kind == MARKER_IGNORE:
            result.ignore_doc = True
        elif kind == MARKER_IGNORE_LINE:
            result.ignored_lines.add(source.line_of(start))
        elif kind == MARKER_IGNORE_NEXT:
            result.ignored_lines.add(_next_written(source.lines, source.line_of(end - 1) + 1))
        elif kind == MARKER_IGNORE_BEGIN:
            if region_start is None:
                region_start = source.line_of(start)
        elif region_start is not None:  # ignore-end closes the open region, inclusive
            result.ignored_lines.update(range(region_start, source.line_of(end - 1) + 1))
            region_start = None
    if region_start is not None:
        # An unclosed region is an error (the caller names the document): silently
        # skipping to the end of the document would hide every later citation.
        result.unclosed = region_start + 1


def _next_written(lines: list[str], line: int) -> int:
    """The first line from `line` on that is not blank (len(lines) when none is)."""
    while line < len(lines) and not lines[line].strip():
        line += 1
    return line


_BACKTICKS = re.compile(r"`+")


def _code_spans(text: str, lo: int, hi: int) -> list[tuple[int, int]]:
    """Code spans of text[lo:hi] (CommonMark: a backtick run closed by one of equal length)."""
    runs = [(m.start(), m.end()) for m in _BACKTICKS.finditer(text, lo, hi)]
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(runs):
        start, end = runs[i]
        if start > lo and text[start - 1] == "\\" and (not spans or spans[-1][1] <= start):
            i += 1  # an escaped backtick opens nothing
            continue
        width = end - start
        closing = next(
            (j for j in range(i + 1, len(runs)) if runs[j][1] - runs[j][0] == width), None
        )
        if closing is None:
            i += 1
            continue
        spans.append((start, runs[closing][1]))
        i = closing + 1
    return spans


def _inside(spans: list[tuple[int, int]], offset: int) -> bool:
    return any(start <= offset < end for start, end in spans)


def _find_destination(
    text: str, form: str, start: int, stop: int, spans: list[tuple[int, int]]
) -> int:
    """Where `form` is written as a Markdown link destination (`](form`, `](<form`,
    `]: form`), not merely as text: the same href in an HTML `<a>`, in prose
    before the link or in a code span showing a link (`spans`) is not this link."""
    where = text.find(form, start, stop)
    while where >= 0:
        back = where - 1
        while back >= 0 and text[back] in " \t\n<":
            back -= 1
        written = back >= 1 and text[back] in "(:" and text[back - 1] == "]"
        if written and not _inside(spans, where):
            return where
        where = text.find(form, where + 1, stop)
    return -1


def _link_target(
    href: str,
    source: _Source,
    lo: int,
    hi: int,
    cursor: dict[str, int],
    spans: list[tuple[int, int]] | None = None,
) -> LinkTarget | None:
    if "#" not in href or _SCHEME.match(href) or href.startswith("//"):
        return None  # absolute URLs: blob URLs of our remote are read from the raw line
    target, _, fragment = href.partition("#")
    if not target or not fragment.startswith("L"):
        return None
    # The href is normalised (percent-encoded) by markdown-it; look for it as written.
    forms = [href] if unquote(href) == href else [href, unquote(href)]
    for form in forms:
        found = _written_link(form, source, lo, hi, cursor, spans or [])
        if found is not None:
            return found
    return LinkTarget(source.line_of(lo), -1, target.partition("?")[0], fragment)


def _written_link(
    form: str,
    source: _Source,
    lo: int,
    hi: int,
    cursor: dict[str, int],
    spans: list[tuple[int, int]],
) -> LinkTarget | None:
    """The link target `form` located where it is written as a link destination:
    inline links sit inside their block, reference definitions anywhere in the document."""
    passes = ((max(lo, cursor.get(form, lo)), hi, True), (0, len(source.text), False))
    for start, stop, inline in passes:
        where = _find_destination(source.text, form, start, stop, spans)
        if where < 0:
            continue
        if inline:  # the next link with this href is written after this one
            cursor[form] = where + len(form)
        line = source.line_of(where)
        column = where - source.offset(line)
        written_target, _, written_fragment = form.partition("#")
        fragment_column = column + len(written_target) + 1
        # `?plain=1` (GitHub's source view of Markdown files) is not part of the path.
        written_target = written_target.partition("?")[0]
        return LinkTarget(line, column, written_target, written_fragment, fragment_column)
    return None
