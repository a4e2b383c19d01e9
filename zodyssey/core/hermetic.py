"""Git as the gate runs it: hermetic, reading nothing the agent could have written.

Every git the gate runs in the hook (the effect check's snapshots) and the git
writes of trusted `zodyssey run` code (the evidence anchor's `update-ref`, the
work tree's fingerprint for evidence) take `hermetic_env(root)` and
`HERMETIC_CONFIG`: no `GIT_*` variable of the caller's, no system or global
configuration (the home directory is the agent's to write), no hooks (an
`update-ref` runs `reference-transaction`), no fsmonitor daemon, no
attributes or excludes file from the home directory, and the repository named
outright (`GIT_DIR`, `GIT_WORK_TREE`), so no `.git` file or `core.worktree`
below the root redirects git. The repository's own `.git/config` is read: it
is protected during a run (the kernel, the gate's rules) and compared by the
effect check.

Hook-safe (core/__init__.py): `os` and `zodyssey.core` only.
"""

import os

# What every git the check runs is given on its command line: no hooks, no
# fsmonitor daemon, no attributes or excludes file from the user's home (the
# agent can write there); with `hermetic_env` no system or global config either.
HERMETIC_CONFIG = (
    *("-c", "core.quotepath=off", "-c", "core.fsmonitor=false"),
    *("-c", "core.hooksPath=" + os.devnull, "-c", "core.attributesFile=" + os.devnull),
    *("-c", "core.excludesFile=" + os.devnull),
)


def hermetic_env(root: str) -> "dict[str, str]":
    """The environment of the check's git: no `GIT_*` variable of the caller's
    (`GIT_DIR`, `GIT_CONFIG_PARAMETERS`, `GIT_EXEC_PATH`, ...), no system or
    global configuration, and the repository named outright (`GIT_DIR`: the
    root's own `.git`, or the directory its `.git` file names; `GIT_WORK_TREE`:
    the root), so no `.git` file or `core.worktree` below or inside it redirects
    git elsewhere. The repository's own `.git/config` is read: it is protected
    during a run (the kernel, the gate's rules) and compared by the check."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["GIT_CONFIG_NOSYSTEM"] = "1"
    env["GIT_CONFIG_GLOBAL"] = os.devnull
    env["GIT_ATTR_NOSYSTEM"] = "1"
    env["GIT_TERMINAL_PROMPT"] = "0"
    env["GIT_NO_REPLACE_OBJECTS"] = "1"
    env["GIT_DIR"] = git_dir(root)
    env["GIT_WORK_TREE"] = root
    return env


def git_dir(root: str) -> str:
    """The root's `.git` directory, or the one its `.git` file names (a worktree)."""
    dot_git = os.path.join(root, ".git")
    if not os.path.isfile(dot_git) or os.path.islink(dot_git):
        return dot_git
    from zodyssey.core.files import read_regular

    text = read_regular(dot_git)[:4096].decode("utf-8", "surrogateescape")
    if not text.startswith("gitdir:"):
        return dot_git
    return os.path.join(root, text[len("gitdir:") :].strip())
