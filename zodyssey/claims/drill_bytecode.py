"""Where the drill's test runs cache bytecode: the scratch directory, plus a store
for the interpreter's own files that outlives the drill.

Every test run of a drill has `PYTHONPYCACHEPREFIX` set to `<scratch>/pycache`,
so no bytecode is ever written beside a source file (the user's tree, its
virtual environment). A prefix that starts empty makes the first run of every
drill compile the standard library, pytest and every plugin again, which costs
more than most test runs. So the prefix's mirror of each directory the
interpreter imports its own modules from (the standard library, the
site-packages) is a symbolic link into a store kept between drills:

    <scratch>/pycache/usr/lib/python3.12      -> <store>/usr/lib/python3.12
    <scratch>/pycache/<venv>/lib/.../site-packages -> <store>/<venv>/lib/...
    <scratch>/pycache/<scratch>/copy-0/...    (real directories: the copies' own)

The scratch copies, where every break is written, are never under a linked
directory: their bytecode lives and dies with the scratch directory, and the
store only ever holds bytecode of files the drill does not touch, checked by
Python's usual modification time and size. The store is
`$ZODYSSEY_DRILL_BYTECODE` (an empty value: no store), else
`$XDG_CACHE_HOME/zodyssey/drill-bytecode`, else `~/.cache/zodyssey/drill-bytecode`,
with one folder per interpreter; never inside the drilled tree.
"""

from __future__ import annotations

import hashlib
import os
import site
import sys
import sysconfig
from pathlib import Path

STORE_ENV = "ZODYSSEY_DRILL_BYTECODE"


def store_dir(root: Path) -> Path | None:
    """The bytecode store for this interpreter, created; None when there is none to use."""
    given = os.environ.get(STORE_ENV)
    if given is not None:
        if not given:
            return None
        base = Path(given)
    else:
        xdg = os.environ.get("XDG_CACHE_HOME", "")
        try:
            home = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache"
        except RuntimeError:  # no home directory
            return None
        base = home / "zodyssey" / "drill-bytecode"
    key = hashlib.sha256(f"{sys.executable}\0{sys.version}".encode()).hexdigest()[:16]
    store = Path(os.path.abspath(base)) / key
    if _within(store, root):
        return None  # the drill never writes into the tree it drills
    try:
        store.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return store


def interpreter_dirs() -> list[str]:
    """The directories this interpreter imports its own modules from (outermost only)."""
    found = _import_dirs()
    dirs = {os.path.abspath(d) for d in found} | {os.path.realpath(d) for d in found}
    dirs = {d for d in dirs if os.path.isdir(d) and d != os.path.dirname(d)}
    return sorted(d for d in dirs if not any(_nested(d, o) for o in dirs))


def _import_dirs() -> set[str]:
    """The standard library's and the site-packages' directories, as configured."""
    paths = sysconfig.get_paths()
    found = {paths[n] for n in ("stdlib", "platstdlib", "purelib", "platlib") if paths.get(n)}
    found.update(site.getsitepackages())
    if site.ENABLE_USER_SITE:
        found.add(site.getusersitepackages())
    return found


def _nested(inner: str, outer: str) -> bool:
    """`inner` lies inside another directory `outer`, as spelt or with links resolved
    (two spellings of one directory are both kept)."""
    spelt = _inside(inner, outer)
    real_in, real_out = os.path.realpath(inner), os.path.realpath(outer)
    return spelt or (real_in != real_out and _inside(real_in, real_out))


def link_store(prefix: Path, store: Path, avoid: list[Path]) -> list[str]:
    """Point `prefix`'s mirror of every interpreter directory at `store`; the
    directories that hold anything in `avoid` (the drilled tree, the scratch
    copies) stay the scratch directory's own. The linked directories."""
    linked: list[str] = []
    for directory in interpreter_dirs():
        if any(_within(place, Path(directory)) for place in avoid):
            continue
        rel = directory.lstrip(os.sep)
        mirror, kept = prefix / rel, store / rel
        try:
            kept.mkdir(parents=True, exist_ok=True)
            mirror.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(kept, mirror, target_is_directory=True)
        except OSError:
            continue  # compiled into the scratch directory instead
        linked.append(directory)
    return linked


def _within(path: Path, directory: Path) -> bool:
    """`path` is `directory` or inside it (links resolved)."""
    inner, outer = os.path.realpath(path), os.path.realpath(directory)
    return inner == outer or _inside(inner, outer)


def _inside(inner: str, outer: str) -> bool:
    """`inner` is strictly below `outer` (as spelt)."""
    return inner.startswith(outer.rstrip(os.sep) + os.sep)
