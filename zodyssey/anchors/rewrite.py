"""From `moved` problems to the edits --fix makes (numbers, and paths after a rename)."""

from __future__ import annotations

import posixpath

from zodyssey.anchors.check import Problem
from zodyssey.anchors.files import FileIndex
from zodyssey.anchors.model import Citation


def new_cited_text(
    citation: Citation, new_path: str, index: FileIndex, old_path: str | None = None
) -> str:
    """How to write `new_path` in place of the citation's old path text.

    Links stay relative to their document, and so do path forms written with
    `./` or `../`; blob URLs name the repo path. Other path forms write the new
    path less the leading folders the old text left out (`anchors/a.py` for
    `zodyssey/anchors/a.py` becomes `anchors/deep/b.py` for
    `zodyssey/anchors/deep/b.py`, and a full path stays full); when that does
    not resolve uniquely to the new file, as few trailing segments as the old
    text had, lengthened until they do.
    """
    cited = citation.cited
    doc_dir = posixpath.dirname(citation.site.doc) or "."
    if citation.dialect == "link":
        if cited.startswith("/"):
            return "/" + new_path
        return posixpath.relpath(new_path, doc_dir)
    if citation.dialect == "blob":
        return new_path
    if cited.startswith(("./", "../")):
        relative = posixpath.relpath(new_path, doc_dir)
        if cited.startswith("./") and not relative.startswith("../"):
            relative = "./" + relative
        return relative
    same_folders = _same_leading_folders(citation, new_path, index, old_path)
    if same_folders is not None:
        return same_folders
    return _fewest_segments(citation, new_path, index)


def _same_leading_folders(
    citation: Citation, new_path: str, index: FileIndex, old_path: str | None
) -> str | None:
    """`new_path` less the leading folders the citation left out of `old_path`, when
    that resolves to the new file from the citing document; None otherwise."""
    cited = citation.cited
    if old_path is None or not old_path.endswith(cited):
        return None
    unwritten = old_path[: len(old_path) - len(cited)]
    if (unwritten and not unwritten.endswith("/")) or not new_path.startswith(unwritten):
        return None
    candidate = new_path[len(unwritten) :]
    return candidate if index.resolve(candidate, citation.site.doc).path == new_path else None


def _fewest_segments(citation: Citation, new_path: str, index: FileIndex) -> str:
    """As few trailing segments of `new_path` as the citation had (or more) that
    resolve to it uniquely; the whole path when none do."""
    segments = new_path.split("/")
    keep = min(len(segments), citation.cited.count("/") + 1)
    while keep <= len(segments):
        candidate = "/".join(segments[-keep:])
        if index.resolve(candidate, citation.site.doc).path == new_path:
            return candidate
        keep += 1
    return new_path


def moves_of(
    problems: list[Problem], index: FileIndex
) -> tuple[list[tuple[Citation, int, int]], dict[Citation, str]]:
    moves: list[tuple[Citation, int, int]] = []
    new_paths: dict[Citation, str] = {}
    for problem in problems:
        if problem.kind != "moved" or problem.moved_to is None:
            continue
        start = int(str(problem.moved_to["start"]))
        end = int(str(problem.moved_to["end"]))
        path = str(problem.moved_to["path"])
        for citation in problem.citations:
            moves.append((citation, start, end))
            if path != problem.target:
                new_paths[citation] = new_cited_text(citation, path, index, problem.target)
    return moves, new_paths
