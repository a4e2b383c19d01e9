"""The warm process's child giving a break to modules already imported
(zodyssey/claims/drill_warm.py::apply_break), on real files imported for real."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from zodyssey.claims.drill_warm import Unsupported, apply_break

SOURCE = """import functools


def wrapped(f):
    @functools.wraps(f)
    def inner(*args):
        return f(*args)

    return inner


LIMIT = 10


def add(a, b):
    return a + b


@wrapped
def twice(x):
    return x * 2


class Box:
    def size(self):
        return 3

    @staticmethod
    def name():
        return "box"


def counter():
    n = 0

    def step():
        return n + 1

    return step


TABLE = {"add": add}
"""


@pytest.fixture
def module(tmp_path: Path) -> Iterator[tuple[ModuleType, Path]]:
    path = tmp_path / "warm_target.py"
    path.write_text(SOURCE)
    spec = importlib.util.spec_from_file_location("warm_target", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["warm_target"] = mod
    spec.loader.exec_module(mod)
    try:
        yield mod, path
    finally:
        sys.modules.pop("warm_target", None)


def _break(path: Path, old: str, new: str) -> bytes:
    original = path.read_bytes()
    path.write_text(SOURCE.replace(old, new))
    return original


def test_every_reference_to_a_function_sees_the_break(module: tuple[ModuleType, Path]) -> None:
    mod, path = module
    add = mod.add
    assert apply_break(path, _break(path, "return a + b", "return a - b")) == 1
    assert add(3, 1) == 2 and mod.TABLE["add"](3, 1) == 2  # held before the break: broken too


@pytest.mark.parametrize(
    "old, new, check",
    [
        ("return x * 2", "return x * 3", lambda m: m.twice(2) == 6),  # behind functools.wraps
        ("return 3", "return 4", lambda m: m.Box().size() == 4),
        ('return "box"', "return ''", lambda m: m.Box.name() == ""),
        ("return n + 1", "return n - 1", lambda m: m.counter()() == -1),  # a nested function
    ],
)
def test_methods_wrapped_and_nested_functions(
    module: tuple[ModuleType, Path], old: str, new: str, check: object
) -> None:
    mod, path = module
    apply_break(path, _break(path, old, new))
    assert check(mod)  # type: ignore[operator]


def test_code_outside_functions_is_refused(module: tuple[ModuleType, Path]) -> None:
    """A module constant is computed once at import: giving the module new code
    cannot change it, so the child refuses (a fresh process runs the break)."""
    _, path = module
    with pytest.raises(Unsupported, match="outside functions"):
        apply_break(path, _break(path, "LIMIT = 10", "LIMIT = 11"))


def test_a_module_not_imported_is_left_to_the_file(tmp_path: Path) -> None:
    path = tmp_path / "never_imported.py"
    path.write_text("def f():\n    return 2\n")
    assert apply_break(path, b"def f():\n    return 1\n") == 0


# --- the claim's unbroken run is the warm process's first ---------------------------------

COUNTING_CONFTEST = """import os


def pytest_configure(config):
    with open(os.environ["DRILL_TEST_STARTS"], "a") as out:
        out.write(f"{os.getpid()}\\n")
"""


def test_the_unbroken_run_is_the_warm_processs_and_records_what_it_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One job, every break killed in the warm process: one pytest process starts
    in all (before, a fresh one ran the unbroken tests first: two), and what the
    unbroken run read is recorded as a fresh run records it."""
    from invariants.test_drill_operators import EXACT, _repo
    from zodyssey.claims.drill import PASSED, drill, plan
    from zodyssey.claims.drill_fork import WarmPool
    from zodyssey.claims.model import Claim

    root = _repo(tmp_path / "repo", EXACT)
    (root / "tests/data.txt").write_text("5\n")
    (root / "tests/conftest.py").write_text(
        COUNTING_CONFTEST
        + '\n\ndef pytest_sessionstart(session):\n    open("tests/data.txt").read()\n'
    )
    starts = tmp_path / "starts.txt"
    monkeypatch.setenv("DRILL_TEST_STARTS", str(starts))
    monkeypatch.setenv("ZODYSSEY_DRILL_BYTECODE", str(tmp_path / "bytecode"))
    claim = Claim("add", "README.md", 3, "add adds.", "list_item", 3, ("calc/ops.py::add",), ())
    tests = ["tests/test_ops.py::test_add", "tests/test_ops.py::test_add_refuses_negative"]
    [result] = drill(root, [plan(root, claim, tests)], jobs=1, warm_pool=WarmPool)
    assert result.baseline is not None and result.baseline.status == PASSED
    assert set(result.baseline.durations) == set(tests)  # fresh runs go fastest first
    assert result.results and all(r.outcome.status == "killed" for r in result.results)
    assert len(starts.read_text().split()) == 1
    assert result.deps is not None
    assert {"tests/data.txt", "tests/test_ops.py", "calc/ops.py"} <= set(result.deps.files)
    assert "calc/ops.py" in result.deps.imported
    assert "_pytest" in result.deps.modules or "pytest" in result.deps.modules
