"""Finding the run layout: a few `stat` calls, standard library `os` only.

This is all the hook does when no run is active, so it imports nothing else:
not even `typing` or `__future__` (annotations that need names from `typing`
are strings, resolved by the type checker only), since every import here is
paid on every tool call of every agent.
"""

import os

from zodyssey.core.vocabulary import STATE, TERMINAL_PHASES, is_slug

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def find_root(start: str) -> str | None:
    """The nearest directory at or above `start` holding `.zcode/state`.

    The search stops at the first directory holding `.git` (the repository
    root), so a run in an unrelated parent directory is never picked up.
    """
    return locate(start)[0]


def locate(start: str) -> "tuple[str | None, bool]":
    """(the repository-level run root for `start`, whether a repository was met).

    See locate_all; this keeps the outermost root found (the repository's).
    """
    roots, in_repo = locate_all(start)
    return (roots[-1] if roots else None), in_repo


MAX_LEVELS = 64  # directory levels walked up from one start


def locate_all(start: str) -> "tuple[list[str], bool]":
    """Every directory from `start` up to its repository root that holds
    `.zcode/state`, innermost first; and whether a repository (`.git`) was met.

    The walk does not stop at the first `.zcode/state`: one planted in a
    subdirectory (`pkg/.zcode/state/`, an empty or finished run) must not hide
    the repository's own run. Not meeting a repository means `start` is a
    folder above repositories (a workspace), run state there or not: a
    `.zcode/state` planted in a workspace folder must not keep the hook from
    looking for the runs of the repositories below it.
    """
    current = os.path.abspath(start)
    found: list[str] = []
    for _ in range(MAX_LEVELS):
        if os.path.isdir(os.path.join(current, STATE)):
            found.append(current)
        if os.path.exists(os.path.join(current, ".git")):
            return found, True
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    return found, False


def state_files(root: str) -> list[tuple[str, str]]:
    """(slug, path) of every run state file under `root`."""
    directory = os.path.join(root, STATE)
    out: list[tuple[str, str]] = []
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".json") or name.endswith(".inflight.json"):
            continue
        slug = name[:-5]
        if not is_slug(slug):
            continue
        out.append((slug, os.path.join(directory, name)))
    return out


class Discovery:
    """The runs found under one root (a plain class: a NamedTuple costs ~1 ms to create)."""

    __slots__ = ("root", "runs")

    def __init__(self, root: str | None, runs: "list[tuple[str, dict[str, Any] | str]]") -> None:
        self.root = root  # the directory holding .zcode/state, None when there is none
        self.runs = runs  # (slug, state or why it is unreadable)


def read_states(root: str, files: list[tuple[str, str]]) -> "Discovery":
    """Parse each state file; one that cannot be read yields the reason instead."""
    from zodyssey.core.files import NotRegularFile, open_regular
    from zodyssey.core.jsontext import loads  # json.loads without importing json

    runs: list[tuple[str, dict[str, Any] | str]] = []
    for slug, path in files:
        name = os.path.basename(path)
        try:
            # Never `open()`: a FIFO planted as the state would wait for a writer
            # past the harness's timeout, /dev/zero never ends; both are refused.
            with os.fdopen(open_regular(path, "run state"), encoding="utf-8") as handle:
                value = loads(handle.read())
        except FileNotFoundError:
            continue  # removed between listdir and open
        except (OSError, ValueError, NotRegularFile) as exc:
            runs.append(
                (
                    slug,
                    f"run state {STATE}/{name} is unreadable ({exc.__class__.__name__}: {exc})",
                )
            )
            continue
        if not isinstance(value, dict):
            runs.append((slug, f"run state {STATE}/{name} does not hold a JSON object"))
            continue
        runs.append((slug, value))
    return Discovery(root, runs)


def is_active(state: "dict[str, Any] | str") -> bool:
    """Active unless the phase is terminal; unreadable state counts as active (fail closed).

    `blocked` is active: the round cap closes the gate, it never opens it.
    """
    if isinstance(state, str):
        return True
    return state.get("phase") not in TERMINAL_PHASES
