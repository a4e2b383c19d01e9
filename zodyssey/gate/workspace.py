"""Runs of the repositories a call reaches: workspaces and neighbouring checkouts.

Loaded only when the project dir is a folder above repositories, or when a
call inside a run is more than a plain read; standard library `os` only.
"""

import os

from zodyssey.core.vocabulary import STATE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

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


def unattributed(payload: "Any", start: str, harness_name: str, known: "list[str]") -> "list[str]":
    """Runs below a workspace folder that must judge a call no repository owns.

    A write that names no file, or a file outside every repository (in the
    workspace folder itself), cannot be attributed to one repository's run: every
    run below the workspace judges it (fail closed). Writes inside a repository
    without a run stay free.
    """
    below = [r for r in runs_below(start) if r not in known]
    if not below or not isinstance(payload, dict):
        return below if below and not isinstance(payload, dict) else []
    from zodyssey.gate.harness import get_harness

    try:
        call = get_harness(harness_name).to_call(payload)
    except KeyError:
        return below
    if call.error:
        return below
    cwd = call.cwd or start
    if call.kind in ("edit", "patch"):
        paths = [t.path for t in call.targets]
    elif call.kind == "shell":
        from zodyssey.gate.shell import classify

        analysis = classify(call.command)
        if analysis.unknown:
            return below
        paths = [t.path for t in (*analysis.targets, *analysis.linked)]
    else:
        return []
    home = os.path.expanduser("~")
    for path in paths:
        if path == "~" or path.startswith("~/"):
            path = home + path[1:]
        if not in_a_repository(os.path.join(cwd, path)):
            return below
    return []


def reached(payload: "Any", start: str, known: "list[str]") -> "list[str]":
    """Roots with run state that the call's paths reach, beyond `known`."""
    found = workspace_roots(payload, start, os.path.expanduser("~"), [])
    return [r for r in found if r not in known]


def more_runs(
    runs: "list[tuple[str, list[tuple[str, Any]]]]", payload: "Any", start: str
) -> "str | None":
    """Add the active runs of neighbouring repositories the call reaches; the reason
    to block when one of their state files cannot be read."""
    from zodyssey.gate.discovery import is_active, read_states, state_files

    for other in reached(payload, start, [r for r, _ in runs]):
        files = state_files(other)
        if not files:
            continue
        active = [(s, st) for s, st in read_states(other, files).runs if is_active(st)]
        for _, state in active:
            if isinstance(state, str):
                return state
        if active:
            runs.append((other, active))
    return None
