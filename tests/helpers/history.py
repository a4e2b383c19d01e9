"""Helpers shared by the history tests: a scratch git repository and citations."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import commit, git, write
from zodyssey.anchors.model import Citation, Site, make_key


class Repo:
    """A scratch repository (made by `tests.helpers.make_repo`): write, commit, run git."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def git(self, *args: str) -> str:
        return git(self.path, *args)

    def write(self, rel: str, text: str) -> None:
        write(self.path, rel, text)

    def read(self, rel: str) -> str:
        return (self.path / rel).read_text()

    def commit(self, message: str) -> str:
        return commit(self.path, message)


def numbered(prefix: str, count: int) -> str:
    """`count` distinct lines `<prefix> 1` .. `<prefix> count`, newline-terminated."""
    return "".join(f"{prefix} {n}\n" for n in range(1, count + 1))


def cite(
    doc: str,
    line: int,
    cited: str,
    start: int,
    end: int | None = None,
    resolved: str | None = "same",
) -> Citation:
    """A citation as discovery would produce it (`resolved="same"`: the cited path)."""
    last = start if end is None else end
    target = cited if resolved == "same" else resolved
    ranged = end is not None
    key = make_key(target, start, last, ranged) if target else None
    return Citation(cited, start, last, Site(doc, line), target, key, ranged=ranged)
