"""Operator mutants (docs/claims.md, "The breaks"): built on the syntax tree, only
inside the claimed span, equivalent ones left out, `drill-skip=` honoured with
its reason, a weak test caught by name; and the warm process that runs them
(docs/claims.md, "Running it") giving the verdicts a fresh process gives."""

from __future__ import annotations

import ast
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from zodyssey.claims.drill_breaks import breaks_of, resolve
from zodyssey.claims.drill_ops import mutants, normal_form
from zodyssey.claims.markers import parse_document
from zodyssey.claims.model import Claim

pytestmark = pytest.mark.slow

OPS = '''"""Arithmetic."""

LIMIT = 10


def add(a: int, b: int) -> int:
    """The sum; negative input is refused."""
    if a < 0 or b < 0:
        raise ValueError("negative")
    return a + b


def mul(a: int, b: int) -> int:
    return a * b
'''

EXACT = """import pytest

from calc.ops import add


def test_add():
    assert add(2, 3) == 5
    assert add(0, 0) == 0


def test_add_refuses_negative():
    for a, b in ((-1, 3), (3, -1)):
        with pytest.raises(ValueError, match="negative"):
            add(a, b)
"""

ADD_LINE = 10  # `return a + b`


def _repo(root: Path, tests: str) -> Path:
    (root / "calc").mkdir(parents=True)
    (root / "calc/__init__.py").write_text("")
    (root / "calc/ops.py").write_text(OPS)
    (root / "tests").mkdir()
    (root / "tests/test_ops.py").write_text(tests)
    (root / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\npythonpath = ["."]\naddopts = "--import-mode=importlib"\n'
    )
    return root


