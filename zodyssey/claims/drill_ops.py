"""Operator mutants of Python code: one small change of the syntax tree each.

Inside the statements of a claimed span (function bodies, docstrings left
alone; annotations, decorators and default values are not part of a body), each
mutant changes one node, spliced into the file's bytes at the node's position
(the rest of the file stays byte for byte; operands keep their own source,
wrapped in parentheses so precedence cannot change):

    arith         `+`<->`-`, `*`<->`/`, `//`->`/`, `%`->`//`, `**`->`*`, `<<`<->`>>`,
                  `&`<->`|`, `^`->`&` (binary operations and augmented assignment)
    compare       `<`<->`<=`, `>`<->`>=`, `==`<->`!=`, `is`<->`is not`, `in`<->`not in`
    bool-op       `and`<->`or`
    not-removed   `not x` -> `x` (and `-x`, `~x` -> `x`: unary-removed)
    not-added     the condition of an `if`, `while`, `assert` or conditional
                  expression negated
    number+1, number-1, number0, bool-flip, string-empty, bytes-empty, fstring-empty
                  constants (numbers +-1 and 0, True<->False, strings emptied)
    return-none   `return x` -> `return None`
    drop-keyword  one keyword argument of a call removed
    drop-call     a call made as a statement removed (`pass`)
    loop-bound    `range(..., n)` -> `range(..., n - 1)`
    widen-except  `except SomeError` -> `except Exception`

A mutant that parses to the same syntax tree as the original (compared by
`ast.dump`, positions left out) is equivalent and never run; one that does not
parse is never run either.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

_BIN = {
    ast.Add: (ast.Sub, "-"),
    ast.Sub: (ast.Add, "+"),
    ast.Mult: (ast.Div, "/"),
    ast.Div: (ast.Mult, "*"),
    ast.FloorDiv: (ast.Div, "/"),
    ast.Mod: (ast.FloorDiv, "//"),
    ast.Pow: (ast.Mult, "*"),
    ast.LShift: (ast.RShift, ">>"),
    ast.RShift: (ast.LShift, "<<"),
    ast.BitAnd: (ast.BitOr, "|"),
    ast.BitOr: (ast.BitAnd, "&"),
    ast.BitXor: (ast.BitAnd, "&"),
}
_CMP = {
    ast.Lt: "<=",
    ast.LtE: "<",
    ast.Gt: ">=",
    ast.GtE: ">",
    ast.Eq: "!=",
    ast.NotEq: "==",
    ast.Is: "is not",
    ast.IsNot: "is",
    ast.In: "not in",
    ast.NotIn: "in",
}
_CMP_TEXT = {
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
}
_WIDE = {"Exception", "BaseException"}
# Nodes whose source needs no parentheses as an operand.
_ATOMS = (
    ast.Name,
    ast.Constant,
    ast.Attribute,
    ast.Call,
    ast.Subscript,
    ast.List,
    ast.Dict,
    ast.Set,
    ast.ListComp,
    ast.DictComp,
    ast.SetComp,
    ast.JoinedStr,
)


@dataclass(frozen=True, slots=True)
class Mutant:
    """One splice: bytes start..end of the file become `new`."""

    line: int
    col: int  # 1-based column of the node changed
    kind: str
    start: int
    end: int
    new: bytes


def normal_form(source: bytes) -> str | None:
    """The syntax tree without positions (None: not Python): equal forms are the same code."""
    try:
        return ast.dump(ast.parse(source))
    except (SyntaxError, ValueError):
        return None


class _Text:
    """The file's bytes addressed by ast positions (UTF-8 byte columns)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.starts = [0]
        self.starts += [i + 1 for i, byte in enumerate(data) if byte == 0x0A]

    def span(self, node: ast.AST) -> tuple[int, int]:
        start = self.starts[node.lineno - 1] + node.col_offset  # type: ignore[attr-defined]
        end = self.starts[node.end_lineno - 1] + node.end_col_offset  # type: ignore[attr-defined]
        return start, end

    def of(self, node: ast.AST) -> bytes:
        start, end = self.span(node)
        return self.data[start:end]

    def group(self, node: ast.AST) -> bytes:
        """The node's source, in parentheses unless it is an atom."""
        if isinstance(node, _ATOMS) and not (
            isinstance(node, ast.Constant)
            and isinstance(node.value, int | float)
            and node.value < 0
        ):
            return self.of(node)
        return b"(" + self.of(node) + b")"


