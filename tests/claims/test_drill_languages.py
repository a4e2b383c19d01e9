"""Issue 25: the drill breaks code that is not Python by its tree-sitter grammar.

Fixture repositories (real git) whose code is JavaScript or Go, tested by
pytest tests that run it (`node`, `go run`): a claim whose tests check the
result, the boundary (0) and the refusal's message has every break killed,
operator mutants included (issue 37); a claim whose test only runs the code
survives.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import make_repo, run_zodyssey

PYPROJECT = """[project]
name = "fixture"
version = "0"

[tool.pytest.ini_options]
testpaths = ["tests"]
"""

JS_README = """# calc

- Adding refuses negative numbers and adds. <!-- claim: js-add code=lib/calc.js::add -->
- Multiplying works. <!-- claim: js-mul code=lib/calc.js::mul -->
"""

JS_LIB = """function add(a, b) {
  if (a < 0 || b < 0) {
    throw new Error("negative");
  }
  const sum = a + b;
  return sum;
}

function mul(a, b) {
  const product = a * b;
  return product;
}

module.exports = { add, mul };
"""

JS_TESTS = """import subprocess

import pytest


def node(expr):
    script = "const c = require('./lib/calc.js'); " + expr
    done = subprocess.run(["node", "-e", script], capture_output=True, text=True, timeout=60)
    return done.returncode, done.stdout.strip()


@pytest.mark.claim("js-add")
def test_add_checks():
    assert node("console.log(c.add(2, 3))") == (0, "5")
    assert node("console.log(c.add(0, 0))") == (0, "0")
    for args in ("-1, 3", "3, -1"):
        refused = node(f"try {{ c.add({args}) }} catch (e) {{ console.log(e.message) }}")
        assert refused == (0, "negative")


@pytest.mark.claim("js-mul")
def test_mul_runs():
    node("c.mul(2, 3)")  # asserts nothing
"""

GO_README = """# calc

- Adding refuses negative numbers and adds. <!-- claim: go-add code=calc/calc.go::Add -->
- Multiplying works. <!-- claim: go-mul code=calc/calc.go::Mul -->
"""

GO_LIB = """package main

import (
	"fmt"
	"os"
	"strconv"
)

func Add(a int, b int) int {
	if a < 0 || b < 0 {
		panic("negative")
	}
	sum := a + b
	return sum
}

func Mul(a int, b int) int {
	product := a * b
	return product
}

func main() {
	a, _ := strconv.Atoi(os.Args[2])
	b, _ := strconv.Atoi(os.Args[3])
	if os.Args[1] == "add" {
		fmt.Println(Add(a, b))
	} else {
		fmt.Println(Mul(a, b))
	}
}
"""

GO_TESTS = """import subprocess

import pytest


def go(*args):
    done = subprocess.run(
        ["go", "run", "calc/calc.go", *args], capture_output=True, text=True, timeout=300
    )
    return done.returncode, done.stdout.strip(), done.stderr


@pytest.mark.claim("go-add")
def test_add_checks():
    assert go("add", "2", "3")[:2] == (0, "5")
    assert go("add", "0", "0")[:2] == (0, "0")
    for args in (("-1", "3"), ("3", "-1")):
        code, _, err = go("add", *args)
        assert code != 0 and "panic: negative" in err


@pytest.mark.claim("go-mul")
def test_mul_runs():
    go("mul", "2", "3")  # asserts nothing
"""


def _drill(root: Path, files: dict[str, str]) -> dict[str, dict[str, Any]]:
    make_repo(root, {"pyproject.toml": PYPROJECT, **files})
    done = run_zodyssey("claims", "update", cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    drilled = run_zodyssey("claims", "drill", "--json", "-j", "2", cwd=root, timeout=900)
    assert drilled.returncode == 9, drilled.stdout + drilled.stderr  # one survivor each
    return {c["id"]: c for c in json.loads(drilled.stdout)["claims"]}


def _check(claims: dict[str, dict[str, Any]], prefix: str) -> None:
    add, mul = claims[f"{prefix}-add"], claims[f"{prefix}-mul"]
    assert add["status"] == "drilled", add
    kinds = [b["kind"] for b in add["breaks"]]
    assert kinds.count("delete-statements") == 1 and kinds.count("delete-statement") >= 3, kinds
    assert all(b["status"] == "killed" for b in add["breaks"]), add["breaks"]
    # The guard deleted alone is one of the breaks, and the checking test kills it.
    assert any("a < 0 || b < 0" in b["what"] for b in add["breaks"]), add["breaks"]
    assert mul["status"] == "survived", mul
    assert any(b["status"] == "survived" for b in mul["breaks"]), mul["breaks"]


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node (JavaScript)")
def test_javascript_claims_killed_and_survived(tmp_path: Path) -> None:
    files = {"README.md": JS_README, "lib/calc.js": JS_LIB, "tests/test_calc.py": JS_TESTS}
    _check(_drill(tmp_path / "js", files), "js")


@pytest.mark.skipif(shutil.which("go") is None, reason="needs the Go toolchain (`go`)")
def test_go_claims_killed_and_survived(tmp_path: Path) -> None:
    files = {"README.md": GO_README, "calc/calc.go": GO_LIB, "tests/test_calc.py": GO_TESTS}
    _check(_drill(tmp_path / "go", files), "go")


def test_go_breaks_are_statements_by_the_grammar(tmp_path: Path) -> None:
    """Without a Go toolchain the breaks themselves are still checked: statements,
    never partial lines, and the file still parses."""
    from zodyssey.anchors.symbols.languages import parser_for
    from zodyssey.claims.drill_breaks import breaks_for, resolve

    (tmp_path / "calc").mkdir()
    (tmp_path / "calc/calc.go").write_text(GO_LIB)
    [span] = resolve(tmp_path, "calc/calc.go::Add")
    assert (span.start, span.end) == (9, 15)
    made = breaks_for(tmp_path, span)
    whole = next(b for b in made if b.kind == "delete-statements")
    lines = whole.source.decode().splitlines()
    assert lines[8] == "func Add(a int, b int) int {" and lines[14] == "}"
    assert all(not line.strip() for line in lines[9:14])
    assert lines[15:] == GO_LIB.splitlines()[15:]  # Mul and main untouched
    singles = [b.what for b in made if b.kind == "delete-statement"]
    assert any("`if a < 0 || b < 0 {`" in w for w in singles)
    assert any("`sum := a + b`" in w for w in singles)
    assert any("`return sum`" in w for w in singles)
    for brk in made:
        assert not parser_for("go").parse(brk.source).root_node.has_error
        assert len(brk.source.splitlines()) == len(GO_LIB.encode().splitlines())


def test_unknown_definition_in_another_language_is_bad_code(tmp_path: Path) -> None:
    from zodyssey.claims.drill_breaks import SpecError, resolve

    (tmp_path / "lib").mkdir()
    (tmp_path / "lib/calc.js").write_text(JS_LIB)
    with pytest.raises(SpecError, match="no single definition sub"):
        resolve(tmp_path, "lib/calc.js::sub")
