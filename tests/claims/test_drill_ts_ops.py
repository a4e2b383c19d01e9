"""Issue 37: operator mutants of the drill's other languages, on the tree-sitter tree.

The mutants themselves are checked without any toolchain (every language);
then, for each language whose toolchain is on the machine, a real repository
with two claims on the same function: one whose linked test only checks that
something came back (the arithmetic mutant survives and the report names it;
the statement breaks alone had this claim drilled), one whose test checks the
value (every mutant killed).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import make_repo, run_zodyssey
from zodyssey.anchors.symbols.languages import parser_for
from zodyssey.claims.drill_breaks import Break, breaks_of, resolve
from zodyssey.claims.drill_ts_ops import normal_form

# language: (file, spec, source, the line of `a + b`, the arithmetic mutant as reported)
SOURCES: dict[str, tuple[str, str, str]] = {
    "javascript": (
        "calc.js",
        "calc.js::add",
        "function add(a, b) {\n  return a + b;\n}\n\nmodule.exports = { add };\n",
    ),
    "typescript": (
        "calc.ts",
        "calc.ts::add",
        "export function add(a: number, b: number = 1): number {\n  return a + b;\n}\n",
    ),
    "go": (
        "calc.go",
        "calc.go::Add",
        "package main\n\nfunc Add(a int, b int) int {\n\treturn a + b\n}\n",
    ),
    "rust": (
        "calc.rs",
        "calc.rs::add",
        "fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\n"
        'fn main() {\n    println!("{}", add(2, 3));\n}\n',
    ),
    "java": (
        "Calc.java",
        "Calc.java::Calc.add",
        "public class Calc {\n    static int add(int a, int b) {\n        return a + b;\n    }\n\n"
        "    public static void main(String[] args) {\n"
        "        System.out.println(add(2, 3));\n    }\n}\n",
    ),
    "c": (
        "calc.c",
        "calc.c::add",
        "#include <stdio.h>\n\nint add(int a, int b) {\n    return a + b;\n}\n\n"
        'int main(void) {\n    printf("%d\\n", add(2, 3));\n    return 0;\n}\n',
    ),
    "cpp": (
        "calc.cpp",
        "calc.cpp::add",
        "#include <cstdio>\n\nint add(int a, int b) {\n    return a + b;\n}\n\n"
        'int main() {\n    std::printf("%d\\n", add(2, 3));\n    return 0;\n}\n',
    ),
}
RETURNED = {
    "javascript": "`return a + b;` -> `return undefined;`",
    "typescript": "`return a + b;` -> `return undefined;`",
    "go": "`return a + b` -> `return 0`",
    "rust": "`a + b` -> `Default::default()`",
    "java": "`return a + b;` -> `return 0;`",
    "c": "`return a + b;` -> `return 0;`",
    "cpp": "`return a + b;` -> `return 0;`",
}


def _breaks(root: Path, language: str) -> tuple[list[Break], int, bytes]:
    path, spec, source = SOURCES[language]
    (root / path).write_text(source)
    [span] = resolve(root, spec)
    made, equivalent = breaks_of(root, span)
    return made, equivalent, source.encode()


@pytest.mark.parametrize("language", sorted(SOURCES))
def test_operator_mutants_of_every_language_are_tree_edits_inside_the_body(
    tmp_path: Path, language: str
) -> None:
    made, equivalent, original = _breaks(tmp_path, language)
    assert equivalent == 0
    ops = {b.what.split(": ", 1)[1]: b for b in made if b.col}
    arith = ops["`a + b` -> `a - b`"]
    assert arith.kind == "arith"
    assert arith.source == original.replace(b"a + b", b"a - b", 1)
    assert ops[RETURNED[language]].kind == "return-default"
    # The statement breaks are still there, before the operator mutants.
    assert not made[0].col
    parser = parser_for(language)
    for brk in made:
        assert not parser.parse(brk.source).root_node.has_error, brk.what
        assert brk.source.count(b"\n") == original.count(b"\n")
    # Nothing outside the body: the signature (types, a default value) and main.
    body = original.index(b"a + b")
    head, tail = original[: original.rindex(b"{", 0, body)], original[original.index(b"}", body) :]
    for brk in made:
        if brk.col:
            assert brk.source.startswith(head) and brk.source.endswith(tail), brk.what


def test_each_operator_kind_of_a_c_like_body(tmp_path: Path) -> None:
    source = """function f(a, b, n) {
  // a comment: "left alone"
  if (a < 0 || !b) {
    throw new Error("negative");
  }
  let s = a * 2;
  s += 1;
  for (let i = 0; i < n; i++) { s--; }
  while (s > 100) { s = s & 7; }
  return s === 3 ? true : s;
}
"""
    (tmp_path / "f.js").write_text(source)
    made, equivalent = breaks_of(tmp_path, resolve(tmp_path, "f.js::f")[0])
    got = {(b.kind, b.what.split(": ", 1)[1]) for b in made if b.col}
    assert {
        ("not-added", "`a < 0 || !b` -> `!(a < 0 || !b)`"),
        ("bool-op", "`a < 0 || !b` -> `(a < 0) && (!b)`"),
        ("compare", "`a < 0` -> `a <= 0`"),
        ("not-removed", "`!b` -> `b`"),
        ("string-empty", '`"negative"` -> `""`'),
        ("arith", "`a * 2` -> `a / 2`"),
        ("number+1", "`2` -> `3`"),
        ("number-1", "`2` -> `1`"),
        ("number0", "`2` -> `0`"),
        ("arith", "`s += 1` -> `s -= 1`"),
        ("arith", "`i++` -> `i--`"),
        ("arith", "`s--` -> `s++`"),
        ("loop-bound", "`i < n` -> `i < n - 1`"),
        ("compare", "`s > 100` -> `s >= 100`"),
        ("arith", "`s & 7` -> `(s | 7)`"),
        ("compare", "`s === 3` -> `s !== 3`"),
        ("bool-flip", "`true` -> `false`"),
        ("return-default", "`return s === 3 ? true : s;` -> `return undefined;`"),
    } <= got
    assert not any("left alone" in what for _, what in got)  # comments are not code
    assert not any(w.startswith("`0` -> `-") for _, w in got)  # never made negative
    assert equivalent == 0


def test_go_returns_zero_values_by_the_result_types(tmp_path: Path) -> None:
    source = (
        "package p\n\nfunc F(s string) (n int, err error) {\n"
        '\tif s == "" {\n\t\treturn 1, nil\n\t}\n\treturn len(s), nil\n}\n\n'
        "type T struct{}\n\nfunc G() T {\n\treturn T{}\n}\n"
    )
    (tmp_path / "p.go").write_text(source)
    made, _ = breaks_of(tmp_path, resolve(tmp_path, "p.go::F")[0])
    whats = {b.what.split(": ", 1)[1] for b in made if b.kind == "return-default"}
    assert whats == {
        "`return 1, nil` -> `return 0, nil`",
        "`return len(s), nil` -> `return 0, nil`",
    }
    assert any(b.kind == "string-empty" for b in made) is False  # `""` is empty already
    made, _ = breaks_of(tmp_path, resolve(tmp_path, "p.go::G")[0])
    assert not [b for b in made if b.kind == "return-default"]  # a struct's zero: not guessed


def test_a_mutant_with_the_same_tree_is_equivalent_and_never_run(tmp_path: Path) -> None:
    """`return (0);` -> `return 0;` is the same tree once parentheses are dropped:
    left out and counted. `return (1);` -> `return 0;` is not: it is run."""
    (tmp_path / "z.c").write_text("int zero(void) {\n    return (0);\n}\n")
    made, equivalent = breaks_of(tmp_path, resolve(tmp_path, "z.c::zero")[0])
    assert equivalent == 1
    assert not [b for b in made if b.kind == "return-default"]
    (tmp_path / "one.c").write_text("int one(void) {\n    return (1);\n}\n")
    made, equivalent = breaks_of(tmp_path, resolve(tmp_path, "one.c::one")[0])
    assert equivalent == 0
    assert [b.what for b in made if b.kind == "return-default"] == [
        "one.c::one: `return (1);` -> `return 0;`"
    ]


def test_normal_form_keeps_what_changes_the_code() -> None:
    """Parentheses around one expression and comments drop out; an integer is not
    a float, and grouping that changes the tree stays."""
    parser = parser_for("c")

    def form(text: bytes) -> list[str]:
        return normal_form(parser.parse(text).root_node, text)

    assert form(b"int f() { return (a) + 1; /* x */ }") == form(b"int f() { return a + 1; }")
    assert form(b"int f() { return 1_0; }") != form(b"int f() { return 1.0; }")
    assert form(b"int f() { return 1; }") != form(b"int f() { return 1.0; }")
    assert form(b"int f() { return (a + b) * c; }") != form(b"int f() { return a + b * c; }")


# --- real toolchains ----------------------------------------------------------------------

README = """# calc

