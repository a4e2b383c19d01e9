"""The grammars (loaded on first use) and what counts as a definition in each language.

Each grammar comes from its own PyPI package (tree-sitter-python, -go, -rust,
-javascript, -typescript, -java, -c, -cpp), whose wheel carries the compiled
grammar: nothing is downloaded or built at run time. A grammar is imported the
first time a file of its language is parsed, never at import of this module.

A definition is a named node of one of the types in its language's table; its
span is the node's lines with what decides it (`_decided_span`): a Python
decorator, a Rust attribute or JavaScript/TypeScript decorator written just
above it, TypeScript overload signatures of the same name just above it, and
C/C++ conditional-compilation blocks around it (not an include guard). Definitions
nest: a method is `Class.method`, a Rust method `Type::method` (its `impl`
names the scope), a C++ one `ns::Class::method` (also when defined out of its
class as `void ns::Class::method() {...}`). Only the top level and the bodies
of definitions are walked (plus transparent wrappers: `export`, templates,
`#ifdef` blocks, namespaces' and `extern "C"` bodies), never function bodies'
statements in general, so a file is read in time linear in its size.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

# language -> (module, function returning the grammar's pointer)
GRAMMARS: dict[str, tuple[str, str]] = {
    "python": ("tree_sitter_python", "language"),
    "go": ("tree_sitter_go", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "java": ("tree_sitter_java", "language"),
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
}

# The separator a citation of that language is written with (suggestions use it).
SEPARATOR: dict[str, str] = {"rust": "::", "cpp": "::"}

_parsers: dict[str, Any] = {}


class GrammarMissing(Exception):
    """The grammar package of a language is not installed (or not loadable)."""


def parser_for(language: str) -> Any:
    """A tree-sitter parser for `language`, built once per process."""
    parser = _parsers.get(language)
    if parser is None:
        import tree_sitter

        module_name, function = GRAMMARS[language]
        try:
            module = importlib.import_module(module_name)
            grammar = tree_sitter.Language(getattr(module, function)())
        except (ImportError, AttributeError, ValueError) as exc:
            raise GrammarMissing(
                f"the {language} grammar ({module_name.replace('_', '-')}) cannot be loaded: {exc}; "
                "zodyssey depends on it: reinstall zodyssey with its dependencies "
                "(`pip install zodyssey`, or `pip install -e .` in its checkout)"
            ) from exc
        parser = tree_sitter.Parser(grammar)
        _parsers[language] = parser
    return parser


@dataclass(frozen=True, slots=True)
class Definition:
    """One definition: its qualified name (segments), 1-based line span, name's line."""

    segments: tuple[str, ...]
    start: int
    end: int
    name_line: int
    kind: str  # the node type (function_definition, method_declaration, ...)

    def written(self, separator: str = ".") -> str:
        return separator.join(self.segments)


# A handler reads a definition node: (name segments or None, body node to walk or None,
# whether the node itself is a definition (an `impl` block only opens a scope)).
Handler = Callable[[Any], tuple[tuple[str, ...] | None, Any, bool]]

_TEMPLATE_ARGS = re.compile(r"<[^<>]*>")


def _text(node: Any) -> str:
    return bytes(node.text).decode("utf-8", "replace") if node is not None else ""


def _field_name(node: Any, field: str = "name") -> str | None:
    child = node.child_by_field_name(field)
    return _text(child) if child is not None else None


def named(body_field: str | None = "body", field: str = "name") -> Handler:
    """A definition named by its `name` field, members in its `body` field (if any)."""

    def handler(node: Any) -> tuple[tuple[str, ...] | None, Any, bool]:
        name = _field_name(node, field)
        body = node.child_by_field_name(body_field) if body_field else None
        return ((name,) if name else None), body, True

    return handler


def _python_decorated(node: Any) -> tuple[tuple[str, ...] | None, Any, bool]:
    inner = node.child_by_field_name("definition")
    if inner is None:
        return None, None, False
    name = _field_name(inner)
    return ((name,) if name else None), inner.child_by_field_name("body"), True


def _go_method(node: Any) -> tuple[tuple[str, ...] | None, Any, bool]:
    name = _field_name(node)
    receiver = node.child_by_field_name("receiver")
    owner = None
    if receiver is not None:
        for parameter in receiver.named_children:
            kind = parameter.child_by_field_name("type")
            while kind is not None and kind.type in ("pointer_type", "generic_type"):
                kind = kind.named_children[0] if kind.named_children else None
            if kind is not None:
                owner = _text(kind)
    if not name:
        return None, None, False
    return ((owner, name) if owner else (name,)), None, True


def _type_name(node: Any) -> str | None:
    """`Foo<T>` -> Foo, `a::Bar` -> Bar: the type an `impl` block is for."""
    while node is not None and node.type == "generic_type":
        node = node.child_by_field_name("type")
    if node is None:
        return None
    if node.type == "scoped_type_identifier":
        return _field_name(node)
    return _text(node)


def _rust_impl(node: Any) -> tuple[tuple[str, ...] | None, Any, bool]:
    name = _type_name(node.child_by_field_name("type"))
    return ((name,) if name else None), node.child_by_field_name("body"), False


