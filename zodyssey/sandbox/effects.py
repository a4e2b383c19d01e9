"""The post-call effect check: snapshot before a call, compare after, undo what
the call was not allowed to change.

A snapshot is cheap by construction: one `git status --porcelain=v2 -z` on
the check's own index (`.zcode/state/effects.index`, a copy of the user's,
so the user's index is never written) with git's untracked cache, without
`.zcode/`; the files of an untracked directory it names are listed by one
`git ls-files --others`. For each path it lists (a changed tracked file or an
untracked one: the only paths whose content is not already in git's
objects) its size, mtime, ctime, inode and git blob id, written into git's
object store (`git hash-object -w`) so that the content can be put back
later. Paths git ignores are not product and are not listed. Protected files
(the gate's configuration and wiring, the plan after OKAY) are added the same
way, by absolute path, under `guard` (their blob ids under `protected`).
A blob id is reused from the previous snapshot only while `reusable` says
the stat data proves the content (git's racy-git rule against the
snapshot's `stamp`). No `typing`, `subprocess` or `hashlib` is imported: the
pre-tool snapshot runs in the hook process, git is started by `posix_spawn`.

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

import os
import stat

from zodyssey.core.hermetic import HERMETIC_CONFIG, hermetic_env

TYPE_CHECKING = False
if TYPE_CHECKING:  # the pre-tool snapshot runs in the hook process: no typing at run time
    from collections.abc import Iterable
    from typing import Any

MISSING = "missing"
CHUNK = 200  # paths (open descriptors) per `git hash-object` call
MAX_HASH_BYTES = 64 << 20  # larger files are named by stat data, not hashed (`_large`)
LARGE = "large:"  # the "blob id" of such a file
OUTSIDE = "_outside"  # in the quarantine: what came from outside the work tree, by absolute path
INDEX = os.path.join(".zcode", "state", "effects.index")  # the check's own index
STAMP = os.path.join(".zcode", "state", "effects.stamp")  # touched as a snapshot starts
_ZCODE = ".zcode/"
# An index of no entries (version 2) with its trailing SHA-1: a repository without HEAD.
EMPTY_INDEX = bytes.fromhex("44495243000000020000000039d890139ee5356c7ef572216cebcd27aa41f9df")


def _git(
    root: str,
    *args: str,
    stdin: "bytes | None" = None,
    fds: "tuple[int, ...]" = (),
    index: "str | None" = None,
    refresh: bool = True,
) -> bytes:
    """git's stdout; OSError when it fails. Started with `posix_spawn` (no
    `subprocess`: the pre-tool snapshot runs in the hook process), hermetic
    (`hermetic_env`). Without `index`, `GIT_OPTIONAL_LOCKS=0`: the user's index
    is never written; with it, git works on (and, unless `refresh` is False,
    refreshes) the check's own index, with its untracked cache. Descriptors in
    `fds` are passed on under their own numbers. Whatever interrupts the wait
    (the hook's deadline) kills git first: no child outlives the check."""
    env = hermetic_env(root)
    argv = ["git", "-C", root, *HERMETIC_CONFIG]
    if index is None:
        env["GIT_OPTIONAL_LOCKS"] = "0"
    else:
        if not refresh:
            env["GIT_OPTIONAL_LOCKS"] = "0"  # read the check's index, never rewrite it
        env["GIT_INDEX_FILE"] = index
        argv += ["-c", "core.untrackedCache=true"]
    out_read, out_write = os.pipe()
    in_read, in_write = os.pipe() if stdin is not None else (-1, -1)
    for fd in fds:
        os.set_inheritable(fd, True)
    try:
        pid = os.posix_spawnp(
            "git",
            [*argv, *args],
            env,
            file_actions=_actions(out_read, out_write, in_read, in_write),
        )
    except OSError:
        _close(out_read, in_write)
        raise
    finally:
        _close(out_write, in_read)
        for fd in fds:
            os.set_inheritable(fd, False)
    try:
        if stdin is not None:  # small (a link's target): git reads it all before it answers
            with os.fdopen(in_write, "wb") as pipe:
                pipe.write(stdin)
        output = _drain(out_read)
        code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    except BaseException:
        _kill(pid)
        raise
    if code != 0:
        raise OSError(f"git {args[0]} failed (exit {code})")
    return output


def _kill(pid: int) -> None:
    """Stop a git child at once and reap it."""
    try:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    except OSError:
        pass


def _actions(out_read: int, out_write: int, in_read: int, in_write: int) -> "list[Any]":
    """The child's descriptors: stdout the pipe, stderr /dev/null, stdin the input
    pipe when there is one (else /dev/null)."""
    actions: list[Any] = [
        (os.POSIX_SPAWN_DUP2, out_write, 1),
        (os.POSIX_SPAWN_CLOSE, out_read),
        (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
    ]
    if in_read < 0:
        return [*actions, (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0)]
    return [*actions, (os.POSIX_SPAWN_DUP2, in_read, 0), (os.POSIX_SPAWN_CLOSE, in_write)]


def _close(*fds: int) -> None:
    for fd in fds:
        if fd >= 0:
            os.close(fd)


def _drain(fd: int) -> bytes:
    """Everything until end of file, then the descriptor closed."""
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks)


def _private_index(root: str) -> str:
    """The check's own index (`.zcode/state/effects.index`): a copy of the user's,
    so git's stat data is reused, then refreshed by the check's `git status`
    alone; the user's index is never written. Run state: no agent tool may
    write it."""
    path = os.path.join(root, INDEX)
    if os.path.exists(path):
        return path
    from zodyssey.core.atomic import write_atomic
    from zodyssey.core.files import read_regular

    try:
        write_atomic(path, read_regular(os.path.join(root, ".git", "index")))
    except OSError:  # no index of its own (a new repository, a worktree): HEAD's tree
        os.makedirs(os.path.dirname(path), exist_ok=True)
        try:
            _git(root, "read-tree", "HEAD", index=path)
        except OSError:  # no HEAD yet (or another hook made it meanwhile)
            if not os.path.exists(path):
                write_atomic(path, EMPTY_INDEX)  # no HEAD: an empty index is right
    return path


def _stamp(root: str) -> int:
    """Touch the stamp file and return its mtime: the file system's clock as this
    snapshot starts (what a write after it gets as mtime, at least)."""
    path = os.path.join(root, STAMP)
    try:
        os.utime(path)
    except FileNotFoundError:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644))
    return os.stat(path).st_mtime_ns


