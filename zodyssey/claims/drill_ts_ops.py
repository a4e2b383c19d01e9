"""Operator mutants of Go, Rust, JavaScript, TypeScript, Java, C and C++ code,
made on the file's tree-sitter syntax tree.

The nodes mutated are those inside the claimed span that belong to code: the
statements wholly inside it and the bodies of the definitions it holds
(parameter lists, return and other types, names and comments left alone). Each
mutant changes one node and is spliced into the file's bytes at that node's
position; the rest of the file stays byte for byte:

    arith         `+`<->`-`, `*`<->`/`, `%`->`/`, `<<`<->`>>`, `&`<->`|`, `^`->`&`,
                  `**`->`*`, in expressions, compound assignments (`+=`->`-=`)
                  and increments (`++`<->`--`)
    compare       `<`<->`<=`, `>`<->`>=`, `==`<->`!=`, `===`<->`!==`
    bool-op       `&&`<->`||`
    not-removed   `!x` -> `x` (and `-x`, `~x` -> `x`: unary-removed)
    not-added     the condition of an `if`, a `while` or a conditional expression negated
    number+1, number-1, number0
                  a decimal number literal plus one, minus one, zero (never made
                  negative; its type suffix kept)
    bool-flip     `true`<->`false`
    string-empty  a string literal emptied (raw strings and templates left alone)
    return-default
                  the value returned replaced by the type's "nothing": `undefined`
                  (JavaScript, TypeScript); Go's zero values by the result types;
                  `Default::default()` (Rust, for `return x` and a body's tail
                  expression); `0`, `false` or `null` by the Java method's type;
                  `0` for a C or C++ function returning a number or a pointer
    loop-bound    a counting loop's bound moved by one (`i < n` -> `i < n - 1`;
                  Rust's `a..n` -> `a..n - 1`)

An operator whose replacement binds with another precedence (`&&`, `||`, `&`,
`|`, `^`, `**`) is rebuilt with its operands in parentheses, so the tree changes
in that one node only. A mutant after which the grammar no longer parses the
file cleanly is never run; one whose tree, after normalisation (comments and
redundant parentheses dropped, number literals by value), is the original's is
equivalent and never run either.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from zodyssey.claims.drill_ts import is_statement

# The replacement binds as tightly: the operator's token alone changes.
_SWAP = {
    "+": "-",
    "-": "+",
    "*": "/",
    "/": "*",
    "%": "/",
    "<<": ">>",
    ">>": "<<",
    ">>>": "<<",
    "<": "<=",
    "<=": "<",
    ">": ">=",
    ">=": ">",
    "==": "!=",
    "!=": "==",
    "===": "!==",
    "!==": "===",
}
# Another precedence: the node is rebuilt, its operands in parentheses.
_REGROUP = {"&&": "||", "||": "&&", "&": "|", "|": "&", "^": "&", "**": "*"}
_ASSIGN = {
    "+=": "-=",
    "-=": "+=",
    "*=": "/=",
    "/=": "*=",
    "%=": "/=",
    "<<=": ">>=",
    ">>=": "<<=",
    "&=": "|=",
    "|=": "&=",
    "^=": "&=",
}
_UPDATE = {"++": "--", "--": "++"}
_COMPARE = {"<", "<=", ">", ">=", "==", "!=", "===", "!=="}
_ASSIGNMENTS = {
    "augmented_assignment_expression",  # JavaScript, TypeScript
    "assignment_statement",  # Go
    "compound_assignment_expr",  # Rust
    "assignment_expression",  # Java, C, C++
}
_UPDATES = {"update_expression", "inc_statement", "dec_statement"}
_NUMBERS = {
    "number",
    "int_literal",
    "float_literal",
    "integer_literal",
    "decimal_integer_literal",
    "decimal_floating_point_literal",
    "number_literal",
}
_BOOLEANS = {"true", "false", "boolean_literal"}
_STRINGS = {"string", "interpreted_string_literal", "raw_string_literal", "string_literal"}
_CONDITIONAL = {
    "if_statement",
    "while_statement",
    "do_statement",
    "if_expression",
    "while_expression",
    "ternary_expression",
    "conditional_expression",
}
_COMMENTS = {"comment", "line_comment", "block_comment"}
# Fields whose nodes are not the code's behaviour: signatures, types, names.
_SKIP_FIELDS = {
    "parameters",
    "return_type",
    "result",
    "type",
    "type_parameters",
    "type_arguments",
    "receiver",
    "name",
    "decorator",
}
_SKIP_TYPES = {"type_annotation", "type_arguments", "array_declarator", "attribute_item"}
# Operands that never need parentheses.
_ATOMS = {
    "identifier",
    "field_identifier",
    "call_expression",
    "member_expression",
    "field_expression",
    "selector_expression",
    "subscript_expression",
    "index_expression",
    "parenthesized_expression",
    "this",
    "self",
} | _NUMBERS
_FUNCTIONS = {
    "function_declaration",
    "function_expression",
    "arrow_function",
    "method_definition",
    "generator_function_declaration",
    "method_declaration",
    "func_literal",
    "function_item",
    "closure_expression",
    "constructor_declaration",
    "lambda_expression",
    "function_definition",
}
_INT = re.compile(
    r"^(?P<digits>0|[1-9][0-9_]*)(?P<suffix>_?(?:[iu](?:8|16|32|64|128|size)|[uUlL]{1,3}))?$"
)
_FLOAT = re.compile(r"^(?P<digits>[0-9]+\.[0-9]+)(?P<suffix>_?(?:f32|f64)|[fFdD])?$")
_GO_NUMERIC = re.compile(
    r"^(?:u?int(?:8|16|32|64)?|float(?:32|64)|complex(?:64|128)|byte|rune|uintptr)$"
)
_GO_NIL = {
    "pointer_type",
    "slice_type",
    "map_type",
    "channel_type",
    "function_type",
    "interface_type",
}


@dataclass(frozen=True, slots=True)
class Mutant:
    """One splice: bytes start..end of the file become `new`."""

    line: int
    col: int  # 1-based column of the node changed
    kind: str
    start: int
    end: int
    new: bytes
    # Bytes of the node the report shows before and after (0, 0: the one changed).
    shown: tuple[int, int] = (0, 0)

    def described(self, data: bytes) -> tuple[bytes, bytes]:
        """(the shown code before, after) the mutant."""
        start, end = self.shown if self.shown != (0, 0) else (self.start, self.end)
        before = data[start:end]
        after = data[start : self.start] + self.new + data[self.end : end]
        return before, after


class _Code:
    """The file's bytes, its language, and the node texts the makers need."""

    def __init__(self, data: bytes, language: str) -> None:
        self.data = data
        self.language = language

    def text(self, node: Any) -> bytes:
        return self.data[node.start_byte : node.end_byte]

    def group(self, node: Any) -> bytes:
        text = self.text(node)
        if node.type in _ATOMS and not text.startswith(b"-"):
            return text
        return b"(" + text + b")"

    def at(self, node: Any, kind: str, new: bytes, where: Any = None, shown: Any = None) -> Mutant:
        spot = where if where is not None else node
        line, col = spot.start_point
        around = (shown.start_byte, shown.end_byte) if shown is not None else (0, 0)
        return Mutant(line + 1, col + 1, kind, node.start_byte, node.end_byte, new, around)


