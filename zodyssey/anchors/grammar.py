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
from dataclasses import dataclass

from zodyssey.anchors.fingerprint import JS_WHITESPACE

_S = "[" + re.escape(JS_WHITESPACE) + "]*"
_RANGE = f"(?:{_S}[-\u2013]{_S}([0-9]+))?"
# ASCII only, like JavaScript's \w: `é.py:3` cites `.py`-less text exactly as the JS tool does.
PATH_FORM = re.compile(r"(?<![A-Za-z0-9_/.\-])(\.?[A-Za-z0-9_][A-Za-z0-9_./\-]*):([0-9]+)" + _RANGE)
CHAIN_ELEMENT = re.compile(f"{_S}[,/]{_S}:?{_S}([0-9]+){_RANGE}")
BARE = re.compile(r"(?<![A-Za-z0-9_.\-]):([0-9]+)" + _RANGE)
# A GitHub-style blob URL with a line fragment; the caller checks the host/owner/repo.
BLOB_URL = re.compile(
    r"https?://([A-Za-z0-9.\-]+(?::[0-9]+)?)/([A-Za-z0-9_.\-]+)/([A-Za-z0-9_.\-]+)"
    r"(?:/-)?/blob/([^\s#?)\]>\"'<`]+)(?:\?[^\s#)\]>\"'<`]*)?"
    r"#L([0-9]+)(?:C[0-9]+)?(?:-L?([0-9]+)(?:C[0-9]+)?)?"
)
# The line fragment of a Markdown link target: #L10, #L10-L20 (GitHub), #L10-20.
LINK_FRAGMENT = re.compile(r"L([0-9]+)(?:C[0-9]+)?(?:-L?([0-9]+)(?:C[0-9]+)?)?")
# Cheap pre-filters: a line without these cannot hold a citation of that kind.
HAS_NUMBER_AFTER_COLON = re.compile(r":[0-9]")


@dataclass(frozen=True, slots=True)
class RawRef:
    """A citation as found on one line, before resolution."""

    cited: str
    start: int
    end: int
    ranged: bool
    dialect: str  # path | chain | bare | link | blob
    number_spans: tuple[tuple[int, int], ...]  # columns of the written numbers
    path_span: tuple[int, int]  # columns of the path token (of the antecedent for bare/chain)


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


def _chain(line: str, pos: int, cited: str, path_span: tuple[int, int], out: list[RawRef]) -> int:
    while True:
        element = CHAIN_ELEMENT.match(line, pos)
        if element is None:
            return pos
        a, b, ranged, spans = _numbers(element, 1)
        out.append(RawRef(cited, a, b, ranged, "chain", spans, path_span))
        pos = element.end()


def scan_line(line: str, accept: Callable[[str], bool]) -> list[RawRef]:
    """Every path-form citation of one line, with chains and bare continuations."""
    out: list[RawRef] = []
    if ":" not in line or HAS_NUMBER_AFTER_COLON.search(line) is None:
        return out
    anchors: list[tuple[int, int, str, tuple[int, int]]] = []  # start, end, cited, path span
    pos = 0
    while True:
        match = PATH_FORM.search(line, pos)
        if match is None:
            break
        cited = match.group(1)
        if not accept(cited):
            # Resume right after the colon: digits there may begin a token of their own.
            pos = match.end(1) + 1
            continue
        path_span = match.span(1)
        a, b, ranged, spans = _numbers(match, 2)
        out.append(RawRef(cited, a, b, ranged, "path", spans, path_span))
        end = _chain(line, match.end(), cited, path_span, out)
        anchors.append((match.start(), end, cited, path_span))
        pos = end
    if not anchors:
        return out
    # Anchors are found left to right and never overlap: the one before a bare
    # continuation is found by bisection, so a line of many citations stays linear.
    starts = [start for start, _, _, _ in anchors]
    pos = 0
    while True:
        bare = BARE.search(line, pos)
        if bare is None:
            break
        where = bare.start()
        pos = bare.end()
        before = bisect_right(starts, where) - 1
        if before >= 0 and where < anchors[before][1]:
            continue  # already read as a chain element
        if before >= 0 and starts[before] == where:
            before -= 1
        if before < 0:
            continue
        antecedent = (anchors[before][2], anchors[before][3])
        a, b, ranged, spans = _numbers(bare, 1)
        out.append(RawRef(antecedent[0], a, b, ranged, "bare", spans, antecedent[1]))
        pos = _chain(line, bare.end(), antecedent[0], antecedent[1], out)
    return out


def parse_fragment(fragment: str) -> tuple[int, int, bool, tuple[tuple[int, int], ...]] | None:
    """Numbers of a `L10` / `L10-L20` fragment (columns relative to the fragment)."""
    match = LINK_FRAGMENT.fullmatch(fragment)
    if match is None:
        return None
    return _numbers(match, 1)
