"""Where a cited file went, per git: renames in the work tree, the index and history.

Asked only when a citation no longer resolves but its path is in the lock, so
most runs never run git. Without a repository there are no renames.
"""

from __future__ import annotations

from pathlib import Path

from zodyssey import git


def _parse_name_status(output: str, into: dict[str, str]) -> None:
    for line in output.splitlines():
        parts = line.split("\t")
        if len(parts) == 3 and parts[0].startswith("R"):
            into.setdefault(parts[1], parts[2])


def git_renames(root: Path) -> dict[str, str]:
    """old repo-relative path -> newer path (the most recent rename wins)."""
    renames: dict[str, str] = {}
    top = git.toplevel(root)
    if top is None:
        return renames
    prefix = Path(root).resolve().relative_to(top).as_posix()
    prefix = "" if prefix == "." else prefix + "/"
    found: dict[str, str] = {}
    # Uncommitted renames first (`git mv`, staged or not), then committed ones, newest first.
    # A repository without commits has no HEAD to diff against: its index is all there is.
    uncommitted = (
        ["diff", "HEAD", "-M", "--name-status"]
        if _has_head(top)
        else ["diff", "--cached", "-M", "--name-status"]
    )
    for args in (uncommitted, ["log", "-M", "--diff-filter=R", "--name-status", "--format="]):
        try:
            output = git.run(top, args)
        except git.GitError:
            continue  # no renames known from this source
        _parse_name_status(output.decode("utf-8", "surrogateescape"), found)
    for old, new in found.items():
        if old.startswith(prefix) and new.startswith(prefix):
            renames[old[len(prefix) :]] = new[len(prefix) :]
    return renames


def _has_head(top: Path) -> bool:
    try:
        git.run(top, ["rev-parse", "--verify", "--quiet", "HEAD"])
    except git.GitError:
        return False
    return True


def follow(renames: dict[str, str], path: str, exists: set[str]) -> str | None:
    """Follow a chain of renames from `path` to a file that exists now."""
    seen: set[str] = set()
    current = path
    while current in renames and current not in seen:
        seen.add(current)
        current = renames[current]
        if current in exists:
            return current
    return None
