"""Git snapshots of a work tree: the fingerprint of verify evidence and of read-only windows.

A snapshot holds HEAD, the branch, a digest of the index, the porcelain v2
status (every change, untracked files one by one) and the content hash of
every changed or untracked path. `.zcode/` is excluded: it holds the run's own
bookkeeping, which our own writers change on every command. Outside git, or
when git fails, the snapshot says so (`ok` False) and carries no fingerprint:
callers treat that as "unknown", never as "unchanged".
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from zodyssey.core.files import NotRegularFile, open_regular

# Pathspecs relative to the run's root: everything except the run bookkeeping.
_PATHSPEC = ("--", ".", ":(exclude).zcode")


def _status_paths(status: bytes) -> tuple[str | None, str | None, list[str]]:
    """(head oid, branch, paths) from `git status --porcelain=v2 -z --branch`."""
    headers: dict[str, str] = {}
    paths: list[str] = []
    tokens = [t.decode("utf-8", errors="surrogateescape") for t in status.split(b"\0")]
    i = 0
    while i < len(tokens):
        token = tokens[i]
        i += 1
        if token.startswith("# "):
            key, _, value = token[2:].partition(" ")
            headers[key] = value
        elif token[:1] in _PATH_FIELD:  # ordinary, renamed/copied, unmerged entries
            paths.append(token.split(" ", _PATH_FIELD[token[0]])[-1])
            if token[0] == "2" and i < len(tokens):  # the rename/copy source: its own token
                paths.append(tokens[i])
                i += 1
        elif token[:1] in ("?", "!"):  # untracked, ignored
            paths.append(token[2:])
    return (*_branch(headers), paths)


def _branch(headers: dict[str, str]) -> tuple[str | None, str | None]:
    """(head oid, "" before the first commit; branch name, None when detached)."""
    oid = headers.get("branch.oid")
    name = headers.get("branch.head")
    head = None if oid is None else ("" if oid == "(initial)" else oid)
    return head, (None if name in (None, "(detached)") else name)


# Where the path is in a `git status --porcelain=v2` entry, by its first character:
# after 8 space-separated fields (ordinary), 9 (renamed or copied), 10 (unmerged).
_PATH_FIELD = {"1": 8, "2": 9, "u": 10}


def _content_hash(path: Path) -> str:
    try:
        if path.is_symlink():
            return "link:" + hashlib.sha256(os.readlink(path).encode("utf-8")).hexdigest()
        if path.is_dir():
            return "dir"  # a nested repository or submodule: git reports it as a whole
        digest = hashlib.sha256()
        # A FIFO or device in the work tree is named, never read (it would block).
        with os.fdopen(open_regular(path, "work-tree file"), "rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                digest.update(chunk)
        return digest.hexdigest()
    except NotRegularFile:
        return "special"
    except FileNotFoundError:
        return "missing"
    except OSError as exc:
        return f"unreadable:{exc.errno}"


def snapshot(root: Path, *, keep_status: bool = False) -> dict[str, Any]:
    """The snapshot of the work tree at `root` (shape: models.TreeSnapshot)."""
    from zodyssey import git

    top = git.toplevel(root)
    if top is None:
        return {"ok": False, "error": f"{root} is not inside a git work tree (or git is missing)"}
    try:
        # Run git from the run's root so the pathspecs are relative to it.
        status = git.run(  # hermetic: no fsmonitor or hook from a config the agent wrote
            root,
            ["status", "--porcelain=v2", "-z", "--branch", "--untracked-files=all", *_PATHSPEC],
            hermetic=True,
        )
        index = git.run(root, ["ls-files", "-s", "-z", *_PATHSPEC], hermetic=True)
    except git.GitError as exc:  # git failed: the snapshot is "unknown", never "unchanged"
        return {"ok": False, "error": exc.message[:300]}
    head, branch, paths = _status_paths(status)
    files = {path: _content_hash(top / path) for path in sorted(set(paths))}
    result: dict[str, Any] = {
        "ok": True,
        "error": None,
        "head": head,
        "branch": branch,
        "index_digest": hashlib.sha256(index).hexdigest(),
        "status_sha256": hashlib.sha256(status).hexdigest(),
        "files": files,
    }
    basis = json.dumps(result, sort_keys=True, ensure_ascii=False).encode(
        "utf-8", "surrogateescape"
    )
    result["fingerprint"] = hashlib.sha256(basis).hexdigest()
    if keep_status:
        result["status"] = status.decode("utf-8", errors="replace").replace("\0", "\n")
    return result


def changed_paths(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """Paths whose recorded state differs between two snapshots, plus HEAD/branch/index moves."""
    out: list[str] = []
    for key, label in (("head", "HEAD"), ("branch", "branch"), ("index_digest", "index")):
        if before.get(key) != after.get(key):
            out.append(f"<{label}>")
    left: dict[str, str] = before.get("files") or {}
    right: dict[str, str] = after.get("files") or {}
    for path in sorted(set(left) | set(right)):
        if left.get(path) != right.get(path):
            out.append(path)
    return out


def read_only_violation(before: dict[str, Any], after: dict[str, Any]) -> bool | None:
    """True: anything changed; False: identical snapshots; None: either could not be read."""
    if not before.get("ok") or not after.get("ok"):
        return None
    return before.get("fingerprint") != after.get("fingerprint")


def content_digest(root: Path) -> str | None:
    """sha256 over every tracked and untracked (not ignored) path under `root` and its content.

    Unlike the snapshot's fingerprint it does not depend on HEAD, the branch or
    the index: committing the work changes nothing, editing a file does. This
    is what a criterion's result depends on (evidence-stale in the audit).
    `.zcode/` is excluded; None outside git or when git fails.
    """
    from zodyssey import git

    if git.toplevel(root) is None:
        return None
    try:
        listed = git.run(
            root,
            ["ls-files", "-z", "--cached", "--others", "--exclude-standard", *_PATHSPEC],
            hermetic=True,
        )
    except git.GitError:
        return None
    digest = hashlib.sha256()
    names = sorted({p for p in listed.split(b"\0") if p})
    reports = reports_written(root)
    for raw in names:
        name = raw.decode("utf-8", errors="surrogateescape")
        content = _content_hash(root / name)
        if reports.get(name) == content:
            continue  # a report the audit wrote, unchanged since: not the work
        digest.update(raw + b"\0" + content.encode("ascii", "replace") + b"\n")
    return digest.hexdigest()


# Reports `zodyssey audit -o FILE` wrote inside the work tree: {path: sha256 as written}.
REPORTS_WRITTEN = ".zcode/audit-reports.json"


def reports_written(root: Path) -> dict[str, str]:
    """The audit's own reports in the work tree (REPORTS_WRITTEN); {} when none or unreadable."""
    try:
        with os.fdopen(open_regular(root / REPORTS_WRITTEN, "audit report list"), "rb") as f:
            data = json.loads(f.read(1 << 20))
    except (NotRegularFile, OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)}


def record_report(root: Path, written: Path) -> None:
    """Remember `written` (a report the audit just wrote) with its content's digest, so
    content_digest leaves it out for as long as it stays as written: writing a report
    into the work tree never makes the evidence it reports on stale. A file outside
    the work tree, or in `.zcode/`, needs no record."""
    from zodyssey.core.atomic import write_atomic

    try:
        rel = written.resolve().relative_to(root.resolve()).as_posix()
    except (OSError, ValueError):
        return
    if rel == ".zcode" or rel.startswith(".zcode/"):
        return
    reports = reports_written(root)
    reports[rel] = _content_hash(root / rel)
    (root / ".zcode").mkdir(exist_ok=True)
    write_atomic(root / REPORTS_WRITTEN, json.dumps(reports, indent=2, sort_keys=True) + "\n")
