"""What a claim's code is, and the breaks the drill makes in it.

A claim names its code in its marker (`<!-- claim: id code=SPEC[,SPEC...] -->`)
or by citations in its text. A SPEC is one of

    path/file.py::Class.method   a Python symbol (function, method or class)
    path/file.go::Type.Method    a symbol of another language the citation lock reads
                                 (Go, Rust, JS/TS, Java, C/C++): its lines, found by
                                 zodyssey.anchors.symbols.symbol_span
    path/file.ext:10 | :10-20    a line span (any file)
    path/file.ext | path/dir/    a whole file, or every Python file under a directory

Python breaks keep the module importable where they can: a function's body
becomes `raise NotImplementedError` or `return <the default of its return
annotation>`; a guard (an `if` whose block raises, or returns or calls
something named like block/deny/reject/refuse/fail/exit) gets its condition
negated, and separately its raise/return/call replaced by `pass` (the gate
switched off). A Python line span also loses its whole statements at once.
Go, Rust, JavaScript, TypeScript, Java, C and C++ (a symbol or a line span)
lose statements the language's tree-sitter grammar delimits (`drill_ts.py`);
other files lose the cited lines (blanked, so line numbers stay), and a whole
file is emptied. Every language also gets operator mutants on its syntax tree:
`drill_ops.py` (Python's `ast`), `drill_ts_ops.py` (the tree-sitter grammars).

Edits are splices of the original source bytes (by the ast's byte offsets),
never a re-print of the module, so everything outside the break stays as it is.
"""

from __future__ import annotations

import ast
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from zodyssey.core.files import NotRegularFile, read_regular

# Bumped when the set of breaks or their meaning changes: cached results made by
# another engine are re-drilled.
ENGINE = "drill-3"
# Part of the cache key of spans that are not Python: bumped when those breaks change.
ENGINE_OTHER = "tree-sitter-2"

_SYMBOL = re.compile(r"^(?P<path>[^:\s]+\.py)::(?P<symbol>[A-Za-z_][A-Za-z0-9_.]*)$")
_OTHER_SYMBOL = re.compile(
    r"^(?P<path>[^:\s]+\.[A-Za-z+]+)::(?P<symbol>~?[A-Za-z_$][A-Za-z0-9_$.:~]*)$"
)
_LINES = re.compile(r"^(?P<path>[^:\s]+):(?P<start>[0-9]+)(?:-(?P<end>[0-9]+))?$")
# Citations inside a claim's text: `path.py::Symbol`, and `path:N[-M]` forms.
TEXT_SYMBOL = re.compile(
    r"(?<![A-Za-z0-9_./\-])([A-Za-z0-9_][A-Za-z0-9_./\-]*\.py::[A-Za-z_][A-Za-z0-9_.]*)"
)
_GUARD_NAME = re.compile(r"block|deny|reject|refuse|fail|abort|exit", re.IGNORECASE)


class SpecError(ValueError):
    """A code spec that does not name existing code."""


@dataclass(frozen=True, slots=True)
class Span:
    """One resolved piece of a claim's code."""

    spec: str  # as written
    path: str  # repo-relative POSIX path of a file
    kind: str  # symbol | lines | file
    start: int = 0  # 1-based, inclusive (lines); 0 for a whole file
    end: int = 0
    symbol: str = ""

    def content(self, root: Path) -> bytes:
        """The bytes the span covers now (what the cache key holds)."""
        data = read_regular(root / self.path, "claim code")
        if self.kind == "file":
            return data
        lines = data.splitlines(keepends=True)
        return b"".join(lines[self.start - 1 : self.end])


@dataclass(frozen=True, slots=True)
class Break:
    """One edit of one file of the scratch copy."""

    span: str  # the spec it came from
    path: str
    line: int
    # body-raise | body-return | negate-guard | drop-guard | delete-span | delete-lines
    # | delete-statements | delete-statement (other languages) | an operator mutant's kind
    kind: str
    what: str  # human description
    source: bytes  # the whole broken file
    col: int = 0  # 1-based column of an operator mutant's node (0: a whole-line break)
    skip: str = ""  # why it is not run (`drill-skip=` in the claim's marker)

    @property
    def id(self) -> str:
        col = f":{self.col}" if self.col else ""
        return f"{self.path}:{self.line}{col} {self.kind}"

    def digest(self) -> str:
        return hashlib.sha256(self.source).hexdigest()


def parse_specs(value: str) -> list[str]:
    return [part for part in (p.strip() for p in value.split(",")) if part]


