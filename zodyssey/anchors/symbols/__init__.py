"""Symbol citations: `path/file.py::Class.method` names a definition, not lines.

A symbol citation resolves, each time it is checked, to the definition's
current span (tree-sitter parses the file); the lock pins that span's content
under the key `path::Symbol`. Moving the definition moves nothing in the
document; changing its body is drift; deleting or renaming it is `gone` or
`unresolved`, with the commit git names (docs/citation-lock.md, "Symbol
citations").

This module stays light: it names the supported languages and offers
`symbol_span`; the grammars load only when a file of their language is parsed
(`languages.py`), so nothing on the gate's hook path imports them.

- `grammar.py`   the citation form in a line of prose;
- `languages.py` the per-language grammars and what counts as a definition;
- `resolve.py`   a file's definitions (cached), and citations given their spans;
- `check.py`     a symbol citation checked against the lock, with git's evidence;
- `suggest.py`   line citations that name exactly one definition (`--suggest-symbols`,
                 `--fix --to-symbols`).
"""

from __future__ import annotations

from pathlib import Path

from zodyssey.anchors.symbols.extensions import EXTENSIONS as EXTENSIONS
from zodyssey.anchors.symbols.extensions import language_of as language_of


def symbol_span(root: Path | str, path: str, symbol: str) -> tuple[int, int] | None:
    """The 1-based inclusive line span of `symbol` defined in `root/path`, now.

    `symbol` is written as in a citation (`Class.method`, `Type::method`; `.`
    and `::` both separate). None when the file cannot be read, its language is
    not supported, or it defines no such symbol or several (overloads). The
    function the claims drill calls to find the code a claim names.
    """
    from zodyssey.anchors.symbols.resolve import read_definitions

    found = read_definitions(Path(root), path)
    if found is None:
        return None
    matches = found.lookup(symbol)
    if len(matches) != 1:
        return None
    return matches[0].start, matches[0].end