def _inside(node: Any, start: int, end: int) -> bool:
    return bool(start <= node.start_point[0] + 1 and node.end_point[0] + 1 <= end)


def _regions(root: Any, start: int, end: int) -> list[Any]:
    """The outermost statements and definition bodies wholly inside lines start..end."""
    found: list[Any] = []
    stack: list[tuple[Any, str | None]] = [(root, None)]
    while stack:
        node, field = stack.pop()
        if _inside(node, start, end) and (is_statement(node) or field == "body"):
            found.append(node)
            continue
        if node.end_point[0] + 1 < start or node.start_point[0] + 1 > end:
            continue
        stack.extend((child, node.field_name_for_child(i)) for i, child in enumerate(node.children))
    return sorted(found, key=lambda n: n.start_byte)


def _code_nodes(regions: list[Any]) -> Iterator[Any]:
    """Every node of the regions but signatures, types, names and comments."""
    stack = list(reversed(regions))
    while stack:
        node = stack.pop()
        yield node
        kept = [
            child
            for i, child in enumerate(node.children)
            if node.field_name_for_child(i) not in _SKIP_FIELDS
            and child.type not in _COMMENTS
            and child.type not in _SKIP_TYPES
            and not child.type.endswith("_type")
        ]
        stack.extend(reversed(kept))


