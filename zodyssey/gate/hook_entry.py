"""The hook as a script: `PYTHON -S -P .../zodyssey/gate/hook_entry.py pre-tool|post-tool`.

`zodyssey hook install` writes this form because the harness starts it on
every tool call:

- running a file skips `runpy` (which `python -m` imports, with
  `importlib.util`, `contextlib`, `functools`, `collections`: about 3 ms);
- `-P` keeps this file's directory off `sys.path`;
- `-S` skips `site` at start-up: its `.pth` files (setuptools' distutils
  shim, editable-install finders), `sitecustomize` and user site directories,
  about 4 ms that `python -c pass` pays and the gate does not need. In its
  place this file puts on `sys.path` the directory holding this `zodyssey`
  package and the interpreter's own `site-packages` (its venv's, when it runs
  in one), when the parser's packages (`tree_sitter`, `tree_sitter_bash`)
  are found there. Otherwise it runs `site.main()`, exactly the start-up
  `-S` skipped, and adds the directory holding this `zodyssey` after what
  `site` added: a layout this shortcut does not know costs time, never a
  failed hook. (So does an import error on the short path.)

Same behaviour as `python -m zodyssey.gate` and `zodyssey hook`.
"""

import sys

PARSER_PACKAGES = ("tree_sitter", "tree_sitter_bash")
POSIX = "posix" in sys.builtin_module_names


def _paths_without_site() -> None:
    package_root, purelib = _places()
    places = [package_root] if purelib == package_root else [package_root, purelib]
    if all(any(_isdir(place, name) for place in places) for name in PARSER_PACKAGES):
        sys.path.extend(place for place in places if place not in sys.path)
    else:
        _site()
        if package_root not in sys.path:  # this file's own package, after site's paths
            sys.path.append(package_root)


def _plain(path: str, depth: int) -> bool:
    """An absolute POSIX path of more than `depth` components that
    `os.path.abspath` leaves as it is (no empty, `.` or `..` component)."""
    parts = path.split("/")
    return (
        parts[0] == ""
        and len(parts) > depth + 1
        and all(p not in ("", ".", "..") for p in parts[1:])
    )


def _places() -> "tuple[str, str]":
    """(the directory holding this `zodyssey`, the interpreter's site-packages).
    With plain POSIX paths by string operations and `posix.stat` (built in and
    loaded: the call without a run then never imports `os`); else with `os`."""
    here, exe = __file__, sys.executable
    if POSIX and _plain(here, 3) and _plain(exe, 2) and _plain(sys.prefix, 0):
        package_root = here.rsplit("/", 3)[0]
        # `site` is also what reads pyvenv.cfg and points sys.prefix at a venv
        prefix = exe.rsplit("/", 2)[0]
        if not _is_kind(prefix + "/pyvenv.cfg", 0o100000):
            prefix = sys.prefix
        version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
        return package_root, f"{prefix}/lib/{version}/site-packages"
    import os

    package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    prefix = os.path.dirname(os.path.dirname(os.path.abspath(sys.executable)))
    if not os.path.isfile(os.path.join(prefix, "pyvenv.cfg")):
        prefix = sys.prefix
    if os.name == "nt":
        purelib = os.path.join(prefix, "Lib", "site-packages")
    else:
        version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
        purelib = os.path.join(prefix, "lib", version, "site-packages")
    return package_root, purelib


def _isdir(place: str, name: str) -> bool:
    if POSIX:
        return _is_kind(place + "/" + name, 0o040000)
    import os

    return os.path.isdir(os.path.join(place, name))


def _is_kind(path: str, kind: int) -> bool:
    """Whether `path` exists and is of file type `kind` (stat's S_IFMT bits)."""
    from posix import stat

    try:
        return stat(path).st_mode & 0o170000 == kind
    except (OSError, ValueError):
        return False


def _site() -> None:
    import site

    site.main()


if sys.flags.no_site and "site" not in sys.modules:
    _paths_without_site()


def _sub_command() -> "int | None":
    """The gate's helpers that run through this entry, before the hook is imported
    (the sandbox wrapper runs in front of every shell command of a run)."""
    if sys.argv[1:2] == ["effects-pre"]:  # the hook's pre-tool snapshot (a child of the hook)
        from zodyssey.sandbox.violations import main as effects_main

        return effects_main(sys.argv[2:])
    if sys.argv[1:2] == ["sandbox"]:  # the gate's wrapper of shell commands in a run
        from zodyssey.sandbox.runner import main as sandbox_main

        return sandbox_main(sys.argv[2:])
    return None


if __name__ == "__main__" and sys.argv[1:2] in (["effects-pre"], ["sandbox"]):
    try:
        code = _sub_command()
    except ImportError:
        if "site" in sys.modules:
            raise
        _site()
        code = _sub_command()
    sys.exit(code)


def _quiet(raw: bytes) -> bool:
    """No run state can guard this call (zodyssey/gate/norun.py): exit 0 before
    the hook, `os` and the discovery are imported. False whenever unsure."""
    try:
        from zodyssey.gate.norun import nothing_to_guard

        return nothing_to_guard(sys.argv[1:], raw)
    except Exception:
        return False


raw: "bytes | None" = None
if __name__ == "__main__" and POSIX and not {"-h", "--help"} & set(sys.argv[1:]):
    try:
        raw = sys.stdin.buffer.read()
    except BaseException:
        raw = b""
    if _quiet(raw):
        sys.exit(0)
try:
    from zodyssey.gate.hook import main
except ImportError:
    if "site" in sys.modules:
        raise
    _site()
    from zodyssey.gate.hook import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], raw))
