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
import zlib
from bisect import bisect_left
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path

from zodyssey.core.files import NotRegularFile, read_regular

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
    # Every line matches (no generator per span: the check runs this once per key).
    return None not in map(_CONTENTLESS.match, lines)


def split_lines(text: str) -> list[str]:
    """The JS checker's line model: a trailing newline yields one empty last piece."""
    return text.split("\n")


def locator(line: str) -> int:
    """A cheap per-line key for finding content again: CRC-32 of the trimmed line.

    It only narrows the search (a whitespace change inside a line defeats it, which
    makes the search miss, never err); every hit is confirmed with the real pin.
    """
    return zlib.crc32(line.strip().encode("utf-8", "surrogatepass"))


def locators(lines: Sequence[str]) -> list[int]:
    return list(map(locator, lines))


# How far from the cited place the cheap local searches look before the whole file.
NEAR = (16, 512)
# How many blank or marker-only lines a neighbour may be away.
NEIGHBOUR_REACH = 20
# Enough places to know a span is not unique (and to show a few as hints).
MAX_PLACES = 50


@dataclass(frozen=True, slots=True)
class Evidence:
    """What a pin knew about its place when it was taken (see docs/citation-lock.md).

    `lines`: the locators of the pinned span's lines; `unique`: the span occurred
    exactly once in its file; `before`/`after`: locators of the neighbouring lines
    (None at the start or end of the file).
    """

    lines: tuple[int, ...]
    unique: bool
    before: int | None
    after: int | None

    def encode(self) -> str:
        def one(value: int | None) -> str:
            return "-" if value is None else f"{value:08x}"

        parts = ["u" if self.unique else "r", one(self.before), one(self.after)]
        parts += [f"{value:08x}" for value in self.lines]
        return " ".join(parts)

    @classmethod
    def decode(cls, text: str) -> Evidence | None:
        parts = text.split()
        if len(parts) < 4 or parts[0] not in ("u", "r"):
            return None
        try:
            values = [None if p == "-" else int(p, 16) for p in parts[1:]]
        except ValueError:
            return None
        lines = values[2:]
        if any(v is None for v in lines):
            return None
        return cls(tuple(v for v in lines if v is not None), parts[0] == "u", values[0], values[1])


def find_run(table: list[int], counts: Counter[int] | None, wanted: Sequence[int]) -> list[int]:
    """Every 0-based start where `table` holds the run `wanted` (linear in the table).

    The rarest value of the run (by `counts`, when given) is the anchor: its
    occurrences are found with C-level scans, then each is checked against the run.
    """
    length = len(wanted)
    if length == 0 or length > len(table):
        return []
    anchor = 0
    if counts is not None:
        anchor = min(range(length), key=lambda i: counts.get(wanted[i], 0))
    value = wanted[anchor]
    run = list(wanted)
    starts: list[int] = []
    position = -1
    while True:
        try:
            position = table.index(value, position + 1)
        except ValueError:
            return starts
        begin = position - anchor
        if begin >= 0 and begin + length <= len(table) and table[begin : begin + length] == run:
            starts.append(begin)


def neighbour_line(target: TargetFile, number: int, step: int) -> int | None:
    """The 1-based number of the first line with content from `number` on, going by `step`.

    None past the file's edge, or after NEIGHBOUR_REACH blank or marker-only lines.
    """
    assert target.lines is not None
    for _ in range(NEIGHBOUR_REACH):
        if number < 1 or number > len(target.lines):
            return None
        if not _CONTENTLESS.match(target.lines[number - 1]):
            return number
        number += step
    return None


# A Git LFS pointer stands in the work tree for content that is not there
# (`git lfs pull` not run): pinning its lines would pin the pointer, which
# changes with every new version of the content, or never.
# The current spec's first line, and the pre-release one's (`hawser`), either line ending.
LFS_POINTER = re.compile(rb"version https://(?:git-lfs|hawser)\.github\.com/spec/v1\r?\n")
LFS_REASON = (
    "it is a Git LFS pointer: the content is not in the work tree, so its lines cannot be "
    "checked (run `git lfs pull` first, or cite the file without line numbers)"
)


def why_unreadable(root: Path | str, path: str) -> str | None:
    """Why the file `root/path` cannot be read (a FIFO, socket or device, said exactly;
    permissions); None when it reads, or does not exist."""
    try:
        read_source(root, path)
    except FileNotFoundError:
        return None
    except NotRegularFile as exc:
        return str(exc)
    except OSError as exc:
        return exc.strerror or type(exc).__name__
    return None


def not_regular(root: Path | str, path: str) -> str:
    """What a finding says of a cited path the walk found to be a FIFO, socket or device."""
    why = why_unreadable(root, path) or "not a regular file (a FIFO, socket or device)"
    return f"cannot read {path}: {why}"


def read_source(root: Path | str, path: str) -> bytes:
    """The bytes of the cited file `root/path`; every reader of a cited file reads here.

    Through `zodyssey.core.files.read_regular`: a FIFO, socket or device is
    refused at once (NotRegularFile, naming what it is) instead of a read that
    waits forever for a writer; a missing or unreadable file is OSError.
    """
    return read_regular(os.path.join(root, path), "cited file")


