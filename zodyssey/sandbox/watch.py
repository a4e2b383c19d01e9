"""What the post-call check compares outside the work tree: the files that change
what runs next, though git's status of the work tree never shows them.

* git's own metadata of the repository: `config` (and `config.worktree`), every
  hook git knows by name (a new one is a change: a missing hook is compared as
  missing), and `info/` (exclude, attributes, sparse-checkout). A hook or a
  `core.fsmonitor` planted there runs at the person's next `git commit`.
* the harness and shell configuration in the home directory (docs/ADAPT.md,
  "What the effect check compares in your home"): the hook wiring and harness
  configuration of every adapter (the same relative paths as in the
  repository), the shell start-up files every shell of the person's reads,
  and git's global configuration, ignore and attributes files.

A directory in the list is compared by its own stat data (an entry added or
removed changes it) and by each file directly inside it.

Hot path (the hook's pre-tool): `os` only.
"""

import os

GIT_FILES = ("config", "config.worktree", "info/exclude", "info/attributes", "info/sparse-checkout")
GIT_HOOKS = (
    "applypatch-msg",
    "pre-applypatch",
    "post-applypatch",
    "pre-commit",
    "pre-merge-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "pre-rebase",
    "post-checkout",
    "post-merge",
    "pre-push",
    "pre-receive",
    "update",
    "proc-receive",
    "post-receive",
    "post-update",
    "reference-transaction",
    "push-to-checkout",
    "pre-auto-gc",
    "post-rewrite",
    "sendemail-validate",
    "fsmonitor-watchman",
    "p4-changelist",
    "p4-prepare-changelist",
    "p4-post-changelist",
    "p4-pre-submit",
    "post-index-change",
)
# Read by every shell (or git) the person or a harness starts.
HOME_FILES = (
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshenv",
    ".zprofile",
    ".zshrc",
    ".zlogin",
    ".config/fish/config.fish",
    ".gitconfig",
    ".config/git/config",
    ".config/git/ignore",
    ".config/git/attributes",
)


def watched(root: str, git_dir: str, home: str, harness_paths: "tuple[str, ...]") -> "list[str]":
    """Absolute paths the check compares outside the work tree (see the docstring).

    `harness_paths`: the adapters' protected configuration, relative paths
    (files or directories) that count in the home directory as in the repository."""
    out = [os.path.join(git_dir, name) for name in GIT_FILES]
    out.append(os.path.join(git_dir, "hooks"))
    out.extend(os.path.join(git_dir, "hooks", name) for name in GIT_HOOKS)
    out.extend(_inside(os.path.join(git_dir, "hooks")))
    if home and home != "/" and os.path.realpath(home) != os.path.realpath(root):
        for rel in (*harness_paths, *HOME_FILES):
            path = os.path.join(home, rel)
            out.append(path)
            out.extend(_inside(path))
    return list(dict.fromkeys(out))


def _inside(path: str) -> "list[str]":
    """The entries directly inside `path` when it is a real directory (at most 256)."""
    if os.path.islink(path) or not os.path.isdir(path):
        return []
    try:
        with os.scandir(path) as entries:
            names = sorted(e.name for e in entries)
    except OSError:
        return []
    return [os.path.join(path, name) for name in names[:256]]
