"""The post-call effect check: snapshot before a call, compare after, undo what
the call was not allowed to change.

A snapshot is cheap by construction: one `git status --porcelain=v2 -z`
(without `.zcode/`, with `GIT_OPTIONAL_LOCKS=0` so git writes no index), and
for each path it lists (a changed tracked file or an untracked one: the only
paths whose content is not already in git's objects) its size, mtime and git
blob id, written into git's object store (`git hash-object -w`) so that the
content can be put back later. Paths git ignores are not product and are not
listed. Protected files (the gate's configuration and wiring, the plan after
OKAY) are added by sha256.

Nothing but regular files is ever opened (`zodyssey.core.files.open_regular`,
without blocking): a FIFO, socket, device or directory planted where a file
was is named `not-regular:KIND` (a change, so a violation where the run does
not allow it, and the file is put back), never read, so it cannot hang the
check. Git hashes the very descriptors that were checked (`/dev/fd/N`).

`compare(before, after)` names every path whose content differs; a path
clean in one snapshot has the content of HEAD there (`git ls-tree`), so a
change that was committed during the call is seen as well (HEAD moved: the
paths of `git diff-tree` between the two HEADs are compared too).

`restore` puts a changed tracked or previously dirty file back from its
blob, and moves a file that did not exist before into
`.zcode/quarantine/<slug>/<call>/` (kept for the person to inspect).
"""

from __future__ import annotations

import hashlib
import os
import stat
import subprocess
from collections.abc import Iterable
from typing import Any

MISSING = "missing"
CHUNK = 200  # paths (open descriptors) per `git hash-object` call


def _git(root: str, *args: str, stdin: bytes | None = None, fds: tuple[int, ...] = ()) -> bytes:
    env = dict(os.environ)
    env["GIT_OPTIONAL_LOCKS"] = "0"
    done = subprocess.run(
        ["git", "-C", root, "-c", "core.quotepath=off", *args],
        input=stdin,
        capture_output=True,
        env=env,
        timeout=120,
        check=False,
        pass_fds=fds,
    )
    if done.returncode != 0:
        raise OSError(f"git {args[0]} failed: {done.stderr.decode('utf-8', 'replace')[:300]}")
    return done.stdout


def _status(root: str) -> tuple[str, dict[str, str]]:
    """(HEAD oid or "", {path: status code}) of the work tree without `.zcode/`."""
    raw = _git(
        root,
        "status",
        "--porcelain=v2",
        "-z",
        "--branch",
        "--untracked-files=all",
        "--no-renames",
        "--",
        ".",
        ":(exclude).zcode",
    )
    head = ""
    paths: dict[str, str] = {}
    for token in raw.split(b"\0"):
        text = token.decode("utf-8", "surrogateescape")
        if not text:
            continue
        if text.startswith("# branch.oid "):
            oid = text[len("# branch.oid ") :]
            head = "" if oid == "(initial)" else oid
        elif text.startswith("#"):
            continue
        elif text[0] == "1":
            fields = text.split(" ", 8)
            paths[fields[8]] = fields[1]
        elif text[0] == "u":
            paths[text.split(" ", 10)[10]] = "u"
        elif text[0] == "?":
            paths[text[2:]] = "?"
    return head, paths


NOT_REGULAR = "not-regular:"  # the "blob id" of a FIFO, socket, device or directory
_ODD = (
    (stat.S_ISFIFO, "fifo"),
    (stat.S_ISSOCK, "socket"),
    (stat.S_ISCHR, "char-device"),
    (stat.S_ISBLK, "block-device"),
    (stat.S_ISDIR, "directory"),
)


def _odd(mode: int) -> str:
    """`not-regular:KIND` for what is neither a regular file nor a symlink."""
    return NOT_REGULAR + next((name for test, name in _ODD if test(mode)), "other")


def _content(root: str, rel: str) -> tuple[int, int, str] | None:
    """(size, mtime_ns, kind) of the path, None when it does not exist; kind is
    `file`, `exec`, `link` or `not-regular:KIND`."""
    try:
        info = os.lstat(os.path.join(root, rel))
    except OSError:
        return None
    if stat.S_ISLNK(info.st_mode):
        return info.st_size, info.st_mtime_ns, "link"
    if not stat.S_ISREG(info.st_mode):
        return info.st_size, info.st_mtime_ns, _odd(info.st_mode)
    return info.st_size, info.st_mtime_ns, "exec" if info.st_mode & 0o111 else "file"


