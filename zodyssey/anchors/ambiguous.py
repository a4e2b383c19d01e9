"""Which file an ambiguous bare name means (`mod.rs:391` where several `mod.rs` exist).

Resolution never guesses: such a citation stays `ambiguous`. But the evidence
often decides, and saying so saves the reader a search. Narrowing steps,
strongest first, each kept only when it leaves a candidate:

1. the files that existed, with content at the cited lines, at the commit that
   last wrote the citing line (git blame): what its author could have meant;
2. those in a folder the same document cites elsewhere;
3. those that still have the cited lines.

What a file holds now comes last: the meant file may have drifted (a line
blank now was the cited code then). One left: named in the detail as a
suggestion and carried in JSON (`suggestion`) and the baseline (`suggest`);
never rewritten, as it is evidence, not certainty.

git is asked once per document (one blame) and once per (commit, file), and
only for documents with an ambiguous citation.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from zodyssey import git
from zodyssey.anchors.discover import Discovery
from zodyssey.anchors.fingerprint import TargetFile, is_contentless
from zodyssey.anchors.model import Citation
from zodyssey.anchors.problem import Problem


class _History:
    """git's answers for the suggestions of one check, each asked once."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._prefix: str | None = None
        self._blames: dict[str, dict[int, str]] = {}
        self._files: dict[tuple[str, str], list[str] | None] = {}

    def prefix(self) -> str | None:
        if self._prefix is None:
            self._prefix = git.show_prefix(self.root)
        return self._prefix

    def written_at(self, doc: str, line: int) -> str | None:
        """The commit that last wrote line `line` of `doc` (None: uncommitted, or no git)."""
        if doc not in self._blames:
            self._blames[doc] = self._blame(doc)
        return self._blames[doc].get(line)

    def _blame(self, doc: str) -> dict[int, str]:
        out = git.output(self.root, "blame", "--porcelain", "HEAD", "--", doc)
        lines: dict[int, str] = {}
        for row in (out or b"").split(b"\n"):
            parts = row.split(b" ")
            # A header row: <40-hex commit> <line in that commit> <line now> [<count>].
            if len(parts) in (3, 4) and len(parts[0]) == 40 and parts[2].isdigit():
                commit = parts[0].decode("ascii", "replace")
                if set(commit) != {"0"}:  # all zeros: not committed yet
                    lines[int(parts[2])] = commit
        return lines

    def lines_at(self, commit: str, path: str) -> list[str] | None:
        if (commit, path) not in self._files:
            prefix = self.prefix()
            data = None
            if prefix is not None:
                data = git.output(self.root, "show", f"{commit}:{prefix}{path}")
            self._files[(commit, path)] = (
                TargetFile.from_bytes(path, data).lines if data is not None else None
            )
        return self._files[(commit, path)]


def suggest_files(root: Path, discovery: Discovery, problems: list[Problem]) -> None:
    """Name, in each ambiguous problem, the candidate the evidence decides, if it does."""
    ambiguous = [p for p in problems if p.kind == "ambiguous" and p.citations]
    if not ambiguous:
        return
    cited_dirs: dict[str, set[str]] = {}
    for citation in discovery.citations:
        if citation.resolved is not None:
            folder = citation.resolved.rpartition("/")[0]
            cited_dirs.setdefault(citation.site.doc, set()).add(folder)
    history = _History(root)
    for problem in ambiguous:
        first = problem.citations[0]
        found = _decide(root, history, first, cited_dirs.get(first.site.doc, set()))
        if found is not None:
            problem.suggestion, why = found
            problem.detail += f"; it is probably `{problem.suggestion}` ({why}): cite that path"


def _decide(
    root: Path, history: _History, first: Citation, folders: set[str]
) -> tuple[str, str] | None:
    """(the one candidate left, why) after the narrowing steps; None if several stay."""
    at = history.written_at(first.site.doc, first.site.line)

    def existed_with_content(candidate: str) -> bool:
        if at is None:
            return False
        return _has_content(history.lines_at(at, candidate), first.start, first.end)

    def in_cited_folder(candidate: str) -> bool:
        return candidate.rpartition("/")[0] in folders

    def has_the_lines(candidate: str) -> bool:
        lines = TargetFile.read(root, candidate).lines
        return lines is not None and 1 <= first.start <= first.end <= len(lines)

    when = f"the only one with content there when the line was written, {(at or '')[:12]}"
    steps: tuple[tuple[Callable[[str], bool], str], ...] = (
        (existed_with_content, when),
        (in_cited_folder, "the document cites other files of its folder"),
        (has_the_lines, "the only one that has those lines"),
    )
    left = list(first.candidates)
    reasons: list[str] = []
    for keep, why in steps:
        narrowed = [c for c in left if keep(c)]
        if narrowed and len(narrowed) < len(left):
            left = narrowed
            reasons.append(why)
        if len(left) == 1:
            return left[0], "; ".join(reasons)
    return None


def _has_content(lines: list[str] | None, a: int, b: int) -> bool:
    if lines is None or a < 1 or b < a or b > len(lines):
        return False
    return not is_contentless(lines[a - 1 : b])