def _listed(token: bytes) -> "tuple[str, str] | None":
    """(path, status code) of one `git status --porcelain=v2 -z` entry, or None."""
    text = token.decode("utf-8", "surrogateescape")
    if not text or text[0] == "#":
        return None
    if text[0] == "1":
        fields = text.split(" ", 8)
        return fields[8], fields[1]
    if text[0] == "u":
        return text.split(" ", 10)[10], "u"
    if text[0] == "?":
        return text[2:], "?"
    return None


def _status(root: str, refresh: bool = True) -> "tuple[str, dict[str, str]]":
    """(HEAD oid or "", {path: status code}) of the work tree without `.zcode/`.

    One `git status` on the check's own index with git's untracked cache
    (`--untracked-files=normal`: the cache only serves that mode, and it is
    what keeps a snapshot under one plain `git status`); the files inside an
    untracked directory it names are listed by one `git ls-files --others`.
    `refresh` False: git reads the check's index but does not write it back
    (the post-tool snapshot does): writing it is about a third of a snapshot
    of a large tree, and the index lives in `.zcode/state`, which the status
    itself then finds changed."""
    index = _private_index(root)
    raw = _git(
        root,
        *("status", "--porcelain=v2", "-z", "--branch", "--no-renames"),
        index=index,
        refresh=refresh,
    )
    head, paths, folders = _parse_status(raw)
    if folders:
        specs = [":(literal)" + folder for folder in folders]
        raw = _git(
            root, "ls-files", "-z", "--others", "--exclude-standard", "--", *specs, index=index
        )
        for name in raw.decode("utf-8", "surrogateescape").split("\0"):
            if name:  # a nested repository is named as its directory
                paths[name.rstrip("/")] = "?"
    return head, paths


