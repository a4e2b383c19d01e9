"""Line citations that name exactly one definition: `--suggest-symbols`, `--fix --to-symbols`.

A `path:a-b` citation covers one definition when its lines are that
definition's span, or hold it and nothing else but blank lines around it, or
(one line) are the definition's first line or the line with its name (the
`def`/`func`/`fn` line under a decorator). The symbol form must name that
definition alone in its file (an overloaded name is no suggestion).

`--fix --to-symbols` rewrites such citations written as a plain path form
(`src/a.py:10-20`, `` `src/a.py`:10 ``, `src/a.py:L10`) in place, atomically,
and pins the new keys; it leaves alone a citation with a problem (its content
is not verified), one in a chain (`a.py:3,9`) or a bare continuation, links,
blob URLs and any it did not read verbatim, and says why.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from zodyssey.anchors.model import Citation
from zodyssey.anchors.symbols import language_of
from zodyssey.anchors.symbols.languages import Definition
from zodyssey.anchors.symbols.resolve import FileDefinitions, SymbolFiles
from zodyssey.core.files import read_regular

if TYPE_CHECKING:
    from zodyssey.anchors.discover import Discovery
    from zodyssey.anchors.lock import LockFile
    from zodyssey.config import Config


@dataclass(frozen=True)
class Suggestion:
    citation: Citation
    symbol: str  # as a citation writes it (`Class.method`, `Type::method`)
    why_not: str | None  # None: --fix --to-symbols rewrites it; else why it does not

    @property
    def written(self) -> str:
        return f"{self.citation.cited}::{self.symbol}"

    def line(self) -> str:
        site = self.citation.site
        text = f"{site.doc}:{site.line}: `{self.citation.cited_as}` -> `{self.written}`"
        return text + (f"  (not rewritten: {self.why_not})" if self.why_not else "")

    def payload(self) -> dict[str, object]:
        site = self.citation.site
        return {
            "doc": site.doc,
            "line": site.line,
            "cited_as": self.citation.cited_as,
            "symbol_form": self.written,
            "rewritable": self.why_not is None,
            "why_not": self.why_not,
        }


def covered(found: FileDefinitions, lines: list[str], a: int, b: int) -> Definition | None:
    """The one definition lines a..b cover, or None (none, several, or more than one)."""
    exact = [d for d in found.items if (d.start, d.end) == (a, b)]
    if exact:
        return _only(exact)
    if a == b:
        return _only([d for d in found.items if a in (d.start, d.name_line)])
    one = _outermost_within(found.items, a, b)
    if one is None:
        return None
    rest = lines[a - 1 : one.start - 1] + lines[one.end : b]
    return one if all(not line.strip() for line in rest) else None


def _only(definitions: list[Definition]) -> Definition | None:
    """The definition when there is exactly one; None for none or several."""
    return definitions[0] if len(definitions) == 1 else None


def _outermost_within(items: list[Definition], a: int, b: int) -> Definition | None:
    """The one definition within lines a..b that no other one there encloses; None
    when there is none, or several."""
    inside = [d for d in items if a <= d.start and d.end <= b]
    return _only(
        [
            d
            for d in inside
            if not any(o is not d and o.start <= d.start and d.end <= o.end for o in inside)
        ]
    )


def suggestions(
    root: Path, citations: list[Citation], problem_keys: set[str] | None = None
) -> list[Suggestion]:
    """Every line citation that covers exactly one definition, in document order."""
    files = SymbolFiles(root)
    chained = _chained(citations)
    out: list[Suggestion] = []
    for citation in citations:
        if citation.symbol is not None or citation.resolved is None:
            continue
        if language_of(citation.resolved) is None or citation.end < citation.start:
            continue
        found = files.get(citation.resolved)
        if found is None or found.error:
            continue
        definition = covered(found, found.lines, citation.start, citation.end)
        if definition is None:
            continue
        symbol = definition.written(found.separator)
        if len(found.lookup(symbol)) != 1:
            continue
        out.append(Suggestion(citation, symbol, _why_not(citation, chained, problem_keys)))
    return out


def _chained(citations: list[Citation]) -> set[tuple[str, int, tuple[int, int]]]:
    """(doc, line, path columns) of every path token that carries more than one citation."""
    seen: dict[tuple[str, int, tuple[int, int]], int] = {}
    for c in citations:
        if c.path_span[0] >= 0:
            place = (c.site.doc, c.site.line, c.path_span)
            seen[place] = seen.get(place, 0) + 1
    return {place for place, count in seen.items() if count > 1}


def _why_not(
    citation: Citation,
    chained: set[tuple[str, int, tuple[int, int]]],
    problem_keys: set[str] | None,
) -> str | None:
    if citation.dialect != "path":
        return f"a {citation.dialect} citation; write the symbol form by hand"
    if not citation.number_spans or citation.path_span[0] < 0:
        return "not read verbatim (entities or zero-width characters on its line)"
    if (citation.site.doc, citation.site.line, citation.path_span) in chained:
        return "part of a chain; split it first"
    if problem_keys is not None and citation.key in problem_keys:
        return "it has a problem now; fix that first"
    return None


def render(found: list[Suggestion], fmt: str) -> str:
    if fmt == "json":
        payload = {
            "tool": "anchors",
            "schema": 1,
            "mode": "suggest-symbols",
            "suggestions": [s.payload() for s in found],
        }
        return json.dumps(payload, indent=2) + "\n"
    rows = [s.line() for s in found]
    rewritable = sum(1 for s in found if s.why_not is None)
    rows.append(
        f"check-anchors --suggest-symbols: {len(found)} line citation(s) name exactly one "
        f"definition; `check-anchors --fix --to-symbols` rewrites {rewritable} of them"
    )
    return "\n".join(rows) + "\n"


def rewrite_documents(
    root: Path, found: list[Suggestion], *, dry_run: bool
) -> tuple[list[Suggestion], dict[str, tuple[list[str], list[str]]]]:
    """Rewrite the rewritable suggestions in their documents (atomically, one write each).

    Returns the suggestions applied and, per rewritten document, its lines
    before and after (the line count never changes).
    """
    from zodyssey.core.atomic import write_atomic

    by_doc: dict[str, list[Suggestion]] = {}
    for s in found:
        if s.why_not is None:
            by_doc.setdefault(s.citation.site.doc, []).append(s)
    applied: list[Suggestion] = []
    changed: dict[str, tuple[list[str], list[str]]] = {}
    for doc, items in sorted(by_doc.items()):
        data = read_regular(root / doc, "document").decode("utf-8", errors="surrogateescape")
        old = data.split("\n")
        new = list(old)
        # Right to left within a line, so earlier columns stay valid.
        for s in sorted(items, key=lambda s: (s.citation.site.line, -s.citation.path_span[1])):
            c = s.citation
            text = new[c.site.line - 1]
            begin, stop = c.path_span[1], c.number_spans[-1][1]
            if text[c.path_span[0] : begin] != c.cited or text[
                stop - len(str(c.end)) : stop
            ] != str(c.end):
                continue  # the line is not what discovery read
            closing = "`" if text[begin : begin + 1] == "`" else ""
            new[c.site.line - 1] = text[:begin] + "::" + s.symbol + closing + text[stop:]
            applied.append(s)
        if new != old:
            changed[doc] = (old, new)
            if not dry_run:
                write_atomic(root / doc, "\n".join(new).encode("utf-8", errors="surrogateescape"))
    return applied, changed


def diff_of(changed: dict[str, tuple[list[str], list[str]]]) -> str:
    import difflib

    out: list[str] = []
    for doc, (old, new) in sorted(changed.items()):
        out.extend(
            difflib.unified_diff(old, new, fromfile=f"a/{doc}", tofile=f"b/{doc}", lineterm="", n=0)
        )
    return "\n".join(out) + ("\n" if out else "")


def pin_rewritten(
    root: Path, config: Config, lock: LockFile, lock_path: Path, applied: list[Suggestion]
) -> Discovery:
    """Pin the new symbol keys as their definitions read now; drop line keys nothing cites.

    Only citations without a problem are rewritten, so the lines they cited
    still held their pinned content; the symbol's pin covers its whole definition.
    """
    from zodyssey.anchors.check import Checker
    from zodyssey.anchors.discover import discover

    fresh = discover(root, config, lock=lock)
    pinned = Checker(root, config, fresh, lock, lock_path=lock_path, pinning=True).run()
    cited = {c.key for c in fresh.citations if c.key is not None}
    for s in applied:
        key = f"{s.citation.resolved}::{s.symbol}"
        if key in pinned.pins and key not in lock.citations:
            lock.citations[key] = pinned.pins[key]
            if key in pinned.spans:
                lock.spans[key] = pinned.spans[key]
        old = s.citation.key
        if old is not None and old not in cited:
            lock.citations.pop(old, None)
            lock.spans.pop(old, None)
            lock.evidence.pop(old, None)
    return fresh
