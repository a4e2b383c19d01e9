"""The adoption baseline: citations that cannot be pinned, accepted once and reviewed.

An existing repository usually has citations the lock cannot pin: ambiguous
bare names (`mod.rs:391`), blank or brace-only lines, lines past the end,
files deleted long ago. `check-anchors --update --baseline` pins everything
that can be pinned and writes the rest here, one entry per citing site, so
the check passes from then on and fails only on what is new:

    {
      "_comment": "...",
      "format": "zodyssey-anchors-baseline/1",
      "entries": [
        {"doc": "docs/design.md", "line": 12, "cited_as": "mod.rs:391",
         "kind": "ambiguous", "reason": "matches 2 files: ...",
         "suggest": "src/net/mod.rs"}
      ]
    }

An entry matches a problem of the same document, the same spelling
(`cited_as`, what `exempt` takes) and the same kind; the line is there for
the reader, so editing a document above a citation never breaks the match.
`gone` and `unresolved` count as one kind: a shallow clone cannot tell a
deleted file from one that never was. `suggest` (ambiguous only) is the file
git history or the document's other citations point to, when they decide
(ambiguous.py).

The check then reports: how many baselined problems remain; entries whose
citation is fine now or no longer written ("fixed": a warning, dropped by the
next `--update --baseline`); and entries whose citation now has another
problem ("changed": the problem fails, as any new one).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zodyssey.anchors.problem import Problem, printable
from zodyssey.core.files import NotRegularFile, open_regular, require_regular_target
from zodyssey.errors import UsageError

if TYPE_CHECKING:
    from typing import Protocol

    class CheckResult(Protocol):
        """What the baseline reads and rewrites of a check's result
        (`zodyssey.anchors.check.CheckResult`, named here without importing it:
        check.py imports this module)."""

        problems: list[Problem]


FORMAT = "zodyssey-anchors-baseline/1"
COMMENT = (
    "Citations check-anchors could not pin when this baseline was written "
    "(`check-anchors --update --baseline`), one entry per citing site. Review it like "
    "code: each entry is a citation that points at nothing checkable. The check passes "
    "over these and fails on any other problem; fix an entry's citation and the next "
    "`check-anchors --update --baseline` drops it."
)
# Problems a baseline never holds: --update pins these, and --fix rewrites a moved one.
NOT_BASELINED = ("drift", "unlocked", "moved", "stale")
# Kinds that name the same state seen with more or less history (a shallow clone
# knows no deleting commit, so a `gone` citation reads as `unresolved` there).
_SAME_KIND = {"gone": "unresolved"}
REASON_MAX = 300
_GONE_KINDS = ("gone", "unresolved")


def path_for(lock_path: Path) -> Path:
    """The baseline beside the lock: `anchors.lock.json` -> `anchors.baseline.json`."""
    name = lock_path.name
    if name.endswith(".lock.json"):
        return lock_path.with_name(name[: -len(".lock.json")] + ".baseline.json")
    return lock_path.with_name(name + ".baseline.json")


@dataclass(frozen=True)
class Entry:
    doc: str
    line: int
    cited_as: str
    kind: str
    reason: str = ""
    suggest: str | None = None
    target: str | None = None  # gone, unresolved: the file it named (known_paths)

    @property
    def match(self) -> tuple[str, str, str]:
        return (self.doc, self.cited_as, _SAME_KIND.get(self.kind, self.kind))

    def payload(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "doc": self.doc,
            "line": self.line,
            "cited_as": self.cited_as,
            "kind": self.kind,
            "reason": self.reason,
        }
        if self.suggest:
            out["suggest"] = self.suggest
        if self.target:
            out["target"] = self.target
        return out

    def where(self) -> str:
        return f"{self.doc}:{self.line} `{self.cited_as}`"


@dataclass
class BaselineState:
    """What the baseline did to one check's problems."""

    path: Path
    entries: list[Entry]
    baselined: list[Problem] = field(default_factory=list)  # problems it covers
    fixed: list[Entry] = field(default_factory=list)  # entries with no problem now
    # Entries still written in their document but not read as a citation here (a
    # shallow clone knows no deleted file's bare name): neither fixed nor failing.
    unread: list[Entry] = field(default_factory=list)
    changed: list[tuple[Entry, Problem]] = field(default_factory=list)  # another problem now

    def payload(self, root: Path | None = None) -> dict[str, Any]:
        return {
            "path": _shown(self.path, root),
            "entries": len(self.entries),
            "remaining": len(self.baselined),
            "unread": [e.payload() for e in self.unread],
            "fixed": [e.payload() for e in self.fixed],
            "changed": [
                {**e.payload(), "now": p.kind, "now_detail": printable(p.detail)}
                for e, p in self.changed
            ],
        }


