"""A symbol citation checked against the lock (the checker calls `check_symbol_group`).

The key `path::Symbol` holds no line numbers, so a definition that moved is
simply found where it is now: its content hashes to the pin, no finding. What
is left:

- the content changed: `drift`, with a diff against the newest commit whose
  version of the symbol matches the pin (git's evidence);
- the symbol is no longer defined: `gone` naming the commit that removed it,
  or `unresolved` naming the commit that renamed it and the new name (its body
  is defined under that name now); `unresolved` too for a symbol no searched
  version defined (a typo), listing what the file defines;
- several definitions share the name (overloads): `ambiguous`;
- the file is gone: `gone` (git names the deleting commit) or `unresolved`
  (renamed: cite the new path).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from zodyssey.anchors.model import Citation, Site
from zodyssey.anchors.problem import Problem, printable
from zodyssey.anchors.symbols import evidence
from zodyssey.anchors.symbols.resolve import FileDefinitions, read_definitions

if TYPE_CHECKING:
    from typing import Protocol

    from zodyssey.anchors.discover import Discovery
    from zodyssey.anchors.fingerprint import TargetFile
    from zodyssey.anchors.lock import LockFile

    class Checker(Protocol):
        """What these checks use of `anchors.check.Checker` (named structurally, so
        this module does not import the checker that calls it)."""

        root: Path
        discovery: Discovery
        lock: LockFile

        def target(self, path: str) -> TargetFile: ...

        def renames(self) -> dict[str, str]: ...

        def _old_path(self, first: Citation) -> str | None: ...


def check_symbol_group(
    checker: Checker,
    key: str,
    members: list[Citation],
    sites: list[Site],
    pins: dict[str, str],
    spans: dict[str, list[str]],
) -> Problem | None:

    first = members[0]
    symbol = first.symbol
    assert symbol is not None
    if first.resolved is None:
        return _file_vanished(checker, key, first, members, sites)
    path = first.resolved

    def problem(kind: str, detail: str, **extra: object) -> Problem:
        return Problem(kind, key, first.cited_as, sites, detail, members, target=path, **extra)  # type: ignore[arg-type]

    target = checker.target(path)
    if target.lines is None:
        return problem("unreadable", f"cannot read {path}: {target.error}")
    if first.start < 1:
        return _undefined(checker, problem, path, symbol)
    a, b = first.start, first.end
    current = target.span_hash(a, b)
    pins[key] = current
    if b > a:
        spans[key] = target.line_hashes(a, b)
    pinned = checker.lock.citations.get(key)
    if pinned is None:
        return problem(
            "unlocked", "not in the lock: an unlocked citation is an unchecked one", lines=(a, b)
        )
    if pinned == current:
        return None
    now = target.lines[a - 1 : b]
    detail = f"the body of `{symbol}` (now lines {a}-{b}) changed since it was pinned"
    found = evidence.pinned_version(checker.root, path, symbol, pinned)
    if found is None:
        detail += (
            f"; no commit of the last {evidence.MAX_VERSIONS} that changed {path} holds the "
            "pinned content, so there is no diff to show"
        )
    else:
        version, old = found
        where = version.commit[:12]
        detail += (
            f"; diff against {where} ({printable(version.subject)[:60]}), which holds the pin:\n"
        )
        detail += evidence.diff(old, now, f"{path}::{symbol} @ {where}", f"{path}::{symbol} now")
    return problem(
        "drift",
        detail,
        lines=(a, b),
        now_reads=printable(now[0].strip()[:160]) if now else None,
    )


def _undefined(checker: Checker, make: Callable[..., Problem], path: str, symbol: str) -> Problem:
    """The file defines no single `symbol`: ambiguous, renamed, deleted, or never defined."""

    now = read_definitions(checker.root, path)
    if now is not None and now.error:
        return make("unreadable", f"cannot read the definitions of {path}: {now.error}")
    matches = now.lookup(symbol) if now is not None else []
    if len(matches) > 1:
        lines = ", ".join(f"{m.start}-{m.end}" for m in matches[:8])
        return make(
            "ambiguous",
            f"{path} defines `{symbol}` {len(matches)} times (lines {lines}); a symbol "
            "citation names one definition: cite the lines instead",
        )
    fate = evidence.fate(checker.root, path, symbol, now)
    if fate is None:
        return make("unresolved", _never_defined(path, symbol, now))
    by = _what_became_of(fate)
    if fate.renamed_to:
        return make(
            "unresolved",
            f"`{symbol}` is no longer defined in {path}: {by}; cite `{path}::{fate.renamed_to}`",
        )
    return make(
        "gone",
        f"`{symbol}` is no longer defined in {path}: {by}; the citation points at nothing: "
        "cite where that code lives now, or remove the citation",
    )


def _never_defined(path: str, symbol: str, now: FileDefinitions | None) -> str:
    """Why a symbol no version of its file defines resolves to nothing, with what the
    file defines instead."""
    names = now.names() if now is not None else []
    shown = ", ".join(names[:12]) + (f" and {len(names) - 12} more" if len(names) > 12 else "")
    return (
        f"{path} defines no `{symbol}`, and no commit of its last {evidence.MAX_VERSIONS} "
        f"did; it defines: {shown or 'nothing citable'}"
    )


def _what_became_of(fate: evidence.Fate) -> str:
    """How a symbol left its file: renamed or removed, by which commit (or not committed yet)."""
    if fate.removed_by is None:
        how = (
            f"renamed to `{fate.renamed_to}` in the working tree"
            if fate.renamed_to
            else "removed in the working tree"
        )
        return f"{how} (not committed; {fate.last_seen.commit[:12]} still defines it)"
    commit = fate.removed_by.commit[:12]
    subject = printable(fate.removed_by.subject)[:80]
    how = f"renamed to `{fate.renamed_to}`" if fate.renamed_to else "removed"
    return f"{how} by {commit} ({subject})"


def _file_vanished(
    checker: Checker, key: str, first: Citation, members: list[Citation], sites: list[Site]
) -> Problem:
    """The cited file resolves to nothing now: ambiguous, renamed, deleted or unknown."""
    from zodyssey.anchors.renames import follow

    old = checker._old_path(first)
    files = checker.discovery.index.file_set
    if old is not None and old in files:
        old = None
    old_key = f"{old}::{first.symbol}" if old else key

    def problem(kind: str, detail: str) -> Problem:
        return Problem(kind, old_key, first.cited_as, sites, detail, members, target=old)

    unjudged = checker.discovery.no_single_file(checker.root, first, old)
    if unjudged is not None:  # ambiguous, or a FIFO, socket or device
        kind, detail, target = unjudged
        return Problem(kind, old_key, first.cited_as, sites, detail, members, target=target)
    left_out = checker.discovery.left_out_file(checker.root, first.cited, first.site.doc)
    if left_out is not None:
        return problem("unresolved", left_out)
    if old is None:
        return problem("unresolved", f"no file in the tree matches `{first.cited}`")
    new = follow(checker.renames(), old, files)
    if new is not None:
        return problem(
            "unresolved",
            f"`{first.cited}` named {old}, which git renamed: it is now `{new}`; "
            f"cite `{new}::{first.symbol}`",
        )
    past = checker.discovery.past
    deleted = past.deleted_by(old) if past is not None else None
    if deleted is not None:
        commit, subject = deleted
        return problem(
            "gone",
            f"{old} was deleted by {commit[:12]} ({printable(subject)[:80]}); the citation "
            "points at nothing: cite where that code lives now, or remove the citation",
        )
    return problem("unresolved", f"no file in the tree matches `{first.cited}` ({old} is pinned)")
