"""What git remembers of files that are gone: their names, and who deleted them.

A citation of a file that was deleted or renamed must not vanish with the
file (docs/citation-lock.md, "a citation never vanishes"). Discovery asks
`GitPast.names()` about tokens that name no file now: one `git log` listing
every path ever added in history reachable from HEAD, run at most once per
process and only when such a token turns up. The checker then asks
`deleted_by` for the few paths that turn out to be cited.

No git or no repository: no past, and such tokens are judged as before.
"""

from __future__ import annotations

from pathlib import Path

from zodyssey import git
from zodyssey.anchors.files import FileIndex

# Paths listed at most (a bound on memory for enormous histories).
MAX_NAMES = 2_000_000


class GitPast:
    def __init__(self, root: Path) -> None:
        self.root = root
        self._prefix: str | None = None
        self._names: FileIndex | None = None
        self._loaded = False
        self._deleted: dict[str, tuple[str, str] | None] = {}

    def prefix(self) -> str | None:
        """The root relative to the repository's top ('' or 'sub/'); None without git."""
        if self._prefix is None:
            self._prefix = git.show_prefix(self.root)
        return self._prefix

    def names(self) -> FileIndex | None:
        """Every root-relative path ever added in history reachable from HEAD."""
        if self._loaded:
            return self._names
        self._loaded = True
        prefix = self.prefix()
        if prefix is None:
            return None
        out = git.output(
            self.root,
            "log",
            "--diff-filter=A",
            "--no-renames",
            "--name-only",
            "-z",
            "--format=",
            "HEAD",
            "--",
            ".",
        )
        if out is None:
            return None
        seen: set[str] = set()
        for raw in out.split(b"\0"):
            name = raw.strip(b"\n").decode("utf-8", "surrogateescape")
            if name.startswith(prefix):
                seen.add(name[len(prefix) :])
                if len(seen) >= MAX_NAMES:
                    break
        seen.discard("")
        self._names = FileIndex(sorted(seen))
        return self._names

    def strictly_named(self, token: str) -> tuple[str, ...]:
        """Past paths the token names exactly: the path, or a `/`-suffix of it.

        Stricter than resolution (no basename-ending match), so prose such as
        `file.go:47` names nothing unless a `file.go` really existed.
        """
        names = self.names()
        if names is None:
            return ()
        return strict_names(names, token)

    def deleted_by(self, path: str) -> tuple[str, str] | None:
        """(commit, subject) of the last commit that deleted root-relative `path` (cached)."""
        if path not in self._deleted:
            self._deleted[path] = self._deleted_by(path)
        return self._deleted[path]

    def _deleted_by(self, path: str) -> tuple[str, str] | None:
        prefix = self.prefix()
        if prefix is None:
            return None
        out = git.output(
            self.root,
            "log",
            "-1",
            "--diff-filter=D",
            "--no-renames",
            "--format=%H%x00%s",
            "HEAD",
            "--",
            ":(top,literal)" + prefix + path,
        )
        if not out or b"\0" not in out:
            return None
        commit, _, subject = out.decode("utf-8", "replace").strip().partition("\0")
        return commit, subject

    def renamed_in(self, commit: str, path: str) -> str | None:
        """The new root-relative name of `path` if `commit` renamed it (one commit's diff)."""
        prefix = self.prefix()
        if prefix is None:
            return None
        out = git.output(
            self.root,
            "diff-tree",
            "--no-commit-id",  # one commit's diff-tree prints its id first
            "-r",
            "-M",
            "--name-status",
            "-z",
            "--root",
            commit,
        )
        if out is None:
            return None  # e.g. an unreadable object in that commit: no rename known
        from zodyssey.anchors.history.plumbing import parse_name_status_z

        new = parse_name_status_z(out).old_to_new.get(prefix + path)
        if new is None or not new.startswith(prefix):
            return None
        return new[len(prefix) :]


def strict_names(index: FileIndex, token: str) -> tuple[str, ...]:
    """Paths of `index` that `token` names exactly (the path, or a `/`-suffix)."""
    if token in index.file_set:
        return (token,)
    return tuple(index.suffixes(token))