def _js_variable(node: Any) -> tuple[tuple[str, ...] | None, Any, bool]:
    """`const f = () => ...` / `let C = class {...}`: named by the variable."""
    value = node.child_by_field_name("value")
    name = node.child_by_field_name("name")
    if value is None or name is None or name.type != "identifier":
        return None, None, False
    if value.type in ("arrow_function", "function_expression", "function", "generator_function"):
        return (_text(name),), None, True
    if value.type == "class":
        return (_text(name),), value.child_by_field_name("body"), True
    return None, None, False


_DECLARATOR_NAMES = (
    "identifier",
    "field_identifier",
    "qualified_identifier",
    "destructor_name",
    "operator_name",
    "type_identifier",
)


def _c_function(node: Any) -> tuple[tuple[str, ...] | None, Any, bool]:
    """A C/C++ function definition: the name at the bottom of its declarator chain."""
    declarator = node.child_by_field_name("declarator")
    for _ in range(16):
        if declarator is None or declarator.type in _DECLARATOR_NAMES:
            break
        declarator = declarator.child_by_field_name("declarator")
    if declarator is None or declarator.type not in _DECLARATOR_NAMES:
        return None, None, False
    text = _TEMPLATE_ARGS.sub("", "".join(_text(declarator).split()))
    segments = tuple(s for s in text.split("::") if s)
    return (segments or None), None, True


def _c_tagged(node: Any) -> tuple[tuple[str, ...] | None, Any, bool]:
    """`struct foo {...}` (with a body: a definition, not a use), class, union, enum."""
    body = node.child_by_field_name("body")
    name = _field_name(node)
    if body is None or not name:
        return None, None, False
    return (_TEMPLATE_ARGS.sub("", name),), body, True


def _c_typedef(node: Any) -> tuple[tuple[str, ...] | None, Any, bool]:
    """`typedef struct {...} name;`: named by the declarator."""
    declarator = node.child_by_field_name("declarator")
    if declarator is None or declarator.type not in ("type_identifier", "identifier"):
        return None, None, False
    return (_text(declarator),), None, True


def _namespace(node: Any) -> tuple[tuple[str, ...] | None, Any, bool]:
    name = _field_name(node)
    body = node.child_by_field_name("body")
    if not name:
        return None, body, False  # an anonymous namespace: its members are top level
    return tuple(name.split("::")), body, True


@dataclass(frozen=True, slots=True)
class Table:
    handlers: dict[str, Handler]
    transparent: frozenset[str]  # wrappers walked through, without a scope of their own
    # What decides a definition and so belongs to its span (docs/citation-lock.md):
    prefix: frozenset[str] = frozenset()  # siblings written just above it (attributes)
    overloads: frozenset[str] = frozenset()  # signatures of the same name just above it
    conditional: frozenset[str] = frozenset()  # enclosing blocks (`#if 0 ... #endif`)


_PYTHON = Table(
    {
        "class_definition": named(),
        "function_definition": named(),
        "decorated_definition": _python_decorated,
    },
    frozenset(("block",)),
)
_GO = Table(
    {
        "function_declaration": named(None),
        "method_declaration": _go_method,
        "type_spec": named(None),
    },
    frozenset(("type_declaration",)),
)
_RUST = Table(
    {
        "function_item": named(None),
        "function_signature_item": named(None),
        "struct_item": named(None),
        "enum_item": named(None),
        "union_item": named(None),
        "type_item": named(None),
        "const_item": named(None),
        "static_item": named(None),
        "macro_definition": named(None),
        "trait_item": named(),
        "mod_item": named(),
        "impl_item": _rust_impl,
    },
    frozenset(("declaration_list",)),
    prefix=frozenset(("attribute_item",)),
)
_JS_HANDLERS: dict[str, Handler] = {
    "function_declaration": named(None),
    "generator_function_declaration": named(None),
    "class_declaration": named(),
    "method_definition": named(None),
    "variable_declarator": _js_variable,
}
_JS_TRANSPARENT = frozenset(("export_statement", "lexical_declaration", "variable_declaration"))
_JAVASCRIPT = Table(
    _JS_HANDLERS, _JS_TRANSPARENT | {"class_body"}, prefix=frozenset(("decorator",))
)
_TYPESCRIPT = Table(
    {
        **_JS_HANDLERS,
        "abstract_class_declaration": named(),
        "interface_declaration": named(),
        "type_alias_declaration": named(None),
        "enum_declaration": named(None),
        "internal_module": named(),
        "module": named(),
        "method_signature": named(None),
        "abstract_method_signature": named(None),
    },
    _JS_TRANSPARENT | {"class_body", "expression_statement", "ambient_declaration"},
    prefix=frozenset(("decorator",)),
    overloads=frozenset(("function_signature", "method_signature", "abstract_method_signature")),
)
_JAVA = Table(
    {
        "class_declaration": named(),
        "interface_declaration": named(),
        "enum_declaration": named(),
        "record_declaration": named(),
        "annotation_type_declaration": named(),
        "method_declaration": named(None),
        "constructor_declaration": named(None),
    },
    frozenset(("enum_body_declarations", "class_body", "interface_body", "enum_body")),
)
_C_PREPROCESSOR = frozenset(("preproc_ifdef", "preproc_if", "preproc_else", "preproc_elif"))
_C = Table(
    {
        "function_definition": _c_function,
        "struct_specifier": _c_tagged,
        "union_specifier": _c_tagged,
        "enum_specifier": _c_tagged,
        "type_definition": _c_typedef,
    },
    _C_PREPROCESSOR | {"declaration", "field_declaration_list"},
    conditional=_C_PREPROCESSOR,
)
_CPP = Table(
    {
        **_C.handlers,
        "class_specifier": _c_tagged,
        "namespace_definition": _namespace,
    },
    _C.transparent
    | {"template_declaration", "linkage_specification", "declaration_list", "field_declaration"},
    conditional=_C_PREPROCESSOR,
)

