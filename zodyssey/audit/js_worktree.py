"""The JavaScript pipeline's work-tree fingerprint, recomputed for the audit.

`record-verify.mjs` stamps every verify record with `worktree`: a sha256 over
the work tree it ran on, `.zcode/` excluded. The digest is fed, in order:

1. `git status --porcelain=v1 -uall --no-renames` of the tree, lines naming a
   `.zcode/` path dropped, joined by newlines;
2. `git diff HEAD` of the tree;
3. for each untracked, not ignored path (sorted): the path, then the file's
   bytes (or the text `<unreadable>`).

Every git call is limited to the pathspec `. :(exclude).zcode :(exclude).zcode/**`.
Equal fingerprints mean the same work; a different one means the tree changed
after the record was made. Not a git repository (or git missing): no fingerprint.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from zodyssey.core.files import NotRegularFile, read_regular

PATHSPEC = (".", ":(exclude).zcode", ":(exclude).zcode/**")
_ZCODE_LINE = re.compile(r"\s\.zcode/")
TIMEOUT_S = 60


def _git(root: Path, *args: str) -> str:
    from zodyssey import git

    out = git.run(root, [*args, "--", *PATHSPEC], timeout=TIMEOUT_S)
    return out.decode("utf-8", errors="replace")


def head_commit(root: Path) -> str | None:
    """The commit HEAD names, or None when it cannot be read."""
    from zodyssey import git

    return git.head(root, timeout=TIMEOUT_S)


def fingerprint(root: Path) -> tuple[str | None, str]:
    """(fingerprint, "") or (None, why it cannot be computed)."""
    if not (root / ".git").exists():
        return None, "not a git repository"
    from zodyssey.git import GitError, GitTimeout, GitUnavailable

    try:
        status = _git(root, "status", "--porcelain=v1", "-uall", "--no-renames")
        diff = _git(root, "diff", "HEAD")
        untracked = _git(root, "ls-files", "--others", "--exclude-standard")
    except GitUnavailable:
        return None, "git is not installed"
    except GitTimeout:
        return None, "git did not answer in time"
    except GitError as exc:
        return None, f"git failed: {exc.message[:200]}"
    digest = hashlib.sha256()
    kept = [line for line in status.split("\n") if not _ZCODE_LINE.search(line)]
    digest.update("\n".join(kept).encode("utf-8"))
    digest.update(diff.encode("utf-8"))
    paths = [p.strip() for p in untracked.split("\n")]
    paths = [p for p in paths if p and p != ".zcode" and not p.startswith(".zcode/")]
    for rel in sorted(paths):
        digest.update(rel.encode("utf-8"))
        try:
            digest.update(read_regular(root / rel, "work-tree file"))
        except NotRegularFile:
            digest.update(b"<not a regular file>")  # a FIFO would block the read
        except OSError:
            digest.update(b"<unreadable>")
    return digest.hexdigest(), ""