def _opened(root: str, rels: list[str]) -> tuple[dict[str, int], dict[str, str]]:
    """({path: descriptor} of the regular files, {path: id} of the rest: MISSING,
    `not-regular:KIND`). Opened with `open_regular`, which never blocks on a
    FIFO planted there, so git later reads exactly what was checked."""
    from zodyssey.core.files import NotRegularFile, open_regular

    fds: dict[str, int] = {}
    other: dict[str, str] = {}
    for rel in rels:
        path = os.path.join(root, rel)
        try:
            fds[rel] = open_regular(path)
        except FileNotFoundError:
            other[rel] = MISSING
        except NotRegularFile:
            try:
                other[rel] = _odd(os.stat(path).st_mode)
            except OSError:
                other[rel] = MISSING
        except OSError as exc:
            other[rel] = f"unreadable:{exc.errno}"
    return fds, other


def _hash_fds(root: str, fds: dict[str, int], write: bool) -> dict[str, str]:
    """Git blob ids of open regular files: git reads each as `/dev/fd/N` (the
    descriptor passed on), never the path again."""
    out: dict[str, str] = {}
    items = list(fds.items())
    for start in range(0, len(items), CHUNK):
        chunk = items[start : start + CHUNK]
        names = [f"/dev/fd/{fd}" for _, fd in chunk]
        args = ["hash-object", *(["-w"] if write else []), "--no-filters", "--", *names]
        ids = _git(root, *args, fds=tuple(fd for _, fd in chunk)).decode().split()
        out.update(zip((rel for rel, _ in chunk), ids, strict=False))
    return out


def _blobs(root: str, rels: list[str], write: bool) -> dict[str, str]:
    """Git blob ids of regular files (links: of their target text; anything else:
    `not-regular:KIND`, never opened)."""
    links = [r for r in rels if os.path.islink(os.path.join(root, r))]
    fds, out = _opened(root, [r for r in rels if r not in set(links)])
    try:
        out.update(_hash_fds(root, fds, write))
    finally:
        for fd in fds.values():
            os.close(fd)
    for rel in links:
        try:
            target = os.readlink(os.path.join(root, rel)).encode("utf-8", "surrogateescape")
        except OSError:
            out[rel] = MISSING
            continue
        blob = _git(root, "hash-object", *(["-w"] if write else []), "--stdin", stdin=target)
        out[rel] = "link:" + blob.decode().strip()
    return out