def _body_nodes(statements: list[ast.stmt]) -> Iterator[ast.AST]:
    """Every node under the statements, annotations and nested decorators, defaults
    and f-string insides left out (their positions are not the code's own)."""
    stack: list[ast.AST] = list(reversed(statements))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.JoinedStr):
            continue
        for name, value in ast.iter_fields(node):
            if name in ("annotation", "returns", "decorator_list", "type_comment"):
                continue
            if (
                isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
                and name == "args"
            ):
                continue
            children = value if isinstance(value, list) else [value]
            stack.extend(reversed([c for c in children if isinstance(c, ast.AST)]))


def _docstring(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def _docstrings(statements: list[ast.stmt]) -> set[int]:
    """ids of the docstring constants of every function and class under `statements`."""
    found: set[int] = set()
    for node in _body_nodes(statements):
        defines = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        if defines and node.body and _docstring(node.body[0]):  # type: ignore[attr-defined]
            doc = node.body[0]  # type: ignore[attr-defined]
            assert isinstance(doc, ast.Expr)
            found |= {id(doc), id(doc.value)}
    return found


def mutants(data: bytes, statements: list[ast.stmt], first: int = 0, last: int = 0) -> list[Mutant]:
    """Every operator mutant of the nodes under `statements` (when `first` is set,
    only nodes lying wholly inside lines first..last)."""
    text = _Text(data)
    skip = _docstrings(statements)
    found: list[Mutant] = []
    for node in _body_nodes(statements):
        if id(node) in skip or not hasattr(node, "lineno"):
            continue
        if first and not (first <= node.lineno and (node.end_lineno or node.lineno) <= last):  # type: ignore[attr-defined]
            continue
        found.extend(_of_node(text, node))
    return found


def _at(text: _Text, node: ast.AST, kind: str, new: bytes, where: ast.AST | None = None) -> Mutant:
    start, end = text.span(node)
    spot = where or node
    return Mutant(spot.lineno, spot.col_offset + 1, kind, start, end, new)  # type: ignore[attr-defined]


def _of_node(text: _Text, node: ast.AST) -> Iterator[Mutant]:
    maker = _MAKERS.get(type(node))
    if maker is not None:
        yield from maker(text, node)


def _binop(text: _Text, node: ast.AST) -> Iterator[Mutant]:
    assert isinstance(node, ast.BinOp)
    swap = _BIN.get(type(node.op))
    if swap:
        new = text.group(node.left) + f" {swap[1]} ".encode() + text.group(node.right)
        yield _at(text, node, "arith", new)


def _augassign(text: _Text, node: ast.AST) -> Iterator[Mutant]:
    assert isinstance(node, ast.AugAssign)
    swap = _BIN.get(type(node.op))
    if swap:
        new = text.of(node.target) + f" {swap[1]}= ".encode() + text.group(node.value)
        yield _at(text, node, "arith", new)


def _compare(text: _Text, node: ast.AST) -> Iterator[Mutant]:
    assert isinstance(node, ast.Compare)
    for index, op in enumerate(node.ops):
        parts = [text.group(node.left)]
        for n, (other, right) in enumerate(zip(node.ops, node.comparators, strict=True)):
            sign = _CMP[type(other)] if n == index else _CMP_TEXT[type(other)]
            parts.append(f" {sign} ".encode() + text.group(right))
        yield _at(text, node, "compare", b"".join(parts), node.comparators[index])
        del op


def _boolop(text: _Text, node: ast.AST) -> Iterator[Mutant]:
    assert isinstance(node, ast.BoolOp)
    joiner = b" or " if isinstance(node.op, ast.And) else b" and "
    yield _at(text, node, "bool-op", joiner.join(text.group(v) for v in node.values))


def _unary(text: _Text, node: ast.AST) -> Iterator[Mutant]:
    assert isinstance(node, ast.UnaryOp)
    if isinstance(node.op, ast.Not):
        yield _at(text, node, "not-removed", text.group(node.operand))
    elif isinstance(node.op, ast.USub | ast.Invert) and not isinstance(node.operand, ast.Constant):
        # (-1 is a number: mutated as one)
        yield _at(text, node, "unary-removed", text.group(node.operand))


def _negated(text: _Text, test: ast.expr) -> Iterator[Mutant]:
    if not (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)):
        yield _at(text, test, "not-added", b"not " + text.group(test))


