"""A property over generated functions and tests: the drill never reports a break
killed when the linked tests pass on the broken code.

Each example writes a real repository with one generated function (an optional
guard, an arithmetic result) and generated tests (real assertions, weak ones,
none at all), drills it for real (scratch copy, pytest subprocesses), and then
judges every break independently: the broken module and the tests are executed
in this process, without pytest. A break the drill calls killed must fail that
oracle; one it calls survived must pass it.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zodyssey.claims.drill import KILLED, SURVIVED, drill, plan
from zodyssey.claims.model import Claim

OPS = {"+": lambda x, b: x + b, "-": lambda x, b: x - b, "*": lambda x, b: x * b}


@st.composite
def programs(draw: Any) -> tuple[str, str]:
    guard = draw(st.one_of(st.none(), st.integers(-5, 5)))
    op = draw(st.sampled_from(sorted(OPS)))
    b = draw(st.integers(-3, 3))
    lines = ["def f(x: int) -> int:"]
    if guard is not None:
        lines += [f"    if x < {guard}:", '        raise ValueError("low")']
    lines += [f"    return x {op} {b}", ""]

    def value(x: int) -> int | None:
        return None if guard is not None and x < guard else OPS[op](x, b)

    tests = ["import pytest", "from mod import f", ""]
    for n, x in enumerate(draw(st.lists(st.integers(-8, 8), min_size=1, max_size=3))):
        kind = draw(st.sampled_from(["exact", "weak", "none"]))
        expected = value(x)
        tests.append(f'@pytest.mark.claim("c")\ndef test_{n}():')
        if expected is None:
            body = f"    with pytest.raises(ValueError):\n        f({x})"
            if kind == "none":
                body = f"    try:\n        f({x})\n    except ValueError:\n        pass"
        elif kind == "exact":
            body = f"    assert f({x}) == {expected}"
        elif kind == "weak":
            body = f"    assert f({x}) is not None or True"
        else:
            body = f"    f({x})"
        tests += [body, ""]
    return "\n".join(lines), "\n".join(tests)


def _oracle_passes(module_source: bytes, tests_source: str) -> bool:
    """Every test of `tests_source` passes against `module_source`, run here."""
    import sys
    import types

    module = types.ModuleType("mod")
    exec(compile(module_source, "mod.py", "exec"), module.__dict__)
    saved = sys.modules.get("mod")
    sys.modules["mod"] = module
    try:
        namespace: dict[str, Any] = {}
        exec(compile(tests_source, "test_mod.py", "exec"), namespace)
        for name, fn in namespace.items():
            if name.startswith("test_") and callable(fn):
                try:
                    fn()
                except (Exception, pytest.fail.Exception):  # pytest.raises fails with the latter
                    return False
        return True
    finally:
        if saved is None:
            sys.modules.pop("mod", None)
        else:
            sys.modules["mod"] = saved


@pytest.mark.slow
@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(program=programs())
def test_killed_only_when_the_tests_fail_on_the_broken_code(
    tmp_path_factory: pytest.TempPathFactory, program: tuple[str, str]
) -> None:
    source, tests = program
    root = tmp_path_factory.mktemp("prop")
    (root / "mod.py").write_text(source)
    (root / "test_mod.py").write_text(tests)
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["."]\n')
    assert _oracle_passes(source.encode(), tests)  # the generator's own promise
    nodeids = [
        f"test_mod.py::{line[4:].split('(')[0]}"
        for line in tests.splitlines()
        if line.startswith("def test_")
    ]
    claim = Claim("c", "README.md", 1, "f works.", "paragraph", 1, ("mod.py::f",))
    target = plan(root, claim, nodeids)
    assert target.breaks and not target.problems
    [result] = drill(root, [target], jobs=2)
    assert result.baseline is not None and result.baseline.status == "passed"
    for r in result.results:
        passes = _oracle_passes(r.brk.source, tests)
        if r.outcome.status == KILLED:
            assert not passes, (r.brk.kind, source, tests)
        if r.outcome.status == SURVIVED:
            assert passes, (r.brk.kind, source, tests)
        assert r.outcome.status in (KILLED, SURVIVED), (r.brk.kind, r.outcome.cause)
    assert (root / "mod.py").read_text() == source


def test_the_oracle_can_fail() -> None:
    assert not _oracle_passes(
        b"def f(x):\n    return 0\n", "from mod import f\ndef test_a():\n    assert f(1) == 1\n"
    )
    assert _oracle_passes(
        b"def f(x):\n    return 1\n", "from mod import f\ndef test_a():\n    assert f(1) == 1\n"
    )
