"""Where did a cited span go? Compare its text then (at a commit) with now.

Pure functions over lists of lines, so the rules are tested without git.
Lines compare after the fingerprint's own normalisation (runs of whitespace
become one space, ends trimmed, with JavaScript's whitespace set): a re-indent is no change for the lock, so it
is none here either.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Literal

from zodyssey.anchors.fingerprint import Evidence, TargetFile, neighbour_line, normalise

SpanKind = Literal["ok", "moved", "drift"]


def map_old_to_new(old: list[str], new: list[str]) -> list[int | None]:
    """For each old line (0-based), its 0-based line in `new`, or None if changed.

    The mapping follows the diff's unchanged blocks, so lines keep their
    identity when text was inserted or removed elsewhere in the file.
    """
    old_norm = [normalise(line) for line in old]
    new_norm = [normalise(line) for line in new]
    mapping: list[int | None] = [None] * len(old)
    # Common head and tail first: most edits touch a small middle part, and
    # difflib is only asked about that.
    head, tail = _common_ends(old_norm, new_norm, mapping)
    old_mid = old_norm[head : len(old_norm) - tail]
    new_mid = new_norm[head : len(new_norm) - tail]
    if old_mid and new_mid:
        matcher = difflib.SequenceMatcher(None, old_mid, new_mid, autojunk=False)
        for tag, i1, i2, j1, _j2 in matcher.get_opcodes():
            if tag == "equal":
                for offset in range(i2 - i1):
                    mapping[head + i1 + offset] = head + j1 + offset
    return mapping


def _common_ends(old: list[str], new: list[str], mapping: list[int | None]) -> tuple[int, int]:
    """Map the lines `old` and `new` share at their head and tail; (head, tail) lengths."""
    head = 0
    limit = min(len(old), len(new))
    while head < limit and old[head] == new[head]:
        mapping[head] = head
        head += 1
    tail = 0
    while tail < limit - head and old[len(old) - 1 - tail] == new[len(new) - 1 - tail]:
        mapping[len(old) - 1 - tail] = len(new) - 1 - tail
        tail += 1
    return head, tail


def find_occurrences(span: list[str], lines: list[str]) -> list[int]:
    """1-based start lines where the normalised `span` occurs in `lines`."""
    if not span:
        return []
    norm = [normalise(line) for line in lines]
    first = span[0]
    size = len(span)
    return [
        index + 1
        for index in range(len(norm) - size + 1)
        if norm[index] == first and norm[index : index + size] == span
    ]


@dataclass(frozen=True, slots=True)
class SpanLocation:
    kind: SpanKind
    start: int  # where the span is now (moved) or the cited start (ok, drift)
    end: int
    # Drift only: where the diff places the span's surviving lines now (1-based).
    nearby: tuple[int, int] | None = None
    how: str = ""  # "diff" or "search": how a move was found
    # Drift only: places that hold the cited text now, none of them certain.
    possibly: tuple[int, ...] = ()


def locate_span(
    then_lines: list[str],
    start: int,
    end: int,
    now_lines: list[str],
    *,
    same_place: bool,
    mapping: list[int | None] | None = None,
    files: tuple[TargetFile, TargetFile] | None = None,
) -> SpanLocation:
    """Classify lines start..end of `then_lines` against `now_lines`.

    `same_place` says the citation still names the file `now_lines` came
    from, so the cited numbers themselves are checked first. `mapping` is
    `map_old_to_new(then_lines, now_lines)` when the caller has it already,
    `files` the two versions as `TargetFile`s (then, now), cached by the caller.

    A move is reported only when it is as certain as the lock makes it
    (docs/citation-lock.md, "moved only when certain"), on the same evidence:
    the version the citation was written against plays the pin's part. Either
    exactly one place holds the span now and its neighbours (the nearest lines
    with content above and below) are the old ones (both, or one when the span
    was unique then); or the diff carries the span and both its neighbours by
    the same offset (a uniform shift). Anything else is drift, with the places
    the text possibly is now in `possibly` (which --fix never writes).
    """
    span = [normalise(line) for line in then_lines[start - 1 : end]]
    if same_place and _reads_the_same(span, now_lines, start, end):
        return SpanLocation("ok", start, end)
    mapping, then_file, now_file = _versions(then_lines, now_lines, mapping, files)
    mapped = mapping[start - 1 : end]
    diff_start = _diff_start(mapped, end - start + 1)
    if same_place and diff_start == start:
        return SpanLocation("ok", start, end)
    evidence = then_file.evidence(start, end)
    places = now_file.find_evidence(evidence, then_file.span_hash(start, end), start)
    if same_place:  # the cited lines themselves are not where it went
        places = [s for s in places if s != start]
    moved = _certain_move(then_file, now_file, evidence, places, diff_start, start, end, mapping)
    if moved is not None:
        return moved
    return SpanLocation(
        "drift", start, end, nearby=_nearby(mapped, mapping, start, end), possibly=tuple(places)
    )


def _versions(
    then_lines: list[str],
    now_lines: list[str],
    mapping: list[int | None] | None,
    files: tuple[TargetFile, TargetFile] | None,
) -> tuple[list[int | None], TargetFile, TargetFile]:
    """The line mapping then -> now and both versions as files; built here when the
    caller has none."""
    if mapping is None:
        mapping = map_old_to_new(then_lines, now_lines)
    then_file, now_file = (
        files if files is not None else (_as_file(then_lines), _as_file(now_lines))
    )
    return mapping, then_file, now_file


def _reads_the_same(span: list[str], now_lines: list[str], start: int, end: int) -> bool:
    """Lines start..end of `now_lines` read (normalised) as the span."""
    return (
        end <= len(now_lines) and [normalise(line) for line in now_lines[start - 1 : end]] == span
    )


def _certain_move(
    then_file: TargetFile,
    now_file: TargetFile,
    evidence: Evidence,
    places: list[int],
    diff_start: int | None,
    start: int,
    end: int,
    mapping: list[int | None],
) -> SpanLocation | None:
    """The span's new place when the move is certain: the one place found, held by its
    neighbours; or the diff's place, shifted with both neighbours. None otherwise."""
    size = end - start + 1
    if len(places) == 1 and _held_by_neighbours(now_file, evidence, places[0]):
        how = "diff" if places[0] == diff_start else "search"
        return SpanLocation("moved", places[0], places[0] + size - 1, how=how)
    if (
        diff_start is not None
        and diff_start in places
        and _shifted_with_neighbours(then_file, start, end, now_file, diff_start, mapping)
    ):
        return SpanLocation("moved", diff_start, diff_start + size - 1, how="diff")
    return None