- Adding returns something. <!-- claim: add-weak code={spec} -->
- Adding returns the sum. <!-- claim: add-exact code={spec} -->
"""

TESTS = """import shutil
import subprocess

import pytest


def run(tmp_path):
{run}


@pytest.mark.claim("add-weak")
def test_add_returns_something(tmp_path):
    code, out = run(tmp_path)
    assert code == 0 and out not in ("", "undefined")


@pytest.mark.claim("add-exact")
def test_add_returns_the_sum(tmp_path):
    assert run(tmp_path) == (0, "5")
"""


def _steps(*commands: str) -> str:
    lines = []
    for command in commands:
        lines += [
            f"    done = subprocess.run({command}, capture_output=True, text=True, timeout=300)",
            "    if done.returncode:",
            "        return done.returncode, done.stderr",
        ]
    return "\n".join([*lines, "    return 0, done.stdout.strip()"])


def _node_strips_types() -> bool:
    node = shutil.which("node")
    if node is None:
        return False
    probe = [node, "--experimental-strip-types", "-e", "0"]
    return subprocess.run(probe, capture_output=True, check=False).returncode == 0


RUNS: dict[str, tuple[Any, str, str]] = {
    # language: (available?, why not, the test's run())
    "javascript": (
        lambda: shutil.which("node"),
        "needs node",
        _steps("""["node", "-e", "console.log(require('./calc.js').add(2, 3))"]"""),
    ),
    "typescript": (
        _node_strips_types,
        "needs node >= 22.6 (--experimental-strip-types) to run TypeScript",
        _steps(
            """["node", "--experimental-strip-types", "--input-type=module", "-e", """
            """"import { add } from './calc.ts'; console.log(add(2, 3))"]"""
        ),
    ),
    "go": (
        lambda: shutil.which("go"),
        "needs the Go toolchain (`go`)",
        "    (tmp_path / 'go.mod').write_text('module calc\\n')\n"
        "    (tmp_path / 'main.go').write_text("
        "'package main\\n\\nimport \"fmt\"\\n\\nfunc main() { fmt.Println(Add(2, 3)) }\\n')\n"
        "    shutil.copy('calc.go', tmp_path / 'calc.go')\n"
        + _steps("""["go", "run", "."], cwd=tmp_path"""),
    ),
    "rust": (
        lambda: shutil.which("rustc"),
        "needs the Rust compiler (`rustc`)",
        _steps(
            """["rustc", "calc.rs", "-o", str(tmp_path / "calc")]""", """[str(tmp_path / "calc")]"""
        ),
    ),
    "java": (
        lambda: shutil.which("java"),
        "needs a JDK 11+ (`java` runs a source file)",
        _steps("""["java", "Calc.java"]"""),
    ),
    "c": (
        lambda: shutil.which("gcc"),
        "needs gcc",
        _steps(
            """["gcc", "-Werror=return-type", "-o", str(tmp_path / "calc"), "calc.c"]""",
            """[str(tmp_path / "calc")]""",
        ),
    ),
    "cpp": (
        lambda: shutil.which("g++"),
        "needs g++",
        _steps(
            """["g++", "-Werror=return-type", "-o", str(tmp_path / "calc"), "calc.cpp"]""",
            """[str(tmp_path / "calc")]""",
        ),
    ),
}


def _drill(root: Path, language: str) -> dict[str, dict[str, Any]]:
    path, spec, source = SOURCES[language]
    files = {
        "pyproject.toml": '[project]\nname = "fixture"\nversion = "0"\n\n'
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
        "README.md": README.format(spec=spec),
        path: source,
        "tests/test_calc.py": TESTS.format(run=RUNS[language][2]),
    }
    make_repo(root, files)
    done = run_zodyssey("claims", "update", cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    drilled = run_zodyssey("claims", "drill", "--json", "-j", "2", cwd=root, timeout=900)
    assert drilled.returncode == 9, drilled.stdout + drilled.stderr  # the weak claim's survivor
    return {c["id"]: c for c in json.loads(drilled.stdout)["claims"]}


@pytest.mark.slow
@pytest.mark.parametrize("language", sorted(SOURCES))
def test_a_weak_test_lets_the_operator_mutant_survive_named(tmp_path: Path, language: str) -> None:
    available, why, _ = RUNS[language]
    if not available():
        pytest.skip(why)
    claims = _drill(tmp_path / language, language)
    weak, exact = claims["add-weak"], claims["add-exact"]
    assert weak["status"] == "survived", weak
    survivors = {b["what"].split(": ", 1)[1] for b in weak["breaks"] if b["status"] == "survived"}
    assert "`a + b` -> `a - b`" in survivors, weak["breaks"]
    assert exact["status"] == "drilled", exact
    assert all(b["status"] == "killed" for b in exact["breaks"]), exact["breaks"]
    assert {"arith", "return-default"} <= {b["kind"] for b in exact["breaks"]}