def mutants(data: bytes, language: str, root: Any, start: int, end: int) -> list[Mutant]:
    """Every operator mutant of the code inside lines start..end of the parsed file."""
    code = _Code(data, language)
    found: list[Mutant] = []
    for node in _code_nodes(_regions(root, start, end)):
        for maker in _MAKERS.get(node.type, ()):
            found.extend(maker(code, node))
    return found


def _operator(node: Any, table: dict[str, str]) -> Any:
    """The node's operator token (by field, else its first unnamed child in `table`)."""
    token = node.child_by_field_name("operator")
    if token is not None and token.type in table:
        return token
    for child in node.children:
        if not child.is_named and child.type in table:
            return child
    return None


def _binary(code: _Code, node: Any) -> Iterator[Mutant]:
    token = _operator(node, {**_SWAP, **_REGROUP})
    if token is None:
        return
    op = token.type
    kind = "compare" if op in _COMPARE else "bool-op" if op in ("&&", "||") else "arith"
    if op in _SWAP:
        yield code.at(token, kind, _SWAP[op].encode(), shown=node)
        return
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if left is None or right is None:
        return
    new = code.group(left) + f" {_REGROUP[op]} ".encode() + code.group(right)
    parent = node.parent
    if parent is None or parent.type != "parenthesized_expression":
        new = b"(" + new + b")"
    yield code.at(node, kind, new, token)


def _assign(code: _Code, node: Any) -> Iterator[Mutant]:
    token = _operator(node, _ASSIGN)
    if token is not None:
        yield code.at(token, "arith", _ASSIGN[token.type].encode(), shown=node)


def _update(code: _Code, node: Any) -> Iterator[Mutant]:
    token = _operator(node, _UPDATE)
    if token is not None:
        yield code.at(token, "arith", _UPDATE[token.type].encode(), shown=node)


def _unary(code: _Code, node: Any) -> Iterator[Mutant]:
    token = _operator(node, {"!": "", "-": "", "~": ""})
    operand = node.child_by_field_name("argument") or node.child_by_field_name("operand")
    if operand is None:
        named = node.named_children
        operand = named[-1] if named else None
    if token is None or operand is None or operand.type in _NUMBERS:
        return  # (-1 is a number: mutated as one)
    kind = "not-removed" if token.type == "!" else "unary-removed"
    yield code.at(node, kind, code.group(operand))


def _condition(code: _Code, node: Any) -> Iterator[Mutant]:
    cond = node.child_by_field_name("condition")
    if cond is None:
        return
    if cond.type in ("parenthesized_expression", "condition_clause"):
        inner = cond.child_by_field_name("value") if cond.type == "condition_clause" else None
        named = cond.named_children
        if inner is None and len(named) == 1:
            inner = named[0]
        cond = inner
    if cond is None or "declaration" in cond.type or cond.type.startswith("let_"):
        return
    if cond.type == "unary_expression" and _operator(cond, {"!": ""}) is not None:
        return  # already negated: not-removed undoes it
    yield code.at(cond, "not-added", b"!(" + code.text(cond) + b")")