def _digest(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _drill(
    root: Path,
    skips: tuple[tuple[str, str], ...] = (),
    *,
    code: str = "calc/ops.py::add",
    tests: tuple[str, ...] = ("test_add", "test_add_refuses_negative"),
    fresh: bool = False,
) -> tuple[Any, dict[str, Any], int]:
    from zodyssey.claims.drill import drill, plan
    from zodyssey.claims.drill_report import build_report

    claim = Claim("add", "README.md", 3, "add adds.", "list_item", 3, (code,), skips)
    target = plan(root, claim, [f"tests/test_ops.py::{t}" for t in tests])
    before = _digest(root)
    [result] = drill(root, [target], jobs=2, fresh=fresh)
    assert _digest(root) == before  # the drill never writes the work tree
    report, exit_code = build_report(root, [result])
    assert report.payload is not None
    return result, report.payload, exit_code


@pytest.fixture(autouse=True)
def _store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZODYSSEY_DRILL_BYTECODE", str(tmp_path / "bytecode"))


# --- the mutants, without running anything ------------------------------------------------


@pytest.mark.claim("drill-operator-mutants")
def test_mutants_are_made_on_the_tree_inside_the_span_only(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo", EXACT)
    breaks, equivalent = breaks_of(root, resolve(root, "calc/ops.py::add")[0])
    assert equivalent == 0
    by_what = {b.what.split(": ", 1)[1]: b for b in breaks if b.col}
    # One change each, the rest of the file byte for byte.
    assert by_what["`a + b` -> `a - b`"].kind == "arith"
    assert by_what["`a < 0` -> `a <= 0`"].kind == "compare"
    assert by_what["`a < 0 or b < 0` -> `(a < 0) and (b < 0)`"].kind == "bool-op"
    assert by_what["`\"negative\"` -> `''`"].kind == "string-empty"
    assert by_what["`return a + b` -> `return None`"].kind == "return-none"
    assert {"number+1", "number-1", "negate-guard"} <= {b.kind for b in breaks}
    arith = by_what["`a + b` -> `a - b`"]
    assert (arith.line, arith.col) == (ADD_LINE, 12)
    assert arith.id == f"calc/ops.py:{ADD_LINE}:12 arith"
    assert arith.source == OPS.replace("return a + b", "return a - b").encode()
    # Outside the span (`LIMIT = 10`, `mul`) and the docstring: untouched by every mutant.
    for brk in breaks:
        text = brk.source.decode()
        assert "LIMIT = 10\n" in text and "return a * b" in text
        assert '"""The sum; negative input is refused."""' in text


@pytest.mark.claim("drill-operator-mutants")
def test_every_operator_kind_and_no_text_substitution() -> None:
    source = b"""def f(a, b, xs, flag=True):
    total = 0
    for i in range(len(xs)):
        total += xs[i] * 2
    if a >= b and not xs:
        return -a
    try:
        g(key=1, other="x", on=True)
    except (KeyError, ValueError):
        pass
    s = "a + b"  # the text inside a string is not code
    return f"{a}" if a is not None else b % 3
"""
    tree = ast.parse(source)
    made = mutants(source, [tree.body[0]])
    kinds = {m.kind for m in made}
    assert {
        "number+1",
        "number-1",
        "arith",
        "loop-bound",
        "not-added",
        "return-none",
        "unary-removed",
        "bool-op",
        "compare",
        "not-removed",
        "widen-except",
        "drop-call",
        "drop-keyword",
        "string-empty",
        "fstring-empty",
        "bool-flip",
    } <= kinds
    for m in made:
        mutated = source[: m.start] + m.new + source[m.end :]
        assert normal_form(mutated) not in (None, normal_form(source)), m
        assert b's = "a + b"' in mutated or m.kind == "string-empty"
    # The default `flag=True` is not in the body: never flipped.
    assert all(m.line != 1 for m in made)


@pytest.mark.claim("drill-operator-mutants")
def test_equivalence_is_the_same_tree_never_a_looser_comparison() -> None:
    """Left out as equivalent only when the syntax tree is the same: `1`, `1.0` and
    `True` compare equal in Python but are different code, and a mutant among
    them is run, never swallowed."""
    assert normal_form(b"x = (a + b)\n") == normal_form(b"x = a+b  # same\n")
    forms = {normal_form(f"x = {v}\n".encode()) for v in ("1", "1.0", "True", "-0", "0")}
    assert len(forms) == 5
    assert normal_form(b"x = a - b\n") != normal_form(b"x = a + b\n")
    assert normal_form(b"def (:\n") is None


# --- drilled ----------------------------------------------------------------------------


@pytest.mark.claim("drill-operator-mutants", "drill-survivor-fails")
@pytest.mark.parametrize(
    "weak",
    [
        "assert add(2, 3) is not None",
        "assert add(3, 2) >= 0",
        "add(2, 3)",
    ],
    ids=["is-not-none", "ge-zero", "unused-result"],
)
def test_a_weakened_test_survives_with_the_mutant_named(tmp_path: Path, weak: str) -> None:
    tests = EXACT.replace("assert add(2, 3) == 5\n    assert add(0, 0) == 0", weak)
    root = _repo(tmp_path / "repo", tests)
    result, payload, code = _drill(root)
    assert code == 9 and result.status == "survived"
    survived = [r.brk for r in result.results if r.outcome.status == "survived"]
    assert f"calc/ops.py:{ADD_LINE}:12 arith" in [b.id for b in survived]
    finding = next(
        f
        for f in payload["findings"]
        if f["extra"].get("break") == f"calc/ops.py:{ADD_LINE}:12 arith"
    )
    assert "`a + b` -> `a - b`" in finding["message"]
    assert f"calc/ops.py:{ADD_LINE}:12" in finding["message"]
    counts = payload["mutants"]["add"]
    assert counts["survived"] == len(survived) and counts["score"] < 1
    assert counts["tried"] == counts["killed"] + counts["survived"]


@pytest.mark.claim("drill-operator-mutants", "drill-outcomes")
def test_exact_tests_kill_every_mutant(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo", EXACT)
    result, payload, code = _drill(root)
    assert code == 0, [(r.brk.id, r.outcome.status, r.outcome.cause) for r in result.results]
    counts = payload["mutants"]["add"]
    assert counts["tried"] >= 12 and counts["killed"] == counts["tried"]
    assert counts["score"] == 1.0


@pytest.mark.claim("drill-skip-marker")
def test_drill_skip_hides_only_the_break_it_names_and_prints_why(tmp_path: Path) -> None:
    tests = EXACT.replace("assert add(2, 3) == 5\n    assert add(0, 0) == 0", "add(2, 3)")
    root = _repo(tmp_path / "repo", tests)
    skip = (f"calc/ops.py:{ADD_LINE}:12 arith", "the sum's sign is not observable here")
    result, payload, code = _drill(root, (skip,))
    statuses = {r.brk.id: r.outcome.status for r in result.results}
    assert statuses[skip[0]] == "skipped"
    # Every other survivor still counts: the claim survived, exit 9.
    assert code == 9 and "survived" in statuses.values()
    assert payload["mutants"]["add"]["skipped"] == 1
    note = next(f for f in payload["findings"] if f["rule"] == "skipped")
    assert "the sum's sign is not observable here" in note["message"]


@pytest.mark.claim("drill-skip-marker")
def test_drill_skip_marker_needs_a_reason_and_a_real_break(tmp_path: Path) -> None:
    from zodyssey.claims.drill import plan

    doc = (
        "- add. <!-- claim: add code=calc/ops.py::add "
        f"drill-skip=calc/ops.py:{ADD_LINE}:12:arith(sign unseen) "
        "drill-skip=calc/ops.py:99:arith -->\n"
    )
    [claim] = parse_document(doc, "README.md").claims
    assert claim.id == "add"
    assert claim.skips == (
        (f"calc/ops.py:{ADD_LINE}:12 arith", "sign unseen"),
        ("calc/ops.py:99 arith", ""),
    )
    root = _repo(tmp_path / "repo", EXACT)
    target = plan(root, claim, ["tests/test_ops.py::test_add"])
    assert any("calc/ops.py:99 arith gives no reason" in p for p in target.problems)
    assert any("calc/ops.py:99 arith names no break" in p for p in target.problems)
    assert [b.skip for b in target.breaks if b.id == f"calc/ops.py:{ADD_LINE}:12 arith"] == [
        "sign unseen"
    ]


@pytest.mark.claim("drill-outcomes")
def test_reports_carry_the_counts_in_every_format(tmp_path: Path) -> None:
    from zodyssey.claims.drill import BreakResult, ClaimResult, Outcome, plan
    from zodyssey.claims.drill_report import build_report
    from zodyssey.formats import render

    root = _repo(tmp_path / "repo", EXACT)
    claim = Claim("add", "README.md", 3, "add adds.", "list_item", 3, ("calc/ops.py::add",))
    target = plan(root, claim, ["tests/test_ops.py::test_add"])
    arith = next(b for b in target.breaks if b.kind == "arith")
    others = [b for b in target.breaks if b is not arith]
    result = ClaimResult(
        target,
        results=[BreakResult(arith, Outcome("survived", ["tests/test_ops.py::test_add"]))]
        + [BreakResult(b, Outcome("killed", ["tests/test_ops.py::test_add"])) for b in others],
    )
    report, code = build_report(root, [result])
    assert code == 9
    tried = len(target.breaks)
    text = render(report, "text", colour=False)
    assert f"{tried - 1}/{tried} breaks killed, 1 survived" in text
    assert "`a + b` -> `a - b`" in text and f"calc/ops.py:{ADD_LINE}:12" in text
    markdown = render(report, "markdown")
    assert f"{tried - 1}/{tried} breaks killed" in markdown and "`a + b` -&gt;" not in markdown
    assert "a + b` -> `a - b" in markdown
    sarif = json.loads(render(report, "sarif"))["runs"][0]
    assert sarif["properties"]["mutants"]["add"]["survived"] == 1
    assert any("a - b" in r["message"]["text"] for r in sarif["results"])
    document = json.loads(render(report, "json"))
    assert document["mutants"]["add"] == {
        "tried": tried,
        "killed": tried - 1,
        "survived": 1,
        "not-judged": 0,
        "skipped": 0,
        "equivalent": 0,
        "score": round((tried - 1) / tried, 4),
    }


# --- the warm process ---------------------------------------------------------------------


def _verdicts(result: Any) -> dict[str, str]:
    return {r.brk.id: r.outcome.status for r in result.results}


@pytest.mark.claim("drill-warm-process")
@pytest.mark.parametrize("weak", [False, True], ids=["exact", "weakened"])
def test_the_warm_process_gives_the_verdicts_of_fresh_processes(tmp_path: Path, weak: bool) -> None:
    tests = (
        EXACT.replace("assert add(2, 3) == 5\n    assert add(0, 0) == 0", "add(2, 3)")
        if weak
        else EXACT
    )
    root = _repo(tmp_path / "repo", tests)
    warm, _, warm_code = _drill(root)
    fresh, _, fresh_code = _drill(root, fresh=True)
    assert _verdicts(warm) == _verdicts(fresh) and warm_code == fresh_code
    assert ("survived" in _verdicts(warm).values()) == weak


TABLE = """

def double(x: int) -> int:
    return x * 2


TABLE = {n: double(n) for n in range(3)}
"""

TABLE_TESTS = """from calc.ops import TABLE


def test_table():
    assert TABLE[2] == 4
"""


@pytest.mark.claim("drill-warm-process")
def test_what_a_warm_child_does_not_kill_a_fresh_process_decides(tmp_path: Path) -> None:
    """`TABLE` is computed when the module is imported, before the warm process
    forks: a child given the broken `double` still sees the old table and passes.
    Only a fresh process, importing the broken file, computes it anew: every
    break is killed there, and none may be reported as surviving."""
    root = _repo(tmp_path / "repo", TABLE_TESTS)
    (root / "calc/ops.py").write_text(OPS + TABLE)
    result, _, code = _drill(root, code="calc/ops.py::double", tests=("test_table",))
    verdicts = _verdicts(result)
    assert "survived" not in verdicts.values(), verdicts
    arith = [k for k in verdicts if k.endswith(" arith")]  # `x * 2` -> `x / 2`
    assert arith and all(verdicts[k] == "killed" for k in arith), verdicts
    # A body that raises also fails the import itself (the table calls `double` as
    # the module loads): in a fresh process that is "not judged" (never a kill);
    # every other break is killed, and the exit code says which it was.
    raising = {k: v for k, v in verdicts.items() if k.endswith("body-raise")}
    assert set(raising.values()) <= {"killed", "not-judged"}, verdicts
    others = {v for k, v in verdicts.items() if k not in raising}
    assert others == {"killed"}, verdicts
    assert code == (0 if set(raising.values()) <= {"killed"} else 4), (code, verdicts)


@pytest.mark.claim("drill-warm-process")
def test_a_break_outside_function_bodies_runs_fresh(tmp_path: Path) -> None:
    """`LIMIT = 10` is module code the warm child cannot give to an imported module:
    its breaks run in fresh processes, which kill them."""
    tests = (
        EXACT + "\n\ndef test_limit():\n    from calc.ops import LIMIT\n\n    assert LIMIT == 10\n"
    )
    root = _repo(tmp_path / "repo", tests)
    result, _, code = _drill(root, code="calc/ops.py:3", tests=("test_limit",))
    verdicts = _verdicts(result)
    numbers = {f"calc/ops.py:3:9 number{n}": "killed" for n in ("+1", "-1", "0")}
    # Deleting the line makes the import fail: not judged, never a kill.
    assert verdicts == {**numbers, "calc/ops.py:3 delete-span": "not-judged"}, verdicts
    assert code == 4


# --- breaks that reach the tests ----------------------------------------------------------


def _lib_repo(root: Path) -> Path:
    """calc under lib/, which the project's configuration does not put on the path:
    the tests import it from wherever PYTHONPATH says."""
    (root / "lib/calc").mkdir(parents=True)
    (root / "lib/calc/__init__.py").write_text("")
    (root / "lib/calc/ops.py").write_text(OPS)
    (root / "tests").mkdir()
    (root / "tests/test_ops.py").write_text(EXACT)
    (root / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\naddopts = "--import-mode=importlib"\n'
    )
    return root


@pytest.mark.claim("drill-reaches-tests")
def test_a_pythonpath_naming_the_work_tree_is_pointed_at_the_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PYTHONPATH names the checkout's lib/: the drilled runs import the copy's lib/
    (with the break in it), not the user's untouched files, so the exact tests
    kill every break instead of letting all of them survive."""
    root = _lib_repo(tmp_path / "repo")
    monkeypatch.setenv("PYTHONPATH", str(root / "lib"))
    result, _, code = _drill(root, code="lib/calc/ops.py::add")
    verdicts = _verdicts(result)
    assert code == 0 and set(verdicts.values()) == {"killed"}, verdicts


@pytest.mark.claim("drill-reaches-tests")
def test_code_imported_from_elsewhere_is_not_judged_never_survived(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An installed copy of calc outside the repository is what the tests import:
    no break of lib/calc/ops.py reaches them. Not judged, with the reason; never
    a survivor blaming tests that do defend the code."""
    root = _lib_repo(tmp_path / "repo")
    site = tmp_path / "site"
    (site / "calc").mkdir(parents=True)
    (site / "calc/__init__.py").write_text("")
    (site / "calc/ops.py").write_text(OPS)
    monkeypatch.setenv("PYTHONPATH", str(site))
    result, _, code = _drill(root, code="lib/calc/ops.py::add")
    verdicts = _verdicts(result)
    assert code == 4 and "survived" not in verdicts.values(), verdicts
    causes = {r.outcome.cause for r in result.results if r.outcome.status == "not-judged"}
    assert any("never imported lib/calc/ops.py from the scratch copy" in c for c in causes)
    assert result.status == "not-judged"


@pytest.mark.claim("drill-warm-process")
def test_the_unbroken_run_is_the_warm_processs_first_child(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.claims.test_drill_warm import (
        test_the_unbroken_run_is_the_warm_processs_and_records_what_it_read as check,
    )

    check(tmp_path, monkeypatch)