def resolve(root: Path, spec: str) -> list[Span]:
    """The spans of one spec (a directory gives one span per Python file under it)."""
    match = _SYMBOL.match(spec)
    if match:
        return [_python_symbol(root, spec, match["path"], match["symbol"])]
    match = _OTHER_SYMBOL.match(spec)
    if match:
        return [_other_symbol(root, spec, match["path"], match["symbol"])]
    match = _LINES.match(spec)
    if match and not (root / spec).exists():
        start = int(match["start"])
        return [_line_span(root, spec, match["path"], start, int(match["end"] or start))]
    return _path_spans(root, spec)


def _python_symbol(root: Path, spec: str, path: str, symbol: str) -> Span:
    tree, _ = _parse_py(root, path, spec)
    node = _find_symbol(tree, symbol)
    if node is None:
        raise SpecError(f"{spec}: no function or class {symbol} in {path}")
    return Span(spec, path, "symbol", _first_line(node), node.end_lineno or node.lineno, symbol)


def _line_span(root: Path, spec: str, path: str, start: int, end: int) -> Span:
    target = root / path
    if not target.is_file():
        raise SpecError(f"{spec}: {path} is not a file")
    count = len(target.read_bytes().splitlines())
    if not 1 <= start <= end <= count:
        raise SpecError(f"{spec}: lines {start}-{end} are outside {path} ({count} lines)")
    return Span(spec, path, "lines", start, end)


def _path_spans(root: Path, spec: str) -> list[Span]:
    """A directory (each Python file under it) or one file, as whole-file spans."""
    target = root / spec
    if target.is_dir():
        files = sorted(p for p in target.rglob("*.py") if "__pycache__" not in p.parts)
        if not files:
            raise SpecError(f"{spec}: no Python file under this directory")
        return [Span(spec, p.relative_to(root).as_posix(), "file") for p in files]
    if target.is_file():
        rel = target.relative_to(root).as_posix() if target.is_absolute() else spec
        return [Span(spec, rel, "file")]
    raise SpecError(f"{spec}: no such file, directory or symbol")


def _other_symbol(root: Path, spec: str, path: str, symbol: str) -> Span:
    """A non-Python symbol: the lines of its definition (broken as a line span)."""
    from zodyssey.anchors.symbols import language_of, symbol_span

    if language_of(path) is None:
        raise SpecError(f"{spec}: no symbol citations for files like {path}")
    span = symbol_span(root, path, symbol)
    if span is None:
        raise SpecError(f"{spec}: no single definition {symbol} in {path}")
    return Span(spec, path, "lines", span[0], span[1], symbol)


def _parse_py(root: Path, path: str, spec: str) -> tuple[ast.Module, bytes]:
    try:
        data = read_regular(root / path, "claim code")
    except NotRegularFile as exc:
        raise SpecError(f"{spec}: {exc}") from exc
    except OSError as exc:
        raise SpecError(f"{spec}: cannot read {path}: {exc.strerror or exc}") from exc
    try:
        return ast.parse(data, filename=path), data
    except (SyntaxError, ValueError) as exc:
        raise SpecError(f"{spec}: {path} is not valid Python: {exc}") from exc


_Def = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def _find_symbol(tree: ast.Module, dotted: str) -> _Def | None:
    body: list[ast.stmt] = tree.body
    node: _Def | None = None
    for part in dotted.split("."):
        found = [n for n in body if isinstance(n, _Def) and n.name == part]
        if not found:
            return None
        node = found[-1]  # the binding that wins at import time
        body = node.body
    return node


def _first_line(node: _Def) -> int:
    return min([node.lineno, *(d.lineno for d in node.decorator_list)])


# --- making breaks --------------------------------------------------------------------


