"""The native sandbox helper: `zodyssey sandbox` without an interpreter's start-up.

A Python runner pays the interpreter's start-up (tens of milliseconds) before
every shell command of a run; the issue's target is 5 ms. The helper
(`helper.c` beside this file, about 300 lines of C, libc only) applies the
same Landlock layers with direct system calls and `exec`s the command, in
about a millisecond. It does not compute grants: the Python runner does, once,
and writes them to `.zcode/state/SLUG.grants` with the stamp of everything
they were computed from; the helper applies them only while every stamp still
matches, and otherwise execs the Python runner, which computes them afresh.

Why built here, not installed: no maintained package on PyPI ships a
Landlock exec wrapper as a binary wheel (the Landlock packages there are
Python bindings, which would still pay the interpreter); util-linux `setpriv
--landlock-access` exists only from 2.40 and cannot express per-run grants
from a state file. So the helper is compiled from the package's own source
at first use, when a C compiler (`$CC`, `cc`, `gcc`) is on PATH, after the
source's sha256 is checked against `SOURCE_SHA256` (a changed source is never
compiled; a test keeps the two equal). Without a compiler everything works
as before through the Python runner.

Where the binary lives: `ROOT/.zcode/state/sandbox-helper-<sha256[:16]>`,
run state, which the sandbox never grants (the kernel denies every sandboxed
command a write there) and the gate's rules keep every other tool from
writing. Not the user's cache: `~/.cache` is granted to sandboxed commands as
a package cache, so a helper there could be replaced from inside the sandbox
by one that restricts nothing.

Grants file (text, one item a line, paths last so they may hold spaces; a
path with a newline is never written: no file, so the Python runner decides):

    zodyssey-sandbox-grants 1
    abi N                       the kernel's Landlock ABI the rights are for
    handled RIGHTS              the write rights the ruleset handles
    scoped SCOPES               ABI 6+: abstract sockets and signals
    stamp DEV INO SIZE MTIME_NS CTIME_NS PATH    an input, as lstat saw it
    inode DEV INO PATH          an input that must only be the same inode
    absent PATH                 an input that did not exist
    envin NAME=VALUE            an environment value the grants depend on
    env NAME=VALUE              set for the command (a private TMPDIR)
    grant RIGHTS DEV INO PATH   a rule: PATH must open as that inode
    end
"""

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "helper.c")
SOURCE_SHA256 = "5846dd518e261ebc6b1682502db229e5850e43b8c8baf643fb97bd98ecf1616b"  # sha256 of helper.c; tests/sandbox/test_native_helper.py checks it
HEADER = "zodyssey-sandbox-grants 1"
ENV_INPUTS = ("TMPDIR", "XDG_CACHE_HOME", "HOME")


def helper_path(root: str) -> str:
    """Where the helper of this package's source lives for repository `root`."""
    return os.path.join(root, ".zcode", "state", "sandbox-helper-" + SOURCE_SHA256[:16])


def grants_path(root: str, slug: str) -> str:
    return os.path.join(root, ".zcode", "state", slug + ".grants")


def available(root: str) -> str | None:
    """The helper's path when it is built and executable (one `access` call: the
    hook asks this for every wrapped command), else None."""
    path = helper_path(root)
    return path if os.access(path, os.X_OK) else None


