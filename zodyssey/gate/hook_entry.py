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
  failed hook. (So does an import error on the short path.) That work is
  in `zodyssey/gate/norun.py` (`paths`), byte-compiled once, because this file
  is compiled again on every call: it only finds its own package by string
  operations and hands over.
- a call no run state can guard exits 0 after `norun.nothing_to_guard`
  (`posix` and `sys` only, no `os`), before the hook is imported.

Same behaviour as `python -m zodyssey.gate` and `zodyssey hook`.
"""

import sys


def _package_root() -> str:
    """The directory holding this `zodyssey`: string operations on a plain POSIX
    path (what `os.path.abspath` leaves as it is), `os` otherwise."""
    parts = __file__.split("/")
    if len(parts) > 4 and parts[0] == "" and all(p not in ("", ".", "..") for p in parts[1:]):
        return "/".join(parts[:-3])
    import os

    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _site() -> None:
    import site

    site.main()


if sys.flags.no_site and "site" not in sys.modules:
    _root = _package_root()
    sys.path.append(_root)  # for the next import only: `paths` puts it where it belongs
    try:
        from zodyssey.gate.norun import paths
    except ImportError:  # cannot be on an intact install: start as `site` would
        sys.path.remove(_root)
        _site()
        sys.path.append(_root)
    else:
        paths(_root)


def _sub_command() -> "int | None":
    """The gate's helper that runs through this entry, before the hook is imported
    (the sandbox wrapper runs in front of every shell command of a run)."""
    if sys.argv[1:2] == ["sandbox"]:  # the gate's wrapper of shell commands in a run
        from zodyssey.sandbox.runner import main as sandbox_main

        return sandbox_main(sys.argv[2:])
    if sys.argv[1:2] == ["shell-prefix"]:  # Claude Code's CLAUDE_CODE_SHELL_PREFIX
        from zodyssey.sandbox.shell_prefix import main as prefix_main

        return prefix_main(sys.argv[2:])
    return None


if __name__ == "__main__" and sys.argv[1:2] in (["sandbox"], ["shell-prefix"]):
    try:
        code = _sub_command()
    except ImportError:
        if "site" in sys.modules:
            raise
        _site()
        code = _sub_command()
    sys.exit(code)
raw: "bytes | None" = None
if __name__ == "__main__" and not {"-h", "--help"} & set(sys.argv[1:]):
    try:
        from zodyssey.gate.norun import quiet

        raw, done = quiet(sys.argv[1:])
    except Exception:
        done = False
    if done:
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
