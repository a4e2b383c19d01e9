"""The import rule of `zodyssey/core/__init__.py`, checked by reading the
source of every hot module (an AST walk; nothing is imported, well under a second).

How this could pass while broken: a walk that skipped function bodies, the
`from PACKAGE import MODULE` form, or modules added later would let a heavy
import in; so the set of modules is found from the tree, both import forms are
read, and planted violations prove each check fires.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.helpers import REPO_ROOT

PACKAGE = REPO_ROOT / "zodyssey"
STDLIB = frozenset({"os", "sys", "fcntl", "time", "_json", "stat"})
COLD = (
    "gate/wiring",
    "gate/install",
    "gate/probe",
    "gate/codex_trust",
    "sandbox/contain",  # `zodyssey run start|verify` only, never the hook
)  # the CI side of the gate: any import allowed
# Edges the rule still lets through at import time, each named (none: the rule
# for "what a run may write" lives below the gate and the sandbox, in
# core/allowance.py).
EXITS: frozenset[tuple[str, str]] = frozenset()


def hot_modules(package: Path = PACKAGE) -> list[Path]:
    found = [package / "__init__.py", package / "errors.py"]
    for folder in ("core", "gate", "sandbox"):
        for path in sorted((package / folder).rglob("*.py")):
            rel = path.relative_to(package).as_posix()
            if not rel.startswith(COLD):
                found.append(path)
    return found


def _is_type_checking(node: ast.stmt) -> bool:
    return isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING"


def _is_main(node: ast.stmt) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return (
        isinstance(test, ast.Compare)
        and getattr(test.left, "id", None) == "__name__"
        and any(getattr(c, "value", None) == "__main__" for c in test.comparators)
    )


def _imports(body: list[ast.stmt], top: bool) -> list[tuple[ast.stmt, str, bool]]:
    """(node, module, at import time) of every import, TYPE_CHECKING blocks left out."""
    out: list[tuple[ast.stmt, str, bool]] = []
    for node in body:
        if _is_type_checking(node):
            continue
        if isinstance(node, ast.Import):
            out.extend((node, alias.name, top) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            out.extend((node, f"{module}.{alias.name}", top) for alias in node.names)
        # a function body, or a script's `if __name__ == "__main__":`, runs when called
        nested = isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or _is_main(node)
        for field in ("body", "orelse", "finalbody", "handlers"):
            children = getattr(node, field, None)
            if isinstance(children, list):
                statements = [c for c in children if isinstance(c, ast.stmt)]
                statements += [
                    s for h in children if isinstance(h, ast.ExceptHandler) for s in h.body
                ]
                out.extend(_imports(statements, top and not nested))
    return out


def violations(path: Path, package: Path = PACKAGE) -> list[str]:
    rel = path.relative_to(package).as_posix()
    in_core = rel.startswith("core/")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    problems = []
    for node, module, top in _imports(tree.body, True):
        where = f"{rel}:{node.lineno} {module}"
        if module.startswith("."):
            problems.append(f"{where}: relative import")
        elif module == "__future__" or module.startswith("__future__."):
            problems.append(f"{where}: __future__ (quote the annotation instead)")
        elif in_core and module.startswith("zodyssey.gate"):
            problems.append(f"{where}: core imports the gate")
        elif top and not _allowed_at_import(module, rel):
            problems.append(f"{where}: imported at import time (import it where it is used)")
    return problems


def _allowed_at_import(module: str, rel: str) -> bool:
    root = module.split(".")[0]
    if root != "zodyssey":
        # `from os import path` reads as "os" and "os.path"
        return root in STDLIB
    if module.startswith(("zodyssey.core", "zodyssey.errors")) or module == "zodyssey.__version__":
        return True
    if any(rel == where and module.startswith(edge) for where, edge in EXITS):
        return True
    own = rel.split("/")[0]  # gate/ and sandbox/ each import their own package
    return own in ("gate", "sandbox") and module.startswith(f"zodyssey.{own}.")


def test_hot_modules_follow_the_import_rule() -> None:
    modules = hot_modules()
    assert len(modules) > 40, len(modules)  # the walk found the tree
    assert PACKAGE / "sandbox" / "violations.py" in modules  # the post-call check is hot
    problems = [problem for path in modules for problem in violations(path)]
    assert not problems, "\n".join(problems)


def test_the_rule_is_stated_once_where_the_test_says() -> None:
    text = (PACKAGE / "core" / "__init__.py").read_text(encoding="utf-8")
    assert "tests/core/test_import_rule.py" in text
    assert all(f"`{name}`" in text for name in sorted(STDLIB))


def test_planted_violations_are_found(tmp_path: Path) -> None:
    package = tmp_path / "zodyssey"
    (package / "core").mkdir(parents=True)
    (package / "gate" / "wiring").mkdir(parents=True)
    (package / "core" / "bad.py").write_text(
        "from __future__ import annotations\n"
        "import os, re\n"
        "from zodyssey import gate\n"
        "TYPE_CHECKING = False\n"
        "if TYPE_CHECKING:\n"
        "    import typing\n"
        "try:\n"
        "    import json\n"
        "except ImportError:\n"
        "    import pathlib\n"
        "def f():\n"
        "    import re\n"
        "    from zodyssey.gate import hook\n"
    )
    (package / "gate" / "ok.py").write_text(
        "import sys\nfrom zodyssey.gate import policy\ndef g():\n    import tomllib\n"
    )
    (package / "gate" / "wiring" / "cold.py").write_text("import json\n")
    found = violations(package / "core" / "bad.py", package)
    assert [line.split(":", 1)[1] for line in found] == [
        "1 __future__.annotations: __future__ (quote the annotation instead)",
        "2 re: imported at import time (import it where it is used)",
        "3 zodyssey.gate: core imports the gate",
        "8 json: imported at import time (import it where it is used)",
        "10 pathlib: imported at import time (import it where it is used)",
        "13 zodyssey.gate.hook: core imports the gate",
    ]
    assert violations(package / "gate" / "ok.py", package) == []
    names = [p.relative_to(package).as_posix() for p in hot_modules(package) if p.exists()]
    assert "gate/wiring/cold.py" not in names and "gate/ok.py" in names