def _stamp(path: str, inode_only: bool = False) -> str:
    """`stamp ...` (`inode ...`) or `absent ...` of one input path."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return f"absent {path}"
    if inode_only:
        return f"inode {info.st_dev} {info.st_ino} {path}"
    return (
        f"stamp {info.st_dev} {info.st_ino} {info.st_size} {info.st_mtime_ns} "
        f"{info.st_ctime_ns} {path}"
    )


def inputs(root: str, slug: str, state: "dict[str, Any]") -> "list[str]":
    """The stamp lines of what the grants of run `slug` are computed from, taken
    before they are computed (a change while computing makes them stale)."""
    from zodyssey.core.paths import plan_location, state_path
    from zodyssey.core.vocabulary import CONFIG_FILES

    paths = [state_path(root, slug)]
    try:
        paths.append(os.fspath(plan_location(state, root, slug)))
    except (ValueError, TypeError):
        paths.append(os.path.join(root, ".zcode", "plans"))  # no plan: its folder's stamp
    paths.extend(os.path.join(root, name) for name in CONFIG_FILES)
    paths.extend(os.path.join(root, rel) for rel in (".gitignore", ".git/info/exclude"))
    lines = [_stamp(p) for p in dict.fromkeys(paths)]
    # git and zcode rewrite their folders all the time: what the grants depend
    # on is which folder (or file, or link) they are
    lines.extend(_stamp(os.path.join(root, rel), inode_only=True) for rel in (".git", ".zcode"))
    lines.extend(f"envin {name}={os.environ.get(name, '')}" for name in ENV_INPUTS)
    return lines


def grant_lines(grants: "Any", abi: int) -> "list[str] | None":
    """The lines of one run's grants at ABI `abi`; None when one cannot be written."""
    from zodyssey.sandbox import landlock as ll

    handled = ll.handled_writes(abi)
    scoped = ll.SCOPE_ABSTRACT_UNIX_SOCKET | ll.SCOPE_SIGNAL if abi >= 6 else 0
    lines = [f"abi {abi}", f"handled {handled}", f"scoped {scoped}"]
    lines.extend(f"absent {p}" for p in grants.absent)
    rules = (_rule(path, rights & handled) for path, rights, _ in grants.grants)
    lines.extend(rule for rule in rules if rule)
    lines.extend(f"env {name}={value}" for name, value in sorted(grants.env.items()))
    return None if _unsafe(lines) else lines


def _unsafe(lines: "list[str]") -> bool:
    """A line break or NUL inside an item (a path): the file would not parse."""
    text = "".join(lines)
    return "\n" in text or "\r" in text or "\0" in text


def _rule(path: str, allowed: int) -> str | None:
    """`grant RIGHTS DEV INO PATH`, the rights a file cannot carry dropped for a
    file; None for a path that is gone (as the Python runner: a grant exists on
    what exists) or no right left."""
    from zodyssey.sandbox import landlock as ll

    try:
        info = os.stat(path)
    except OSError:
        return None
    if not os.path.isdir(path):
        allowed &= ll.FILE_RIGHTS
    return f"grant {allowed} {info.st_dev} {info.st_ino} {path}" if allowed else None


def write_grants(root: str, slug: str, stamps: "list[str]", grants: "Any", abi: int) -> bool:
    """Write `.zcode/state/SLUG.grants` (atomically); False when it cannot be."""
    from zodyssey.core.atomic import write_atomic

    lines = grant_lines(grants, abi)
    if lines is None or _unsafe(stamps):
        return False
    text = "\n".join([HEADER, *stamps, *lines, "end"]) + "\n"
    path = grants_path(root, slug)
    try:
        with open(path, encoding="utf-8") as handle:
            if handle.read(len(text) + 1) == text:
                return True  # the same grants: no write, no fsync
    except (OSError, UnicodeDecodeError):
        pass
    try:
        write_atomic(path, text)
    except OSError:
        return False
    return True


def _compiler() -> str | None:
    import shutil

    for name in (os.environ.get("CC") or "", "cc", "gcc"):
        if name:
            found = shutil.which(name)
            if found:
                return found
    return None


def source_ok() -> bool:
    """The helper's source is the one this package was released with."""
    import hashlib

    try:
        with open(SOURCE, "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest() == SOURCE_SHA256
    except OSError:
        return False


def build(root: str) -> str | None:
    """Compile the helper for `root` unless it is there; its path, or None (no
    compiler, the source's hash differs, the compiler failed)."""
    import subprocess

    target = helper_path(root)
    if os.access(target, os.X_OK):
        return target
    compiler = _compiler()
    if compiler is None or not source_ok() or not os.path.isdir(os.path.dirname(target)):
        return None
    temp = f"{target}.{os.getpid()}.tmp"
    try:
        done = subprocess.run(
            [compiler, "-O2", "-std=c11", "-o", temp, SOURCE],
            capture_output=True,
            timeout=120,
            check=False,
        )
        if done.returncode != 0 or not os.path.isfile(temp):
            return None
        os.chmod(temp, 0o755)
        os.replace(temp, target)
    except (OSError, subprocess.SubprocessError):
        return None
    finally:
        if os.path.lexists(temp):
            os.unlink(temp)
    return target
