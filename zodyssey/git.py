"""Every git access of zodyssey goes through this module.

Two ways in, each where it pays for itself:

- Plain `git` subprocesses (`run`, `output`, `toplevel`): blame, tree diffs, logs,
  status and `cat-file --batch` all produce machine-readable streams
  (`--porcelain`, `-z`) that we parse directly. One process per query, bytes
  out, no object model to build, and the functions are plain and picklable, so
  the history check can call them from a process pool.
- GitPython (`open_repo`, `remote_urls`): where its object model earns its
  import: finding the repository that holds a path (parent directories
  searched) and reading its remotes and their URLs. It is imported lazily, only
  by the callers that need it.

One error type: `GitError` (a `ZodysseyError`, exit 2) whose message reads
`git <subcommand>: <git's last line of stderr>`; `GitUnavailable` is the case
"git is missing or this is not a work tree". Reads never take the index lock
(`GIT_OPTIONAL_LOCKS=0`) and ignore a `GIT_DIR`/`GIT_WORK_TREE` inherited from
a calling hook.

The gate hook never imports this module: its hot path reads no git.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from zodyssey.core.exits import Exit
from zodyssey.errors import ZodysseyError


class GitError(ZodysseyError):
    """A git command failed; the message names the subcommand and git's reason."""

    exit_code = Exit.USAGE


class GitUnavailable(GitError):
    """git is missing, or the path is not inside a work tree."""


class GitTimeout(GitError):
    """git did not answer within the caller's timeout."""


def environment() -> dict[str, str]:
    """The environment every git subprocess runs with."""
    env = dict(os.environ)
    # Reading must never take the index lock another git process may hold.
    env["GIT_OPTIONAL_LOCKS"] = "0"
    env.pop("GIT_DIR", None)
    env.pop("GIT_WORK_TREE", None)
    env.pop("GIT_INDEX_FILE", None)
    return env


def _reason(args: Sequence[str], stderr: bytes, code: int) -> str:
    lines = stderr.decode("utf-8", "replace").strip().splitlines()
    subcommand = next((a for a in args if not a.startswith("-")), "git")
    return f"git {subcommand}: {lines[-1] if lines else f'exited {code}'}"


def run(
    cwd: Path | str,
    args: Sequence[str],
    *,
    stdin: bytes | None = None,
    timeout: float | None = None,
    hermetic: bool = False,
) -> bytes:
    """Run `git args` in `cwd` and return its stdout; raise GitError with git's reason
    (GitTimeout after `timeout` seconds, when given). `hermetic`: `cwd` is the
    repository's root and git reads nothing the agent could have written, runs no
    hook and no fsmonitor (`zodyssey.core.hermetic`): for trusted writes during a
    run (the evidence anchor) and the work-tree fingerprint of evidence."""
    env = environment()
    if hermetic:
        from zodyssey.core.hermetic import HERMETIC_CONFIG, hermetic_env

        env = {**hermetic_env(os.fspath(cwd)), "GIT_OPTIONAL_LOCKS": "0"}
        args = [*HERMETIC_CONFIG, *args]
    try:
        proc = subprocess.run(
            ["git", *args],
            cwd=cwd,
            input=stdin,
            capture_output=True,
            env=env,
            check=False,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as exc:
        subcommand = next((a for a in args if not a.startswith("-")), "git")
        raise GitTimeout(f"git {subcommand}: no answer in {timeout:g} s") from exc
    except FileNotFoundError as exc:
        raise GitUnavailable("git is not installed (no `git` on PATH)") from exc
    except NotADirectoryError as exc:
        raise GitUnavailable(f"{cwd} is not a directory") from exc
    if proc.returncode != 0:
        raise GitError(_reason(args, proc.stderr, proc.returncode))
    return proc.stdout


def output(cwd: Path | str, *args: str) -> bytes | None:
    """`git args` output, or None when git fails or is missing.

    For callers to whom no git means no evidence (they stay conservative)."""
    try:
        return run(cwd, args)
    except GitError:
        return None


def show_prefix(cwd: Path | str) -> str | None:
    """`cwd` relative to the top of its work tree ('' or 'sub/'); None without git."""
    out = output(cwd, "rev-parse", "--show-prefix")
    return None if out is None else out.decode("utf-8", "surrogateescape").strip()


def head(cwd: Path | str, *, timeout: float | None = None) -> str | None:
    """The commit HEAD names, or None (no commit yet, no git, not a work tree)."""
    try:
        out = run(cwd, ["rev-parse", "--verify", "-q", "HEAD"], timeout=timeout)
    except GitError:
        return None
    text = out.decode("ascii", "replace").strip()
    return text or None


def toplevel(path: Path | str) -> Path | None:
    """The top level of the work tree holding `path`, or None (no git, not a work tree)."""
    try:
        out = run(path, ["rev-parse", "--show-toplevel"])
    except GitError:
        return None
    text = out.decode("utf-8", "surrogateescape").strip()
    return Path(text).resolve() if text else None


def open_repo(path: Path | str) -> Any:
    """The GitPython `Repo` holding `path` (parents searched); GitUnavailable when none.

    The caller closes it (`repo.close()`)."""
    try:
        import git
    except ImportError as exc:  # GitPython refuses to import when git is missing
        raise GitUnavailable(f"git cannot be used: {str(exc).strip().splitlines()[0]}") from exc
    try:
        return git.Repo(path, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError) as exc:
        raise GitUnavailable(f"{path} is not inside a git work tree") from exc


def remote_urls(path: Path | str) -> list[str]:
    """Every URL of every remote of the repository holding `path` ([] outside git)."""
    try:
        repo = open_repo(path)
    except GitUnavailable:
        return []
    try:
        import git

        urls: list[str] = []
        for remote in repo.remotes:
            try:
                urls.extend(remote.urls)
            except git.GitCommandError:
                continue  # a remote without a URL
        return urls
    finally:
        repo.close()