TABLES: dict[str, Table] = {
    "python": _PYTHON,
    "go": _GO,
    "rust": _RUST,
    "javascript": _JAVASCRIPT,
    "typescript": _TYPESCRIPT,
    "tsx": _TYPESCRIPT,
    "java": _JAVA,
    "c": _C,
    "cpp": _CPP,
}


def definitions(source: bytes, language: str) -> list[Definition]:
    """Every definition of a file's source, in document order (outer before inner)."""
    tree = parser_for(language).parse(source)
    table = TABLES[language]
    out: list[Definition] = []
    _walk(tree.root_node, (), table, out, 0)
    if table.overloads:
        # An overload signature is part of the implementation it introduces, not a
        # definition of its own (`Class.method` would be ambiguous).
        covered: dict[tuple[str, ...], list[Definition]] = {}
        for d in out:
            if d.kind not in table.overloads:
                covered.setdefault(d.segments, []).append(d)
        out = [
            d
            for d in out
            if d.kind not in table.overloads
            or not any(c.start <= d.start < c.end for c in covered.get(d.segments, ()))
        ]
    return out


# Nesting deeper than this is not followed (a generated file could nest without end).
MAX_DEPTH = 64


def _walk(
    node: Any, scope: tuple[str, ...], table: Table, out: list[Definition], depth: int
) -> None:
    if depth > MAX_DEPTH:
        return
    for child in node.named_children:
        handler = table.handlers.get(child.type)
        if handler is None:
            if child.type in table.transparent:
                _walk(child, scope, table, out, depth + 1)
            continue
        segments, body, emit = handler(child)
        inner = scope + segments if segments else scope
        if emit and segments:
            start, end = _decided_span(child, table, segments[-1])
            out.append(Definition(inner, start + 1, end + 1, _name_row(child), child.type))
        if body is not None:
            _walk(body, inner, table, out, depth + 1)


def _name_row(node: Any) -> int:
    """The 1-based line of a definition's name (of the decorated definition's name for
    a decorated one); the definition's first line when it has no name field."""
    name = node.child_by_field_name("name")
    if node.type == "decorated_definition":
        definition = node.child_by_field_name("definition")
        name = definition.child_by_field_name("name") if definition else None
    row: int = name.start_point[0] if name is not None else node.start_point[0]
    return row + 1


_COMMENTS = frozenset(("comment", "line_comment", "block_comment"))


def _decided_span(node: Any, table: Table, name: str) -> tuple[int, int]:
    """The 0-based rows of a definition with what decides it: the attributes or
    decorators written just above it (comments between them allowed), the overload
    signatures of the same name just above it, and every conditional-compilation
    block around it (`#if 0 ... #endif`; a header guard is not one)."""
    start, end = node.start_point[0], node.end_point[0]
    current = node
    while table.prefix or table.overloads:
        before = current.prev_named_sibling
        while before is not None and before.type in _COMMENTS:
            before = before.prev_named_sibling
        if before is None:
            parent = current.parent
            if parent is None or parent.type not in table.transparent:
                break
            current = parent  # `export function f` : the overloads stand beside the export
            continue
        if before.type in table.prefix or _overload_of(before, table, name):
            start = min(start, before.start_point[0])
            current = before
            continue
        break
    parent = node.parent
    while parent is not None and parent.type in table.transparent:
        if parent.type in table.conditional and not _header_guard(parent):
            start = min(start, parent.start_point[0])
            end = max(end, parent.end_point[0])
        parent = parent.parent
    return start, end


def _overload_of(node: Any, table: Table, name: str) -> bool:
    """`node` (or the one declaration an `export` wraps) is a signature named `name`."""
    if node.type in table.transparent and node.named_child_count == 1:
        node = node.named_children[0]
    return node.type in table.overloads and _field_name(node) == name


def _header_guard(block: Any) -> bool:
    """`#ifndef NAME` followed by `#define NAME`: the file's include guard."""
    if block.type != "preproc_ifdef":
        return False
    name = _field_name(block)
    children = block.named_children
    first = children[1] if len(children) > 1 else None
    return first is not None and first.type == "preproc_def" and _field_name(first) == name
