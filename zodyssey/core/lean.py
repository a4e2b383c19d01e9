"""Run one module of another package without paying for what it never uses.

The hook is a fresh process on every tool call, so imports are most of its
cost. Two modules it needs import far more than the hook uses:

- `tree_sitter._binding` (the parser). Its package `__init__` imports
  `typing`; the compiled module itself, while it initialises, fetches
  `re.compile` (kept for query predicates), builds `Point` with
  `collections.namedtuple` and `LogType` with `enum.IntEnum`.
- `json.encoder` (writing run state). It compiles three patterns with `re` at
  import, used only by its pure-Python string escapers, which the C
  accelerators of `_json` replace.

`re`, `enum`, `collections` and `functools` together cost about 5 ms, a fifth
of a parsed write's whole process. `load` executes such a module directly
(its package `__init__` is not run) while `sys.modules` holds small stand-ins
for the standard modules it names that are not loaded yet; the stand-ins are
removed as soon as the module has run, so every later import, by anyone, gets
the real module. What the module kept from a stand-in behaves as documented:
a pattern from the stand-in `re.compile` compiles itself with the real `re`
on first use; `Point` is a tuple with `row` and `column`; `LogType` has int
members `PARSE` and `LEX`.

`load` raises on any surprise, including any other module imported while the
stand-ins were in place (it might keep one); such modules are forgotten and
callers then import the ordinary way.

tests/gate/test_gate_write_path_imports.py runs the parser, a query predicate
and the state encoder in a fresh interpreter to hold this to account.
"""

import sys

from zodyssey.core.records import Fields  # loaded before any stand-in (see `load`)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any


def load(name: str, stand_in_for: "Sequence[str]" = (), register: bool = True) -> "Any":
    """Execute module `name` (`package.module`) without its package's `__init__`.

    `stand_in_for` names standard modules (`re`, `collections`, `enum`) to
    stand in for while it runs, when they are not loaded yet. With `register`
    the module is entered in `sys.modules` (a later `import package` finds it);
    without, the caller alone holds it.
    """
    package, _, _ = name.rpartition(".")
    external: Any = sys.modules["_frozen_importlib_external"]
    bootstrap: Any = sys.modules["_frozen_importlib"]
    made = {key: _STAND_INS[key]() for key in stand_in_for if key not in sys.modules}
    before = set(sys.modules)
    sys.modules.update(made)
    try:
        top = external.PathFinder.find_spec(package)
        spec = external.PathFinder.find_spec(name, top.submodule_search_locations)
        module = bootstrap.module_from_spec(spec)
        if register:
            sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
            # Anything else imported meanwhile may hold a stand-in for good:
            # forget it all, and let the caller import the ordinary way.
            others = sorted(set(sys.modules) - before - set(made) - {name})
            if made and others:
                for other in others:
                    del sys.modules[other]
                raise ImportError(f"{name} imported {', '.join(others)} beside the stand-ins")
        except BaseException:
            if register:
                sys.modules.pop(name, None)
            raise
        return module
    finally:
        for key, stand_in in made.items():
            if sys.modules.get(key) is stand_in:
                del sys.modules[key]


def _module(name: str, **attributes: "Any") -> "Any":
    module = type(sys)(name)
    module.__dict__.update(attributes)
    return module


class _Pattern:
    """A pattern compiled by the real `re` when first used."""

    def __init__(self, pattern: "Any", flags: int = 0) -> None:
        self._source = (pattern, flags)
        self._compiled: Any = None

    def __getattr__(self, attribute: str) -> "Any":
        if self._compiled is None:
            import re

            self._compiled = re.compile(*self._source)
        return getattr(self._compiled, attribute)


def _tuple_type(typename: str, field_names: "Sequence[str]", *, module: str | None = None) -> type:
    """What `collections.namedtuple` returns, built on the project's own records."""
    namespace = {
        "__slots__": (),
        "__module__": module or __name__,
        "__annotations__": dict.fromkeys(field_names, "Any"),
    }
    return type(typename, (Fields,), namespace)


def _int_names(typename: str, members: dict[str, int]) -> type:
    kind = type(typename, (int,), {"__slots__": ()})
    for key, value in members.items():
        setattr(kind, key, kind(value))
    return kind


_STAND_INS = {
    "re": lambda: _module("re", compile=_Pattern),
    "collections": lambda: _module("collections", namedtuple=_tuple_type),
    "enum": lambda: _module("enum", IntEnum=_int_names),
}
