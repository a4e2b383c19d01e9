"""Finding the run layout: a few `stat` calls, standard library `os` only.

This is all the hook does when no run is active, so it imports nothing else:
not even `typing` or `__future__` (annotations that need names from `typing`
are strings, resolved by the type checker only), since every import here is
paid on every tool call of every agent.
"""

import os

from zodyssey.runstate import STATE, TERMINAL_PHASES, is_slug

TYPE_CHECKING = False  # mypy treats this as typing.TYPE_CHECKING; no runtime import
if TYPE_CHECKING:
    from typing import Any


def find_root(start: str) -> str | None:
    """The nearest directory at or above `start` holding `.zcode/state`.

    The search stops at the first directory holding `.git` (the repository
    root), so a run in an unrelated parent directory is never picked up.
    """
    return locate(start)[0]


def locate(start: str) -> "tuple[str | None, bool]":
    """(find_root(start), whether the search met a repository on the way up).

    Not meeting one means `start` is a folder above repositories (a workspace):
    their runs are then found from the paths each call reaches.
    """
    current = os.path.abspath(start)
    while True:
        if os.path.isdir(os.path.join(current, STATE)):
            return current, True
        if os.path.exists(os.path.join(current, ".git")):
            return None, True
        parent = os.path.dirname(current)
        if parent == current:
            return None, False
        current = parent


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
    from zodyssey.gate.jsontext import loads  # json.loads without importing json

    runs: list[tuple[str, dict[str, Any] | str]] = []
    for slug, path in files:
        name = os.path.basename(path)
        try:
            with open(path, encoding="utf-8") as handle:
                value = loads(handle.read())
        except FileNotFoundError:
            continue  # removed between listdir and open
        except (OSError, ValueError) as exc:
            runs.append(
                (
                    slug,
                    f"run state .zcode/state/{name} is unreadable ({exc.__class__.__name__}: {exc})",
                )
            )
            continue
        if not isinstance(value, dict):
            runs.append((slug, f"run state .zcode/state/{name} does not hold a JSON object"))
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


MAX_WALK = 40  # directory levels walked up from one path
MAX_CANDIDATES = 64  # paths taken from one tool call
_SEPARATORS = " \t\n\r'\"`=,;:()[]{}<>|&"


def repo_root_with_run(path: str) -> str | None:
    """Walk up from `path` to its repository (the first `.git`): the directory there
    (or below it) that holds `.zcode/state`, else None. Bounded by MAX_WALK levels."""
    current = os.path.abspath(path)
    for _ in range(MAX_WALK):
        if os.path.isdir(os.path.join(current, STATE)):
            return current
        if os.path.exists(os.path.join(current, ".git")):
            return None
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent
    return None


# Keys whose values are file contents or prose, not paths.
_TEXT_KEYS = frozenset(
    {"content", "new_string", "old_string", "new_source", "description", "prompt", "contents"}
)


def _words(value: "Any", out: "list[str]", depth: int = 0) -> None:
    """Every word of the call's input (paths, shell words), bounded."""
    if len(out) >= MAX_CANDIDATES or depth > 3:
        return
    if isinstance(value, str):
        token: list[str] = []
        for ch in value[:65536] + " ":
            if ch in _SEPARATORS:
                if token:
                    out.append("".join(token))
                    if len(out) >= MAX_CANDIDATES:
                        return
                    token = []
            else:
                token.append(ch)
    elif isinstance(value, dict):
        for key, item in value.items():
            if key not in _TEXT_KEYS:
                _words(item, out, depth + 1)
    elif isinstance(value, list):
        for item in value[:MAX_CANDIDATES]:
            _words(item, out, depth + 1)


def workspace_roots(payload: "Any", start: str, home: str, extra: "list[str]") -> "list[str]":
    """Repositories with run state that one tool call reaches, found from its paths.

    For a project dir that is a folder above several repositories (a workspace),
    the run that guards a file is the one of the repository holding that file:
    walk up from the call's cwd and from every path-like word of its input.
    `extra` adds paths found otherwise (the shell classifier's targets).
    """
    cwd = start
    words: list[str] = list(extra)
    if isinstance(payload, dict):
        if isinstance(payload.get("cwd"), str) and payload["cwd"]:
            cwd = payload["cwd"]
        _words(payload.get("tool_input"), words)
    roots: list[str] = []
    seen: set[str] = set()
    cwd = os.path.abspath(cwd)
    for word in [cwd, *words]:
        if word == "~" or word.startswith("~/"):
            word = home + word[1:]
        elif word.startswith(("~", "-")):
            continue
        path = os.path.normpath(os.path.join(cwd, word))
        if "/" in word or word.startswith("."):
            parent = path if os.path.isdir(path) else os.path.dirname(path)
        elif os.path.isdir(path):
            parent = path  # a bare word naming a directory (`cd service`)
        else:
            continue  # a bare word that is not a directory here: the cwd covers it
        if parent in seen:
            continue
        seen.add(parent)
        root = repo_root_with_run(os.path.realpath(parent))  # through links, too
        if root is not None and root not in roots:
            roots.append(root)
    return roots


_SKIP_BELOW = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", ".zcode"})


def runs_below(start: str, depth: int = 3, budget: int = 2000) -> "list[str]":
    """Directories holding `.zcode/state` up to `depth` levels below a workspace folder.

    Bounded (`budget` directory entries at most): a workspace is a handful of
    checkouts, not a file system to crawl. Not descending into a repository's
    own tree beyond its root keeps the walk to the folders above repositories.
    """
    found: list[str] = []
    level = [os.path.abspath(start)]
    for _ in range(depth):
        following: list[str] = []
        for directory in level:
            try:
                entries = os.listdir(directory)
            except OSError:
                continue
            budget -= len(entries)
            if budget < 0:
                return found
            for name in entries:
                if name in _SKIP_BELOW:
                    continue
                path = os.path.join(directory, name)
                if not os.path.isdir(path) or os.path.islink(path):
                    continue
                if os.path.isdir(os.path.join(path, STATE)):
                    found.append(path)
                elif not os.path.exists(os.path.join(path, ".git")):
                    following.append(path)
        level = following
    return found


def in_a_repository(path: str) -> bool:
    """Whether `path` lies in a git work tree (a `.git` at or above it, bounded)."""
    current = os.path.abspath(path)
    for _ in range(MAX_WALK):
        if os.path.exists(os.path.join(current, ".git")):
            return True
        parent = os.path.dirname(current)
        if parent == current:
            return False
        current = parent
    return False
