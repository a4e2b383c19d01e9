"""The symbol citation form in one line of prose: `path/file.ext::Name(.Name|::Name)*`.

pytest's `::` joins the path and the symbol, as in a test id; inside the
symbol `.` or `::` separates scopes (`Checker.run`, `Type::method`,
`ns::Class::method`); both mean the same, so each language's usual spelling
works. The path must end in the extension of a supported language
(`symbols.EXTENSIONS`), and is resolved like a `path:N` one (relative to the
document, or by its path suffix). The path is not preceded by a word
character, `/`, `.` or `-`; a name starts with a letter, `_` or `$` (`~` too,
for a C++ destructor). Trailing punctuation ends the citation:
`check.py::Checker.run.` and `check.py::Checker.run()` cite `Checker.run`.
"""

from __future__ import annotations

import re

from zodyssey.anchors.grammar import RawRef
from zodyssey.anchors.symbols import EXTENSIONS

_EXT = "|".join(sorted(EXTENSIONS, key=lambda e: (-len(e), e)))
_NAME = r"~?[A-Za-z_$][A-Za-z0-9_$]*"
SYMBOL_FORM = re.compile(
    r"(?<![A-Za-z0-9_/.\-])"
    r"((?:\.\.?/)*[A-Za-z0-9_][A-Za-z0-9_./\-]*\.(?:" + _EXT + r"))"
    r"::(" + _NAME + r"(?:(?:::|\.)" + _NAME + r")*)"
)


def scan_symbols(line: str) -> list[RawRef]:
    """Every symbol citation of one line (dialect `symbol`, no line numbers yet)."""
    if "::" not in line:
        return []
    out: list[RawRef] = []
    for match in SYMBOL_FORM.finditer(line):
        out.append(RawRef(match.group(1), 0, 0, False, "symbol", (), match.span(1), match.group(2)))
    return out


def written_form(path: str, symbol: str) -> str:
    """The citation as a document writes it."""
    return f"{path}::{symbol}"
