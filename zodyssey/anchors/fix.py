"""`--fix`: rewrite the numbers of moved citations in their documents, in place.

Only the characters of the written numbers change (and, for a file git
renamed, the written path); every other byte of the document stays as it
was, chains and continuations included. Each document is replaced
atomically. Drifted citations are never touched: their content changed, and
only a person can say whether the citation or the code is wrong.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from pathlib import Path

from zodyssey.anchors.model import Citation
from zodyssey.core.atomic import write_atomic
from zodyssey.core.files import read_regular
from zodyssey.errors import ZodysseyError

Edit = tuple[int, int, str]  # column begin, column end, replacement


def _number_edits(citation: Citation, start: int, end: int, line: str) -> list[Edit]:
    spans = citation.number_spans
    if not spans:
        return []
    values = [start] if len(spans) == 1 else [start, end]
    edits: list[Edit] = []
    for (begin, stop), value in zip(spans, values, strict=False):
        written = line[begin:stop]
        expected = citation.start if (begin, stop) == spans[0] else citation.end
        # Refuse to touch text that is no longer the number we read (doc edited meanwhile).
        if not written.isdigit() or int(written) != expected:
            return []
        edits.append((begin, stop, str(value)))
    return edits


def plan_edits(
    lines: list[str],
    moves: Sequence[tuple[Citation, int, int]],
    new_paths: Mapping[Citation, str],
) -> tuple[dict[int, list[Edit]], list[Citation]]:
    """Edits per 0-based line, and the citations that could not be rewritten."""
    edits: dict[int, dict[tuple[int, int], str]] = {}
    skipped: list[Citation] = []
    for citation, start, end in moves:
        index = citation.site.line - 1
        planned = (
            _citation_edits(citation, start, end, lines[index], new_paths.get(citation))
            if index < len(lines)
            else []
        )
        if not planned:
            skipped.append(citation)
            continue
        slot = edits.setdefault(index, {})
        for begin, stop, text in planned:
            slot[(begin, stop)] = text
    return {index: _without_overlaps(slot) for index, slot in edits.items()}, skipped


def _citation_edits(
    citation: Citation, start: int, end: int, line: str, new_path: str | None
) -> list[Edit]:
    """The edits that rewrite one citation on its line: its numbers and, for a file git
    renamed, its path; none when the line no longer holds what was read."""
    planned = _number_edits(citation, start, end, line)
    if new_path is None:
        return planned
    begin, stop = citation.path_span
    if begin < 0 or line[begin:stop] != citation.cited:
        return []
    return [*planned, (begin, stop, new_path)]


def _without_overlaps(slot: dict[tuple[int, int], str]) -> list[Edit]:
    """One line's edits right to left; overlapping edits would corrupt the line, so
    only the first of any overlap is kept."""
    kept: list[Edit] = []
    for edit in sorted(((b, e, t) for (b, e), t in slot.items()), reverse=True):
        if not kept or edit[1] <= kept[-1][0]:
            kept.append(edit)
    return kept


def apply_moves(
    root: Path,
    moves: list[tuple[Citation, int, int]],
    dry_run: bool,
    *,
    new_paths: Mapping[Citation, str] | None = None,
    changed: dict[str, tuple[list[str], list[str]]] | None = None,
    applied: list[Citation] | None = None,
) -> str:
    """Rewrite moved citations (citation, new start, new end); return the unified diff.

    With `dry_run` nothing is written. `new_paths` gives the text that replaces
    the written path of citations whose file git renamed. `changed`, when given,
    receives each rewritten document's lines before and after (as the checker
    splits them), so the caller can re-pin citations of those documents.
    `applied`, when given, receives the citations whose text was (or, with
    `dry_run`, would be) rewritten, so a summary counts what it did.
    """
    by_doc: dict[str, list[tuple[Citation, int, int]]] = {}
    for move in moves:
        by_doc.setdefault(move[0].site.doc, []).append(move)
    diff: list[str] = []
    for doc in sorted(by_doc):
        path = root / doc
        fixed = _fixed_text(path, doc, by_doc[doc], new_paths or {}, applied)
        if fixed is None:
            continue
        original, updated = fixed
        diff.extend(
            difflib.unified_diff(
                original.splitlines(keepends=True),
                updated.splitlines(keepends=True),
                fromfile=f"a/{doc}",
                tofile=f"b/{doc}",
            )
        )
        if changed is not None:
            changed[doc] = (_checker_lines(original), _checker_lines(updated))
        if not dry_run:
            write_atomic(path, updated.encode("utf-8", errors="surrogateescape"))
    return "".join(line if line.endswith("\n") else line + "\n" for line in diff)


def _fixed_text(
    path: Path,
    doc: str,
    moves: list[tuple[Citation, int, int]],
    new_paths: Mapping[Citation, str],
    applied: list[Citation] | None,
) -> tuple[str, str] | None:
    """One document's text before and after its moved citations are rewritten; None
    when nothing in it changes. The citations rewritten are added to `applied`."""
    try:
        original = read_regular(path, "document").decode("utf-8", errors="surrogateescape")
    except OSError as exc:
        raise ZodysseyError(f"cannot read {doc} to fix it: {exc.strerror}") from exc
    lines = original.split("\n")
    edits, skipped = plan_edits(lines, moves, new_paths)
    if not edits:
        return None
    if applied is not None:
        refused = set(skipped)
        applied.extend(c for c, _, _ in moves if c not in refused)
    for index, line_edits in edits.items():
        line = lines[index]
        for begin, stop, text in line_edits:  # right to left keeps columns valid
            line = line[:begin] + text + line[stop:]
        lines[index] = line
    updated = "\n".join(lines)
    return None if updated == original else (original, updated)


def _checker_lines(text: str) -> list[str]:
    """The checker's line model of a document (invalid UTF-8 as U+FFFD), for re-pinning."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace").split("\n")