class _Source:
    """The file's bytes and its line offsets, to splice by ast positions."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.starts = [0]
        for index, byte in enumerate(data):
            if byte == 0x0A:
                self.starts.append(index + 1)

    def offset(self, line: int, col: int) -> int:
        return self.starts[line - 1] + col

    def segment(self, node: ast.AST) -> tuple[int, int]:
        start = self.offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]
        end = self.offset(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]
        return start, end

    def splice(self, edits: list[tuple[int, int, bytes]]) -> bytes:
        out = self.data
        for start, end, new in sorted(edits, reverse=True):
            out = out[:start] + new + out[end:]
        return out


def _is_docstring(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


_DEFAULTS = {
    "bool": "False",
    "int": "0",
    "float": "0.0",
    "str": "''",
    "bytes": "b''",
    "list": "[]",
    "List": "[]",
    "Sequence": "()",
    "dict": "{}",
    "Dict": "{}",
    "Mapping": "{}",
    "set": "set()",
    "frozenset": "frozenset()",
    "tuple": "()",
    "Tuple": "()",
    "Iterator": "iter(())",
    "Iterable": "()",
}


def default_value(returns: ast.expr | None, classes: set[str]) -> str:
    """The "nothing happened" value of a return annotation, as source text."""
    node = returns
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            node = ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return "None"
    if node is None:
        return "None"
    if isinstance(node, ast.BinOp):  # X | None
        return "None"
    if isinstance(node, ast.Subscript):
        node = node.value
    name = (
        node.id
        if isinstance(node, ast.Name)
        else node.attr
        if isinstance(node, ast.Attribute)
        else ""
    )
    if name in ("Optional", "None", "Any", "object"):
        return "None"
    if name in _DEFAULTS:
        return _DEFAULTS[name]
    if name in classes:
        return f"{name}()"
    return "None"


def _walk_own(node: ast.AST) -> list[ast.AST]:
    """Nodes under a function, not entering nested functions, classes or lambdas."""
    found: list[ast.AST] = []
    stack = list(ast.iter_child_nodes(node))
    while stack:
        child = stack.pop()
        found.append(child)
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        stack.extend(ast.iter_child_nodes(child))
    found.sort(key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0)))
    return found


def _callee(expr: ast.expr | None) -> str:
    if isinstance(expr, ast.Call):
        expr = expr.func
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        return expr.attr
    return ""


def _guard_statements(node: ast.If) -> list[ast.stmt]:
    """The statements that make an `if` a guard: a raise, a return or call of a block-like
    name, or the return that ends its block (an early exit)."""
    out: list[ast.stmt] = []
    for stmt in node.body:
        if isinstance(stmt, ast.Raise) or (
            isinstance(stmt, ast.Return | ast.Expr) and _GUARD_NAME.search(_callee(stmt.value))
        ):
            out.append(stmt)
    last = node.body[-1]
    if isinstance(last, ast.Return) and last not in out:
        out.append(last)
    return out


def _is_generator(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(isinstance(n, ast.Yield | ast.YieldFrom) for n in _walk_own(node))


def _function_breaks(
    src: _Source, fn: ast.FunctionDef | ast.AsyncFunctionDef, classes: set[str], qual: str
) -> list[tuple[int, str, str, bytes]]:
    """(line, kind, description, new bytes) for one function."""
    out: list[tuple[int, str, str, bytes]] = []
    body = fn.body[1:] if len(fn.body) > 1 and _is_docstring(fn.body[0]) else fn.body
    if body and not (len(fn.body) == 1 and _is_docstring(fn.body[0])):
        start, _ = src.segment(body[0])
        _, end = src.segment(body[-1])
        generator = _is_generator(fn)
        tail = b"; yield" if generator and not isinstance(fn, ast.AsyncFunctionDef) else b""
        raise_text = b'raise NotImplementedError("zodyssey drill")' + (b"; yield" if tail else b"")
        out.append(
            (
                fn.lineno,
                "body-raise",
                f"{qual}: body replaced by raise NotImplementedError",
                src.splice([(start, end, raise_text)]),
            )
        )
        value = "None" if generator else default_value(fn.returns, classes)
        ret = f"return {value}".encode() if value != "None" else b"return None"
        if generator and isinstance(fn, ast.AsyncFunctionDef):
            ret = b"return"  # an async generator cannot return a value
            tail = b"; yield"
        out.append(
            (
                fn.lineno,
                "body-return",
                f"{qual}: body replaced by `{ret.decode()}`",
                src.splice([(start, end, ret + tail)]),
            )
        )
    for node in _walk_own(fn):
        if isinstance(node, ast.If):
            out.extend(_guard_breaks(src, node, qual))
    return out


def _guard_breaks(src: _Source, node: ast.If, qual: str) -> list[tuple[int, str, str, bytes]]:
    stmts = _guard_statements(node)
    if not stmts:
        return []
    out: list[tuple[int, str, str, bytes]] = []
    start, end = src.segment(node.test)
    test = src.data[start:end]
    out.append(
        (
            node.lineno,
            "negate-guard",
            f"{qual}: guard condition negated",
            src.splice([(start, end, b"not (" + test + b")")]),
        )
    )
    edits = [(*src.segment(s), b"pass") for s in stmts]
    what = ", ".join(sorted({type(s).__name__.lower() for s in stmts}))
    out.append(
        (node.lineno, "drop-guard", f"{qual}: the guard's {what} removed", src.splice(edits))
    )
    return out


def _defs(
    body: list[ast.stmt], prefix: str = ""
) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Every function and method of a body (classes entered), with qualified names."""
    out: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]] = []
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            out.append((prefix + node.name, node))
        elif isinstance(node, ast.ClassDef):
            out.extend(_defs(node.body, f"{prefix}{node.name}."))
    return out


