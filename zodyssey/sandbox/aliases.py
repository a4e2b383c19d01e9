"""Granted trees that alias the gate itself: found at run start, never granted.

The sandbox grants the temporary folders and the user's package caches
(`~/.cache`, ...). A tree that holds the gate's own code, or a hard link to
one of its files, would make the gate writable from inside the sandbox: uv
installs packages by hard link from `~/.cache/uv`, so the installed
`zodyssey` modules and the shell parser's compiled module share their inodes
with files under a granted cache, and a write through the cache name changes
the gate every later hook call runs. So `zodyssey run start` looks, once:

* every file of the gate's code and of what the hook imports (the `zodyssey`
  package, `tree_sitter`, `tree_sitter_bash`, the interpreter and its standard
  library) whose link count is above one (a file named once has no other
  name); where there are some, the candidate trees on the same device are
  walked for the other names (by device and inode), until every extra link is
  accounted for or a tree holds more than `MAX_ENTRIES` entries (then it is
  taken as aliased: fail closed);
* a candidate tree that holds one of those directories, or lies in one.

The trees found are recorded in the run state (`sandbox.dropped`, tree ->
why) and `grants.compute` removes them from every grant computed for the run
(`zodyssey/sandbox/grants.py`, `_drop_aliases`); a dropped temporary folder is replaced by the
private one (`/tmp/zodyssey-sandbox-UID`).
"""

import os
import sys

MAX_ENTRIES = 300_000  # per tree walked; more is taken as aliased
PACKAGES = ("zodyssey", "tree_sitter", "tree_sitter_bash")


def gate_dirs() -> "list[str]":
    """The directories (resolved) of the gate's code and of what the hook imports."""
    import sysconfig

    paths = sysconfig.get_paths()
    out = [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]  # zodyssey/
    for place in dict.fromkeys((paths["purelib"], paths["platlib"], *sys.path)):
        for name in PACKAGES[1:]:
            candidate = os.path.join(place, name)
            if place and os.path.isdir(candidate):
                out.append(candidate)
    out.append(paths["stdlib"])
    out.append(os.path.dirname(os.path.realpath(sys.executable)))
    return [os.path.realpath(p) for p in dict.fromkeys(out) if os.path.isdir(p)]


def _linked(dirs: "list[str]") -> "dict[tuple[int, int], tuple[str, int]]":
    """(device, inode) -> (a path, extra names) of every file below `dirs` named more than once."""
    found: dict[tuple[int, int], tuple[str, int]] = {}
    for top in dirs:
        for base, subdirs, files in os.walk(top):
            # (the base interpreter's own packages and the test suite: not imported)
            subdirs[:] = [d for d in subdirs if d not in ("site-packages", "test")]
            for name in files:
                path = os.path.join(base, name)
                try:
                    info = os.lstat(path)
                except OSError:
                    continue
                if info.st_nlink > 1:
                    found[(info.st_dev, info.st_ino)] = (path, info.st_nlink - 1)
    return found


def _within(path: str, tree: str) -> bool:
    return path == tree or path.startswith(tree.rstrip("/") + "/")


def find(trees: "list[str]", dirs: "list[str] | None" = None) -> "dict[str, str]":
    """tree -> why, for each of `trees` (existing directories a run would grant)
    that holds the gate's code or another name of one of its files."""
    dirs = gate_dirs() if dirs is None else dirs
    real = {t: os.path.realpath(t) for t in trees if os.path.isdir(t)}
    dropped: dict[str, str] = {}
    for tree, resolved in real.items():
        for top in dirs:
            if _within(top, resolved) or _within(resolved, top):
                dropped[tree] = f"it holds the gate's own files ({top})"
                break
    linked = _linked(dirs)
    missing = sum(extra for _, extra in linked.values())
    devices = {dev for dev, _ in linked}
    hits: dict[str, str] = {}  # another name of a gate file -> why
    for tree, resolved in real.items():
        if missing <= len(hits):
            break
        if tree in dropped or os.stat(resolved).st_dev not in devices:
            continue
        if any(_within(hit, resolved) for hit in hits):
            continue  # (a tree below it was walked first: see the loop below)
        why = _walk(resolved, linked, hits)
        if why is not None:
            dropped[tree] = why
    for tree, resolved in real.items():  # trees holding a name found in another
        for hit, why in hits.items():
            if tree not in dropped and _within(hit, resolved):
                dropped[tree] = why
    return dropped


def _walk(
    tree: str, linked: "dict[tuple[int, int], tuple[str, int]]", hits: "dict[str, str]"
) -> "str | None":
    """Why `tree` aliases the gate (the first other name found, or too many entries to
    look through), or None; every other name found is added to `hits`."""
    entries = 0
    why = None
    for base, subdirs, files in os.walk(tree):
        entries += len(subdirs) + len(files)
        if entries > MAX_ENTRIES:
            return f"it holds more than {MAX_ENTRIES} entries to look through"
        for name in files:
            path = os.path.join(base, name)
            try:
                info = os.lstat(path)
            except OSError:
                continue
            hit = linked.get((info.st_dev, info.st_ino))
            if hit is not None:
                hits[path] = f"{path} is a hard link of the gate's {hit[0]}"
                why = why or hits[path]
    return why


def candidates(home: str) -> "list[str]":
    """The trees outside the repository a run's sandbox grants: temporary folders
    and the user's caches (the lists of `zodyssey/sandbox/grants.py`)."""
    from zodyssey.sandbox import grants

    temp = os.environ.get("TMPDIR") or "/tmp"
    # the caches first: where package managers leave hard links, and usually smaller
    return list(dict.fromkeys([*grants._caches(home), temp, *grants.SYSTEM_TEMP]))