def _nearby(
    mapped: list[int | None], mapping: list[int | None], start: int, end: int
) -> tuple[int, int] | None:
    """Where a drifted span sits now (1-based): its surviving lines, or else its
    unchanged neighbours."""
    survivors = [m for m in mapped if m is not None]
    if survivors:
        return (survivors[0] + 1, survivors[-1] + 1)
    return _neighbour_position(mapping, start, end)


def _held_by_neighbours(now_file: TargetFile, evidence: Evidence, place: int) -> bool:
    """Both neighbours are the old ones there, or one is and the span was unique then."""
    neighbours = now_file.neighbours(evidence, place)
    return neighbours == 2 or (evidence.unique and neighbours == 1)


def _diff_start(mapped: list[int | None], size: int) -> int | None:
    """Where the diff carries the whole span, unbroken (1-based), or None."""
    if any(m is None for m in mapped):
        return None
    targets = [m for m in mapped if m is not None]
    return targets[0] + 1 if targets[-1] - targets[0] == size - 1 else None


def _as_file(lines: list[str]) -> TargetFile:
    return TargetFile("", lines, None, "\n".join(lines))


def _shifted_with_neighbours(
    then_file: TargetFile,
    start: int,
    end: int,
    now_file: TargetFile,
    new_start: int,
    mapping: list[int | None],
) -> bool:
    """The diff moved the span and both its neighbours by one offset, and they are its neighbours now."""
    offset = new_start - start
    new_end = end + offset
    for old_line, new_line in (
        (neighbour_line(then_file, start - 1, -1), neighbour_line(now_file, new_start - 1, -1)),
        (neighbour_line(then_file, end + 1, 1), neighbour_line(now_file, new_end + 1, 1)),
    ):
        if old_line is None or new_line is None:
            if old_line is not None or new_line is not None:
                return False
            continue  # both at the file's edge
        target = mapping[old_line - 1]
        if target is None or target + 1 != new_line or new_line - old_line != offset:
            return False
    return True


def _neighbour_position(mapping: list[int | None], start: int, end: int) -> tuple[int, int] | None:
    """Where a fully rewritten span sits now, judged by its unchanged neighbours."""
    before = next((m for m in reversed(mapping[: start - 1]) if m is not None), None)
    after = next((m for m in mapping[end:] if m is not None), None)
    if before is None and after is None:
        return None
    first = before + 2 if before is not None else 1
    last = after if after is not None else first
    if last < first:
        return None
    return (first, last)
