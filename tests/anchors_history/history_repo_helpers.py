"""Helpers shared by the history tests: a scratch git repository and citations."""

from __future__ import annotations

import subprocess
from pathlib import Path

from zodyssey.anchors.model import Citation, Site, make_key


class Repo:
    """A scratch repository: write files, commit, run git."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def git(self, *args: str) -> str:
        proc = subprocess.run(
            ["git", *args], cwd=self.path, capture_output=True, text=True, check=False
        )
        if proc.returncode != 0:
            raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr}")
        return proc.stdout

    def write(self, rel: str, text: str) -> None:
        target = self.path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)

    def read(self, rel: str) -> str:
        return (self.path / rel).read_text()

    def commit(self, message: str) -> str:
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)
        return self.git("rev-parse", "HEAD").strip()


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