def snapshot(
    root: str, protected: Iterable[str] = (), previous: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The state of the work tree now (see the module docstring).

    `previous`: an earlier snapshot whose blob ids are reused for paths whose
    size and mtime did not change (so an unchanged dirty file is hashed once).
    """
    head, listed = _status(root)
    files: dict[str, list[Any]] = {}
    known = previous.get("files", {}) if previous else {}
    to_hash: list[str] = []
    for rel in listed:
        files[rel] = _entry(root, rel, known.get(rel))
        if files[rel][3] is None:
            to_hash.append(rel)
    for rel, blob in _blobs(root, to_hash, write=True).items():
        files[rel][3] = blob
    guarded = {path: _digest(path) for path in protected}
    return {"head": head, "files": files, "protected": guarded}


def _entry(root: str, rel: str, old: list[Any] | None) -> list[Any]:
    """[size, mtime_ns, kind, blob id] of a listed path: the earlier snapshot's blob
    id while size, mtime and kind are the same; None when it is to be hashed."""
    meta = _content(root, rel)
    if meta is None:
        return [None, None, MISSING, MISSING]
    if old and old[0] == meta[0] and old[1] == meta[1] and old[2] == meta[2]:
        return list(old)
    odd = meta[2] if meta[2].startswith(NOT_REGULAR) else None  # never opened
    return [meta[0], meta[1], meta[2], odd]


def _digest(path: str) -> str:
    """sha256 of a protected file (MISSING, `not-regular:KIND`: a FIFO or device
    is not opened, or `unreadable:ERRNO`)."""
    from zodyssey.core.files import NotRegularFile, read_regular

    try:
        return hashlib.sha256(read_regular(path)).hexdigest()
    except FileNotFoundError:
        return MISSING
    except NotRegularFile:
        try:
            return _odd(os.stat(path).st_mode)
        except OSError:
            return MISSING
    except OSError as exc:
        return f"unreadable:{exc.errno}"


def _head_blobs(root: str, head: str, rels: list[str]) -> dict[str, str]:
    """Blob ids of `rels` in commit `head` (absent: MISSING)."""
    out = dict.fromkeys(rels, MISSING)
    if not head or not rels:
        return out
    for start in range(0, len(rels), CHUNK):
        chunk = rels[start : start + CHUNK]
        raw = _git(root, "ls-tree", "-z", "--full-tree", head, "--", *chunk)
        for entry in raw.split(b"\0"):
            if not entry:
                continue
            meta, _, name = entry.decode("utf-8", "surrogateescape").partition("\t")
            mode, kind, oid = meta.split(" ")[:3]
            if kind == "blob":
                out[name] = ("link:" + oid) if mode == "120000" else oid
    return out


def _moved_paths(root: str, before: dict[str, Any], after: dict[str, Any]) -> set[str]:
    """The paths of the commits between the two snapshots' HEADs (none when equal)."""
    old, new = before.get("head"), after.get("head")
    if old == new or not old or not new:
        return set()
    raw = _git(root, "diff-tree", "-r", "-z", "--name-only", "--no-renames", old, new)
    return {n for n in raw.decode("utf-8", "surrogateescape").split("\0") if n}


def _blob_ids(root: str, snap: dict[str, Any], rels: list[str]) -> dict[str, str]:
    """The blob id of each path in snapshot `snap`: its own entry, else HEAD's."""
    files = snap.get("files", {})
    clean = [r for r in rels if r not in files]
    out = _head_blobs(root, snap.get("head", ""), clean)
    out.update((r, files[r][3]) for r in rels if r in files)
    return out


def compare(root: str, before: dict[str, Any], after: dict[str, Any]) -> list[dict[str, Any]]:
    """Every path whose content differs: {path, before, after} blob ids (or MISSING)."""
    rels = set(before.get("files", {})) | set(after.get("files", {}))
    ordered = sorted(rels | _moved_paths(root, before, after))
    old_ids = _blob_ids(root, before, ordered)
    new_ids = _blob_ids(root, after, ordered)
    changes: list[dict[str, Any]] = [
        {"path": rel, "before": old_ids[rel], "after": new_ids[rel]}
        for rel in ordered
        if old_ids[rel] != new_ids[rel]
    ]
    for path, digest in after.get("protected", {}).items():
        old = before.get("protected", {}).get(path)
        if old is not None and old != digest:
            changes.append({"path": path, "before": old, "after": digest, "protected": True})
    return changes


def restore(root: str, change: dict[str, Any], quarantine: str) -> str:
    """Undo one change; returns what was done (`restored`, `quarantined`, `kept`)."""
    rel = change["path"]
    path = rel if os.path.isabs(rel) else os.path.join(root, rel)
    old = change["before"]
    if change.get("protected"):
        return "kept"  # sha256 only: the content is not in git's objects
    if old.startswith((NOT_REGULAR, "unreadable:")):
        return "kept"  # no content was read before: nothing to put back
    if old == MISSING:
        if not os.path.lexists(path):
            return "kept"
        target = os.path.join(quarantine, rel)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        os.replace(path, target)
        return "quarantined"
    if old.startswith("link:"):
        text = _git(root, "cat-file", "blob", old[5:]).decode("utf-8", "surrogateescape")
        if os.path.lexists(path):
            os.unlink(path)
        os.symlink(text, path)
        return "restored"
    data = _git(root, "cat-file", "blob", old)
    from zodyssey.core.atomic import write_atomic

    if os.path.islink(path):
        os.unlink(path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    write_atomic(path, data)
    return "restored"
