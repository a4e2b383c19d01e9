"""What a drilled test run depends on, recorded by every Python process of it.

The drill puts this folder on `PYTHONPATH` (last) for the unbroken run of a
claim's linked tests and names a file in `ZODYSSEY_DRILL_DEPS`: each Python
process of that run (pytest and the Python subprocesses of its tests) then
records, through an audit hook, the files it opens under
`ZODYSSEY_DRILL_DEPS_ROOT` (the scratch copy; Python sources left out: whether
an import reads one depends on the bytecode cache), and a process running
pytest adds at exit the files of the modules it imported from there and the
top-level names of the others (their installed distributions' versions join
the cache key); every process adds the repository modules it imported (not
keyed: they tell whether a break of a file could reach the tests). One JSON line per process is appended to the file. Without
`ZODYSSEY_DRILL_DEPS` it does nothing.

The drill's warm process (drill_warm.py) records its unbroken run this way: the
child that runs it calls `zodyssey_drill_flush()` before it ends (a forked child
skips `atexit`), and the parent then calls `zodyssey_drill_stop()`: nothing more
is recorded by it, the children it forks for breaks, or their subprocesses.
"""

import atexit
import json
import os
import sys

_OUT = os.environ.get("ZODYSSEY_DRILL_DEPS")
_ROOT = os.environ.get("ZODYSSEY_DRILL_DEPS_ROOT", "")


def _install(out: str, root: str) -> None:
    files: set[str] = set()
    prefixes = tuple({r.rstrip("/") + "/" for r in (root, os.path.realpath(root))})
    state = {"done": False}

    def under(path: object) -> str | None:
        if isinstance(path, bytes):
            path = path.decode("utf-8", "surrogateescape")
        if not isinstance(path, str):
            return None
        if not path.startswith("/"):
            try:
                path = os.path.join(os.getcwd(), path)
            except OSError:
                return None
        path = os.path.normpath(path)
        return path if path.startswith(prefixes) else None

    def hook(event: str, args: tuple[object, ...]) -> None:
        if state["done"]:
            return
        if event == "open":
            found = under(args[0]) if args else None
            if found is not None and not found.endswith((".py", ".pyc")):
                files.add(found)

    def write() -> None:
        state["done"] = True
        modules: set[str] = set()
        imported: set[str] = set()
        tests = "_pytest" in sys.modules  # the test process: its imports are keyed
        for name, module in list(sys.modules.items()):
            where = getattr(module, "__file__", None)
            found = under(where) if isinstance(where, str) else None
            if found is not None:
                imported.add(found)
                if tests:
                    files.add(found)
            elif where and tests:
                modules.add(name.split(".", 1)[0])
        record = {"files": sorted(files), "modules": sorted(modules), "imported": sorted(imported)}
        line = json.dumps(record)
        fd = os.open(out, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, (line + "\n").encode("utf-8", "surrogateescape"))
        finally:
            os.close(fd)

    def stop() -> None:
        state["done"] = True
        atexit.unregister(write)
        for name in ("ZODYSSEY_DRILL_DEPS", "ZODYSSEY_DRILL_DEPS_ROOT"):
            os.environ.pop(name, None)

    sys.addaudithook(hook)
    atexit.register(write)
    globals().update(zodyssey_drill_flush=write, zodyssey_drill_stop=stop)


if _OUT and _ROOT:
    _install(_OUT, _ROOT)
