"""The per-line citation grammar (path forms, chains, bare continuations, blob URLs).

Pure functions over one line of text; they never cross a line boundary. The
rules match the JavaScript checker's scanner position for position (same
look-behinds, same resume points), except that the extension is not fixed:
the caller's `accept` decides whether a `token:N` names a file (see
discover.py), so Go, Rust or TSX repositories work too.

- path form: `token:N` or `token:N-M` (hyphen or en dash, spaces allowed
  around it); the token may start with one `.` and is not preceded by a word
  char, `/`, `.` or `-`.
- chain: right after a path form (or a bound bare continuation), further
  `, N`, `,N-M`, `/N` or `/:N` elements cite the same path.
- bare continuation: `:N[-M]` whose colon follows no word char, `.` or `-`
  binds to the nearest path form earlier on the same line (and may carry its
  own chain); without one it is not a citation.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from typing import NamedTuple

from zodyssey.anchors.fingerprint import JS_WHITESPACE

_S = "[" + re.escape(JS_WHITESPACE) + "]*"
# The JavaScript checker's forms, exactly: what its lock can hold (js=True below).
_JS_RANGE = f"(?:{_S}[-\u2013]{_S}([0-9]+))?"
# ASCII only, like JavaScript's \w: `é.py:3` cites `.py`-less text exactly as the JS tool does.
JS_PATH_FORM = re.compile(
    r"(?<![A-Za-z0-9_/.\-])(\.?[A-Za-z0-9_][A-Za-z0-9_./\-]*):([0-9]+)" + _JS_RANGE
)
JS_CHAIN_ELEMENT = re.compile(f"{_S}[,/]{_S}:?{_S}([0-9]+){_JS_RANGE}")
JS_BARE = re.compile(r"(?<![A-Za-z0-9_.\-]):([0-9]+)" + _JS_RANGE)

# Ours read what a reader reads as a citation too (docs/citation-lock.md, the table):
# - a range with any dash a reader writes (hyphen, en/em/figure dash, minus sign) or `..`,
#   pinned whole, never only its first line;
# - a number written `L5` (`src/a.py:L5-L7`);
# - a path relative to the document (`./src/a.py`, `../src/a.py`);
# - bracketed route segments (`app/[id]/page.ts`, `app/(shop)/page.ts`);
# - a path in a code span with the numbers after it (`` `src/a.py`:5 ``).
DASHES = "-\u2010\u2011\u2012\u2013\u2014\u2015\u2212"
# A range's second number after a dash, `..`, or the word `to` (`src/a.py:2 to 5`).
_RANGE = f"(?:(?:{_S}(?:[{DASHES}]|\\.\\.){_S}|[ \t]+to[ \t]+)L?([0-9]+))?"
# A letter of any script: Python's Unicode `\w` plus the combining marks it leaves out,
# so a name written in NFD (`e` + U+0301, as macOS stores it) or in an Indic script
# stays one token (`src/café.py:2`, `модуль/данные.py:3`).
_MARKS = "\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u0610-\u061a\u064b-\u065f\u0900-\u0dff"
_MARKS += "\u0e00-\u0eff\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\u3099\u309a\ufe20-\ufe2f"
_WORD = r"\w" + _MARKS
_SEGMENT = rf"(?:\[[{_WORD}.\-]+\]|\([{_WORD}.\-]+\))"
_TOKEN = rf"(?:\.\.?/)*\.?[{_WORD}](?:[{_WORD}./\-]|(?<=/){_SEGMENT}(?=/))*"
PATH_FORM = re.compile(rf"(?<![{_WORD}/.\-])(`)?({_TOKEN})(?(1)`|):L?([0-9]+)" + _RANGE)
CHAIN_ELEMENT = re.compile(f"{_S}[,/]{_S}:?{_S}L?([0-9]+){_RANGE}")
BARE = re.compile(rf"(?<![{_WORD}.\-]):L?([0-9]+)" + _RANGE)
# A GitHub-style blob URL with a line fragment; the caller checks the host/owner/repo.
BLOB_URL = re.compile(
    r"https?://([A-Za-z0-9.\-]+(?::[0-9]+)?)/([A-Za-z0-9_.\-]+)/([A-Za-z0-9_.\-]+)"
    r"(?:/-)?/blob/([^\s#?)\]>\"'<`]+)(?:\?[^\s#)\]>\"'<`]*)?"
    r"#L([0-9]+)(?:C[0-9]+)?(?:-L?([0-9]+)(?:C[0-9]+)?)?"
)
# A path with a line fragment written in prose (`src/a.py#L5`, `app.py#L6-L8`): not part of a link or URL, which other scanners read (hence no
# `(`, `"`, `'`, `<`, `=`, `:` or `/` before it).
PROSE_FRAGMENT = re.compile(
    rf"(?<![{_WORD}/.\-(:\"'<=\[#])({_TOKEN})#L([0-9]+)(?:C[0-9]+)?(?:-L?([0-9]+)(?:C[0-9]+)?)?"
    r"(?![\w#])"
)
# A Markdown reference definition (`[two]: ../src/a.py#L5`), read by structure.py.
REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:")
# The line fragment of a Markdown link target: #L10, #L10-L20 (GitHub), #L10-20.
LINK_FRAGMENT = re.compile(r"L([0-9]+)(?:C[0-9]+)?(?:-L?([0-9]+)(?:C[0-9]+)?)?")
# Cheap pre-filters: a line without these cannot hold a citation of that kind.
HAS_NUMBER_AFTER_COLON = re.compile(r":L?[0-9]")


class RawRef(NamedTuple):
    """A citation as found on one line, before resolution (a tuple: discovery makes
    one per citation, and a frozen dataclass costs several times as much to build)."""

    cited: str
    start: int
    end: int
    ranged: bool
    dialect: str  # path | chain | bare | link | blob | symbol
    number_spans: tuple[tuple[int, int], ...]  # columns of the written numbers
    path_span: tuple[int, int]  # columns of the path token (of the antecedent for bare/chain)
    symbol: str | None = None  # `Class.method` of a symbol citation (anchors/symbols/)


def _numbers(
    match: re.Match[str], first: int
) -> tuple[int, int, bool, tuple[tuple[int, int], ...]]:
    a = int(match.group(first))
    b_text = match.group(first + 1)
    spans = [match.span(first)]
    if b_text is None:
        return a, a, False, tuple(spans)
    b = int(b_text)
    spans.append(match.span(first + 1))
    # The JS key omits a `-0` end (JavaScript treats 0 as "no end"); the range is still reversed.
    return a, b, b != 0, tuple(spans)


def _chain(
    line: str,
    pos: int,
    cited: str,
    path_span: tuple[int, int],
    out: list[RawRef],
    chain: re.Pattern[str] = CHAIN_ELEMENT,
) -> int:
    while True:
        element = chain.match(line, pos)
        if element is None:
            return pos
        a, b, ranged, spans = _numbers(element, 1)
        out.append(RawRef(cited, a, b, ranged, "chain", spans, path_span))
        pos = element.end()


_Anchor = tuple[int, int, str, tuple[int, int]]  # start, end, cited, path span of a path form


def scan_line(line: str, accept: Callable[[str], bool], *, js: bool = False) -> list[RawRef]:
    """Every path-form citation of one line, with chains and bare continuations.

    `js`: only the JavaScript checker's forms (what its lock can pin). This is
    the one place the line forms are read; links and blob URLs come from
    structure.py, forms.py and remote.py.
    """
    out: list[RawRef] = []
    if ":" not in line or HAS_NUMBER_AFTER_COLON.search(line) is None:
        return out
    path_form, chain, bare_form = (
        (JS_PATH_FORM, JS_CHAIN_ELEMENT, JS_BARE) if js else (PATH_FORM, CHAIN_ELEMENT, BARE)
    )
    token = 1 if js else 2  # ours has the optional opening backtick as group 1
    anchors: list[_Anchor] = []
    pos = 0
    while True:
        match = path_form.search(line, pos)
        if match is None:
            break
        cited = match.group(token)
        if not accept(cited):
            # Resume right after the colon: digits there may begin a token of their own.
            pos = line.index(":", match.end(token)) + 1
            continue
        path_span = match.span(token)
        a, b, ranged, spans = _numbers(match, token + 1)
        out.append(RawRef(cited, a, b, ranged, "path", spans, path_span))
        end = _chain(line, match.end(), cited, path_span, out, chain)
        anchors.append((match.start(), end, cited, path_span))
        pos = end
    if anchors:
        _bare_continuations(line, anchors, bare_form, chain, out)
    return out


def _bare_continuations(
    line: str,
    anchors: list[_Anchor],
    bare_form: re.Pattern[str],
    chain: re.Pattern[str],
    out: list[RawRef],
) -> None:
    """Add to `out` each bare continuation of the line (and its chain), read against
    the path form written before it."""
    # Anchors are found left to right and never overlap: the one before a bare
    # continuation is found by bisection, so a line of many citations stays linear.
    starts = [start for start, _, _, _ in anchors]
    pos = 0
    while True:
        bare = bare_form.search(line, pos)
        if bare is None:
            return
        pos = bare.end()
        before = _antecedent(anchors, starts, bare.start())
        if before is None:
            continue
        _, _, cited, path_span = before
        a, b, ranged, spans = _numbers(bare, 1)
        out.append(RawRef(cited, a, b, ranged, "bare", spans, path_span))
        pos = _chain(line, bare.end(), cited, path_span, out, chain)


def _antecedent(anchors: list[_Anchor], starts: list[int], where: int) -> _Anchor | None:
    """The path form a bare continuation at `where` continues; None when there is none
    before it, or when `where` already lies in a chain read with a path form."""
    before = bisect_right(starts, where) - 1
    if before >= 0 and where < anchors[before][1]:
        return None  # already read as a chain element
    if before >= 0 and starts[before] == where:
        before -= 1
    return anchors[before] if before >= 0 else None


def parse_fragment(fragment: str) -> tuple[int, int, bool, tuple[tuple[int, int], ...]] | None:
    """Numbers of a `L10` / `L10-L20` fragment (columns relative to the fragment)."""
    match = LINK_FRAGMENT.fullmatch(fragment)
    if match is None:
        return None
    return _numbers(match, 1)


def numbers_of(
    match: re.Match[str], first: int
) -> tuple[int, int, bool, tuple[tuple[int, int], ...]]:
    """(a, b, ranged, columns of the written numbers) of groups `first` and `first + 1`."""
    return _numbers(match, first)