def _covered_statements(body: list[ast.stmt], start: int, end: int) -> list[list[ast.stmt]]:
    """Runs of consecutive statements lying wholly inside lines start..end (outermost)."""
    runs: list[list[ast.stmt]] = []
    current: list[ast.stmt] = []
    for stmt in body:
        first = min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", []))])
        last = stmt.end_lineno or stmt.lineno
        if start <= first and last <= end:
            current.append(stmt)
            continue
        if current:
            runs.append(current)
            current = []
        if first <= end and last >= start:
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    runs.extend(_covered_statements(inner, start, end))
            for handler in getattr(stmt, "handlers", []):
                runs.extend(_covered_statements(handler.body, start, end))
    if current:
        runs.append(current)
    return runs


_Made = tuple[int, str, str, bytes]  # (line, kind, what, broken source)


def breaks_for(root: Path, span: Span) -> list[Break]:
    """Every break of one span, in a stable order."""
    return breaks_of(root, span)[0]


def breaks_of(root: Path, span: Span) -> tuple[list[Break], int]:
    """(every break of one span in a stable order, the operator mutants left out as
    equivalent: the same syntax tree as the original)."""
    data = (root / span.path).read_bytes()
    if not span.path.endswith(".py"):
        return _other_breaks(span, data)
    tree, _ = _parse_py(root, span.path, span.spec)
    src = _Source(data)
    classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    made: list[_Made] = []
    if span.kind == "symbol":
        made = _symbol_breaks(tree, src, classes, span)
    elif span.kind == "file":
        for qual, fn in _defs(tree.body):
            made.extend(_function_breaks(src, fn, classes, qual))
    else:
        made = _span_breaks(tree, src, classes, span, data)
    breaks = _runnable(made, data, span)
    extra, equivalent = _operator_breaks(tree, data, span, {b.source for b in breaks})
    return breaks + extra, equivalent


def _mutated_statements(tree: ast.Module, span: Span) -> list[ast.stmt]:
    """The statements whose nodes the operator mutants change."""
    if span.kind == "lines":
        return tree.body
    if span.kind == "file":
        return [fn for _, fn in _defs(tree.body)]
    node = _find_symbol(tree, span.symbol)
    assert node is not None  # resolve() checked it
    if isinstance(node, ast.ClassDef):
        return [fn for _, fn in _defs(node.body)]
    return [node]


def _one_line(text: bytes, limit: int = 60) -> str:
    words = " ".join(text.decode("utf-8", "replace").split())
    return words if len(words) <= limit else words[: limit - 3] + "..."


def _operator_breaks(
    tree: ast.Module, data: bytes, span: Span, seen: set[bytes]
) -> tuple[list[Break], int]:
    """The operator mutants of the span (drill_ops.py) as breaks, and how many were
    equivalent (never run)."""
    from zodyssey.claims.drill_ops import mutants, normal_form

    original = normal_form(data)
    lines = (span.start, span.end) if span.kind == "lines" else (0, 0)
    out: list[Break] = []
    equivalent = 0
    for m in mutants(data, _mutated_statements(tree, span), *lines):
        source = data[: m.start] + m.new + data[m.end :]
        if source in seen:
            continue
        seen.add(source)
        form = normal_form(source)
        if form is None:
            continue  # does not parse: never run a non-break
        if form == original:
            equivalent += 1
            continue
        what = f"{span.spec}: `{_one_line(data[m.start : m.end])}` -> `{_one_line(m.new)}`"
        out.append(Break(span.spec, span.path, m.line, m.kind, what, source, m.col))
    return out, equivalent


def _other_breaks(span: Span, data: bytes) -> tuple[list[Break], int]:
    """Statements deleted by the file's tree-sitter grammar (lines blanked when the
    language has none, or the span is a whole file, which is emptied), then the
    operator mutants of the span (drill_ts_ops.py); and how many of those were
    equivalent (never run)."""
    from zodyssey.anchors.symbols import language_of
    from zodyssey.anchors.symbols.languages import GrammarMissing, parser_for
    from zodyssey.claims.drill_ts import breaks

    language = language_of(span.path)
    made = (
        breaks(data, language, span.start, span.end, span.spec)
        if language and span.kind != "file"
        else None
    )
    out: list[Break] = []
    seen: set[bytes] = {data}
    for line, kind, what, source in made or []:
        if source not in seen:
            seen.add(source)
            out.append(Break(span.spec, span.path, line, kind, what, source))
    if not out:
        out.append(_line_break(span, data))
        seen.add(out[0].source)
    if language is None:
        return out, 0
    try:
        parser = parser_for(language)
    except GrammarMissing:
        return out, 0
    extra, equivalent = _ts_operator_breaks(parser, language, span, data, seen)
    return out + extra, equivalent


