"""Which checkout a claims results file was written in.

`pytest --claims-json FILE` records the checkout's commit, a digest of its
tracked files as they are on disk and the repository's identity (its root
commits); `claims check --results` refuses a file whose values are not the
ones of the checkout it judges, so neither yesterday's shard nor a file
written in another checkout (or one with other local edits) can stand in for
this one. CI shards check out the same commit, so their files agree.

Untracked files are not part of the digest: pytest writes its own (the results
file, caches) while it runs. Outside git every value is None, and a file is
accepted only when it was written outside git too.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

KEYS = ("commit", "tree", "repository")


def identity(root: Path) -> dict[str, Any]:
    """{"commit", "tree", "repository", "shallow"} of the checkout at `root`."""
    from zodyssey import git

    none: dict[str, Any] = dict.fromkeys(KEYS)
    none["shallow"] = False
    if git.toplevel(root) is None:
        return none
    try:
        commit = git.run(root, ["rev-parse", "--verify", "-q", "HEAD"]).decode().strip()
        roots = git.run(root, ["rev-list", "--max-parents=0", "HEAD"]).decode().split()
        shallow = git.run(root, ["rev-parse", "--is-shallow-repository"]).decode().strip()
        listed = git.run(root, ["ls-files", "-z", "--cached", "--", "."])
    except git.GitError:
        return none
    return {
        "commit": commit or None,
        "tree": _tracked_digest(root, listed),
        "repository": ",".join(sorted(roots)) or None,
        "shallow": shallow == "true",
    }


def _tracked_digest(root: Path, listed: bytes) -> str:
    digest = hashlib.sha256()
    for raw in sorted({p for p in listed.split(b"\0") if p}):
        path = root / raw.decode("utf-8", errors="surrogateescape")
        digest.update(raw + b"\0" + _content(path) + b"\n")
    return digest.hexdigest()


def _content(path: Path) -> bytes:
    try:
        if path.is_symlink():
            return b"link:" + os.readlink(path).encode("utf-8", "surrogateescape")
        if not path.is_file():
            return b"absent"
        return hashlib.sha256(path.read_bytes()).hexdigest().encode()
    except OSError:
        return b"unreadable"


def mismatch(recorded: Any, here: dict[str, Any]) -> str | None:
    """Why a results file's `checkout` is not this checkout's, None when it is."""
    if not isinstance(recorded, dict):
        return (
            "it records no checkout (commit, tree digest, repository): not written by this zodyssey"
        )
    # A shallow clone's root is its oldest fetched commit: compare only deep clones.
    deep = not (here["shallow"] or recorded.get("shallow") is True)
    if deep and here["repository"] and recorded.get("repository") != here["repository"]:
        return "it was written in another repository"
    if recorded.get("commit") != here["commit"]:
        return f"it was written at commit {recorded.get('commit')}, this checkout is at {here['commit']}"
    if recorded.get("tree") != here["tree"]:
        return "it was written with other content in the tracked files (another checkout, or edits since)"
    return None