def _number(code: _Code, node: Any) -> Iterator[Mutant]:
    text = code.text(node).decode("ascii", "replace")
    match = _INT.match(text)
    if match:
        value: int | float = int(match["digits"].replace("_", ""))
    else:
        match = _FLOAT.match(text)
        if not match:
            return  # hexadecimal, octal, exponent forms: left alone
        value = float(match["digits"])
    suffix = match["suffix"] or ""
    for kind, new in (("number+1", value + 1), ("number-1", value - 1), ("number0", 0)):
        if new != value and new >= 0:
            shown = repr(float(new)) if isinstance(value, float) else str(new)
            yield code.at(node, kind, (shown + suffix).encode())


def _boolean(code: _Code, node: Any) -> Iterator[Mutant]:
    text = code.text(node)
    if text in (b"true", b"false"):
        yield code.at(node, "bool-flip", b"false" if text == b"true" else b"true")


def _string(code: _Code, node: Any) -> Iterator[Mutant]:
    text = code.text(node)
    quote = next((i for i, byte in enumerate(text) if byte in b"\"'`"), -1)
    if quote < 0 or text[:quote] not in (b"", b"b", b"L", b"u", b"U", b"u8"):
        return  # raw strings (`r"..."`, `R"(...)"`) and the like
    mark = text[quote : quote + 1]
    body = text[quote + 1 : -1]
    if len(text) - quote < 2 or not text.endswith(mark) or not body or body.startswith(mark * 2):
        return  # empty already, or a text block
    yield code.at(node, "string-empty", text[:quote] + mark + mark)


def _return(code: _Code, node: Any) -> Iterator[Mutant]:
    named = [c for c in node.named_children if c.type not in _COMMENTS]
    if not named:
        return
    value = named[0]
    nothing = _nothing(code, node)
    if nothing is not None and code.text(value) != nothing:
        yield code.at(value, "return-default", nothing, node, shown=node)


def _block(code: _Code, node: Any) -> Iterator[Mutant]:
    """Rust: a function body's tail expression is its return value."""
    if code.language != "rust" or node.parent is None or node.parent.type != "function_item":
        return
    if node.parent.child_by_field_name("return_type") is None:
        return
    named = [c for c in node.named_children if c.type not in _COMMENTS]
    if not named or len(node.children) < 2 or node.children[-2] != named[-1]:
        return
    tail = named[-1]
    if is_statement(tail) or tail.type in ("let_declaration", "expression_statement"):
        return
    if code.text(tail) != b"Default::default()":
        yield code.at(tail, "return-default", b"Default::default()")


def _function(node: Any) -> Any:
    while node is not None and node.type not in _FUNCTIONS:
        node = node.parent
    return node


def _nothing(code: _Code, node: Any) -> bytes | None:
    """What `return` gives back instead of the value, by language and declared type."""
    if code.language in ("javascript", "typescript", "tsx"):
        return b"undefined"
    fn = _function(node)
    if fn is None:
        return None
    if code.language == "rust":
        known = fn.type == "function_item" and fn.child_by_field_name("return_type")
        return b"Default::default()" if known else None
    if code.language == "go":
        return _go_zeros(code, fn)
    if code.language == "java":
        return _java_nothing(code, fn)
    return _c_nothing(code, fn)


def _go_zeros(code: _Code, fn: Any) -> bytes | None:
    result = fn.child_by_field_name("result")
    if result is None:
        return None
    types: list[Any] = []
    if result.type == "parameter_list":
        for param in result.named_children:
            kind = param.child_by_field_name("type")
            if param.type != "parameter_declaration" or kind is None:
                return None
            types += [kind] * max(1, len(param.children_by_field_name("name")))
    else:
        types = [result]
    zeros: list[bytes] = []
    for kind in types:
        text = code.text(kind).decode("utf-8", "replace")
        if kind.type in _GO_NIL or text in ("error", "any"):
            zeros.append(b"nil")
        elif text == "string":
            zeros.append(b'""')
        elif text == "bool":
            zeros.append(b"false")
        elif _GO_NUMERIC.match(text):
            zeros.append(b"0")
        else:
            return None  # a named type: its zero value is not written here
    return b", ".join(zeros)


