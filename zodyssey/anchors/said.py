"""What a pinned span said: kept in the lock, so a drift report shows before and after.

A pin is a hash; a drift report can say what a line reads now, but not what it
read when it was pinned, which is what one needs to correct the sentence. Our
lock therefore keeps, per line citation, the pinned lines as the fingerprint
reads them (each line's whitespace collapsed and trimmed, joined with `\\n`),
under the optional top-level key `said`. That text hashes to the pin itself,
so an entry is kept only while it does: a pin changed by any tool without
touching `said` loses its text, never shows a wrong one. The JavaScript
checker ignores the key (and its own `--update` drops it, as it drops `spans`).

Only spans of at most `MAX_LINES` lines and `MAX_CHARS` characters are kept, to
bound the lock; symbol citations are not (their drift shows git's diff). Where
the lock has no text (a JavaScript checker's lock, a long span), the checker
asks git for the version the lock was pinned against (gitbase.py).
"""

from __future__ import annotations

from pathlib import Path

from zodyssey.anchors.fingerprint import TargetFile, hash_text, normalise
from zodyssey.anchors.lock import LockFile
from zodyssey.anchors.remote import at_commit

MAX_LINES = 40
MAX_CHARS = 4000


def _span(key: str) -> tuple[str, int, int] | None:
    """(path, a, b) of a line key of the work tree; None for symbols and permalinks."""
    if "::" in key:
        return None
    path, _, numbers = key.rpartition(":")
    first, _, last = numbers.partition("-")
    if not path or not first.isdigit() or (last and not last.isdigit()):
        return None
    if at_commit(path) is not None:
        return None  # a permalink's text is in git, at its commit
    return path, int(first), int(last or first)


def text_of(lines: list[str], a: int, b: int) -> str | None:
    """The kept text of lines a..b, or None when the span is out of range or too long."""
    if a < 1 or b < a or b > len(lines) or b - a + 1 > MAX_LINES:
        return None
    text = "\n".join(normalise(line) for line in lines[a - 1 : b])
    return text if len(text) <= MAX_CHARS else None


def matches(text: str, pin: str) -> bool:
    return hash_text(text) == pin


def refresh(root: Path, lock: LockFile) -> None:
    """Make `lock.said` hold, for each line pin, text that hashes to it (or nothing).

    Kept text that still hashes to its pin stays (the span may have moved or
    drifted since); otherwise the work tree's span is taken when it hashes to
    the pin. Each cited file is read once.
    """
    if lock.legacy:
        lock.said = {}
        return
    said: dict[str, str] = {}
    files: dict[str, list[str] | None] = {}
    for key, pin in lock.citations.items():
        kept = lock.said.get(key)
        if kept is not None and matches(kept, pin):
            said[key] = kept
            continue
        span = _span(key)
        if span is None:
            continue
        path, a, b = span
        if path not in files:
            files[path] = TargetFile.read(root, path).lines
        lines = files[path]
        text = text_of(lines, a, b) if lines is not None else None
        if text is not None and matches(text, pin):
            said[key] = text
    lock.said = said


def was(lock: LockFile, key: str, offset: int) -> str | None:
    """Line `offset` (0-based) of the span as pinned, when the lock keeps it."""
    text = lock.said.get(key)
    pin = lock.citations.get(key)
    if text is None or pin is None or not matches(text, pin):
        return None
    lines = text.split("\n")
    return lines[offset] if 0 <= offset < len(lines) else None
