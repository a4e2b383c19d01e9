"""What git says became of a symbol: the version that holds its pin, the commit that removed it.

Asked only for symbol citations with a problem (drift, or a symbol no longer
defined), over the last `MAX_VERSIONS` commits that touched the file; each
version is parsed like the file itself. No git, a shallow clone or a file git
never saw: no evidence, and the problem says so.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from zodyssey import git
from zodyssey.anchors.fingerprint import TargetFile
from zodyssey.anchors.symbols.resolve import FileDefinitions, parse_source

# Commits of a file searched at most (newest first).
MAX_VERSIONS = 64
# Diff lines shown at most in a drift's detail.
MAX_DIFF_LINES = 40


@dataclass(frozen=True, slots=True)
class Version:
    commit: str
    subject: str


def versions(root: Path, path: str, limit: int = MAX_VERSIONS) -> list[Version]:
    """The commits that changed `path`, newest first (following no renames)."""
    out = git.output(root, "log", f"-n{limit}", "--format=%H%x1f%s", "--", path)
    if out is None:
        return []
    found = []
    for row in out.decode("utf-8", "replace").splitlines():
        commit, _, subject = row.partition("\x1f")
        if commit:
            found.append(Version(commit, subject))
    return found


def blob(root: Path, commit: str, path: str) -> bytes | None:
    return git.output(root, "show", f"{commit}:./{path}")


@dataclass
class Past:
    """One version of the file: its text and definitions."""

    version: Version
    target: TargetFile
    definitions: FileDefinitions | None


def history(root: Path, path: str) -> list[Past]:
    """The file's versions, newest first, read and parsed (lazily would save little)."""
    out: list[Past] = []
    for version in versions(root, path):
        data = blob(root, version.commit, path)
        if data is None:
            continue  # the file did not exist at that commit (deleted, then re-added)
        out.append(Past(version, TargetFile.from_bytes(path, data), parse_source(path, data)))
    return out


def pinned_version(
    root: Path, path: str, symbol: str, pinned: str
) -> tuple[Version, list[str]] | None:
    """The newest commit whose `symbol` hashes to the pin, with its lines then."""
    for past in history(root, path):
        if past.definitions is None or past.target.lines is None:
            continue
        matches = past.definitions.lookup(symbol)
        if len(matches) != 1:
            continue
        a, b = matches[0].start, matches[0].end
        if past.target.span_hash(a, b) == pinned:
            return past.version, past.target.lines[a - 1 : b]
    return None


def diff(old: list[str], new: list[str], old_name: str, new_name: str) -> str:
    """A short unified diff of the symbol's lines (at most MAX_DIFF_LINES lines)."""
    rows = list(
        difflib.unified_diff(old, new, fromfile=old_name, tofile=new_name, lineterm="", n=1)
    )
    if len(rows) > MAX_DIFF_LINES:
        rows = [*rows[:MAX_DIFF_LINES], f"... ({len(rows) - MAX_DIFF_LINES} more diff lines)"]
    return "\n".join(rows)


@dataclass(frozen=True, slots=True)
class Fate:
    """What became of a symbol no longer defined: who removed it, and its new name if renamed."""

    removed_by: Version | None  # None: removed in the working tree (HEAD still defines it)
    last_seen: Version
    renamed_to: str | None = None


def fate(root: Path, path: str, symbol: str, now: FileDefinitions | None) -> Fate | None:
    """The commit that removed `symbol` from `path` and, when its body is defined under
    another name now, that name. None when no searched version defined it."""
    newer: Version | None = None
    for past in history(root, path):
        if past.definitions is not None and past.target.lines is not None:
            matches = past.definitions.lookup(symbol)
            if len(matches) == 1:
                old = past.target.lines[matches[0].start - 1 : matches[0].end]
                renamed = _renamed(old, matches[0].segments, now)
                return Fate(newer, past.version, renamed)
        newer = past.version
    return None


def _normal(lines: list[str]) -> list[str]:
    return [" ".join(line.split()) for line in lines]


def _renamed(old: list[str], segments: tuple[str, ...], now: FileDefinitions | None) -> str | None:
    """The one definition of `now` whose text is `old` with only the name changed."""
    if now is None or not old:
        return None
    leaf = segments[-1]
    wanted = _normal(old)
    found = []
    for item in now.items:
        if item.segments == segments or item.end - item.start + 1 != len(old):
            continue
        text = now.lines[item.start - 1 : item.end]
        renamed = [line.replace(leaf, item.segments[-1]) for line in wanted]
        if _normal(text) == renamed:
            found.append(item)
    if len(found) != 1:
        return None
    return found[0].written(now.separator)
