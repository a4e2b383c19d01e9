"""Every citation form of one line, in one place (discovery calls `scan`).

- path forms, chains and bare continuations: grammar.scan_line;
- a path with a line fragment in prose or a code span (`src/a.py#L5`), read
  like a path form;
- line-fragment links outside Markdown's syntax: an HTML anchor
  (`<a href="../src/a.py#L5">`), a reStructuredText link
  (`` `two <../src/a.py#L5>`_ ``) and an AsciiDoc link
  (`link:../src/a.py#L5[two]`), resolved relative to the document like a
  Markdown link (dialect `link`);
- a line holding zero-width characters or HTML entities (`&#58;`, `&ndash;`)
  is read as a reader sees it: those characters removed, entities decoded.
  Its citations are then discovered and checked, but carry no columns, so
  `--fix` never rewrites text it did not read verbatim (they stay problems).

- symbol citations (`path/file.py::Class.method`): symbols/grammar.py.

Markdown links and blob URLs come from structure.py and remote.py, which need
the whole document or the remotes. A new form is one more scanner here,
returning `grammar.RawRef`s.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from zodyssey.anchors import grammar
from zodyssey.anchors.symbols.grammar import scan_symbols

_FRAGMENT_LINKS = (
    re.compile(r"""<a\s[^>]*?href\s*=\s*["']([^"'#\s<>]+)#(L[0-9][^"'\s<>]*)["']""", re.I),
    re.compile(r"`[^`<]*<([^>#\s`]+)#(L[0-9][^>\s`]*)>`__?"),
    re.compile(r"(?<![A-Za-z0-9_])link:([^\s#]+?)#(L[0-9][^\[\s]*)\["),
)
# What every form of `scan` (and a blob URL, remote.py) needs on its line: a line
# without any of these holds no citation, so discovery never scans it (one search
# per line instead of the scanners): `:N`/`:LN` (path forms, chains, bare
# continuations), `#L` (fragment links), `::` (symbols), `&` or a non-ASCII
# character (entities, zero-width characters), `/blob/` (blob URLs).
MAYBE_CITATION = re.compile(r":L?[0-9]|#L|::|&|/blob/|[^\x00-\x7f]")
# Invisible in a rendered document, so a reader sees the citation without them.
ZERO_WIDTH = re.compile("[\u200b\u200c\u200d\u2060\u00ad]")
_ENTITY = re.compile(r"&(?:#[0-9]+|#[xX][0-9A-Fa-f]+|[A-Za-z][A-Za-z0-9]*);")


def scan(line: str, accept: Callable[[str], bool]) -> list[grammar.RawRef]:
    """Every citation of `line` that is not a Markdown link or a blob URL."""
    refs = grammar.scan_line(line, accept)
    if "#L" in line:
        refs.extend(fragment_links(line))
        refs.extend(prose_fragments(line, accept))
    if "::" in line:
        refs.extend(scan_symbols(line))
    if ("&" in line or not line.isascii()) and (ZERO_WIDTH.search(line) or _ENTITY.search(line)):
        refs = _as_a_reader_sees(line, refs, accept)
    return refs


def _as_a_reader_sees(
    line: str, refs: list[grammar.RawRef], accept: Callable[[str], bool]
) -> list[grammar.RawRef]:
    """The citations of `line` with zero-width characters removed and entities decoded.

    What the reader sees decides; a raw reading (`refs`) it does not confirm
    (`a.py:3` of `a.py:3&ndash;6`) is half a citation and is dropped. A confirmed
    raw reading keeps its columns; the others get none: columns of the decoded
    text are not the document's, so --fix never rewrites them.
    """
    import html  # here: only a line with an entity or a zero-width character needs it

    raw = {(r.cited, r.start, r.end, r.ranged): r for r in refs}
    plain = html.unescape(ZERO_WIDTH.sub("", line))
    seen: list[grammar.RawRef] = []
    found = grammar.scan_line(plain, accept) + fragment_links(plain) + scan_symbols(plain)
    for ref in found + prose_fragments(plain, accept):
        # A symbol citation has no numbers to match the raw reading by.
        same = (
            None if ref.symbol is not None else raw.get((ref.cited, ref.start, ref.end, ref.ranged))
        )
        seen.append(
            same
            if same is not None
            else grammar.RawRef(
                ref.cited, ref.start, ref.end, ref.ranged, ref.dialect, (), (-1, -1), ref.symbol
            )
        )
    return seen


def fragment_links(line: str) -> list[grammar.RawRef]:
    """HTML, reStructuredText and AsciiDoc links whose target has a `#L` fragment.

    A target with a scheme (`https://...`) is a URL, never a path relative to the
    document: a blob URL or permalink among them is read by remote.py.
    """
    out: list[grammar.RawRef] = []
    for pattern in _FRAGMENT_LINKS:
        for match in pattern.finditer(line):
            if _SCHEME.match(match.group(1)):
                continue
            parsed = grammar.parse_fragment(match.group(2))
            if parsed is None:
                continue
            a, b, ranged, spans = parsed
            offset = match.start(2)
            out.append(
                grammar.RawRef(
                    match.group(1),
                    a,
                    b,
                    ranged,
                    "link",
                    tuple((offset + s, offset + e) for s, e in spans),
                    match.span(1),
                )
            )
    return out


_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")


def prose_fragments(line: str, accept: Callable[[str], bool]) -> list[grammar.RawRef]:
    """`src/a.py#L5` written in prose (not a link, a reference definition or a code
    span, where it shows how a link is written), read like a path form (dialect
    `path`): `accept` decides whether the token names a file, as for `path:N`."""
    if grammar.REFERENCE_DEFINITION.match(line):
        return []
    out: list[grammar.RawRef] = []
    for match in grammar.PROSE_FRAGMENT.finditer(line):
        if line.count("`", 0, match.start()) % 2 or not accept(match.group(1)):
            continue
        a, b, ranged, spans = grammar.numbers_of(match, 2)
        out.append(grammar.RawRef(match.group(1), a, b, ranged, "path", spans, match.span(1)))
    return out
