"""Path resolution and the path categories the gate rules are written in.

Targets are resolved the way the operating system would resolve them for the
call: `~` expanded, joined onto the call's cwd, `..` and symlinks resolved
(`os.path.realpath`, which also resolves the existing prefix of a path that
does not exist yet). Everything is compared as absolute real paths.
"""

import os

from zodyssey.core.vocabulary import BOOKKEEPING_DIRS, STATE_DIRS

# Hook configuration files: the installed gate, never writable during a run.
# The same names count in the repository and in the user's home directory
# (`~/.claude/settings.json` wires the hook for every project).
GATE_CONFIG_FILES = (
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".gemini/settings.json",
    ".cursor/hooks.json",
    ".codex/hooks.json",
    ".codex/config.toml",
)
# Harness configuration that changes what runs under the gate (subagents and
# their tools, MCP servers, skills, commands, extensions, ZCode's host hook
# registry), in the project and in the user's home: protected like the gate's
# own wiring, in every phase, whatever the plan declares.
HARNESS_CONFIG_PATHS = (
    ".claude/agents",
    ".claude/commands",
    ".claude/skills",
    ".mcp.json",
    ".gemini/agents",
    ".gemini/commands",
    ".gemini/extensions",
    ".codex/agents",
    ".codex/skills",
    ".codex/prompts",
    ".agents/skills",
    ".cursor/mcp.json",
    ".cursor/agents",
    ".cursor/commands",
    ".cursor/rules",
    ".zcode/cli/config.json",
)
# Everything above: ONE definition, used by the pre-call gate (Layout.gate_paths)
# and by the post-call effect check (zodyssey/sandbox/violations.py).
PROTECTED_CONFIG = (*GATE_CONFIG_FILES, *HARNESS_CONFIG_PATHS)
# Settings a machine administrator (or an agent with the rights) can set for every user.
SYSTEM_CONFIG_FILES = (
    "/etc/claude-code/managed-settings.json",
    "/Library/Application Support/ClaudeCode/managed-settings.json",
)
# The whole zodyssey package: the gate and the trusted writers it relies on.
GATE_PACKAGE_DIR = os.path.realpath(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_INSTALLED: list[str] = []


def installed_gate() -> tuple[str, ...]:
    """What runs when the hook runs, besides the package: computed once per process.

    The interpreter's `bin/` entries that start zodyssey (`zodyssey`, the
    `python*` links), and in every site directory on `sys.path` the `.pth`
    files and `sitecustomize`/`usercustomize` modules, which the interpreter
    executes at start-up of every hook process.
    """
    if _INSTALLED:
        return tuple(_INSTALLED)
    import sys

    found: list[str] = []
    bin_dir = os.path.dirname(os.path.abspath(sys.executable))
    for name in ("zodyssey", os.path.basename(sys.executable), "python", "python3"):
        candidate = os.path.join(bin_dir, name)
        if os.path.lexists(candidate):
            found.append(os.path.join(os.path.realpath(bin_dir), name))
    for entry in sys.path:
        if not entry or os.path.basename(entry) not in ("site-packages", "dist-packages"):
            continue
        try:
            names = os.listdir(entry)
        except OSError:
            continue
        real = os.path.realpath(entry)
        found.extend(
            os.path.join(real, name)
            for name in names
            if name.endswith(".pth")
            or name in ("sitecustomize.py", "usercustomize.py")
            or (name.startswith("__editable__") and "zodyssey" in name)
        )
    _INSTALLED.extend(dict.fromkeys(found))
    return tuple(_INSTALLED)


_TEST_NAME = (  # compiled on first use (re's cache): only frozen-test phases ask
    r"(^test_.*\.py$|.*_test\.py$|^tests\.py$|^conftest\.py$|.*_test\.go$|.*\.(test|spec)\.[cm]?[jt]sx?$"
    r"|.*_spec\.rb$|.*Tests?\.(?:java|kt|cs|swift)$|.*_test\.rs$)"
)
# Compared lower-cased (Swift and .NET projects use `Tests/`); `testdata/` holds
# Go's golden files, `__snapshots__/` and `__mocks__/` Jest's expected outputs.
_TEST_DIRS = frozenset(
    {
        "tests",
        "test",
        "__tests__",
        "spec",
        "specs",
        "testing",
        "testdata",
        "__snapshots__",
        "__mocks__",
    }
)


MAX_PATH = 4095  # PATH_MAX less its NUL: the system resolves no longer path


class PathTooLong(ValueError):
    """A path too long to judge: the gate blocks it (in milliseconds, unresolved)."""


def resolve(path: str, cwd: str, home: str) -> str:
    """The real path the system would write; PathTooLong past MAX_PATH characters.

    `os.path.realpath` costs a system call per component and grows with the
    length it has already resolved: bounding the input bounds the hook's time.
    """
    return os.path.realpath(_absolute(path, cwd, home))


def written(path: str, cwd: str, home: str) -> str:
    """The path as the call names it: its directory resolved, its last part kept.

    A symlink's own name (what a later `git checkout` or `rm` acts on) may be
    in scope while its target is not, or the other way round: the gate judges both.
    """
    path = os.path.normpath(_absolute(path, cwd, home))
    head, tail = os.path.split(path)
    if not tail or tail in (".", ".."):
        return os.path.realpath(path)
    return os.path.join(os.path.realpath(head), tail)


def _absolute(path: str, cwd: str, home: str) -> str:
    """`~` expanded and joined onto `cwd`; PathTooLong past MAX_PATH characters."""
    if path == "~" or path.startswith("~/"):
        path = home + path[1:]
    if not os.path.isabs(path):
        path = os.path.join(cwd, path)
    if len(path) > MAX_PATH:
        raise PathTooLong(
            f"blocks: too large to judge (a path of {len(path)} characters, over {MAX_PATH})"
        )
    return path


def within(path: str, directory: str) -> bool:
    if directory == "/":
        return True
    return path == directory or path.startswith(directory + "/")


def relative(path: str, root: str) -> str | None:
    """Repository-relative posix path, None when outside the repository."""
    if path == root:
        return "."
    if within(path, root):
        return path[len(root) + 1 :] if root != "/" else path[1:]
    return None


def is_test_file(rel: str) -> bool:
    parts = rel.split("/")
    if any(part.lower() in _TEST_DIRS for part in parts[:-1]):
        return True
    import re  # only frozen-test phases ask; the hook's write path does not load re

    return bool(re.match(_TEST_NAME, parts[-1]))


NOWHERE = "\x00not-a-directory"  # matches no path


def _real_dir(root: str, rel: str) -> str:
    """`root/rel` when every part of it below the root is a real directory (or
    absent); NOWHERE when a link is on the way (`.zcode/staging -> ..` would make
    every path bookkeeping)."""
    current = root
    for part in rel.split("/"):
        current = os.path.join(current, part)
        if os.path.islink(current):
            return NOWHERE
        if os.path.lexists(current) and not os.path.isdir(current):
            return NOWHERE
    return current


def _shell_prefix_program(root: str) -> str:
    """This repository's Claude Code shell prefix program (`sandbox/shell_prefix.py`):
    it decides whether a shell call runs in the sandbox, so it is the gate's own."""
    from zodyssey.core.paths import shell_prefix_program

    return os.path.realpath(shell_prefix_program(root))


class Layout:
    """The resolved locations of one repository's run layout."""

    def __init__(self, root: str, home: str | None = None) -> None:
        self.root = os.path.realpath(root)
        home = home if home is not None else os.path.expanduser("~")
        self.state_dirs = tuple(os.path.realpath(os.path.join(self.root, d)) for d in STATE_DIRS)
        self.plans_dir, self.notepads_dir, self.staging_dir = (
            _real_dir(self.root, d) for d in BOOKKEEPING_DIRS
        )
        wiring = PROTECTED_CONFIG
        user = (
            tuple(os.path.realpath(os.path.join(home, f)) for f in wiring)
            if home and home != "/"
            else ()
        )
        self.gate_paths = (
            *(os.path.realpath(os.path.join(self.root, f)) for f in wiring),
            *user,
            *SYSTEM_CONFIG_FILES,
            GATE_PACKAGE_DIR,
            *installed_gate(),
            _shell_prefix_program(self.root),
        )

    def configuration(self, path: str) -> str | None:
        """The gate wiring or harness configuration of the repository (PROTECTED_CONFIG)
        that `path` is or lies in, else None."""
        for rel in PROTECTED_CONFIG:
            if within(path, os.path.join(self.root, rel)):
                return rel
        return None

    def run_state(self, path: str) -> str | None:
        """The run-state location `path` is in (or contains), else None; letter case
        is ignored (a case-insensitive file system reaches `.ZCODE/STATE` as well)."""
        lowered = path.lower()
        for directory in self.state_dirs:
            if within(lowered, directory.lower()) or within(directory.lower(), lowered):
                return directory
        return None

    def gate(self, path: str) -> str | None:
        for protected in self.gate_paths:
            if within(path, protected) or within(protected, path):
                return protected
        return None

    def bookkeeping(self, path: str) -> str | None:
        for directory in (self.plans_dir, self.notepads_dir, self.staging_dir):
            if within(path, directory):
                return directory
        return None

    def show(self, path: str) -> str:
        rel = relative(path, self.root)
        return rel if rel is not None else path
