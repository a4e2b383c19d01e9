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


def _paths_without_site() -> None:
    import os

    package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    # `site` is also what reads pyvenv.cfg and points sys.prefix at a venv
    prefix = os.path.dirname(os.path.dirname(os.path.abspath(sys.executable)))
    if not os.path.isfile(os.path.join(prefix, "pyvenv.cfg")):
        prefix = sys.prefix
    if os.name == "nt":
        purelib = os.path.join(prefix, "Lib", "site-packages")
    else:
        version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
        purelib = os.path.join(prefix, "lib", version, "site-packages")
    places = [package_root] if purelib == package_root else [package_root, purelib]
    if all(
        any(os.path.isdir(os.path.join(place, name)) for place in places)
        for name in PARSER_PACKAGES
    ):
        sys.path.extend(place for place in places if place not in sys.path)
    else:
        _site()
        if package_root not in sys.path:  # this file's own package, after site's paths
            sys.path.append(package_root)


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
try:
    from zodyssey.gate.hook import main
except ImportError:
    if "site" in sys.modules:
        raise
    _site()
    from zodyssey.gate.hook import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
