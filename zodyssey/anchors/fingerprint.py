"""Content pins: the whitespace-normalised SHA-256 of a span of lines.

Byte-for-byte the JavaScript checker's rule, so its locks verify unchanged:
split the file on `\\n`, take lines a..b, collapse every whitespace run to one
space and trim each line, join with `\\n`, hash, keep the first 12 hex chars.
JavaScript's `\\s` and `trim()` use their own whitespace set (ASCII-only
digits and word chars, but Unicode spaces and the BOM), which differs from
Python's `str.isspace`; the set is spelled out here so both agree.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

# The characters JavaScript's `\s` and String.prototype.trim() treat as whitespace.
JS_WHITESPACE = (
    "\t\n\x0b\x0c\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_WS_RUN = re.compile("[" + re.escape(JS_WHITESPACE) + "]+")

# A span whose every line matches this carries no content: blank, or a bare
# comment marker or rule line. Pinning it would certify nothing forever.
_CONTENTLESS = re.compile(
    "^[" + re.escape(JS_WHITESPACE) + "]*(?://+|#+|\\*+|/\\*|\\*/|<!--|-->|-{3,}|={3,})?"
    "[" + re.escape(JS_WHITESPACE) + "]*$"
)

HASH_LENGTH = 12


_PY_ONLY_SPACES = re.compile("[\x1c-\x1f]")


def normalise(line: str) -> str:
    """Collapse whitespace runs to one space and trim, as the JS checker does."""
    # Fast path: on ASCII text str.split() agrees with JavaScript's `\s`, except
    # for the four separator controls Python also counts as space.
    if line.isascii() and _PY_ONLY_SPACES.search(line) is None:
        return " ".join(line.split())
    return _WS_RUN.sub(" ", line).strip(JS_WHITESPACE)


def hash_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:HASH_LENGTH]


def fingerprint(lines: list[str], start: int, end: int) -> str:
    """Pin of lines start..end (1-based, inclusive) of a file split on `\\n`.

    The caller checks the range first; slicing a reversed or out-of-range span
    here would silently hash an empty or short text.
    """
    return hash_text("\n".join(normalise(line) for line in lines[start - 1 : end]))


def is_contentless(lines: list[str]) -> bool:
    return all(_CONTENTLESS.match(line) for line in lines)


def split_lines(text: str) -> list[str]:
    """The JS checker's line model: a trailing newline yields one empty last piece."""
    return text.split("\n")


class TargetFile:
    """One cited file, read once; normalised lines and span hashes are cached."""

    __slots__ = ("_norm", "_windows", "error", "lines", "path")

    def __init__(self, path: str, lines: list[str] | None, error: str | None = None) -> None:
        self.path = path
        self.lines = lines
        self.error = error
        self._norm: list[str | None] | None = None
        self._windows: dict[int, dict[str, list[int]]] | None = None

    @classmethod
    def read(cls, root: Path | str, path: str) -> TargetFile:
        try:
            # Unbuffered: one fstat and one read, measurably faster for many small files.
            with open(os.path.join(root, path), "rb", buffering=0) as handle:
                data = handle.read()
        except OSError as exc:
            return cls(path, None, exc.strerror or type(exc).__name__)
        # Node decodes invalid UTF-8 to U+FFFD; keep that so hashes agree.
        return cls(path, split_lines(data.decode("utf-8", errors="replace")))

    def normalised(self, index: int) -> str:
        """Normalised text of line `index` (0-based)."""
        assert self.lines is not None
        if self._norm is None:
            self._norm = [None] * len(self.lines)
        value = self._norm[index]
        if value is None:
            value = normalise(self.lines[index])
            self._norm[index] = value
        return value

    def span_hash(self, start: int, end: int) -> str:
        if start == end:
            return hash_text(self.normalised(start - 1))
        return hash_text("\n".join(self.normalised(i) for i in range(start - 1, end)))

    def line_hashes(self, start: int, end: int) -> list[str]:
        return [hash_text(self.normalised(i)) for i in range(start - 1, end)]

    def find_span(self, pinned: str, length: int) -> list[int]:
        """Every 1-based start where a `length`-line window hashes to `pinned`.

        The windows of one length are hashed once per file and indexed, so many
        drifted citations into the same file cost one pass, not one pass each.
        """
        assert self.lines is not None
        count = len(self.lines)
        if length < 1 or length > count:
            return []
        if self._windows is None:
            self._windows = {}
        table = self._windows.get(length)
        if table is None:
            table = {}
            norm = [self.normalised(i) for i in range(count)]
            for begin in range(count - length + 1):
                digest = hash_text("\n".join(norm[begin : begin + length]))
                table.setdefault(digest, []).append(begin + 1)
            self._windows[length] = table
        return list(table.get(pinned, ()))