def _ts_operator_breaks(
    parser: object, language: str, span: Span, data: bytes, seen: set[bytes]
) -> tuple[list[Break], int]:
    from zodyssey.claims.drill_ts_ops import mutants, normal_form

    tree = parser.parse(data)  # type: ignore[attr-defined]
    original = normal_form(tree.root_node, data)
    start, end = (span.start, span.end) if span.kind != "file" else (1, data.count(b"\n") + 1)
    out: list[Break] = []
    equivalent = 0
    for m in mutants(data, language, tree.root_node, start, end):
        source = data[: m.start] + m.new + data[m.end :]
        if source in seen:
            continue
        seen.add(source)
        root = parser.parse(source).root_node  # type: ignore[attr-defined]
        if root.has_error:
            continue  # does not parse: never run a non-break
        if normal_form(root, source) == original:
            equivalent += 1
            continue
        before, after = m.described(data)
        what = f"{span.spec}: `{_one_line(before)}` -> `{_one_line(after)}`"
        out.append(Break(span.spec, span.path, m.line, m.kind, what, source, m.col))
    return out, equivalent


def _symbol_breaks(tree: ast.Module, src: _Source, classes: set[str], span: Span) -> list[_Made]:
    node = _find_symbol(tree, span.symbol)
    assert node is not None  # resolve() checked it
    if not isinstance(node, ast.ClassDef):
        return list(_function_breaks(src, node, classes, span.symbol))
    made: list[_Made] = []
    for qual, fn in _defs(node.body, f"{node.name}."):
        made.extend(_function_breaks(src, fn, classes, qual))
    return made


def _span_breaks(
    tree: ast.Module, src: _Source, classes: set[str], span: Span, data: bytes
) -> list[_Made]:
    """A line span: its statements deleted, then the functions and guards inside it."""
    runs = _covered_statements(tree.body, span.start, span.end)
    made: list[_Made] = []
    if runs:
        what = f"{span.spec}: its statements removed"
        made.append((span.start, "delete-span", what, _delete_runs(src, runs)))
    else:
        blanked = _line_break(span, data).source
        made.append((span.start, "delete-lines", f"{span.spec}: lines blanked", blanked))
    for qual, fn in _defs(tree.body):
        last = fn.end_lineno or fn.lineno
        if span.start <= _first_line(fn) and last <= span.end:
            made.extend(_function_breaks(src, fn, classes, qual))
        elif fn.lineno <= span.end and last >= span.start:
            for inner in _walk_own(fn):
                if isinstance(inner, ast.If) and span.start <= inner.lineno <= span.end:
                    made.extend(_guard_breaks(src, inner, qual))
    return made


def _delete_runs(src: _Source, runs: list[list[ast.stmt]]) -> bytes:
    """Each run of statements replaced by `pass` (a decorated definition from its
    first decorator on)."""
    edits = []
    for run in runs:
        start, end = src.segment(run[0])[0], src.segment(run[-1])[1]
        decorators = getattr(run[0], "decorator_list", [])
        if decorators:
            start = src.offset(decorators[0].lineno, decorators[0].col_offset - 1)
        edits.append((start, end, b"pass"))
    return src.splice(edits)


def _runnable(made: list[_Made], data: bytes, span: Span) -> list[Break]:
    """The breaks worth running: changed, distinct, and still Python."""
    breaks: list[Break] = []
    seen: set[bytes] = set()
    for line, kind, what, source in made:
        if source == data or source in seen:
            continue
        try:
            ast.parse(source)
        except SyntaxError:
            continue  # a splice this module does not survive; never run a non-break
        seen.add(source)
        breaks.append(Break(span.spec, span.path, line, kind, what, source))
    return breaks


def _line_break(span: Span, data: bytes) -> Break:
    lines = data.splitlines(keepends=True)
    if span.kind == "file":
        return Break(span.spec, span.path, 1, "delete-lines", f"{span.path}: emptied", b"")
    kept = [
        (b"\n" if line.endswith(b"\n") else b"") if span.start <= n <= span.end else line
        for n, line in enumerate(lines, start=1)
    ]
    return Break(
        span.spec,
        span.path,
        span.start,
        "delete-lines",
        f"{span.spec}: lines {span.start}-{span.end} blanked",
        b"".join(kept),
    )