class TargetFile:
    """One cited file, read once; normalised lines, span hashes and locators are cached."""

    __slots__ = (
        "_counts",
        "_locators",
        "_norm",
        "_starts",
        "error",
        "lines",
        "path",
        "text",
    )

    def __init__(
        self, path: str, lines: list[str] | None, error: str | None = None, text: str = ""
    ) -> None:
        self.path = path
        self.lines = lines
        self.error = error
        self.text = text
        self._norm: list[str | None] | None = None
        self._locators: list[int] | None = None
        self._counts: Counter[int] | None = None
        self._starts: list[int] = []

    @classmethod
    def read(cls, root: Path | str, path: str) -> TargetFile:
        try:
            data = read_source(root, path)
        except NotRegularFile as exc:
            return cls(path, None, str(exc))
        except OSError as exc:
            return cls(path, None, exc.strerror or type(exc).__name__)
        if len(data) < 1024 and LFS_POINTER.match(data):
            return cls(path, None, LFS_REASON)
        return cls.from_bytes(path, data)

    @classmethod
    def from_bytes(cls, path: str, data: bytes) -> TargetFile:
        # Node decodes invalid UTF-8 to U+FFFD; keep that so hashes agree.
        text = data.decode("utf-8", errors="replace")
        return cls(path, split_lines(text), None, text)

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

    def _neighbour(self, number: int, step: int) -> int | None:
        """Locator of the first line with content from `number` on, going by `step`.

        Blank lines and bare comment markers are skipped: every paragraph has them
        around it, so they would prove nothing about a place. None past the file's
        edge (or after a long blank stretch).
        """
        found = neighbour_line(self, number, step)
        return None if found is None else locator(self.lines[found - 1])  # type: ignore[index]

    def occurrences(self, start: int, end: int, limit: int = MAX_PLACES) -> list[int]:
        """Every start (1-based, at most `limit`) where lines start..end occur verbatim.

        Substring searches over the whole text (C speed), not a pass per line; line
        numbers are worked out only when the span is not unique.
        """
        assert self.lines is not None
        body = "\n".join(self.lines[start - 1 : end])
        positions = _run_offsets(self.text, body, limit)
        if len(positions) <= 1:
            return [start]  # the span itself is the one place
        if not self._starts:
            # Where each line starts (offsets), built only for spans that repeat.
            self._starts = list(accumulate(map((1).__add__, map(len, self.lines)), initial=0))
        return sorted({bisect_left(self._starts, p) + 1 for p in positions})

    def evidence(self, start: int, end: int) -> Evidence:
        """The evidence of lines start..end (1-based), recorded with their pin."""
        assert self.lines is not None
        return Evidence(
            tuple(locators(self.lines[start - 1 : end])),
            len(self.occurrences(start, end, 2)) == 1,
            self._neighbour(start - 1, -1),
            self._neighbour(end + 1, 1),
        )

    def table(self) -> tuple[list[int], Counter[int]]:
        """Locators of every line, and how often each occurs (built once per file)."""
        if self._locators is None or self._counts is None:
            assert self.lines is not None
            self._locators = locators(self.lines)
            self._counts = Counter(self._locators)
        return self._locators, self._counts

    def find_evidence(self, evidence: Evidence, pinned: str, around: int) -> list[int]:
        """Starts (1-based) where the pinned span is now, nearest to `around` first.

        Looks near `around` first (cheap: a one-line insertion costs a few hundred
        locators, not the whole file); each hit's exact text is then counted across
        the whole file with one substring search, so "unique" means the whole file.
        Only when nothing is near is the whole file indexed. Every place is
        confirmed with the pin itself.
        """
        length = len(evidence.lines)
        near = self._near_evidence(evidence, pinned, around)
        if not near:
            table, counts = self.table()
            starts = [s + 1 for s in find_run(table, counts, evidence.lines)][:MAX_PLACES]
            return self._pinned_at(starts, pinned, length)
        places = set(near)
        for s in near:
            places.update(self.occurrences(s, s + length - 1))
        return sorted(self._pinned_at(places, pinned, length), key=lambda s: (abs(s - around), s))

    def _near_evidence(self, evidence: Evidence, pinned: str, around: int) -> list[int]:
        """Starts of the pinned span in the smallest window around `around` (of the
        NEAR reaches) that holds it; none when even the widest does not."""
        assert self.lines is not None
        length = len(evidence.lines)
        for reach in NEAR:
            low = max(0, around - 1 - reach)
            high = min(len(self.lines), around - 1 + length + reach)
            window = locators(self.lines[low:high])
            starts = [low + s + 1 for s in find_run(window, None, evidence.lines)]
            near = self._pinned_at(starts, pinned, length)
            if near:
                return near
        return []

    def _pinned_at(self, starts: Iterable[int], pinned: str, length: int) -> list[int]:
        """The starts at which `length` lines hash to `pinned`."""
        return [s for s in starts if self.span_hash(s, s + length - 1) == pinned]

    def neighbours(self, evidence: Evidence, start: int) -> int:
        """How many of the span's two neighbours (0-2) at `start` are the pinned ones."""
        end = start + len(evidence.lines) - 1
        return int(self._neighbour(start - 1, -1) == evidence.before) + int(
            self._neighbour(end + 1, 1) == evidence.after
        )

    def find_nearby(self, pinned: str, length: int, around: int, reach: int = 64) -> list[int]:
        """Starts within `reach` lines of `around` whose span hashes to `pinned` (hints only)."""
        assert self.lines is not None
        count = len(self.lines)
        low = max(1, around - reach)
        high = min(count - length + 1, around + reach)
        return [s for s in range(low, high + 1) if self.span_hash(s, s + length - 1) == pinned]


def _run_offsets(text: str, body: str, limit: int) -> list[int]:
    """Offsets (at most `limit`) of `text` where a line run reading `body` begins."""
    needle = "\n" + body + "\n"
    positions: list[int] = []
    if text.startswith(body + "\n") or text == body:
        positions.append(0)
    found = text.find(needle)
    while found >= 0 and len(positions) < limit:
        positions.append(found + 1)
        found = text.find(needle, found + 1)
    if len(positions) < limit and text.endswith("\n" + body):
        tail = len(text) - len(body)
        if tail not in positions:
            positions.append(tail)
    return positions
