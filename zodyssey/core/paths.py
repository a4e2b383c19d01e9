"""Where run state lives: the one family of `.zcode/` path helpers.

Every helper answers in the type it is given: a `str` root gives a `str` (the
gate hook works on strings and never imports `pathlib`), a `Path` root gives a
`Path`. The names of the directories are `zodyssey.core.vocabulary`'s.
"""

import os

from zodyssey.core.vocabulary import ARCHIVE, PLANS, REVIEWS, STATE, VERIFY, ZCODE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import TypeVar

    P = TypeVar("P", str, Path)  # a helper answers in the path type it was given


def _join(root: "P", *parts: str) -> "P":
    if isinstance(root, str):
        return os.path.join(root, *parts)
    return root.joinpath(*parts)


def zcode_dir(root: "P") -> "P":
    return _join(root, ZCODE)


def state_dir(root: "P") -> "P":
    return _join(root, STATE)


def state_path(root: "P", slug: str) -> "P":
    return _join(root, STATE, f"{slug}.json")


def inflight_path(root: "P", slug: str) -> "P":
    """The gate's in-flight ledger of reviewer dispatches."""
    return _join(root, STATE, f"{slug}.inflight.json")


def ungated_path(root: "P", slug: str) -> "P":
    """The log of shell commands the gate let through unjudged (the hatch)."""
    return _join(root, STATE, f"{slug}.ungated.jsonl")


def plan_path(root: "P", slug: str) -> "P":
    """The default plan of a run (`plan_location` says where its plan is)."""
    return _join(root, PLANS, f"{slug}.md")


def reviews_dir(root: "P") -> "P":
    return _join(root, REVIEWS)


def verify_dir(root: "P", slug: str) -> "P":
    return _join(root, VERIFY, slug)


def evidence_path(root: "P", slug: str) -> "P":
    """The run's hash-chained evidence (`""` as root: the path relative to the repository)."""
    return _join(root, VERIFY, slug, "evidence.jsonl")


def archive_dir(root: "P") -> "P":
    return _join(root, ARCHIVE)


def stored(path: "str | Path", root: "str | Path") -> str:
    """How run state names a file: relative to the repository root (POSIX
    separators) when it lies inside, so the state still holds when the
    repository's folder is renamed or moved; else the path as given."""
    full, base = os.fspath(path), os.fspath(root)
    if not os.path.isabs(full):
        return full.replace(os.sep, "/")
    rel = os.path.relpath(full, base)
    if rel == os.curdir or rel == os.pardir or rel.startswith(os.pardir + os.sep):
        return full
    return rel.replace(os.sep, "/")


def in_repository(raw: str, root: str, state: dict) -> str:  # type: ignore[type-arg]
    """A path the run state names, as a path now: a relative one is relative to
    the repository root; an absolute one under the root the state was written in
    (its `project_dir`, older states name absolute paths) is the same place
    under `root` now (the folder was renamed or moved); anything else as
    written. Whether it lies inside the repository is the caller's check."""
    if not os.path.isabs(raw):
        return os.path.join(root, raw)
    old = state.get("project_dir")
    if isinstance(old, str) and os.path.isabs(old):
        prefix = old.rstrip("/") + "/"
        if raw.startswith(prefix) and old.rstrip("/") != root.rstrip("/"):
            return os.path.join(root, raw[len(prefix) :])
    return raw


def plan_location(state: dict, root: str, slug: str) -> str:  # type: ignore[type-arg]
    """The plan_path rule, the same for the gate, `zodyssey run` and the audit.

    A missing or empty `plan_path` means the default `.zcode/plans/<slug>.md`;
    a relative one is relative to the repository root, an absolute one is read
    by `in_repository` (a renamed repository folder). Anything but a string
    raises ValueError. Whether it lies inside the repository is the caller's
    check (after resolving symlinks).
    """
    raw = state.get("plan_path")
    if raw is None or raw == "":
        return plan_path(root, slug)
    if not isinstance(raw, str):
        raise ValueError("plan_path in the run state is not a string")
    return in_repository(raw, root, state)


SHELL_PREFIX_NAME = "zodyssey-shell-"


def shell_prefix_program(root: str) -> str:
    """Claude Code's shell prefix program of repository `root`, next to this
    interpreter (`zodyssey/sandbox/shell_prefix.py` writes and runs it)."""
    import sys

    digest = 0xCBF29CE484222325  # FNV-1a, 64 bits: no hashlib on the hook's path
    for byte in os.path.realpath(root).encode("utf-8", "surrogateescape"):
        digest = ((digest ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    bin_dir = os.path.dirname(os.path.abspath(sys.executable))
    return os.path.join(bin_dir, f"{SHELL_PREFIX_NAME}{digest:016x}")