def _java_nothing(code: _Code, fn: Any) -> bytes | None:
    if fn.type != "method_declaration":
        return None
    kind = fn.child_by_field_name("type")
    if kind is None or kind.type == "void_type":
        return None
    if kind.type in ("integral_type", "floating_point_type"):
        return b"0"
    return b"false" if kind.type == "boolean_type" else b"null"


def _c_nothing(code: _Code, fn: Any) -> bytes | None:
    if fn.type != "function_definition":
        return None
    kind, declarator = fn.child_by_field_name("type"), fn.child_by_field_name("declarator")
    if declarator is not None and declarator.type == "pointer_declarator":
        return b"0"
    if kind is None or kind.type not in ("primitive_type", "sized_type_specifier"):
        return None
    text = code.text(kind)
    if text == b"void":
        return None
    return b"false" if text == b"bool" and code.language != "c" else b"0"


def _loop(code: _Code, node: Any) -> Iterator[Mutant]:
    clause = node
    if code.language == "go":
        clause = next((c for c in node.named_children if c.type == "for_clause"), None)
        if clause is None:
            return
    cond = clause.child_by_field_name("condition")
    if cond is not None and cond.type == "binary_expression":
        token = _operator(cond, {"<": "", "<=": "", ">": "", ">=": ""})
        bound = cond.child_by_field_name("right")
        if token is not None and bound is not None:
            step = b" - 1" if token.type.startswith("<") else b" + 1"
            yield code.at(bound, "loop-bound", code.group(bound) + step, shown=cond)
        return
    value = node.child_by_field_name("value")  # Rust: `for i in a..n`
    if value is None or value.type != "range_expression" or not value.named_children:
        return
    bound = value.named_children[-1]
    dots = _operator(value, {"..": "", "..=": ""})
    if dots is not None and bound.start_byte > dots.start_byte:
        yield code.at(bound, "loop-bound", code.group(bound) + b" - 1", shown=value)


_Maker = Callable[[_Code, Any], Iterator[Mutant]]
_MAKERS: dict[str, tuple[_Maker, ...]] = {
    "binary_expression": (_binary,),
    "unary_expression": (_unary,),
    "return_statement": (_return,),
    "return_expression": (_return,),
    "block": (_block,),
    "for_statement": (_loop,),
    "for_expression": (_loop,),
    **{kind: (_assign,) for kind in _ASSIGNMENTS},
    **{kind: (_update,) for kind in _UPDATES},
    **{kind: (_condition,) for kind in _CONDITIONAL},
    **{kind: (_number,) for kind in _NUMBERS},
    **{kind: (_boolean,) for kind in _BOOLEANS},
    **{kind: (_string,) for kind in _STRINGS},
}


def normal_form(root: Any, data: bytes) -> list[str]:
    """The tree as a token list: comments and parentheses around a lone expression
    dropped, number literals by value. Equal forms are the same code."""
    out: list[str] = []
    stack: list[Any] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            out.append(node)
            continue
        while node.type == "parenthesized_expression" and node.named_child_count == 1:
            node = node.named_children[0]
        if node.child_count == 0 or node.type in _NUMBERS:
            out.append(f"{node.type}={_literal(node, data)}")
            continue
        out.append(f"({node.type}")
        stack.append(")")
        stack.extend(reversed([c for c in node.children if c.type not in _COMMENTS]))
    return out


def _literal(node: Any, data: bytes) -> str:
    text = data[node.start_byte : node.end_byte].decode("utf-8", "replace")
    if node.type not in _NUMBERS:
        return text
    match = _INT.match(text) or _FLOAT.match(text)
    if match is None:
        return text
    digits = match["digits"].replace("_", "")
    value = float(digits) if "." in digits else int(digits)
    return f"{value!r}{match['suffix'] or ''}"
