"""Finding the run layout: a few `stat` calls, standard library `os` only.

This is all the hook does when no run is active, so it imports nothing else.
"""

from __future__ import annotations

import os

SLUG_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")


def find_root(start: str) -> str | None:
    """The nearest directory at or above `start` holding `.zcode/state`.

    The search stops at the first directory holding `.git` (the repository
    root), so a run in an unrelated parent directory is never picked up.
    """
    current = os.path.abspath(start)
    while True:
        if os.path.isdir(os.path.join(current, ".zcode", "state")):
            return current
        if os.path.exists(os.path.join(current, ".git")):
            return None
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def state_files(root: str) -> list[tuple[str, str]]:
    """(slug, path) of every run state file under `root`."""
    directory = os.path.join(root, ".zcode", "state")
    out: list[tuple[str, str]] = []
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".json") or name.endswith(".inflight.json"):
            continue
        slug = name[:-5]
        if not slug or slug.startswith("-") or not set(slug) <= SLUG_CHARS:
            continue
        out.append((slug, os.path.join(directory, name)))
    return out
