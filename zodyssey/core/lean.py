"""Run one module of another package without running the package's `__init__`.

The hook is a fresh process on every tool call, so imports are most of its
cost. The parser's compiled module, `tree_sitter._binding`, is all the gate
needs of tree-sitter, but `import tree_sitter._binding` runs the package
`__init__` first, and that imports `typing` and `importlib.resources` (about
14 ms on a parsed call). `load` finds the module with the import system's own
path finder and executes it on its own; the module itself then imports
whatever it imports (`re`, `collections`, `enum` while it initialises: the real
ones). Any failure is raised, and the caller (zodyssey/gate/shell/walker.py)
then imports the ordinary way.

tests/gate/test_gate_write_path_imports.py runs the parser and a query
predicate in a fresh interpreter to hold this to account.
"""

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def load(name: str) -> "Any":
    """Execute module `name` (`package.module`) without its package's `__init__`,
    and enter it in `sys.modules` (a later `import package` finds it there)."""
    package, _, _ = name.rpartition(".")
    external: Any = sys.modules["_frozen_importlib_external"]
    bootstrap: Any = sys.modules["_frozen_importlib"]
    top = external.PathFinder.find_spec(package)
    spec = external.PathFinder.find_spec(name, top.submodule_search_locations)
    module = bootstrap.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module
