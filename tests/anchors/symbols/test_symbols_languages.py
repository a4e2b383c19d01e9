"""Each supported language, in a fixture repository of its own (real git, real CLI).

For every language: the definitions it names are found at their lines; after
the file is rewritten with lines inserted above and the definitions reordered,
the check passes with no document edit; a one-token body edit is drift.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.anchors import check_json, commit, kinds, make_repo, run_cli, write
from zodyssey.anchors.symbols import symbol_span
from zodyssey.anchors.symbols.resolve import parse_source

# language -> (file, source, {symbol: (start, end)}, reordered source, body edit (old, new))
CASES = {
    "python": (
        "pkg/m.py",
        "import os\n\n\n@decorate\nclass Box:\n    def open(self):\n        return 1\n\n"
        "    def close(self):\n        return 2\n\n\ndef outer():\n    def inner():\n"
        "        return 3\n    return inner\n",
        {"Box": (4, 10), "Box.open": (6, 7), "Box.close": (9, 10), "outer.inner": (14, 15)},
        "import os\n# moved\n\n\ndef outer():\n    def inner():\n        return 3\n    return inner\n"
        "\n\n@decorate\nclass Box:\n    def open(self):\n        return 1\n\n"
        "    def close(self):\n        return 2\n",
        ("return 3", "return 33"),
    ),
    "go": (
        "pkg/file.go",
        "package pkg\n\ntype Store struct {\n\tn int\n}\n\nfunc (s *Store) Get() int {\n"
        "\treturn s.n\n}\n\nfunc Func(a int) int {\n\treturn a\n}\n",
        {"Store": (3, 5), "Store.Get": (7, 9), "Func": (11, 13)},
        "package pkg\n\n// header\n\nfunc Func(a int) int {\n\treturn a\n}\n\n"
        "func (s *Store) Get() int {\n\treturn s.n\n}\n\ntype Store struct {\n\tn int\n}\n",
        ("return a", "return a + 1"),
    ),
    "rust": (
        "src/lib.rs",
        "pub struct Type {\n    n: u32,\n}\n\nimpl Type {\n    pub fn method(&self) -> u32 {\n"
        "        self.n\n    }\n}\n\nmod inner {\n    pub fn helper() -> u8 {\n        1\n"
        "    }\n}\n",
        {"Type": (1, 3), "Type::method": (6, 8), "inner::helper": (12, 14), "inner": (11, 15)},
        "// header\n\nmod inner {\n    pub fn helper() -> u8 {\n        1\n    }\n}\n\n"
        "impl Type {\n    pub fn method(&self) -> u32 {\n        self.n\n    }\n}\n\n"
        "pub struct Type {\n    n: u32,\n}\n",
        ("self.n", "self.n + 1"),
    ),
    "javascript": (
        "src/app.js",
        "export class ClassName {\n  method() {\n    return 1;\n  }\n}\n\n"
        "export const handler = () => {\n  return 2;\n};\n\nfunction plain() {\n  return 3;\n}\n",
        {"ClassName": (1, 5), "ClassName.method": (2, 4), "handler": (7, 9), "plain": (11, 13)},
        "// header\n\nfunction plain() {\n  return 3;\n}\n\n"
        "export const handler = () => {\n  return 2;\n};\n\n"
        "export class ClassName {\n  method() {\n    return 1;\n  }\n}\n",
        ("return 2", "return 22"),
    ),
    "typescript": (
        "src/app.ts",
        "export interface Shape {\n  area(): number;\n}\n\nexport class ClassName {\n"
        "  method(): number {\n    return 1;\n  }\n}\n\nnamespace Space {\n"
        "  export function inside(): void {}\n}\n",
        {
            "Shape": (1, 3),
            "ClassName.method": (6, 8),
            "Space.inside": (12, 12),
            "Shape.area": (2, 2),
        },
        "// header\nnamespace Space {\n  export function inside(): void {}\n}\n\n"
        "export class ClassName {\n  method(): number {\n    return 1;\n  }\n}\n\n"
        "export interface Shape {\n  area(): number;\n}\n",
        ("return 1", "return 2"),
    ),
    "tsx": (
        "src/view.tsx",
        "export function View(): JSX.Element {\n  return <div>hi</div>;\n}\n",
        {"View": (1, 3)},
        "import x from 'x';\n\nexport function View(): JSX.Element {\n  return <div>hi</div>;\n}\n",
        ("hi", "ho"),
    ),
    "java": (
        "src/A.java",
        "package p;\n\npublic class A {\n  public A() {}\n\n  int method() {\n    return 1;\n  }\n\n"
        "  static class Inner {\n    void run() {}\n  }\n}\n",
        {"A": (3, 13), "A.A": (4, 4), "A.method": (6, 8), "A.Inner.run": (11, 11)},
        "package p;\n\n// header\npublic class A {\n  static class Inner {\n    void run() {}\n  }\n\n"
        "  int method() {\n    return 1;\n  }\n\n  public A() {}\n}\n",
        ("return 1", "return 2"),
    ),
    "c": (
        "src/x.c",
        "#include <stdio.h>\n\nstruct config {\n  int n;\n};\n\nstatic int *parse(int a) {\n"
        "  return 0;\n}\n\ntypedef struct { int b; } pair;\n",
        {"config": (3, 5), "parse": (7, 9), "pair": (11, 11)},
        "#include <stdio.h>\n/* header */\n\ntypedef struct { int b; } pair;\n\n"
        "static int *parse(int a) {\n  return 0;\n}\n\nstruct config {\n  int n;\n};\n",
        ("return 0", "return 1"),
    ),
    "cpp": (
        "src/x.cpp",
        "namespace ns {\nclass Class {\n public:\n  int method() { return 1; }\n  ~Class() {}\n};\n"
        "}\n\nvoid ns::Class::later() {\n  run();\n}\n",
        {
            "ns::Class": (2, 6),
            "ns::Class::method": (4, 4),
            "ns::Class::~Class": (5, 5),
            "ns::Class::later": (9, 11),
        },
        "// header\n\nvoid ns::Class::later() {\n  run();\n}\n\nnamespace ns {\nclass Class {\n"
        " public:\n  ~Class() {}\n  int method() { return 1; }\n};\n}\n",
        ("return 1", "return 2"),
    ),
}


@pytest.mark.parametrize("language", sorted(CASES))
def test_definitions_are_found_at_their_lines(language: str) -> None:
    path, source, expected, _, _ = CASES[language]
    found = parse_source(path, source.encode())
    assert found is not None and found.error is None
    for symbol, span in expected.items():
        matches = found.lookup(symbol)
        assert [(m.start, m.end) for m in matches] == [span], (symbol, found.names())


def test_dot_and_double_colon_separate_alike(tmp_path: Path) -> None:
    path, source, _, _, _ = CASES["rust"]
    write(tmp_path, path, source)
    assert symbol_span(tmp_path, path, "Type::method") == (6, 8)
    assert symbol_span(tmp_path, path, "Type.method") == (6, 8)
    assert symbol_span(tmp_path, path, "Type.nothing") is None
    assert symbol_span(tmp_path, "missing.rs", "Type") is None


@pytest.mark.parametrize("language", sorted(CASES))
def test_moves_pass_and_body_edits_drift_in_a_fixture_repository(
    tmp_path: Path, language: str
) -> None:
    path, source, expected, reordered, (old, new) = CASES[language]
    doc = "".join(f"- `{path}::{symbol}`\n" for symbol in expected)
    root = make_repo(tmp_path / language, {path: source, "README.md": doc})
    proc = run_cli(root, "--update")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    commit(root, "pin")
    write(root, path, reordered)
    code, payload = check_json(root)
    # A class whose members were reordered changed as a whole; its members did not.
    changed_whole = {f"{path}::{s}" for s in expected if s in ("A", "ns::Class")}
    assert set(kinds(payload).get("drift", [])) == changed_whole, payload["problems"]
    assert set(kinds(payload)) <= {"drift"}
    assert (root / "README.md").read_text() == doc
    write(root, path, reordered.replace(old, new, 1))
    code, payload = check_json(root)
    assert code == 9
    drifted = set(kinds(payload)["drift"]) - changed_whole
    assert drifted, payload["problems"]
