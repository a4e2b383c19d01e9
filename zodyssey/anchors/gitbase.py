"""The version of a cited file a lock was pinned against, read from git.

A JavaScript checker's lock (or one of ours written before pins carried
evidence) says only what the span hashed to. Where the file now differs,
git usually still holds the version the pin was taken from: the file at the
last commit that changed the lock (the lock and the docs are committed
together), else at HEAD. From that version the checker learns the pinned
lines' neighbours and whether they were unique, which `moved` needs.

Asked only for files with a mismatching pin, so a clean check never runs git.
No git, no repository, no such blob: no evidence, and the checker stays
conservative (`drift`).
"""

from __future__ import annotations

from pathlib import Path

from zodyssey import git


class GitBase:
    def __init__(self, root: Path, lock_path: Path | None) -> None:
        self.root = root
        self.lock_path = lock_path
        self._commit: str | None = None
        self._prefix = ""
        self._ready = False
        self._blobs: dict[str, bytes | None] = {}

    def _prepare(self) -> None:
        if self._ready:
            return
        self._ready = True
        prefix = git.show_prefix(self.root)
        if prefix is None:
            return
        self._prefix = prefix
        commit = None
        if self.lock_path is not None:
            try:
                lock = str(Path(self.lock_path).resolve())
            except OSError:
                lock = str(self.lock_path)
            found = git.output(self.root, "log", "-1", "--format=%H", "--", lock)
            if found:
                commit = found.decode().strip() or None
        if commit is None:
            head = git.output(self.root, "rev-parse", "--verify", "-q", "HEAD")
            commit = head.decode().strip() if head else None
        self._commit = commit or None

    @property
    def commit(self) -> str | None:
        self._prepare()
        return self._commit

    def blob(self, path: str) -> bytes | None:
        """`path` (root-relative) at the base commit, or None."""
        if path in self._blobs:
            return self._blobs[path]
        self._prepare()
        data = None
        if self._commit is not None:
            data = git.output(self.root, "cat-file", "blob", f"{self._commit}:{self._prefix}{path}")
        self._blobs[path] = data
        return data