def _parse_status(raw: bytes) -> "tuple[str, dict[str, str], list[str]]":
    """(HEAD oid or "", {path: code}, untracked directories) of `git status` output,
    `.zcode/` left out."""
    head = ""
    paths: dict[str, str] = {}
    folders: list[str] = []
    for token in raw.split(b"\0"):
        if token.startswith(b"# branch.oid "):
            oid = token[len(b"# branch.oid ") :].decode()
            head = "" if oid == "(initial)" else oid
            continue
        entry = _listed(token)
        if entry is None or entry[0].startswith(_ZCODE) or entry[0] == ".zcode":
            continue
        if entry[1] == "?" and entry[0].endswith("/"):
            folders.append(entry[0])
        else:
            paths[entry[0]] = entry[1]
    return head, paths, folders


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


def _content(root: str, rel: str) -> "tuple[int, int, str, int, int] | None":
    """(size, mtime_ns, kind, ctime_ns, inode) of the path, None when it does not
    exist; kind is `file`, `exec`, `link` or `not-regular:KIND`."""
    return _meta(os.path.join(root, rel))


def _meta(path: str) -> "tuple[int, int, str, int, int] | None":
    """`_content` of an absolute path."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return info.st_size, info.st_mtime_ns, _kind(info.st_mode), info.st_ctime_ns, info.st_ino


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "link"
    if not stat.S_ISREG(mode):
        return _odd(mode)
    return "exec" if mode & 0o111 else "file"


def _opened(root: str, rels: "list[str]") -> "tuple[dict[str, int], dict[str, str]]":
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


def _hash_fds(root: str, fds: "dict[str, int]", write: bool) -> "dict[str, str]":
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


def _blobs(root: str, rels: "list[str]", write: bool) -> "dict[str, str]":
    """Git blob ids of regular files (links: of their target text; anything else:
    `not-regular:KIND`, never opened). Opened CHUNK at a time: a call that made
    more new files than the open-file limit must not starve the check of
    descriptors (an unchecked call blocks)."""
    links = [r for r in rels if os.path.islink(os.path.join(root, r))]
    linked = set(links)
    regular = [r for r in rels if r not in linked]
    out: dict[str, str] = {}
    for start in range(0, len(regular), CHUNK):
        fds, other = _opened(root, regular[start : start + CHUNK])
        out.update(other)
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
    root: str,
    protected: "Iterable[str]" = (),
    previous: "dict[str, Any] | None" = None,
    refresh: bool = True,
) -> "dict[str, Any]":
    """The state of the work tree now (see the module docstring).

    `previous`: an earlier snapshot whose blob ids (and protected digests) are
    reused for paths whose stat data did not change since it was taken (see
    `reusable`), so an unchanged dirty file is hashed once. `refresh` False
    (pre-tool): the check's index is read, not rewritten (`_status`).
    """
    stamp = _stamp(root)
    tree = _tree(root, stamp)
    head, listed = _status(root, refresh)
    previous = previous or {}
    before = previous.get("stamp")
    files = _entries(root, listed, previous.get("files", {}), before)
    guard = _entries(root, protected, previous.get("guard", {}), before)  # by absolute path
    for entry in guard.values():  # a watched directory: an entry added or removed changes it
        if entry[2] == NOT_REGULAR + "directory":
            entry[3] = f"{NOT_REGULAR}directory:{entry[1]}:{entry[4]}:{entry[5]}"
    to_hash = [name for table in (files, guard) for name, e in table.items() if e[3] is None]
    for name, blob in _blobs(root, to_hash, write=True).items():
        (guard if os.path.isabs(name) else files)[name][3] = blob
    return {
        "head": head,
        "files": files,
        "protected": {path: entry[3] for path, entry in guard.items()},
        "guard": guard,
        "stamp": stamp,
        "tree": tree,
    }


def _entries(
    root: str, names: "Iterable[str]", known: "Any", stamp: "Any"
) -> "dict[str, list[Any]]":
    """`_entry` of each name, reusing `known`'s entries (an earlier snapshot's)."""
    known = known if isinstance(known, dict) else {}
    out: dict[str, list[Any]] = {}
    for name in names:
        old = known.get(name)
        out[name] = _entry(root, name, old if isinstance(old, list) else None, stamp)
    return out


QUICK_LIMIT = 500  # entries of a work tree small enough for `unchanged` to walk


def _tree(root: str, stamp: int) -> "list[list[Any]] | None":
    """[path, mtime_ns, ctime_ns, inode, size, mode] of every entry of the work tree
    but `.git` and `.zcode` (ignored ones too), walked before `git status`; None
    when there are more than QUICK_LIMIT, or when one is not older than `stamp`
    (racy: a write in that tick could leave the same stat data)."""
    out: list[list[Any]] = []
    pending = [""]
    while pending:
        folder = pending.pop()
        items = _listing(root, folder)
        if items is None or len(out) + len(items) > QUICK_LIMIT:
            return None
        for rel, info, is_dir in items:
            if info.st_mtime_ns >= stamp or info.st_ctime_ns >= stamp:
                return None
            out.append([rel, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_size])
            out[-1].append(info.st_mode)
            if is_dir:
                pending.append(rel + "/")
    return out


def _listing(root: str, folder: str) -> "list[tuple[str, Any, bool]] | None":
    """(path, lstat, is a directory) of the entries of `folder` ("" the root, else
    ending in "/"), by name; `.git` and `.zcode` of the root left out; None when
    it cannot be read."""
    try:
        with os.scandir(os.path.join(root, folder) if folder else root) as entries:
            items = [
                (folder + e.name, e.stat(follow_symlinks=False), e.is_dir(follow_symlinks=False))
                for e in entries
                if folder or e.name not in (".git", ".zcode")
            ]
    except OSError:
        return None
    return sorted(items, key=lambda item: item[0])


def unchanged(root: str, snap: "dict[str, Any]", protected: "list[str]") -> bool:
    """Whether nothing in the work tree nor any protected file can have changed
    since `snap` was taken, from stat data alone (no git): its `tree` was
    recorded (a small work tree) and is what a walk finds now, and each
    protected file's entry is still `reusable`. A new file anywhere changes
    its directory's mtime and ctime, a write its file's; so equal stat data of
    every entry, all older than the snapshot's stamp, proves the content. Any
    difference, ignored files included, answers False: then a snapshot decides."""
    stamp, tree, guard = snap.get("stamp"), snap.get("tree"), snap.get("guard")
    if not isinstance(stamp, int) or not isinstance(tree, list) or not isinstance(guard, dict):
        return False
    if sorted(guard) != sorted(protected):
        return False
    for path in protected:
        meta = _meta(path)
        old = guard[path]
        if meta is None:
            if old[2] != MISSING:
                return False
        elif not reusable(old, meta, stamp):
            return False
    return _tree(root, stamp) == tree


def reusable(old: "list[Any]", meta: "tuple[int, int, str, int, int]", stamp: "Any") -> bool:
    """Whether an earlier snapshot's entry still names the content: the same size,
    mtime, kind, ctime and inode, and (git's racy-git rule) mtime and ctime both
    older than that snapshot's stamp. A write in the very tick the snapshot
    hashed the file leaves the same stat data on a coarse clock; it is seen
    because such an entry is hashed again. A `touch -d` that puts the mtime
    back moves the ctime."""
    if not isinstance(stamp, int) or len(old) < 6:
        return False
    size, mtime, kind, ctime, inode = meta
    same = (old[0], old[1], old[2], old[4], old[5]) == (size, mtime, kind, ctime, inode)
    return same and mtime < stamp and ctime < stamp


def _entry(root: str, rel: str, old: "list[Any] | None", stamp: "Any") -> "list[Any]":
    """[size, mtime_ns, kind, blob id, ctime_ns, inode] of a listed path: the earlier
    snapshot's blob id while `reusable`; None when it is to be hashed."""
    meta = _content(root, rel)
    if meta is None:
        return [None, None, MISSING, MISSING, None, None]
    if old and reusable(old, meta, stamp):
        return list(old)
    odd = meta[2] if meta[2].startswith(NOT_REGULAR) else None  # never opened
    if odd is None and meta[2] != "link" and meta[0] > MAX_HASH_BYTES:
        odd = _large(meta)  # never read: named by its stat data
    return [meta[0], meta[1], meta[2], odd, meta[3], meta[4]]


def _large(meta: "tuple[int, int, str, int, int]") -> str:
    """The id of a file too large to hash in a hook (a huge sparse file would read
    for minutes): its size, kind, nanosecond mtime and ctime and inode, so any
    write changes it. Its content is not kept: a new one is quarantined, an
    earlier one cannot be put back (`restore` keeps it, and says so)."""
    size, mtime, kind, ctime, inode = meta
    return f"{LARGE}{size}:{kind}:{mtime}:{ctime}:{inode}"


def _head_blobs(
    root: str, head: str, rels: "list[str]", modes: "dict[str, str] | None" = None
) -> "dict[str, str]":
    """Blob ids of `rels` in commit `head` (absent: MISSING); `modes` gets the kind
    (`file`, `exec`) of each regular file."""
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
                if modes is not None and mode in ("100644", "100755"):
                    modes[name] = "exec" if mode == "100755" else "file"
    return out


def _moved_paths(root: str, before: "dict[str, Any]", after: "dict[str, Any]") -> "set[str]":
    """The paths of the commits between the two snapshots' HEADs (none when equal)."""
    old, new = before.get("head"), after.get("head")
    if old == new or not old or not new:
        return set()
    raw = _git(root, "diff-tree", "-r", "-z", "--name-only", "--no-renames", old, new)
    return {n for n in raw.decode("utf-8", "surrogateescape").split("\0") if n}


def _blob_ids(
    root: str, snap: "dict[str, Any]", rels: "list[str]", modes: "dict[str, str]"
) -> "dict[str, str]":
    """The blob id of each path in snapshot `snap`: its own entry, else HEAD's;
    `modes` gets the kind (`file`, `exec`) of each regular file."""
    files = snap.get("files", {})
    clean = [r for r in rels if r not in files]
    out = _head_blobs(root, snap.get("head", ""), clean, modes)
    out.update((r, files[r][3]) for r in rels if r in files)
    modes.update((r, files[r][2]) for r in rels if r in files and files[r][2] in ("file", "exec"))
    return out


def compare(root: str, before: "dict[str, Any]", after: "dict[str, Any]") -> "list[dict[str, Any]]":
    """Every path whose content differs: {path, before, after} blob ids (or MISSING)."""
    rels = set(before.get("files", {})) | set(after.get("files", {}))
    ordered = sorted(rels | _moved_paths(root, before, after))
    old_modes: dict[str, str] = {}
    new_modes: dict[str, str] = {}
    old_ids = _blob_ids(root, before, ordered, old_modes)
    new_ids = _blob_ids(root, after, ordered, new_modes)
    changes: list[dict[str, Any]] = []
    for rel in ordered:
        mode = (old_modes.get(rel), new_modes.get(rel))
        moded = None not in mode and mode[0] != mode[1]  # made executable, or no longer
        if old_ids[rel] != new_ids[rel] or moded:
            change = {"path": rel, "before": old_ids[rel], "after": new_ids[rel]}
            if moded:
                change["mode"] = f"{mode[0]} -> {mode[1]}"
            changes.append(change)
    earlier = before.get("protected", {})
    for path, digest in after.get("protected", {}).items():
        old = earlier.get(path)
        if old is None and os.path.dirname(path) in earlier:
            old = MISSING  # new in a watched directory (its own id changed too)
        if old is not None and old != digest:
            changes.append({"path": path, "before": old, "after": digest, "protected": True})
    return changes


def restore(
    root: str, change: "dict[str, Any]", quarantine: str, protected_too: bool = False
) -> str:
    """Undo one change; returns what was done (`restored`, `quarantined`, `kept`).

    A protected file (named by absolute path) is put back only with
    `protected_too`: a change a call made. One made between calls may be the
    person's own edit of the gate's files, so it is recorded and kept."""
    rel = change["path"]
    path = rel if os.path.isabs(rel) else os.path.join(root, rel)
    old = change["before"]
    if change.get("protected") and not protected_too:
        return "kept"  # recorded only: the person decides what the gate's files hold
    if os.path.isabs(rel):  # a protected file: its place in the quarantine, by repo path
        rel = os.path.relpath(path, root)
        if rel == os.pardir or rel.startswith(os.pardir + os.sep):
            rel = OUTSIDE + path  # outside the work tree (git's metadata, the home directory)
    if old.startswith((NOT_REGULAR, "unreadable:", LARGE)):
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
    if str(change.get("mode", "")).startswith("exec"):  # it was executable before
        os.chmod(path, os.stat(path).st_mode | (os.stat(path).st_mode & 0o444) >> 2)
    elif change.get("mode"):
        os.chmod(path, os.stat(path).st_mode & ~0o111)
    return "restored"
