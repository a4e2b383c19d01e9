"""Compare discovered citations with the lock: problems, fresh pins, stale entries.

Citations are grouped by lock key (one key may be cited from many places);
each group is checked once, in the JavaScript checker's order: backwards
range, unreadable, out of range, contentless, then the lock. Whenever a
pinned span no longer matches where it is cited, its content is looked for
elsewhere in the same file (or, for a file git renamed, in the new file).
It is `moved` only when that is certain (docs/citation-lock.md, "moved only
when certain"): exactly one place holds the pinned content, and the pin's
evidence (its neighbours, whether it was unique) says it is the same place,
or the lines around it moved by the same offset. Anything less is `drift`
with the places it is possibly at now; `--fix` never acts on a guess.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from zodyssey import git
from zodyssey.anchors.baseline import BaselineState
from zodyssey.anchors.discover import Discovery, LeftOut, read_document_text
from zodyssey.anchors.files import FileIndex
from zodyssey.anchors.fingerprint import NEAR, Evidence, TargetFile, is_contentless
from zodyssey.anchors.gitbase import GitBase
from zodyssey.anchors.lock import LockFile
from zodyssey.anchors.model import Citation, Site, Tally, key_path, make_key, span_key
from zodyssey.anchors.parallel import split_run, worker_count
from zodyssey.anchors.problem import Problem as Problem
from zodyssey.anchors.problem import printable as printable
from zodyssey.anchors.remote import at_commit, read_at_commit
from zodyssey.anchors.renames import follow, git_renames
from zodyssey.config import Config
from zodyssey.core.files import NotRegularFile

# Display order of problem kinds (the JS checker's, with ours appended).
KIND_ORDER = (
    "drift",
    "moved",
    "contentless",
    "out-of-range",
    "backwards-range",
    "gone",
    "unresolved",
    "ambiguous",
    "unlocked",
    "unreadable",
    "unverifiable",
    "unscanned",
    "stale",
)

# Below this many citation keys a second process costs more than it saves.
PARALLEL_MIN_GROUPS = 8000

KIND_HELP = {
    "drift": "the pinned lines changed (or moved to a place that is not certain)",
    "moved": "the pinned content now sits at other lines (or in the file git renamed it to)",
    "contentless": "every cited line is blank or a bare comment marker; a pin would prove nothing",
    "out-of-range": "the span starts before line 1 or ends past the end of the file",
    "backwards-range": "the range a-b has b < a, so it would cover no line at all",
    "gone": "the cited file was deleted (git names the commit); the citation points at nothing",
    "unresolved": "no file in the tree matches the cited path",
    "ambiguous": "several files match the cited path; name it more fully",
    "unlocked": "a valid citation with no entry in the lock",
    "unreadable": "the cited file exists but cannot be read",
    "unverifiable": "a permalink whose commit (or file at that commit) this clone does not "
    "hold; it is never compared with the work tree",
    "stale": "a lock entry that no citation uses any more",
    "unscanned": "a pinned citation still written in a document the scan leaves out "
    "(hidden folder, `exclude`, outside `documents`): include it or remove the citation",
}


# (position of the key group, its problem, its fresh pin, its per-line pins)
Outcome = tuple[int, "Problem | None", "str | None", "list[str] | None", "str | None"]


@dataclass
class CheckResult:
    checked: int
    documents: int
    problems: list[Problem]
    pins: dict[str, str]  # key -> hash for every citation that may be pinned now
    spans: dict[str, list[str]]  # key -> per-line hashes (ranges only)
    cited_keys: set[str]
    stale: list[str]
    exempted: int = 0  # keys every citation of which is exempt (not checked)
    evidence: dict[str, str] = field(default_factory=dict)  # key -> encoded Evidence (pinning)
    keys: list[str] = field(default_factory=list)  # every key discovered (`checked` of them)
    exempt_keys: set[str] = field(default_factory=set)
    partly_exempt: set[str] = field(default_factory=set)  # keys some citations of which are exempt
    skipped_documents: int = 0  # documents opted out by the ignore marker
    # Stale keys whose text still stands in a document, where it is not read as a citation.
    stale_written: dict[str, str] = field(default_factory=dict)
    # Problems of citations a JavaScript lock could not have pinned (see set_aside_unseen).
    notes: list[Problem] = field(default_factory=list)
    left_out: LeftOut | None = None  # documents that exist but were not scanned
    tally: Tally | None = None  # sites, spans and documents, as every mode words them
    # The adoption baseline's effect (baseline.py): problems it covers were taken out.
    baseline: BaselineState | None = None

    def by_kind(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for p in self.problems:
            out[p.kind] = out.get(p.kind, 0) + 1
        return out


def _placed(
    problem: Problem | None, pin: str | None, first: Citation
) -> tuple[str, tuple[int, int]] | None:
    """(path, (old start, offset)) when a key group's place is known for sure, else None.

    Unchanged in place (offset 0), or certainly moved within the same file.
    """
    if problem is None:
        if pin is not None and first.resolved is not None:
            return first.resolved, (first.start, 0)
        return None
    moved_to = problem.moved_to
    if problem.kind != "moved" or not moved_to or not problem.lines:
        return None
    if moved_to["path"] != problem.target:
        return None
    offset = int(str(moved_to["start"])) - problem.lines[0]
    return str(problem.target), (problem.lines[0], offset)


def _gone_detail(old: str, deleted: tuple[str, str], renamed: list[tuple[str, str]]) -> str:
    """What `gone` says: the renames on the way, then the deleting commit."""
    commit, subject = deleted
    # The path as it was called when deleted: a rename first is said as such.
    steps = "".join(f"{old} was renamed to {name} by {by[:12]}, then " for name, by in renamed[:1])
    steps += "".join(f"renamed to {name} by {by[:12]}, then " for name, by in renamed[1:])
    last = renamed[-1][0] if renamed else old
    return (
        f"{steps}{last} was deleted by {commit[:12]} "
        f"({printable(subject)[:80]}); the citation "
        "points at nothing: cite where that code lives now, or remove the citation"
    )


def _buckets(items: list[tuple[str, list[Citation]]], parts: int) -> list[list[int]]:
    """Positions of `items` per part: each target file in one part, so it is read once.

    Each part gets its own list, so a forked worker touches (and copies) only its share.
    """
    targets = sorted({m[0].resolved for _, m in items if m[0].resolved is not None})
    part_of = {path: i % parts for i, path in enumerate(targets)}
    buckets: list[list[int]] = [[] for _ in range(parts)]
    for position, (_, members) in enumerate(items):
        path = members[0].resolved
        buckets[part_of[path] if path is not None else 0].append(position)
    return buckets


def _sites(citations: list[Citation]) -> list[Site]:
    seen: dict[Site, None] = {}
    for c in citations:
        seen.setdefault(c.site, None)
    return list(seen)


class Checker:
    def __init__(
        self,
        root: Path,
        config: Config,
        discovery: Discovery,
        lock: LockFile,
        *,
        lock_path: Path | None = None,
        pinning: bool = False,
    ) -> None:
        self.root = root
        self.lock_path = lock_path
        # When pinning, every fresh pin records its evidence (costs a locator table per file).
        self.pinning = pinning
        self._base: GitBase | None = None
        self._base_files: dict[str, TargetFile | None] = {}
        self._root_text = str(root)
        self.config = config
        self.discovery = discovery
        self.lock = lock
        self.files: dict[str, TargetFile] = {}
        self._renames: dict[str, str] | None = None
        self._lock_index: FileIndex | None = None

    def target(self, path: str) -> TargetFile:
        found = self.files.get(path)
        if found is None:
            found = self._read_target(path)
            self.files[path] = found
        return found

    def _read_target(self, path: str) -> TargetFile:
        """The cited file; a permalink's `path@sha` as that commit holds it (remote.py)."""
        pinned_at = at_commit(path)
        if pinned_at is None:
            return TargetFile.read(self._root_text, path)
        data, why = read_at_commit(self.root, *pinned_at)
        if data is None:
            return TargetFile(path, None, why)
        return TargetFile.from_bytes(path, data)

    def renames(self) -> dict[str, str]:
        if self._renames is None:
            self._renames = git_renames(self.root)
        return self._renames

    def run(self) -> CheckResult:
        groups, exempted, exempt_keys, partly_exempt = self._groups()
        items = [(group, members) for group, members in groups.items() if members]
        parts = min(worker_count(), max(1, len(items) // PARALLEL_MIN_GROUPS))
        buckets = _buckets(items, parts)

        def work(part: int, count: int) -> list[Outcome]:
            positions = buckets[part] if count > 1 else range(len(items))
            return [self._outcome(position, *items[position]) for position in positions]

        outcomes = [o for chunk in split_run(work, parts) for o in chunk]
        outcomes.sort(key=lambda o: o[0])
        problems, pins, spans, evidence, placed = self._gather(outcomes, items)
        problems = [self._follow_shift(p, placed) for p in problems]
        problems = self._uniform_shifts(problems, outcomes, items)
        cited = {k for k in groups if not k.startswith("?")}
        # A citation of a renamed or deleted file keeps its old key: still cited, never stale.
        cited |= {p.key for p in problems if not p.key.startswith("?")}
        stale = sorted(k for k in self.lock.citations if k not in cited)
        order = {kind: i for i, kind in enumerate(KIND_ORDER)}
        problems.sort(key=lambda p: (order.get(p.kind, 99), p.sites[0].doc, p.sites[0].line, p.key))
        return CheckResult(
            checked=len(groups),
            documents=len(self.discovery.documents),
            tally=Tally.of(self.discovery.citations, len(self.discovery.documents)),
            problems=problems,
            pins=pins,
            spans=spans,
            cited_keys=cited,
            stale=stale,
            exempted=exempted,
            evidence=evidence,
            keys=list(groups),
            exempt_keys=exempt_keys,
            partly_exempt=partly_exempt,
            skipped_documents=len(self.discovery.skipped),
        )

    def _groups(self) -> tuple[dict[str, list[Citation]], int, set[str], set[str]]:
        """Citations by the span they name, exempt ones taken out.

        Returns (groups, keys wholly exempt (count), those keys, keys partly exempt).
        """
        exempt = set(self.lock.exempt) | set(self.config.exempt)
        groups: dict[str, list[Citation]] = {}
        for citation in self.discovery.citations:
            groups.setdefault(span_key(citation), []).append(citation)
        partly_exempt: set[str] = set()
        exempt_keys: set[str] = set()
        if not exempt:
            return groups, 0, exempt_keys, partly_exempt
        # An exempt entry skips the citations written exactly that way, nothing else:
        # `thing.py:2` in a template must not hide `src/thing.py:2` in another document
        # although both name the same lines. (Under a JavaScript checker's lock, which
        # skipped the whole key, the other sites' `unlocked` is a note: set_aside_unseen.)
        for group, members in groups.items():
            kept = [c for c in members if c.cited_as not in exempt]
            if len(kept) == len(members):
                continue
            if kept:
                partly_exempt.add(group)
            else:
                exempt_keys.add(group)
            groups[group] = kept
        return groups, len(exempt_keys), exempt_keys, partly_exempt

    def _outcome(self, position: int, group: str, members: list[Citation]) -> Outcome:
        """One key group checked: its problem, fresh pin, per-line pins and evidence."""
        if not self.pinning:
            unchanged = self._unchanged(group, members[0])
            if unchanged is not None:
                return (position, None, unchanged[0], unchanged[1], None)
        found_pins: dict[str, str] = {}
        found_spans: dict[str, list[str]] = {}
        problem = self._check_group(group, members, found_pins, found_spans)
        evidence = None
        resolved = members[0].resolved
        if (
            self.pinning
            and group in found_pins
            and resolved is not None
            and members[0].symbol is None  # a symbol is found by name, not by place
        ):
            first = members[0]
            evidence = self.target(resolved).evidence(first.start, first.end).encode()
        return (position, problem, found_pins.get(group), found_spans.get(group), evidence)

    def _gather(
        self, outcomes: list[Outcome], items: list[tuple[str, list[Citation]]]
    ) -> tuple[
        list[Problem],
        dict[str, str],
        dict[str, list[str]],
        dict[str, str],
        dict[str, list[tuple[int, int]]],
    ]:
        """Problems, pins, per-line pins, evidence, and the places known for sure per file."""
        problems: list[Problem] = []
        pins: dict[str, str] = {}
        spans: dict[str, list[str]] = {}
        evidence: dict[str, str] = {}
        placed: dict[str, list[tuple[int, int]]] = {}  # path -> (old start, offset) for sure
        for position, problem, pin, span, found_evidence in outcomes:
            group = items[position][0]
            if pin is not None:
                pins[group] = pin
            if span is not None:
                spans[group] = span
            if found_evidence is not None:
                evidence[group] = found_evidence
            if problem is not None:
                problems.append(problem)
        if problems:  # the places known for sure matter only to a problem (_follow_shift)
            for position, problem, pin, _span, _evidence in outcomes:
                sure = _placed(problem, pin, items[position][1][0])
                if sure is not None:
                    placed.setdefault(sure[0], []).append(sure[1])
        return problems, pins, spans, evidence, placed

    def _unchanged(self, key: str, first: Citation) -> tuple[str, list[str] | None] | None:
        """(pin, per-line pins) of a group whose lines still hash to its pin; None for
        any other group, which `_check_group` then judges in full.

        The common case, taken without the problem machinery: the same tests as
        `_check_group` in the same order (a resolved line citation, a forward
        range, a readable target, in range, with content), and the lock agrees.
        """
        path = first.resolved
        a, b = first.start, first.end
        if path is None or first.symbol is not None or b < a or a < 1:
            return None
        pinned = self.lock.citations.get(key)
        if pinned is None:
            return None
        target = self.target(path)
        lines = target.lines
        if lines is None or b > len(lines) or is_contentless(lines[a - 1 : b]):
            return None
        current = target.span_hash(a, b)
        if current != pinned:
            return None
        return current, (target.line_hashes(a, b) if b > a else None)

    def _check_group(
        self, key: str, members: list[Citation], pins: dict[str, str], spans: dict[str, list[str]]
    ) -> Problem | None:
        first = members[0]
        sites = _sites(members)
        if first.symbol is not None:
            from zodyssey.anchors.symbols.check import check_symbol_group

            return check_symbol_group(self, key, members, sites, pins, spans)

        def problem(kind: str, detail: str, **extra: object) -> Problem:
            return Problem(kind, key, first.cited_as, sites, detail, members, **extra)  # type: ignore[arg-type]

        if first.resolved is None:
            return self._vanished(key, first, members, sites)
        path = first.resolved
        a, b = first.start, first.end
        lines_ref = (a, b)
        if b < a:
            return problem(
                "backwards-range",
                f"the range `{a}-{b}` is reversed and covers no line; put the smaller number first",
                target=path,
                lines=lines_ref,
            )
        target = self.target(path)
        if target.lines is None:
            if first.dialect == "permalink":
                return problem("unverifiable", f"cannot check {first.cited_as}: {target.error}")
            return problem("unreadable", f"cannot read {path}: {target.error}", target=path)
        count = len(target.lines)
        pinned = self.lock.citations.get(key)
        if a < 1 or b > count:
            moved, hints, evidence = self._relocate(
                key, first, members, sites, path, target, pinned
            )
            return moved or problem(
                "out-of-range",
                (
                    f"{path} has {count} lines; the citation points past its end"
                    if a >= 1
                    else "line numbers start at 1"
                )
                + _possibly(path, hints, b - a + 1),
                target=path,
                lines=lines_ref,
                possibly=hints,
                evidence=evidence,
            )
        raw = target.lines[a - 1 : b]
        if is_contentless(raw):
            moved, hints, evidence = self._relocate(
                key, first, members, sites, path, target, pinned
            )
            return moved or problem(
                "contentless",
                "the cited lines carry no content (blank, or a bare comment marker); a pin on "
                "them would never change; point the citation at the line that carries the claim"
                + _possibly(path, hints, b - a + 1),
                target=path,
                lines=lines_ref,
                now_reads=printable(raw[0].strip()[:160]),
                possibly=hints,
                evidence=evidence,
            )
        current = target.span_hash(a, b)
        pins[key] = current
        if b > a:
            spans[key] = target.line_hashes(a, b)
        if pinned is None:
            return problem(
                "unlocked",
                "not in the lock: an unlocked citation is an unchecked one",
                target=path,
                lines=lines_ref,
            )
        if pinned == current:
            return None
        moved, hints, evidence = self._relocate(key, first, members, sites, path, target, pinned)
        if moved is not None:
            return moved
        detail, quoted = self._what_changed(key, target, a, b)
        assert target.lines is not None
        now = printable(target.lines[quoted - 1].strip()[:160])
        was = self._was(key, path, a, b, quoted, pinned)
        said = f"; when pinned it read: {was}" if was is not None else ""
        return problem(
            "drift",
            f"{detail}; line {quoted} now reads: {now}{said}" + _possibly(path, hints, b - a + 1),
            target=path,
            lines=lines_ref,
            now_reads=now,
            was_reads=was,
            possibly=hints,
            evidence=evidence,
        )

    def _evidence(self, key: str, path: str, a: int, b: int, pinned: str) -> Evidence | None:
        """What the pin knew about its place: stored in our lock, else from git's version."""
        stored = self.lock.evidence.get(key)
        if stored:
            found = Evidence.decode(stored)
            if found is not None and len(found.lines) == b - a + 1:
                return found
        base = self._pinned_version(path, a, b, pinned)
        return base.evidence(a, b) if base is not None else None

    def _pinned_version(self, path: str, a: int, b: int, pinned: str) -> TargetFile | None:
        """git's version of `path` the lock was pinned against, if lines a..b hash to the pin."""
        if path not in self._base_files:
            if self._base is None:
                self._base = GitBase(self.root, self.lock_path)
            data = self._base.blob(path)
            self._base_files[path] = None if data is None else TargetFile.from_bytes(path, data)
        base = self._base_files[path]
        if base is None or base.lines is None or a < 1 or b > len(base.lines):
            return None
        if base.span_hash(a, b) != pinned:
            return None  # that version is not what was pinned
        return base

    def _was(self, key: str, path: str, a: int, b: int, quoted: int, pinned: str) -> str | None:
        """What line `quoted` read when pinned: kept in the lock (said.py), else from git."""
        from zodyssey.anchors.said import was

        text = was(self.lock, key, quoted - a)
        if text is None:
            base = self._pinned_version(path, a, b, pinned)
            if base is None or base.lines is None:
                return None
            text = base.lines[quoted - 1].strip()
        return printable(text[:160])

    def _search(
        self, key: str, old_path: str, target: TargetFile, first: Citation, pinned: str
    ) -> tuple[int | None, list[int], Evidence | None]:
        """(the certain new start or None, every place holding the pinned content, evidence)."""
        a, b = first.start, first.end
        length = b - a + 1
        evidence = self._evidence(key, old_path, a, b, pinned)
        same_file = target.path == old_path
        if evidence is None:
            # Nothing to tell places apart: look near the old place, for the report only.
            hints = [s for s in target.find_nearby(pinned, length, a) if not (same_file and s == a)]
            return None, hints, None
        places = [
            s for s in target.find_evidence(evidence, pinned, a) if not (same_file and s == a)
        ]
        if len(places) == 1:
            neighbours = target.neighbours(evidence, places[0])
            if neighbours == 2 or (evidence.unique and neighbours == 1):
                return places[0], places, evidence
        return None, places, evidence

    def _what_changed(self, key: str, target: TargetFile, a: int, b: int) -> tuple[str, int]:
        """The drift detail and the line it quotes: the first that changed, when the lock knows."""
        detail = "the cited lines changed"
        old_lines = self.lock.spans.get(key)
        if not old_lines or len(old_lines) != b - a + 1:
            return detail, a
        changed = [a + i for i, h in enumerate(target.line_hashes(a, b)) if h != old_lines[i]]
        if not changed:
            return detail, a
        numbers = ", ".join(map(str, changed))
        return detail + f" (line{'s' if len(changed) > 1 else ''} {numbers})", changed[0]

    def _relocate(
        self,
        key: str,
        first: Citation,
        members: list[Citation],
        sites: list[Site],
        path: str,
        target: TargetFile,
        pinned: str | None,
    ) -> tuple[Problem | None, list[int], Evidence | None]:
        if pinned is None or first.end < first.start or first.dialect == "permalink":
            # A commit's content never moves: a permalink that disagrees is drift, and
            # --fix never points it at other lines.
            return None, [], None
        length = first.end - first.start + 1
        start, places, evidence = self._search(key, path, target, first, pinned)
        if start is None:
            return None, places, evidence
        moved = self._moved(key, first, members, sites, path, path, start, length, target)
        return moved, places, evidence

    def _follow_shift(self, problem: Problem, placed: dict[str, list[tuple[int, int]]]) -> Problem:
        """An uncertain problem whose lines moved with their neighbours becomes `moved`.

        When the citations just above and below in the same file are known to be
        unchanged or moved by an offset, and exactly one place holding the pinned
        content sits at that offset with a pinned neighbour beside it, the lines
        only shifted (insertions or removals elsewhere): a repeated one-liner
        follows the shift like everything around it.
        """
        if problem.kind not in ("drift", "out-of-range", "contentless") or not problem.possibly:
            return problem
        evidence, path, lines = problem.evidence, problem.target, problem.lines
        if evidence is None or path is None or lines is None or not problem.citations:
            return problem
        anchors = sorted(placed.get(path, ()))
        a = lines[0]
        above = [offset for start, offset in anchors if start < a]
        below = [offset for start, offset in anchors if start > a]
        offsets = set(above[-1:] + below[:1])
        if not offsets:
            return problem
        target = self.target(path)
        fits = [
            s for s in problem.possibly if s - a in offsets and target.neighbours(evidence, s) >= 1
        ]
        if len(fits) != 1:
            return problem
        first = problem.citations[0]
        moved = self._moved(
            problem.key,
            first,
            problem.citations,
            problem.sites,
            path,
            path,
            fits[0],
            lines[1] - lines[0] + 1,
            target,
            shifted=True,
        )
        return moved or problem

    def _uniform_shifts(
        self,
        problems: list[Problem],
        outcomes: list[Outcome],
        items: list[tuple[str, list[Citation]]],
    ) -> list[Problem]:
        """Pins without evidence that shifted with the file's unique pins: `moved`.

        A JavaScript checker's lock stores no evidence, and in a shallow clone (or
        without git) no earlier version of the file can stand in, so every pin of a
        file below an inserted line would be drift. When the mismatched pins of a
        file found exactly once in the whole file (two or more) all agree on one
        offset, none disagreeing, and no pin matching in place among them
        contradicts it, the lines only shifted: each of them is `moved`, and so is
        a repeated pin (`}`, `return null;`) whose content stands at exactly that
        offset. A pin found nowhere stays drift (docs/citation-lock.md).
        """
        candidates: dict[str, list[Problem]] = {}
        for problem in problems:
            if self._shift_candidate(problem):
                assert problem.target is not None
                candidates.setdefault(problem.target, []).append(problem)
        if not candidates:
            return problems
        in_place: dict[str, list[tuple[str, int, int]]] = {}
        for position, outcome, pin, _span, _evidence in outcomes:
            members = items[position][1]
            path = members[0].resolved
            if outcome is None and pin is not None and path in candidates:
                first = members[0]
                in_place.setdefault(path, []).append((pin, first.start, first.end))
        changed: dict[int, Problem] = {}
        for path, group in candidates.items():
            if len(group) >= 2:
                changed.update(self._one_shift(path, group, in_place.get(path, [])))
        return [changed.get(id(p), p) for p in problems]

    def _shift_candidate(self, problem: Problem) -> bool:
        """A mismatched pin with no evidence of its own, of a file cited by lines."""
        return (
            problem.kind in ("drift", "out-of-range", "contentless")
            and problem.evidence is None
            and problem.target is not None
            and problem.lines is not None
            and bool(problem.citations)
            and problem.citations[0].resolved == problem.target
            and problem.citations[0].symbol is None  # a symbol's key has no lines to shift
            and problem.key in self.lock.citations
            and problem.key not in self.lock.evidence
        )

    def _shift_offset(self, target: TargetFile, group: list[Problem]) -> int | None:
        """The one offset the group's unique pins agree on (two or more), else None."""
        offsets: set[int] = set()
        unique = 0
        for problem in group:
            assert problem.lines is not None
            a, b = problem.lines
            pinned = self.lock.citations[problem.key]
            found = [f for f in target.find_nearby(pinned, b - a + 1, a, reach=NEAR[-1]) if f != a]
            if len(found) == 1 and target.occurrences(found[0], found[0] + b - a) == found:
                offsets.add(found[0] - a)
                unique += 1
        if unique < 2 or len(offsets) != 1:
            return None
        return offsets.pop()

    def _one_shift(
        self, path: str, group: list[Problem], still: list[tuple[str, int, int]]
    ) -> dict[int, Problem]:
        """The group's problems found at the file's one offset as `moved`, else none."""
        target = self.target(path)
        assert target.lines is not None
        offset = self._shift_offset(target, group)
        if offset is None:
            return {}
        count = len(target.lines)
        starts = [p.lines[0] for p in group if p.lines is not None]
        for pin, a, b in still:
            # A pin matching in place among the shifted ones contradicts the shift,
            # unless its content stands at the offset too (a repeated line).
            inside = min(starts) < a < max(starts)
            if inside and not (a + offset >= 1 and b + offset <= count):
                return {}
            if inside and target.span_hash(a + offset, b + offset) != pin:
                return {}
        changed: dict[int, Problem] = {}
        for problem in group:
            assert problem.lines is not None
            a, b = problem.lines
            start, end = a + offset, b + offset
            if start < 1 or end > count:
                continue
            if target.span_hash(start, end) != self.lock.citations[problem.key]:
                continue  # found nowhere at the offset: stays drift
            moved = self._moved(
                problem.key,
                problem.citations[0],
                problem.citations,
                problem.sites,
                path,
                path,
                start,
                b - a + 1,
                target,
                shifted=True,
            )
            if moved is not None:
                changed[id(problem)] = moved
        return changed

    def _moved(
        self,
        key: str,
        first: Citation,
        members: list[Citation],
        sites: list[Site],
        old_path: str,
        new_path: str,
        start: int,
        length: int,
        target: TargetFile,
        *,
        shifted: bool = False,
    ) -> Problem | None:
        end = start + length - 1
        assert target.lines is not None
        if is_contentless(target.lines[start - 1 : end]):
            return None
        new_key = make_key(new_path, start, end, first.ranged or end != start)
        where = f"{new_path}:{start}" + (f"-{end}" if end != start else "")
        detail = f"the pinned content moved to {where}"
        if shifted:
            detail += " (with the citations around it)"
        if new_path != old_path:
            detail = f"{old_path} was renamed to {new_path} (git); the pinned content is at {where}"
        return Problem(
            "moved",
            key,
            first.cited_as,
            sites,
            detail,
            members,
            target=old_path,
            lines=(first.start, first.end),
            now_reads=printable(target.lines[start - 1].strip()[:160]),
            moved_to={"path": new_path, "start": start, "end": end, "key": new_key},
        )

    def _old_path(self, first: Citation) -> str | None:
        """The file a citation that resolves to nothing now once named, if known.

        First the lock's own paths (the citation was pinned there), then the
        files git history knows, named exactly (never by a basename guess).
        """
        if self.lock.citations:
            if self._lock_index is None:
                self._lock_index = FileIndex(sorted({key_path(k) for k in self.lock.citations}))
            old = _resolve_in(self._lock_index, first)
            if old is not None:
                return old
        past = self.discovery.past
        if past is None or first.dialect in ("link", "blob"):
            return None
        names = past.strictly_named(first.cited)
        if len(names) == 1:
            return names[0]
        return None

    def _vanished(
        self, key: str, first: Citation, members: list[Citation], sites: list[Site]
    ) -> Problem:
        """A citation that resolves to no single file now: moved, gone, ambiguous or unresolved.

        Its problem carries the old lock key when there is one, so the pin is
        neither reported stale nor dropped by --update while a document cites it.
        """
        old = self._old_path(first)
        files = self.discovery.index.file_set
        if old is not None and old in files:
            old = None  # it names an existing file only through the lock: not this citation's
        old_key = make_key(old, first.start, first.end, first.ranged) if old else key
        lines = (first.start, first.end)

        def problem(kind: str, detail: str) -> Problem:
            return Problem(
                kind, old_key, first.cited_as, sites, detail, members, target=old, lines=lines
            )

        unjudged = self.discovery.no_single_file(self._root_text, first, old)
        if unjudged is not None:  # ambiguous, or a FIFO, socket or device
            kind, detail, target = unjudged
            return Problem(
                kind, old_key, first.cited_as, sites, detail, members, target=target, lines=lines
            )
        left_out = self.discovery.left_out_file(self.root, first.cited, first.site.doc)
        if left_out is not None:
            return problem("unresolved", left_out)
        if old is None:
            return problem("unresolved", f"no file in the tree matches `{first.cited}`")
        pinned = self.lock.citations.get(old_key)
        new = follow(self.renames(), old, files)
        deleted = None
        renamed: list[tuple[str, str]] = []  # (new name, renaming commit) on the way
        if new is None and self.discovery.past is not None:
            deleted = self.discovery.past.deleted_by(old)
            if deleted is not None:
                new, renamed, deleted = self._follow_deletions(old, deleted, files)
        if new is not None:
            moved = self._moved_on_rename(old_key, first, members, sites, old, new, pinned)
            if moved is not None:
                return moved
            return problem(
                "unresolved",
                f"`{first.cited}` named {old}, which git renamed: it is now `{new}`; "
                + (
                    "the pinned lines are not certainly there, so correct the citation by hand"
                    if pinned is not None
                    else "check the lines and cite it there"
                ),
            )
        if deleted is not None:
            return problem("gone", _gone_detail(old, deleted, renamed))
        where = "pinned in the lock" if pinned is not None else "known to git history"
        return problem(
            "unresolved", f"no file in the tree matches `{first.cited}` ({old} is {where})"
        )

    def _moved_on_rename(
        self,
        old_key: str,
        first: Citation,
        members: list[Citation],
        sites: list[Site],
        old: str,
        new: str,
        pinned: str | None,
    ) -> Problem | None:
        """`moved` into the file git renamed `old` to, when the pinned lines are certainly there."""
        if pinned is None or first.end < first.start:
            return None
        target = self.target(new)
        if target.lines is None:
            return None
        start, _places, _evidence = self._search(old_key, old, target, first, pinned)
        if start is None:
            return None
        length = first.end - first.start + 1
        return self._moved(old_key, first, members, sites, old, new, start, length, target)

    def _follow_deletions(
        self, old: str, deleted: tuple[str, str], files: set[str]
    ) -> tuple[str | None, list[tuple[str, str]], tuple[str, str] | None]:
        """Follow renames commit by commit from the one that removed `old` (bounded).

        Returns (the name that exists now or None, the renames on the way as
        (new name, commit), the real deletion as (commit, subject) or None).
        """
        past = self.discovery.past
        assert past is not None
        name = old
        renamed: list[tuple[str, str]] = []
        for _ in range(8):
            new = past.renamed_in(deleted[0], name)
            if new is None:
                return None, renamed, deleted  # a deletion, not a rename
            renamed.append((new, deleted[0]))
            if new in files:
                return new, renamed, None
            later = past.deleted_by(new)
            if later is None:
                return None, [], None
            name, deleted = new, later
        return None, [], None


def _resolve_in(index: FileIndex, first: Citation) -> str | None:
    if first.dialect in ("link", "blob"):
        from urllib.parse import unquote

        base = first.cited if first.dialect == "blob" else unquote(first.cited)
        return index.resolve_link(
            "/" + base if first.dialect == "blob" else base, first.site.doc
        ).path
    return index.resolve(first.cited, first.site.doc).path


def _possibly(path: str, places: list[int], length: int) -> str:
    if not places:
        return ""
    shown = ", ".join(
        f"{path}:{s}" + (f"-{s + length - 1}" if length > 1 else "") for s in places[:5]
    )
    more = f" and {len(places) - 5} more" if len(places) > 5 else ""
    return (
        f"; the pinned content is possibly now at {shown}{more} (not certain, so --fix "
        "leaves it: check and correct the citation by hand)"
    )


def find_stale_writing(result: CheckResult, discovery: Discovery, root: Path) -> None:
    """For each stale key, a document line that still writes it (not read as a citation).

    A stale entry is one no citation uses; if a document still shows the same
    text (inside an HTML comment, an ignored line or region, past a CHANGELOG
    window, or in a document skipped by its marker), the note says where, so
    nobody drops a pin a reader still relies on without looking.
    """
    if not result.stale:
        return
    documents = list(discovery.documents) + list(discovery.skipped)
    _find_written(result.stale, documents, root, result.stale_written)


def _find_written(
    keys: list[str],
    documents: list[str],
    root: Path,
    out: dict[str, str],
    in_git: set[str] | frozenset[str] = frozenset(),
) -> None:
    """For each key, the first `doc:line` of `documents` that writes it (into `out`);
    the documents of `in_git` (not in the work tree) are read from git's index."""
    wanted: dict[str, str] = {}
    for key in keys:
        path, _, numbers = key.rpartition(":")
        wanted[key] = path.rsplit("/", 1)[-1] + ":" + numbers
    result_written = out
    for doc in documents:
        if doc in in_git:
            blob = git.output(root, "cat-file", "blob", f":{doc}")
            if blob is None:
                continue
            text = blob.decode("utf-8", "replace")
        else:
            try:
                text = read_document_text(root, doc, errors="replace")
            except (OSError, NotRegularFile):
                continue  # a left-out FIFO or unreadable file: nothing a reader reads there
        for key, needle in wanted.items():
            if key in result_written:
                continue
            at = text.find(needle)
            while at >= 0:
                after = at + len(needle)
                if after >= len(text) or not text[after].isdigit():
                    line = text.count("\n", 0, at) + 1
                    result_written[key] = f"{doc}:{line}"
                    break
                at = text.find(needle, at + 1)
        if len(result_written) == len(wanted):
            return


def find_unscanned(result: CheckResult, left_out: LeftOut, root: Path) -> None:
    """A stale pin still written in a document the scan leaves out is a failure, not stale.

    Changing `documents` or `exclude`, renaming `guide.md` to `guide.markdown`
    or moving it into a hidden folder would otherwise turn its pins into
    "stale" notes and pass: a citation a reader still reads, no longer checked.
    Each such key becomes an `unscanned` problem naming the document and why
    it is not read, with how to include it.
    """
    result.left_out = left_out
    if not result.stale:
        return
    why = dict(left_out.by_rule)
    documents = [d for d, _ in left_out.by_rule] + left_out.unmatched
    if not documents:
        return
    written: dict[str, str] = {}
    in_git = {d for d, reason in left_out.by_rule if reason == "sparse"}
    _find_written(result.stale, documents, root, written, in_git)
    for key, where in written.items():
        doc, _, line = where.rpartition(":")
        result.problems.append(
            Problem(
                "unscanned",
                key,
                key,
                [Site(doc, int(line))],
                _unscanned_detail(where, doc, why.get(doc, ""), left_out),
                target=key.rpartition(":")[0],
            )
        )
    result.stale = [k for k in result.stale if k not in written]
    for key in written:
        result.stale_written.pop(key, None)


def _unscanned_detail(where: str, doc: str, why: str, left_out: LeftOut) -> str:
    if why == "sparse":
        return (
            f"pinned, and still written at {where}, which git has but this work tree does "
            "not (sparse checkout), so its citations are not read here: add it to the "
            "checkout (`git sparse-checkout add`), or check a full clone"
        )
    reason = {
        "hidden": "it is in a hidden folder",
        "excluded": f"`exclude` under {left_out.top_table} leaves it out",
    }.get(why, f"it does not match `documents` under {left_out.top_table}")
    return (
        f"pinned, and still written at {where}, which is not scanned ({reason}): "
        f'check it by adding include = ["{doc}"] under {left_out.anchors_table}, or '
        "remove the citation there and run `check-anchors --update`"
    )


def set_aside_unseen(
    result: CheckResult,
    discovery: Discovery,
    root: Path,
    own_before: tuple[str, frozenset[str]] | None = None,
) -> None:
    """Under a JavaScript checker's lock, move problems it could never have seen to notes.

    That lock pins only what the JS grammar finds (its fixed extensions, no
    Markdown links or blob URLs, in the documents and lines it read). A citation
    only we discover (`main.go:12`, `[x](a.py#L3)`) has no pin there by
    construction, so calling it a failure would fail every migrating repository.
    It is still reported, as a note naming its kind; `--update` (our lock) makes
    it count. A key any JS-visible citation shares stays a problem, and so does
    one a committed version of this lock pinned when it was ours (`own_before`:
    the JavaScript checker's `--update` rewrote our lock and dropped the pin).
    """
    kept: list[Problem] = []
    for problem in result.problems:
        members = problem.citations
        if own_before is not None and problem.key in own_before[1]:
            commit, _ = own_before
            problem.detail = (
                f"pinned by this lock when zodyssey wrote it (commit {commit[:12]}); another "
                "tool's --update (the JavaScript checker's?) rewrote the lock in its shape and "
                "dropped the pin, so this citation would go unchecked: re-pin it with "
                "`check-anchors --update` (zodyssey's lock)"
            )
            kept.append(problem)
        elif members and not any(discovery.js_visible(root, c) for c in members):
            result.notes.append(problem)
        elif problem.kind == "unlocked" and problem.key in result.partly_exempt:
            # The JS checker skipped this whole key for its exempt entry: never pinned.
            result.notes.append(problem)
        else:
            kept.append(problem)
    result.problems = kept
