"""A symbol's span includes what decides the symbol (issue 35, item 5).

A Rust attribute above a `fn`, a C `#if 0 ... #endif` around a function, a
TypeScript overload signature, a decorator on a JavaScript or TypeScript
method: each changes what the symbol means while its own lines stay the same.
Pinned, then only that decider edited: the check must fail (`drift`). On the
old code the pin covered the definition's own lines and the check passed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.anchors import check_json, commit, kinds, make_repo, run_cli, write

CASES = {
    "rust-attribute": (
        "src/lib.rs",
        'pub struct T;\n\n#[cfg(feature = "fast")]\npub fn run() -> u32 {\n    1\n}\n',
        '#[cfg(feature = "fast")]',
        "#[cfg(any())]",
        "src/lib.rs::run",
    ),
    "rust-attribute-in-impl": (
        "src/lib.rs",
        "pub struct T;\n\nimpl T {\n    #[inline]\n    /// Runs.\n    pub fn run(&self) {}\n}\n",
        "#[inline]",
        "#[cfg(any())]",
        "src/lib.rs::T::run",
    ),
    "c-if-0": (
        "src/x.c",
        "#ifndef X_H\n#define X_H\n#if 1\nint parse(void) {\n    return 1;\n}\n#endif\n#endif\n",
        "#if 1",
        "#if 0",
        "src/x.c::parse",
    ),
    "typescript-overload": (
        "src/app.ts",
        "export function pick(a: string): string;\nexport function pick(a: any): any {\n"
        "  return a;\n}\n",
        "pick(a: string): string;",
        "pick(a: number): string;",
        "src/app.ts::pick",
    ),
    "typescript-method-overload": (
        "src/app.ts",
        "export class Box {\n  get(a: string): string;\n  get(a: any): any {\n"
        "    return a;\n  }\n}\n",
        "get(a: string): string;",
        "get(a: number): string;",
        "src/app.ts::Box.get",
    ),
    "javascript-decorator": (
        "src/app.js",
        "class Box {\n  @cached\n  get() {\n    return 1;\n  }\n}\n",
        "@cached",
        "@uncached",
        "src/app.js::Box.get",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_changing_only_what_decides_a_symbol_is_drift(tmp_path: Path, case: str) -> None:
    path, source, before, after, cited = CASES[case]
    root = make_repo(tmp_path / "repo", {path: source, "docs/a.md": f"# A\n\nSee {cited}.\n"})
    done = run_cli(root, "--update")
    assert done.returncode == 0, done.stdout + done.stderr
    commit(root, "pin")
    assert before in source
    write(root, path, source.replace(before, after))
    code, payload = check_json(root)
    assert code == 9, payload
    assert kinds(payload) == {"drift": [cited]}


def test_an_overload_signature_is_not_a_definition_of_its_own(tmp_path: Path) -> None:
    path, source, _, _, cited = CASES["typescript-method-overload"]
    root = make_repo(tmp_path / "repo", {path: source, "docs/a.md": f"# A\n\nSee {cited}.\n"})
    code, payload = check_json(root, "--update")
    assert code == 0, payload  # not `ambiguous` between the signature and the body


def test_a_header_guard_does_not_widen_every_symbol(tmp_path: Path) -> None:
    source = (
        "#ifndef X_H\n#define X_H\nint a(void) { return 1; }\nint b(void) { return 2; }\n#endif\n"
    )
    root = make_repo(
        tmp_path / "repo", {"src/x.h": source, "docs/a.md": "# A\n\nSee src/x.h::a.\n"}
    )
    assert run_cli(root, "--update").returncode == 0
    write(root, "src/x.h", source.replace("return 2", "return 3"))
    code, payload = check_json(root)
    assert code == 0, payload  # b changed, a did not