def _condition(text: _Text, node: ast.AST) -> Iterator[Mutant]:
    test = getattr(node, "test", None)
    if isinstance(test, ast.expr):
        yield from _negated(text, test)


def _constant(text: _Text, node: ast.AST) -> Iterator[Mutant]:
    assert isinstance(node, ast.Constant)
    value = node.value
    if isinstance(value, bool):
        yield _at(text, node, "bool-flip", repr(not value).encode())
    elif isinstance(value, int | float):
        for kind, new in (("number+1", value + 1), ("number-1", value - 1), ("number0", 0)):
            if new != value:
                shown = f"({new!r})" if new < 0 else repr(new)
                yield _at(text, node, kind, shown.encode())
    elif isinstance(value, str) and value:
        yield _at(text, node, "string-empty", b"''")
    elif isinstance(value, bytes) and value:
        yield _at(text, node, "bytes-empty", b"b''")


def _fstring(text: _Text, node: ast.AST) -> Iterator[Mutant]:
    assert isinstance(node, ast.JoinedStr)
    yield _at(text, node, "fstring-empty", b"''")


def _return(text: _Text, node: ast.AST) -> Iterator[Mutant]:
    assert isinstance(node, ast.Return)
    if node.value is not None and not (
        isinstance(node.value, ast.Constant) and node.value.value is None
    ):
        yield _at(text, node, "return-none", b"return None")


def _call(text: _Text, node: ast.AST) -> Iterator[Mutant]:
    assert isinstance(node, ast.Call)
    items: list[ast.AST] = sorted(
        [*node.args, *node.keywords],
        key=lambda n: (n.lineno, n.col_offset),  # type: ignore[attr-defined]
    )
    for keyword in node.keywords:
        if keyword.arg is None:
            continue  # **kwargs: not one argument
        kept = b", ".join(text.of(n) for n in items if n is not keyword)
        yield _at(text, node, "drop-keyword", text.of(node.func) + b"(" + kept + b")", keyword)
    if _plain_range(node):
        stop = node.args[0] if len(node.args) == 1 else node.args[1]
        args = [text.of(a) for a in node.args]
        args[node.args.index(stop)] = text.group(stop) + b" - 1"
        yield _at(text, node, "loop-bound", b"range(" + b", ".join(args) + b")", stop)


def _plain_range(node: ast.Call) -> bool:
    """`range(...)` with one to three positional arguments, none starred."""
    return (
        isinstance(node.func, ast.Name)
        and node.func.id == "range"
        and not node.keywords
        and 1 <= len(node.args) <= 3
        and not any(isinstance(a, ast.Starred) for a in node.args)
    )


def _expr_stmt(text: _Text, node: ast.AST) -> Iterator[Mutant]:
    assert isinstance(node, ast.Expr)
    if isinstance(node.value, ast.Call):
        yield _at(text, node, "drop-call", b"pass")


def _handler(text: _Text, node: ast.AST) -> Iterator[Mutant]:
    assert isinstance(node, ast.ExceptHandler)
    kind = node.type
    if kind is None or (isinstance(kind, ast.Name) and kind.id in _WIDE):
        return
    yield _at(text, kind, "widen-except", b"Exception")


_MAKERS = {
    ast.BinOp: _binop,
    ast.AugAssign: _augassign,
    ast.Compare: _compare,
    ast.BoolOp: _boolop,
    ast.UnaryOp: _unary,
    ast.If: _condition,
    ast.While: _condition,
    ast.IfExp: _condition,
    ast.Assert: _condition,
    ast.Constant: _constant,
    ast.JoinedStr: _fstring,
    ast.Return: _return,
    ast.Call: _call,
    ast.Expr: _expr_stmt,
    ast.ExceptHandler: _handler,
}
