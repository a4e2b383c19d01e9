"""A file's definitions, and symbol citations given the span their symbol has now.

Discovery finds a symbol citation with no lines (`start == end == 0`); `locate`
fills in the current span of its symbol, reading and parsing each cited file
once. A citation whose symbol is not (or not uniquely) defined keeps `0`: the
checker then reports it (check.py), with git's evidence of what became of it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

from zodyssey.anchors.fingerprint import read_source
from zodyssey.anchors.model import Citation
from zodyssey.anchors.symbols.extensions import language_of
from zodyssey.anchors.symbols.languages import SEPARATOR, Definition, GrammarMissing, definitions
from zodyssey.core.files import NotRegularFile

_SEPARATOR = re.compile(r"::|\.")


def segments_of(symbol: str) -> tuple[str, ...]:
    """`Class.method`, `Type::method` -> ('Class', 'method'): both separators mean the same."""
    return tuple(s for s in _SEPARATOR.split(symbol) if s)


@dataclass
class FileDefinitions:
    """Definitions of one file, by qualified name."""

    path: str
    language: str
    items: list[Definition]
    lines: list[str]  # the source split on `\n`, as the checker reads it
    error: str | None = None

    def __post_init__(self) -> None:
        self._by_name: dict[tuple[str, ...], list[Definition]] = {}
        for item in self.items:
            self._by_name.setdefault(item.segments, []).append(item)

    def lookup(self, symbol: str) -> list[Definition]:
        """Every definition named `symbol` (several: overloads, or a redefinition)."""
        return self._by_name.get(segments_of(symbol), [])

    @property
    def separator(self) -> str:
        """How this language's citations join scopes (`::` in Rust and C++, else `.`)."""
        return SEPARATOR.get(self.language, ".")

    def names(self) -> list[str]:
        return [self.separator.join(k) for k in self._by_name]


def parse_source(path: str, source: bytes) -> FileDefinitions | None:
    """The definitions of `source`, read as the language of `path` (None: unsupported)."""
    language = language_of(path)
    if language is None:
        return None
    lines = source.decode("utf-8", errors="replace").split("\n")
    try:
        items = definitions(source, language)
    except GrammarMissing as exc:
        return FileDefinitions(path, language, [], lines, str(exc))
    return FileDefinitions(path, language, items, lines)


def read_definitions(root: Path, path: str) -> FileDefinitions | None:
    """The definitions of `root/path` (None: unreadable or unsupported)."""
    try:
        source = read_source(root, path)
    except (OSError, NotRegularFile):
        return None
    return parse_source(path, source)


class SymbolFiles:
    """Parsed files of one run, each read and parsed once."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._files: dict[str, FileDefinitions | None] = {}

    def get(self, path: str) -> FileDefinitions | None:
        if path not in self._files:
            self._files[path] = read_definitions(self.root, path)
        return self._files[path]


def locate(root: Path, citations: list[Citation], files: SymbolFiles | None = None) -> None:
    """Give each symbol citation (in place) the current span of its symbol, when unique."""
    files = files or SymbolFiles(root)
    for i, citation in enumerate(citations):
        if citation.symbol is None or citation.resolved is None:
            continue
        found = files.get(citation.resolved)
        if found is None:
            continue
        matches = found.lookup(citation.symbol)
        if len(matches) == 1:
            citations[i] = replace(citation, start=matches[0].start, end=matches[0].end)