def _shown(path: Path, root: Path | None) -> str:
    if root is not None:
        try:
            return path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            pass
    return str(path)


def _recover(path: Path) -> str:
    return (
        f"restore it from version control (git checkout -- {path}) or write it again "
        "with `check-anchors --update --baseline`"
    )


def read(path: Path) -> list[Entry] | None:
    """The baseline's entries; None when there is none; exit 2 when it is malformed."""
    try:
        fd = open_regular(path, "baseline")
    except FileNotFoundError:
        return None
    except NotRegularFile as exc:
        raise UsageError(f"{exc}; {_recover(path)}") from exc
    except OSError as exc:
        raise UsageError(f"cannot read baseline {path}: {exc.strerror}") from exc
    try:
        with os.fdopen(fd, "rb") as handle:
            data = json.loads(handle.read().decode("utf-8-sig"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise UsageError(f"baseline {path} is not valid JSON ({exc}); {_recover(path)}") from exc
    entries = data.get("entries") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise UsageError(f"baseline {path} has no `entries` list; {_recover(path)}")
    return [_entry(path, number, item) for number, item in enumerate(entries)]


def _entry(path: Path, number: int, item: object) -> Entry:
    fields = ("doc", "cited_as", "kind")
    if (
        not isinstance(item, dict)
        or not all(isinstance(item.get(f), str) for f in fields)
        or not isinstance(item.get("line", 0), int)
    ):
        raise UsageError(
            f"baseline {path}: entry {number} needs `doc`, `cited_as` and `kind` strings "
            f"and a `line` number; {_recover(path)}"
        )
    suggest = item.get("suggest")
    target = item.get("target")
    return Entry(
        target=target if isinstance(target, str) else None,
        doc=item["doc"],
        line=int(item.get("line", 0)),
        cited_as=item["cited_as"],
        kind=item["kind"],
        reason=str(item.get("reason", "")),
        suggest=suggest if isinstance(suggest, str) else None,
    )


def write(path: Path, entries: list[Entry]) -> None:
    """Write the baseline atomically (sorted, 2-space indented, trailing newline)."""
    from zodyssey.core.atomic import write_atomic

    document = {
        "_comment": COMMENT,
        "format": FORMAT,
        "entries": [
            e.payload() for e in sorted(entries, key=lambda e: (e.doc, e.line, e.cited_as, e.kind))
        ],
    }
    target = os.path.realpath(path)
    require_regular_target(target, "baseline")
    try:
        write_atomic(target, json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    except OSError as exc:
        raise UsageError(f"cannot write baseline {path}: {exc.strerror}") from exc


def units(problem: Problem) -> list[tuple[str, int, str]]:
    """(doc, line, spelling) of each site of a problem, once per site and spelling."""
    seen: dict[tuple[str, int, str], None] = {}
    for citation in problem.citations:
        seen.setdefault((citation.site.doc, citation.site.line, citation.cited_as), None)
    if not seen:
        for site in problem.sites:
            seen.setdefault((site.doc, site.line, problem.cited_as), None)
    return list(seen)


def entries_of(problems: list[Problem]) -> list[Entry]:
    """The baseline entries of the problems a baseline may hold."""
    out: list[Entry] = []
    for problem in problems:
        if problem.kind in NOT_BASELINED:
            continue
        reason = printable(problem.detail)[:REASON_MAX]
        target = problem.target if problem.kind in _GONE_KINDS else None
        for doc, line, cited_as in units(problem):
            out.append(Entry(doc, line, cited_as, problem.kind, reason, problem.suggestion, target))
    return out


def known_paths(lock_path: Path) -> set[str]:
    """The files the baseline's gone and unresolved entries named.

    Discovery knows them as it knows the lock's paths: in a shallow clone (no
    history of deleted files) `retry.go:31` still names the deleted
    `internal/executor/retry.go`, instead of prose, or of a guess at another
    file whose name ends with it (`task_server_retry.go`), which would read as
    a change of the entry's citation and fail.
    """
    entries = read(path_for(lock_path))
    return {e.target for e in entries or () if e.target and e.kind in _GONE_KINDS}


def apply(
    result: CheckResult,
    entries: list[Entry],
    path: Path,
    *,
    root: Path | None = None,
    read: set[tuple[str, str]] | None = None,
) -> BaselineState:
    """Take the problems the baseline covers out of `result.problems`.

    A problem is covered when every site of it has an entry of its document,
    spelling and kind. A problem with a new site stays (its entries are used,
    so they are not reported fixed); so does one whose entry has another kind.
    """
    state = BaselineState(path, entries)
    left = Counter(e.match for e in entries)
    by_spelling: dict[tuple[str, str], Entry] = {}
    for entry in entries:
        by_spelling.setdefault((entry.doc, entry.cited_as), entry)
    kept: list[Problem] = []
    for problem in result.problems:
        kind = _SAME_KIND.get(problem.kind, problem.kind)
        wanted = Counter((doc, cited_as, kind) for doc, _line, cited_as in units(problem))
        covered = problem.kind not in NOT_BASELINED and all(left[k] >= n for k, n in wanted.items())
        for k, n in wanted.items():
            left[k] -= min(n, left[k])
        if covered:
            state.baselined.append(problem)
            continue
        kept.append(problem)
        for doc, _line, cited_as in units(problem):
            held = by_spelling.get((doc, cited_as))
            if held is not None and held.match[2] != kind:
                state.changed.append((held, problem))
                left[held.match] -= min(1, left[held.match])
                problem.detail += (
                    f" (the baseline holds `{held.cited_as}` at {held.doc} as {held.kind}; "
                    "its citation changed, so it is checked again)"
                )
    texts: dict[str, str | None] = {}
    for entry in entries:
        if left[entry.match] > 0:
            left[entry.match] -= 1
            unread = read is not None and (entry.doc, entry.cited_as) not in read
            if unread and root is not None and _still_written(root, entry, texts):
                state.unread.append(entry)
            else:
                state.fixed.append(entry)
    result.problems = kept
    return state


def _still_written(root: Path, entry: Entry, texts: dict[str, str | None]) -> bool:
    """Does the entry's document still write its citation (as a whole token)?"""
    from zodyssey.anchors.discover import read_document_text

    if entry.doc not in texts:
        try:
            texts[entry.doc] = read_document_text(root, entry.doc, errors="replace")
        except (OSError, NotRegularFile, ValueError):
            texts[entry.doc] = None
    text = texts[entry.doc]
    if text is None:
        return False
    at = text.find(entry.cited_as)
    while at >= 0:
        after = at + len(entry.cited_as)
        if after >= len(text) or not text[after].isdigit():
            return True
        at = text.find(entry.cited_as, at + 1)
    return False


def summary(state: BaselineState, root: Path | None = None) -> str:
    """What the text summary says about the baseline (empty when nothing to say)."""
    parts: list[str] = []
    shown = _shown(state.path, root)
    if state.baselined:
        kinds = Counter(p.kind for p in state.baselined)
        listed = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
        parts.append(
            f"{len(state.baselined)} baselined problem(s) remain ({listed}), accepted in "
            f"{shown}; fix them over time"
        )
    if state.fixed:
        parts.append(
            f"warning: {len(state.fixed)} baseline entr{'y is' if len(state.fixed) == 1 else 'ies are'} "
            f"fixed now (no problem, or no longer written): "
            + ", ".join(e.where() for e in state.fixed[:5])
            + (f" and {len(state.fixed) - 5} more" if len(state.fixed) > 5 else "")
            + "; `check-anchors --update --baseline` drops them"
        )
    if state.unread:
        parts.append(
            f"{len(state.unread)} baseline entr{'y is' if len(state.unread) == 1 else 'ies are'} "
            "still written but not read as a citation here (a shallow clone cannot name a "
            "deleted file's bare name; `fetch-depth: 0` reads them): kept, not failing"
        )
    if state.changed:
        parts.append(
            f"{len(state.changed)} baseline entr{'y' if len(state.changed) == 1 else 'ies'} "
            "changed (another problem now): failing, as new problems do"
        )
    return "".join(f"\n({p})" for p in parts)
