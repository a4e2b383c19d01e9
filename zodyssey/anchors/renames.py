"""Where a cited file went, per git: renames in the work tree, the index and history.

Asked only when a citation no longer resolves but its path is in the lock, so
most runs never import git. Without a repository there are no renames.
"""

from __future__ import annotations

import contextlib
from pathlib import Path


def _parse_name_status(output: str, into: dict[str, str]) -> None:
    for line in output.splitlines():
        parts = line.split("\t")
        if len(parts) == 3 and parts[0].startswith("R"):
            into.setdefault(parts[1], parts[2])


def git_renames(root: Path) -> dict[str, str]:
    """old repo-relative path -> newer path (the most recent rename wins)."""
    renames: dict[str, str] = {}
    try:
        import git

        repo = git.Repo(root, search_parent_directories=True)
    except Exception:
        return renames
    try:
        top = Path(repo.working_tree_dir or root).resolve()
        prefix = Path(root).resolve().relative_to(top).as_posix()
        prefix = "" if prefix == "." else prefix + "/"
        found: dict[str, str] = {}
        # Uncommitted renames first (`git mv`, staged or not), then committed ones, newest first.
        try:
            if repo.head.is_valid():
                _parse_name_status(repo.git.diff("HEAD", "-M", "--name-status"), found)
            else:
                _parse_name_status(repo.git.diff("--cached", "-M", "--name-status"), found)
        except git.GitCommandError:
            pass
        with contextlib.suppress(git.GitCommandError):
            _parse_name_status(
                repo.git.log("-M", "--diff-filter=R", "--name-status", "--format="), found
            )
        for old, new in found.items():
            if old.startswith(prefix) and new.startswith(prefix):
                renames[old[len(prefix) :]] = new[len(prefix) :]
    finally:
        repo.close()
    return renames


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
