"""Statement-aware breaks for code that is not Python (tree-sitter).

The grammar of the file's language (the tree-sitter packages zodyssey depends
on: Go, Rust, JavaScript, TypeScript, Java, C, C++) says what a statement is: a
named node whose type is a statement or a local declaration in that grammar
(`if_statement`, `return_statement`, `expression_statement`,
`lexical_declaration`, `short_var_declaration`, `let_declaration`, ...). In the
span a claim names, the drill makes:

- `delete-statements`: every outermost statement of the span deleted at once
  (a function's body emptied);
- `delete-statement`: each outermost statement deleted alone, and each `if`
  deeper in the span deleted alone (the guard switched off).

A deleted statement's bytes become spaces (its newlines stay), so the file keeps
its line numbers. A break after which the grammar no longer parses the file
cleanly is not run. A language whose grammar cannot be loaded falls back to the
line break (the span blanked).
"""

from __future__ import annotations

from typing import Any

# At most this many single-statement breaks per span (the whole-span one is extra).
MAX_SINGLE = 12
# Node types that hold statements but are not one.
_CONTAINERS = {"block", "statement_block", "compound_statement", "declaration_list", "body"}
# Local declarations and statement-like nodes whose type does not end in `_statement`.
_DECLARATIONS = {
    "lexical_declaration",
    "variable_declaration",
    "short_var_declaration",
    "var_declaration",
    "const_declaration",
    "let_declaration",
    "local_variable_declaration",
    "declaration",
    "assignment_statement",
    "inc_statement",
    "dec_statement",
}


def is_statement(node: Any) -> bool:
    kind = str(node.type)
    if not node.is_named or kind in _CONTAINERS:
        return False
    return kind.endswith("_statement") or kind in _DECLARATIONS


def _inside(node: Any, start: int, end: int) -> bool:
    return bool(start <= node.start_point[0] + 1 and node.end_point[0] + 1 <= end)


def statements(root: Any, start: int, end: int) -> tuple[list[Any], list[Any]]:
    """(outermost statements inside lines start..end, deeper `if` statements there)."""
    outer: list[Any] = []
    guards: list[Any] = []
    stack = [(root, False)]
    while stack:
        node, under = stack.pop()
        taken = under
        if is_statement(node) and _inside(node, start, end):
            if not under:
                outer.append(node)
                taken = True
            elif node.type == "if_statement":
                guards.append(node)
        stack.extend((child, taken) for child in reversed(node.children))
    key = lambda n: n.start_byte  # noqa: E731
    return sorted(outer, key=key), sorted(guards, key=key)


def _blank(data: bytes, edits: list[tuple[int, int]]) -> bytes:
    out = bytearray(data)
    for s, e in edits:
        out[s:e] = bytes(b if b in (0x0A, 0x0D) else 0x20 for b in data[s:e])
    return bytes(out)


def breaks(
    data: bytes, language: str, start: int, end: int, spec: str
) -> list[tuple[int, str, str, bytes]] | None:
    """(line, kind, what, broken source) per break; None when the grammar is missing."""
    from zodyssey.anchors.symbols.languages import GrammarMissing, parser_for

    try:
        parser = parser_for(language)
    except GrammarMissing:
        return None
    tree = parser.parse(data)
    outer, guards = statements(tree.root_node, start, end)
    if len(outer) == 1 and outer[0].type not in ("if_statement", "return_statement"):
        # A span that is one compound statement (a whole function of a language
        # whose definitions are statements): its inner statements are the ones.
        inner, more = statements(outer[0], start, end)
        inner = [n for n in inner if n is not outer[0]]
        if inner:
            outer, guards = inner, more
    made: list[tuple[int, str, str, bytes]] = []
    if outer:
        source = _blank(data, [(n.start_byte, n.end_byte) for n in outer])
        made.append(
            (
                outer[0].start_point[0] + 1,
                "delete-statements",
                f"{spec}: its statements deleted",
                source,
            )
        )
    for node in [*outer, *guards][:MAX_SINGLE]:
        line = node.start_point[0] + 1
        first = data[node.start_byte : node.end_byte].split(b"\n", 1)[0].decode("utf-8", "replace")
        what = f"{spec}: `{first.strip()[:60]}` deleted (line {line})"
        made.append(
            (line, "delete-statement", what, _blank(data, [(node.start_byte, node.end_byte)]))
        )
    return [m for m in made if not parser.parse(m[3]).root_node.has_error]
