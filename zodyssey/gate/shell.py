"""Shell classifier: can this command line write, and if so, where?

The command is parsed with tree-sitter-bash and every simple command is
classified, wherever it sits: lists, pipelines, subshells, groups, control
flow, function bodies, `$( )`, backticks, `<( )`/`>( )` and heredoc bodies.
Wrappers (`env`, `nice`, `timeout`, ...) are unwrapped to the real command and
strings that are code (`bash -c`, `eval`, `xargs CMD`, `find -exec CMD`) are
parsed again.

Read-only is decided by an ALLOWLIST with per-command option rules; anything
the classifier does not know, or cannot read statically (a variable as a
command name, a glob as a write target, a parse error), is write-capable with
no target. Targets are reported as written (after unquoting), joined onto the
directory of a preceding `cd DIR &&` or `git -C DIR`; resolution against the
real file system happens in the gate, not here.
"""

from __future__ import annotations

from zodyssey.gate.toolcall import Target

TYPE_CHECKING = False  # mypy treats this as typing.TYPE_CHECKING; no runtime import
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from typing import Any

MAX_DEPTH = 8  # nested `bash -c` / `eval` levels before giving up (fail closed)
# Syntax nodes visited (function calls walk their body again) before giving up:
# a hook that runs into the harness's timeout lets the call through, so the
# classifier must answer, and answer "unknown", on anything built to be slow.
MAX_STEPS = 100_000


class _TooLarge(Exception):
    pass


# Part, Analysis and Arg are tuples with named fields written out by hand: a
# `typing.NamedTuple` would cost `typing` plus a class built through `exec` on
# every hook run. They compare, hash, unpack and `_replace` like NamedTuples.


class Part(
    tuple[str, bool, tuple[Target, ...], bool, str, bool, tuple[Target, ...], tuple[str, ...]]
):
    """One simple command or redirection and what it may write.

    `unbounded`: may write somewhere it does not name. `links`: may create links
    that other parts' paths could run through. `linked`: what a link made by
    this part points at (writing through the link writes these, so the gate
    checks them like targets; they are not listed as targets). `trusted`: for
    zodyssey's own commands, (kind, program path or "", *argv after the
    program) as judged by `zodyssey.gate.trusted`; the policy decides them."""

    __slots__ = ()

    def __new__(
        cls,
        text: str,
        write: bool,
        targets: tuple[Target, ...] = (),
        unbounded: bool = False,
        why: str = "",
        links: bool = False,
        linked: tuple[Target, ...] = (),
        trusted: tuple[str, ...] = (),
    ) -> Part:
        return tuple.__new__(
            cls,
            (
                text,
                write,
                targets,
                unbounded,
                why,
                links,
                linked,
                trusted,
            ),
        )

    @property
    def text(self) -> str:
        return self[0]

    @property
    def write(self) -> bool:
        return self[1]

    @property
    def targets(self) -> tuple[Target, ...]:
        return self[2]

    @property
    def unbounded(self) -> bool:
        return self[3]

    @property
    def why(self) -> str:
        return self[4]

    @property
    def links(self) -> bool:
        return self[5]

    @property
    def linked(self) -> tuple[Target, ...]:
        return self[6]

    @property
    def trusted(self) -> tuple[str, ...]:
        return self[7]

    def _replace(self, **changes: Any) -> Part:
        return Part(**{**dict(zip(_PART_FIELDS, self, strict=True)), **changes})

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in zip(_PART_FIELDS, self, strict=True))
        return f"Part({shown})"


_PART_FIELDS = ("text", "write", "targets", "unbounded", "why", "links", "linked", "trusted")


class Analysis(tuple[str, tuple[Part, ...]]):
    """A classified command line: every part, in order."""

    __slots__ = ()

    def __new__(
        cls,
        command: str,
        parts: tuple[Part, ...],
    ) -> Analysis:
        return tuple.__new__(
            cls,
            (
                command,
                parts,
            ),
        )

    @property
    def command(self) -> str:
        return self[0]

    @property
    def parts(self) -> tuple[Part, ...]:
        return self[1]

    def _replace(self, **changes: Any) -> Analysis:
        return Analysis(**{**dict(zip(_ANALYSIS_FIELDS, self, strict=True)), **changes})

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in zip(_ANALYSIS_FIELDS, self, strict=True))
        return f"Analysis({shown})"

    @property
    def is_write(self) -> bool:
        return any(p.write for p in self.parts)

    @property
    def unknown(self) -> bool:
        """True when some write-capable part cannot be bounded by named targets."""
        return any(p.write and p.unbounded for p in self.parts)

    @property
    def targets(self) -> tuple[Target, ...]:
        seen: dict[str, Target] = {}
        for part in self.parts:
            for target in part.targets:
                previous = seen.get(target.path)
                if previous is None or (previous.append and not target.append):
                    seen[target.path] = target
        return tuple(seen.values())

    @property
    def linked(self) -> tuple[Target, ...]:
        """Paths that links made by this command point at."""
        return tuple(t for part in self.parts for t in part.linked)

    def unbounded_parts(self) -> list[Part]:
        return [p for p in self.parts if p.write and p.unbounded]

    def as_record(self) -> dict[str, Any]:
        return {
            "command": self.command,
            "class": "write" if self.is_write else "read",
            "targets": [t.path for t in self.targets],
            "unknown": self.unknown,
        }


_ANALYSIS_FIELDS = ("command", "parts")


class Arg(tuple[str | None, bool, str]):
    """A word: static value after unquoting (None when it depends on expansion);
    `multi` for an unquoted glob or brace pattern that may name several paths."""

    __slots__ = ()

    def __new__(
        cls,
        value: str | None,
        multi: bool = False,
        text: str = "",
    ) -> Arg:
        return tuple.__new__(
            cls,
            (
                value,
                multi,
                text,
            ),
        )

    @property
    def value(self) -> str | None:
        return self[0]

    @property
    def multi(self) -> bool:
        return self[1]

    @property
    def text(self) -> str:
        return self[2]

    def _replace(self, **changes: Any) -> Arg:
        return Arg(**{**dict(zip(_ARG_FIELDS, self, strict=True)), **changes})

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in zip(_ARG_FIELDS, self, strict=True))
        return f"Arg({shown})"


_ARG_FIELDS = ("value", "multi", "text")


# ---------------------------------------------------------------- parser


_PARSER: Any = None


def _parser() -> Any:
    global _PARSER
    if _PARSER is None:
        import tree_sitter
        import tree_sitter_bash

        _PARSER = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))
    return _PARSER


def classify(command: str, read_only: Sequence[Sequence[str]] = ()) -> Analysis:
    try:
        return _classify(command, read_only)
    except RecursionError:
        return Analysis(command, (Part(command, True, (), True, "nested too deeply to classify"),))
    except _TooLarge:
        return Analysis(command, (Part(command, True, (), True, "too large to classify"),))


def _classify(command: str, read_only: Sequence[Sequence[str]] = ()) -> Analysis:
    """Classify one shell command line.

    `read_only` holds user-configured allowlist entries as word sequences
    (`("pytest",)`, `("npm", "test")`): a simple command whose words start with
    one of them is read-only.
    """
    walker = _Walker(tuple(tuple(entry) for entry in read_only))
    words = _plain_words(command)
    if words is not None:
        # Plain words only: the shell would split exactly here and expand
        # nothing, so the parser (and its import) is not needed.
        walker.simple(
            command, Arg(words[0], False, words[0]), [Arg(w, False, w) for w in words[1:]], ""
        )
    else:
        walker.run(command, "", 0)
    return Analysis(command, _through_links(walker.parts))


def classify_parsed(command: str, read_only: Sequence[Sequence[str]] = ()) -> Analysis:
    """`classify` always through the parser (tests compare it with the plain-word path)."""
    walker = _Walker(tuple(tuple(entry) for entry in read_only))
    try:
        walker.run(command, "", 0)
    except RecursionError:
        return Analysis(command, (Part(command, True, (), True, "nested too deeply to classify"),))
    except _TooLarge:
        return Analysis(command, (Part(command, True, (), True, "too large to classify"),))
    return Analysis(command, _through_links(walker.parts))


def _through_links(parts: list[Part]) -> tuple[Part, ...]:
    """A link made by one part can redirect the paths another part writes.

    The gate resolves symlinks when it decides, before any part has run, so a
    path that only becomes a link during this command (`ln -s /etc d && echo x
    > d/passwd`) would be judged by where it points now. Parts run in any order
    (`&`, pipelines), so every other writing part is unbounded.
    """
    linkers = [p for p in parts if p.links]
    if not linkers:
        return tuple(parts)
    return tuple(
        p._replace(unbounded=True, why=f"{p.why}; another part of this command makes links")
        if p.write and not p.links
        else p
        for p in parts
    )


# Characters with no meaning to the shell: a command made only of these is a
# single simple command whose words are split on spaces, with no expansion.
_PLAIN_CHARS = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:@%+,=- "
)
_RESERVED_WORDS = frozenset(
    [
        "if",
        "then",
        "else",
        "elif",
        "fi",
        "for",
        "while",
        "until",
        "do",
        "done",
        "case",
        "esac",
        "function",
        "select",
        "coproc",
        "time",
        "in",
        "!",
        "{",
        "}",
        "[[",
        "]]",
    ]
)


def _plain_words(command: str) -> list[str] | None:
    if not command or not set(command) <= _PLAIN_CHARS:
        return None
    words = command.split()
    if not words or "=" in words[0] or words[0] in _RESERVED_WORDS or "==" in words:
        return None  # (tree-sitter-bash rejects a trailing `==`; both paths must agree)
    return words


# ---------------------------------------------------------------- words

# Patterns stay strings: `re` compiles (and caches) them on first use, keeping import cheap.


def _has_brace_pattern(text: str) -> bool:
    """True when `text` holds `{a,b}` or `{1..3}` (innermost braces), in one pass
    (a backtracking regex is quadratic on a long run of commas)."""
    open_at = -1
    expands = False
    for i, ch in enumerate(text):
        if ch == "{":
            open_at, expands = i, False
        elif open_at >= 0:
            if ch == "," or (ch == "." and text[i - 1 : i] == "." and i - 1 > open_at):
                expands = True
            elif ch == "}":
                if expands:
                    return True
                open_at = -1
    return False


def _unescape_word(text: str) -> tuple[str, bool]:
    """Value of an unquoted word and whether it carries glob/brace patterns."""
    out: list[str] = []
    plain: list[str] = []  # unescaped characters only, for pattern detection
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            if text[i + 1] != "\n":
                out.append(text[i + 1])
                plain.append("_")
            i += 2
            continue
        out.append(ch)
        plain.append(ch)
        i += 1
    raw = "".join(plain)
    multi = "*" in raw or "?" in raw or "[" in raw
    return "".join(out), multi


def _string_value(node: Any, src: str) -> str | None:
    """Value of a double-quoted string, None when it contains expansions."""
    import re  # lazily: the hot path (plain words) needs no regex

    pieces: list[str] = []
    for child in node.children:
        kind = child.type
        if kind == '"':
            continue
        if kind == "string_content":
            text = src[child.start_byte : child.end_byte]
            if "\\" in text:
                text = re.sub(
                    r'\\([$`"\\\n])', lambda m: "" if m.group(1) == "\n" else m.group(1), text
                )
            pieces.append(text)
        else:
            return None
    return "".join(pieces)


def _arg(node: Any, src: str) -> Arg:
    text = src[node.start_byte : node.end_byte]
    kind = node.type
    if kind == "word":
        value, multi = _unescape_word(text)
        return Arg(value, multi, text)
    if kind == "number":
        return Arg(text, False, text)
    if kind == "raw_string":
        return Arg(text[1:-1], False, text)
    if kind == "string":
        return Arg(_string_value(node, src), False, text)
    if kind == "concatenation":
        values: list[str] = []
        multi = False
        unquoted: list[str] = []
        for child in node.children:
            part = _arg(child, src)
            if part.value is None:
                return Arg(None, False, text)
            values.append(part.value)
            multi = multi or part.multi
            unquoted.append(part.value if child.type == "word" else "_" * len(part.value))
        joined = "".join(unquoted)
        if "{" in joined and _has_brace_pattern(joined):
            multi = True
        return Arg("".join(values), multi, text)
    return Arg(None, False, text)


# ---------------------------------------------------------------- options


def _split_options(
    args: Sequence[Arg],
    short_values: str = "",
    long_values: Iterable[str] = (),
    stop_at_operand: bool = False,
) -> tuple[list[tuple[str, str | None]], list[Arg]]:
    """Split GNU-style arguments into (option, value) pairs and operands.

    `short_values` lists short flags that take a value (attached or next);
    `long_values` long options that take one (`--opt=v` or `--opt v`).
    A non-static argument counts as an operand.
    """
    long_set = set(long_values)
    options: list[tuple[str, str | None]] = []
    operands: list[Arg] = []
    i = 0
    only_operands = False
    while i < len(args):
        arg = args[i]
        value = arg.value
        i += 1
        if only_operands or value is None or value == "-" or not value.startswith("-"):
            operands.append(arg)
            if stop_at_operand:
                only_operands = True
            continue
        if value == "--":
            only_operands = True
            continue
        if value.startswith("--"):
            name, eq, attached = value.partition("=")
            if eq:
                options.append((name, attached))
            elif name in long_set and i < len(args):
                options.append((name, args[i].value if args[i].value is not None else "\0"))
                i += 1
            else:
                options.append((name, None))
            continue
        # short cluster: -abc, -ofile, -o file
        j = 1
        while j < len(value):
            flag = value[j]
            if flag in short_values:
                rest = value[j + 1 :]
                if rest:
                    options.append(("-" + flag, rest))
                elif i < len(args):
                    options.append(
                        ("-" + flag, args[i].value if args[i].value is not None else "\0")
                    )
                    i += 1
                else:
                    options.append(("-" + flag, None))
                break
            options.append(("-" + flag, None))
            j += 1
    return options, operands


def _has(options: Sequence[tuple[str, str | None]], *names: str) -> bool:
    return any(name in names for name, _ in options)


def _values(options: Sequence[tuple[str, str | None]], *names: str) -> list[str | None]:
    return [(None if v == "\0" else v) for n, v in options if n in names]


# ---------------------------------------------------------------- walker


_SYSTEM_BIN = (
    "/bin/",
    "/usr/bin/",
    "/usr/local/bin/",
    "/sbin/",
    "/usr/sbin/",
    "/usr/local/sbin/",
    "/opt/homebrew/bin/",
)
_DEV_SINKS = frozenset(
    {"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/fd/1", "/dev/fd/2"}
)
_AMBIGUOUS = "\0ambiguous"
_LEAVES = frozenset(
    {
        "word",
        "raw_string",
        "string_content",
        "heredoc_content",
        "heredoc_start",
        "heredoc_end",
        "number",
        "variable_name",
        "comment",
        "test_operator",
        "file_descriptor",
        "special_variable_name",
        "regex",
        "extglob_pattern",
        "ansi_c_string",
    }
)


def _join(cwd: str | None, path: str) -> str | None:
    if path.startswith("/") or path.startswith("~"):
        return path
    if cwd is None or cwd == _AMBIGUOUS:
        return None
    if cwd == "":
        return path
    return cwd.rstrip("/") + "/" + path


class _Walker:
    def __init__(self, read_only: tuple[tuple[str, ...], ...]) -> None:
        self.read_only = read_only
        self.parts: list[Part] = []
        # Functions defined unconditionally at the top level of the script being
        # walked: name -> (body node, directory at definition). A call walks the
        # body where it is called; a definition inside control flow, a subshell or
        # a `bash -c` string may not exist when the name is used, so it is not
        # recorded and the name keeps meaning the command.
        self.functions: dict[str, tuple[Any, str | None]] = {}
        self.uncalled: dict[int, tuple[Any, str | None]] = {}
        self.calling: set[str] = set()
        self.last_start: str | None = ""
        self.steps = 0
        self.safe_vars: set[str] = set()  # variables this command set to plain values
        self.physical = False  # `set -P`: `cd` resolves symlinks instead of `..` by name
        self.source = ""  # the command line being walked (node offsets index it)

    # -- recording
    def read(self, text: str) -> None:
        self.parts.append(Part(text, False))

    def unknown(self, text: str, why: str, targets: Sequence[Target] = ()) -> None:
        self.parts.append(Part(text, True, tuple(targets), True, why))

    def write(
        self, text: str, cwd: str | None, paths: Sequence[Arg], why: str, append: bool = False
    ) -> None:
        targets: list[Target] = []
        unbounded = False
        for arg in paths:
            if arg.value is None or arg.multi or arg.value == "":
                unbounded = True
                continue
            if arg.value in _DEV_SINKS:
                continue
            if arg.value.startswith("~") and not (arg.value == "~" or arg.value.startswith("~/")):
                unbounded = True  # ~user/...
                continue
            joined = _join(cwd, arg.value)
            if joined is None:
                unbounded = True
                continue
            targets.append(Target(joined, append))
        if not paths:
            unbounded = True
        if not targets and not unbounded:
            self.read(text)  # only sinks such as /dev/null
            return
        self.parts.append(Part(text, True, tuple(targets), unbounded, why))

    # -- entry points
    def run(self, source: str, cwd: str | None, depth: int) -> None:
        if depth > MAX_DEPTH:
            self.unknown(source, "nested too deeply")
            return
        if "\x00" in source:
            # No shell passes a NUL byte through; what runs is not what we read.
            self.unknown(source.replace("\x00", "\\0"), "the command holds a NUL byte")
            return
        # Bash's syntax is all ASCII; any other character is part of a word.
        # The parser sees an ASCII stand-in for each (its external scanner has
        # crashed on some non-BMP text), so byte offsets equal character
        # offsets and every node's text is read back from the real source.
        stand_in = source if source.isascii() else "".join(c if c < "\x80" else "a" for c in source)
        tree = _parser().parse(stand_in.encode("ascii"))
        root = tree.root_node
        if root.has_error:
            self.unknown(source, "the shell parser could not read it")
            return
        outer = self.source
        outer_functions, outer_uncalled = self.functions, self.uncalled
        self.source = source
        self.depth = depth
        self.functions, self.uncalled = {}, {}
        try:
            self.walk(root, cwd)
            # a function never called still shows what it could write
            for definition, defined_in in list(self.uncalled.values()):
                self.function_body(definition, defined_in)
        finally:
            self.source = outer
            self.functions, self.uncalled = outer_functions, outer_uncalled

    def text(self, node: Any) -> str:
        return self.source[node.start_byte : node.end_byte]

    def walk(self, node: Any, cwd: str | None) -> str | None:
        """Classify everything under `node`; returns the directory afterwards."""
        import re  # lazily: the hot path (plain words) needs no regex

        self.steps += 1
        if self.steps > MAX_STEPS:
            raise _TooLarge
        kind = node.type
        if kind == "command":
            return self.command(node, cwd)
        if self.evaluates_arithmetic(node, kind):
            self.arithmetic(node)
        if kind == "expansion":
            self.indirection(node)
        elif kind in ("declaration_command", "unset_command") or (
            kind == "test_command" and "-v" in self.text(node)
        ):
            for child in _descendants(node):
                if child.type in ("string", "raw_string", "word", "concatenation"):
                    value = _arg(child, self.source).value
                    if value is not None and re.search(_EVALUATED_SUBSCRIPT, value):
                        self.unknown(
                            self.text(node), "a subscript in a variable name runs what it holds"
                        )
                        break
        if kind in ("program", "compound_statement"):
            current = cwd
            for child in node.children:
                if not child.is_named:
                    continue
                after = self.walk(child, current)
                current = after if after == current else _AMBIGUOUS
            return current
        if kind == "list":
            return self.walk_list(node, cwd)
        if kind in ("subshell", "pipeline", "command_substitution", "process_substitution"):
            current = cwd
            for child in node.children:
                if child.is_named:
                    current = self.walk(child, current if kind != "pipeline" else cwd)
            return cwd
        if kind == "function_definition":
            name_node = node.child_by_field_name("name")
            body = node.child_by_field_name("body")
            name = self.text(name_node) if name_node is not None else None
            parent = node.parent
            if name and body is not None and parent is not None and parent.type == "program":
                self.functions[name] = (node, cwd)
                self.uncalled[node.id] = (node, cwd)
                return cwd
            if name:
                self.functions.pop(name, None)  # it may or may not be redefined
            self.function_body(node, cwd)
            return cwd
        if kind == "variable_assignment":
            self.assignment(node)
            for child in node.children:
                if child.is_named:
                    self.walk(child, cwd)
            return cwd
        if kind in ("for_statement", "c_style_for_statement", "select_statement"):
            variable = node.child_by_field_name("variable")
            if variable is not None and _risky_variable(self.text(variable), None):
                self.unknown(self.text(node)[:200], f"the loop sets {self.text(variable)}")
            if variable is not None:
                values = [_arg(c, self.source) for c in node.children_by_field_name("value")]
                plain = kind == "for_statement" and all(
                    v.value is not None and not v.multi and not any(c in v.value for c in "$`[")
                    for v in values
                )
                if plain and values:
                    self.safe_vars.add(self.text(variable))
                else:
                    self.safe_vars.discard(self.text(variable))
        if kind == "unset_command":
            for child in node.children:
                if child.type in ("word", "variable_name"):
                    self.functions.pop(self.text(child), None)
                elif child.is_named:
                    self.functions.clear()  # a dynamic name may unset any function
        if kind == "declaration_command":
            words = [self.text(c) for c in node.children if c.type == "word"]
            if any(w.startswith("-") and ("n" in w or "i" in w) for w in words):
                self.unknown(self.text(node), "declare -n/-i makes assignments refer or evaluate")
        if kind == "file_redirect":
            self.redirect(node, cwd)
            return cwd
        if kind == "heredoc_redirect":
            for child in node.children:
                if child.is_named:
                    self.walk(child, cwd)
            return cwd
        if kind == "redirected_statement":
            body = node.child_by_field_name("body")
            result = cwd
            # tree-sitter-bash hangs a trailing redirection on a whole `a && b`
            # list, but bash gives it to the last command only: it opens in the
            # directory that command starts in (`cd src && echo x > f` writes src/f).
            where = cwd
            for child in node.children:
                if child is not None and body is not None and child.id == body.id:
                    result = self.walk(child, cwd)
                    if child.type == "list":
                        where = self.last_start
                elif child.is_named:
                    self.walk(child, where)
            return result
        if kind in _LEAVES:
            return cwd
        if kind == "ERROR" or node.is_missing:
            self.unknown(self.text(node), "the shell parser could not read it")
            return cwd
        # Everything else (control flow, tests, assignments, expansions) only
        # matters for the commands and redirections inside it: walk them in
        # order. A `cd` inside control flow may or may not have run afterwards.
        current = cwd
        for child in node.children:
            if child.is_named:
                after = self.walk(child, current)
                current = after if after == current else _AMBIGUOUS
        return cwd if current == cwd else _AMBIGUOUS

    def walk_list(self, node: Any, cwd: str | None) -> str | None:
        current = cwd
        operator = None
        start = cwd
        for child in node.children:
            if not child.is_named:
                operator = child.type
                continue
            if operator == "||":
                start = cwd if current == cwd else _AMBIGUOUS
            elif operator == "&&" or operator is None:
                start = current
            else:
                start = current if current == cwd else _AMBIGUOUS
            current = self.walk(child, start)
        self.last_start = start  # where the list's last command started
        return current

    def assignment(self, node: Any) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        value_node = node.child_by_field_name("value")
        value = _arg(value_node, self.source).value if value_node is not None else ""
        name = self.text(name_node)
        if (
            value is not None
            and not any(c in value for c in "$`[")
            and name_node.type != "subscript"
        ):
            self.safe_vars.add(name)
        else:
            self.safe_vars.discard(name)
        if _risky_variable(name, value):
            self.unknown(self.text(node), f"setting {name} changes what later commands run")

    def redirect(self, node: Any, cwd: str | None) -> None:
        operator = ""
        destination: Any = None
        for child in node.children:
            if not child.is_named:
                operator = child.type
            elif child.type != "file_descriptor":
                destination = child
        text = self.text(node)
        if destination is not None:
            # substitutions inside the destination run too
            self.walk_words([destination], cwd)
        if operator in ("<", "<&", "<<<"):
            return
        if operator in (">&", "<&") or (operator.endswith("&") and operator not in ("&>", "&>>")):
            if destination is not None and destination.type == "number":
                return
            value = _arg(destination, self.source).value if destination is not None else None
            if value is not None and (value.isdigit() or value == "-"):
                return
        if operator in (">&-", "<&-"):
            return
        if destination is None:
            self.unknown(text, "redirection without a file")
            return
        append = operator in (">>", "&>>")
        self.write(
            text, cwd, [_arg(destination, self.source)], f"redirection {operator}", append=append
        )

    def walk_words(self, nodes: Iterable[Any], cwd: str | None) -> None:
        """Classify substitutions hidden inside words."""
        for node in nodes:
            stack = [node]
            while stack:
                current = stack.pop()
                if current.type in ("command_substitution", "process_substitution"):
                    self.walk(current, cwd)
                    continue
                if current.type in _ARITHMETIC:
                    self.arithmetic(current)
                elif current.type == "expansion":
                    self.indirection(current)
                stack.extend(c for c in current.children if c.is_named)

    def evaluates_arithmetic(self, node: Any, kind: str) -> bool:
        if kind in _ARITHMETIC:
            return True
        first = node.children[0].type if node.children else ""
        if kind == "compound_statement":
            return first == "(("
        if kind == "test_command" and first == "[[":
            return any(
                c.type == "test_operator" and self.text(c) in _ARITHMETIC_TESTS
                for c in _descendants(node)
            )
        return False

    def indirection(self, node: Any) -> None:
        """`${!v}` expands the variable named by v's value and `${v@P}` expands
        v's value like a prompt: both run a command substitution held there."""
        import re  # lazily: the hot path (plain words) needs no regex

        text = self.text(node)
        match = re.match(r"^\$\{(!?)([A-Za-z_][A-Za-z_0-9]*)", text)
        if match is None:
            return
        indirect = match.group(1) == "!" and not text.endswith(("*}", "@}", "@]}", "*]}"))
        if (indirect or text.endswith("@P}")) and match.group(2) not in self.safe_vars:
            self.unknown(text, f"expands the value of {match.group(2)} as a name or prompt")

    def arithmetic(self, node: Any) -> None:
        """Arithmetic evaluates a variable's value as an expression, and an
        array subscript in that value (`a[$(cmd)]`) runs the command: only
        variables this command set to plain values are safe to evaluate."""
        import re  # lazily: the hot path (plain words) needs no regex

        names: list[str] = []
        stack = [node]
        if node.type == "subscript":
            stack = node.children_by_field_name("index")  # not the array's own name
        elif node.type == "c_style_for_statement":
            initializers = [
                c
                for c in node.children_by_field_name("initializer")
                if c.type == "variable_assignment"
            ]
            for child in initializers:
                self.assignment(child)
            stack = [
                *node.children_by_field_name("condition"),
                *node.children_by_field_name("update"),
                *[c.child_by_field_name("value") for c in initializers],
            ]
            stack = [c for c in stack if c is not None]
        while stack:
            current = stack.pop()
            if current.type in ("variable_name", "word"):
                text = self.text(current)
                if re.match(r"^[A-Za-z_0-9]+$", text) and not text.isdigit():
                    names.append(text)
            elif current.type in ("command_substitution", "process_substitution"):
                continue  # walked as commands of their own
            stack.extend(c for c in current.children if c.is_named)
        unsafe = [n for n in names if n not in self.safe_vars and n not in _SHELL_NUMBERS]
        if unsafe:
            self.unknown(
                self.text(node)[:200],
                f"arithmetic on {unsafe[0]} runs any command substitution stored in its value",
            )

    # -- simple commands
    def command(self, node: Any, cwd: str | None) -> str | None:
        name_node = None
        args: list[Arg] = []
        word_nodes: list[Any] = []
        for child in node.children:
            if not child.is_named:
                continue
            if child.type == "command_name":
                name_node = child
                word_nodes.append(child)
            elif child.type == "variable_assignment" or child.type in (
                "file_redirect",
                "heredoc_redirect",
                "herestring_redirect",
            ):
                self.walk(child, cwd)
            else:
                args.append(_arg(child, self.source))
                word_nodes.append(child)
        self.walk_words(word_nodes, cwd)
        text = self.text(node)
        if name_node is None:
            return cwd
        name_arg = _arg(name_node.children[0], self.source) if name_node.children else Arg(None)
        return self.simple(text, name_arg, args, cwd)

    def simple(
        self, text: str, name_arg: Arg, args: list[Arg], cwd: str | None, functions: bool = True
    ) -> str | None:
        name = name_arg.value
        if name is None or name_arg.multi or name == "":
            self.unknown(text, "the command name is not static")
            return cwd
        if "/" in name:
            base = name.rsplit("/", 1)[1]
            if not any(name == prefix + base for prefix in _SYSTEM_BIN):
                program = _join(cwd, name)
                if program is not None and (
                    base == "zodyssey" or (base.startswith("python") and _runs_zodyssey(args))
                ):  # the policy checks that `program` is the installed zodyssey
                    rest = args if base == "zodyssey" else args[2:]
                    return _zodyssey(self, text, rest, cwd, program)
                self.unknown(text, f"runs the program {name}")
                return cwd
            name = base
        if name.startswith("python") and name[6:].replace(".", "").isdigit():
            name = "python3"
        function = self.functions.get(name_arg.value or "") if functions else None
        if function is not None and name == name_arg.value:
            return self.call(text, name, function[0], cwd)
        words = [name, *[a.value for a in args]]
        for entry in self.read_only:
            if len(words) >= len(entry) and all(w == e for w, e in zip(words, entry, strict=False)):
                self.read(text)
                return cwd
        if name in _NAME_BUILTINS and name == name_arg.value:
            import re  # lazily: the hot path (plain words) needs no regex

            values = [a.value or "" for a in args]
            if name == "printf":
                values = [v for k, v in enumerate(values) if k and values[k - 1] == "-v"]
            if any(re.search(_EVALUATED_SUBSCRIPT, v) for v in values) or (
                name in ("mapfile", "readarray") and any(v.startswith("-C") for v in values)
            ):
                self.unknown(text, f"{name} evaluates a subscript or callback it is given")
                return cwd
        handler = _HANDLERS.get(name)
        if handler is not None:
            abbreviated = _abbreviated_option(name, args)
            if abbreviated:
                self.unknown(text, f"{name} {abbreviated} abbreviates an option that matters")
                return cwd
            return handler(self, text, args, cwd)
        if name in _READ_ONLY:
            self.read(text)
            return cwd
        if name in _VERSION_QUERY and len(args) == 1 and args[0].value in _VERSION_QUERY[name]:
            self.read(text)
            return cwd
        self.unknown(text, f"{name} is not on the read-only allowlist")
        return cwd

    def function_body(self, definition: Any, cwd: str | None) -> str | None:
        """What running a function does: its redirections (`f(){ ...; } > out`
        applies on every call), then its body; returns the directory after."""
        for redirect in definition.children_by_field_name("redirect"):
            self.walk(redirect, cwd)
        body = definition.child_by_field_name("body")
        return self.walk(body, cwd) if body is not None else cwd

    def call(self, text: str, name: str, definition: Any, cwd: str | None) -> str | None:
        """A call of a shell function: its body runs here, in this directory."""
        if name in self.calling:
            self.unknown(text, f"the function {name} calls itself")
            return cwd
        self.uncalled.pop(definition.id, None)
        self.calling.add(name)
        try:
            self.read(text)
            return self.function_body(definition, cwd)
        finally:
            self.calling.discard(name)

    def nested(
        self, text: str, args: list[Arg], cwd: str | None, extra_unknown: bool = False
    ) -> str | None:
        """Run the command formed by `args` (after a wrapper); returns its directory.

        Only wrappers that are shell builtins (`command`, `builtin`, `time`)
        pass a `cd` on to the shell; the others run a separate program.
        """
        if not args:
            self.read(text)
            return cwd
        if extra_unknown:
            # xargs / find -exec: operands appended at run time are unknown
            args = [*args, Arg(None, False, "{}")]
        # a function is only found by the shell itself, never through a wrapper
        return self.simple(text, args[0], list(args[1:]), cwd, functions=False)

    def reparse(self, text: str, code: str | None, cwd: str | None) -> None:
        if code is None:
            self.unknown(text, "the code string is not static")
            return
        depth = getattr(self, "depth", 0)
        self.run(code, cwd, depth + 1)
        self.depth = depth


_ARITHMETIC = frozenset({"arithmetic_expansion", "subscript", "c_style_for_statement"})
_ARITHMETIC_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
# a subscript that expands something, inside a string a builtin takes as a name
_EVALUATED_SUBSCRIPT = r"\[[^\]]*[$`]"  # compiled on first use
# builtins that take variable names as arguments (and evaluate their subscripts)
_NAME_BUILTINS = frozenset(
    [
        "read",
        "mapfile",
        "readarray",
        "unset",
        "declare",
        "typeset",
        "local",
        "export",
        "readonly",
        "test",
        "[",
        "wait",
        "getopts",
        "printf",
    ]
)
# variables bash itself keeps numeric
_SHELL_NUMBERS = frozenset(
    ["RANDOM", "SRANDOM", "SECONDS", "LINENO", "BASHPID", "PPID", "UID", "EUID", "EPOCHSECONDS"]
)


def _descendants(node: Any) -> Iterable[Any]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(current.children)


# GNU getopt_long and git's parse-options accept any unambiguous prefix of a
# long option (`sort --out=f` is `--output=f`). For the options that change
# what a command writes or runs, a prefix that is not the full name is unknown
# (reading it as the full option could mis-parse the operands).
_OPTIONS_THAT_MATTER: dict[str, tuple[str, ...]] = {
    "cp": (
        "--target-directory",
        "--no-target-directory",
        "--symbolic-link",
        "--link",
        "--no-dereference",
        "--archive",
        "--recursive",
        "--preserve",
        "--suffix",
    ),
    "ln": ("--target-directory", "--no-target-directory", "--symbolic", "--suffix"),
    "mv": ("--target-directory", "--no-target-directory", "--suffix"),
    "install": ("--target-directory", "--no-target-directory", "--directory", "--suffix"),
    "sort": ("--output", "--compress-program"),
    "shuf": ("--output",),
    "sed": ("--in-place", "--expression", "--file"),
    "gsed": ("--in-place", "--expression", "--file"),
    "date": ("--set",),
    "file": ("--compile",),
    "wget": (
        "--output-document",
        "--output-file",
        "--append-output",
        "--directory-prefix",
        "--execute",
        "--background",
    ),
    "git": (
        "--output",
        "--ext-diff",
        "--upload-pack",
        "--receive-pack",
        "--exec",
        "--open-files-in-pager",
        "--lost-found",
        "--git-dir",
        "--exec-path",
    ),
    "tee": ("--append",),
    "time": ("--output",),
    "xargs": ("--replace", "--arg-file"),
}


def _abbreviated_option(name: str, args: Sequence[Arg]) -> str | None:
    options = _OPTIONS_THAT_MATTER.get(name)
    if not options:
        return None
    for arg in args:
        value = arg.value
        if value is None or not value.startswith("--") or len(value) < 3:
            continue
        given = value.split("=", 1)[0]
        if given not in options and any(o.startswith(given) for o in options):
            return given
    return None


# ---------------------------------------------------------------- allowlist

_READ_ONLY = frozenset(
    [
        "ls",
        "cat",
        "head",
        "tail",
        "wc",
        "grep",
        "egrep",
        "fgrep",
        "echo",
        "printf",
        "pwd",
        "which",
        "whereis",
        "type",
        "stat",
        "du",
        "df",
        "diff",
        "cmp",
        "cut",
        "tr",
        "nl",
        "tac",
        "rev",
        "seq",
        "expr",
        "id",
        "whoami",
        "uname",
        "basename",
        "dirname",
        "realpath",
        "readlink",
        "test",
        "[",
        "true",
        "false",
        ":",
        "jq",
        "yes",
        "sha256sum",
        "sha1sum",
        "sha512sum",
        "sha224sum",
        "sha384sum",
        "md5sum",
        "b2sum",
        "cksum",
        "sum",
        "fold",
        "fmt",
        "column",
        "paste",
        "join",
        "comm",
        "od",
        "hexdump",
        "strings",
        "base64",
        "base32",
        "nproc",
        "printenv",
        "groups",
        "logname",
        "tty",
        "sleep",
        "wait",
        "jobs",
        "exit",
        "return",
        "break",
        "continue",
        "shift",
        "read",
        "local",
        "umask",
        "ulimit",
        "export",
        "declare",
        "typeset",
        "readonly",
        "getconf",
        "arch",
        "locale",
        "look",
        "numfmt",
        "factor",
        "tsort",
        "ps",
        "free",
        "uptime",
        "who",
        "pgrep",
        "pidof",
        "lscpu",
        "lsblk",
        "tput",
        "clear",
        "zcat",
        "bzcat",
        "xzcat",
        "whatis",
    ]
)

# Tools whose `--version` style query only prints a version.
_VERSION_QUERY: dict[str, frozenset[str]] = {
    name: frozenset({"--version"})
    for name in [
        "npm",
        "npx",
        "yarn",
        "pnpm",
        "pip",
        "pip3",
        "uv",
        "poetry",
        "cargo",
        "rustc",
        "rustup",
        "go",
        "gcc",
        "g++",
        "clang",
        "make",
        "cmake",
        "java",
        "javac",
        "ruby",
        "perl",
        "php",
        "deno",
        "bun",
        "tsc",
        "docker",
        "kubectl",
        "terraform",
        "bash",
        "sh",
        "zsh",
        "dash",
        "git",
        "gh",
        "node",
        "python",
        "python3",
        "pytest",
        "ruff",
        "mypy",
        "black",
        "tox",
        "nox",
    ]
}
for _py in ("python", "python3", "python2"):
    _VERSION_QUERY[_py] = frozenset({"--version", "-V"})
_VERSION_QUERY["node"] = frozenset({"--version", "-v"})
_VERSION_QUERY["go"] = frozenset({"version"})

if TYPE_CHECKING:
    Handler = Callable[[_Walker, str, list[Arg], "str | None"], "str | None"]
_HANDLERS: dict[str, Handler] = {}


def _handles(*names: str) -> Callable[[Handler], Handler]:
    def register(func: Handler) -> Handler:
        for name in names:
            _HANDLERS[name] = func
        return func

    return register


# -- navigation


@_handles("cd", "pushd")
def _cd(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    w.read(text)
    options = [a.value for a in args if (a.value or "").startswith("-") and a.value != "-"]
    operands = [a for a in args if not (a.value or "").startswith("-") or a.value == "-"]
    if not operands:
        return "~"
    target = operands[0]
    if target.value is None or target.multi or target.value == "-":
        return None
    joined = _join(cwd, target.value)
    physical = w.physical or any(o and o != "--" and "P" in o for o in options)
    if joined is None or physical or joined.startswith("~") or ".." not in joined.split("/"):
        return joined
    # Bash's `cd` is logical: `dir/..` is removed by name, not by following a
    # symlink `dir` to its real parent, so the gate must see the same path.
    import posixpath

    normal = posixpath.normpath(joined)
    return "" if normal == "." else normal


@_handles("popd")
def _popd(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    w.read(text)
    return None


# -- shell state


# Variables that decide which program runs, what code a shell or tool loads,
# or where `cd` and `~` lead: setting one turns later "read-only" commands
# into anything.
_RISKY_VARIABLES = frozenset(
    [
        "PATH",
        "CDPATH",
        "HOME",
        "PWD",
        "OLDPWD",
        "ENV",
        "BASH_ENV",
        "SHELLOPTS",
        "BASHOPTS",
        "PS0",
        "PS1",
        "PS2",
        "PS3",
        "PS4",
        "PROMPT_COMMAND",
        "IFS",
        "EXECIGNORE",
        "SHELL",
        "EDITOR",
        "VISUAL",
        "BROWSER",
        "LESSOPEN",
        "LESSCLOSE",
        "LESSKEY",
        "NODE_OPTIONS",
        "PERL5OPT",
        "PERL5LIB",
        "PERLLIB",
        "RUBYOPT",
        "RUBYLIB",
        "PYTHONPATH",
        "PYTHONSTARTUP",
        "PYTHONHOME",
        "RIPGREP_CONFIG_PATH",
        "TAR_OPTIONS",
        "SSH_ASKPASS",
        "SUDO_ASKPASS",
        "AWKPATH",
    ]
)
_RISKY_PREFIXES = ("LD_", "DYLD_", "GIT_", "BASH_FUNC_")
_PAGER_VALUES = frozenset(["", "cat", "less", "more", "less -R", "less -FRX", "less -FRSX"])


def _risky_variable(name: str, value: str | None) -> bool:
    """True when assigning `value` (None: any value) to `name` can change what runs."""
    if name.endswith("PAGER"):
        return value is None or value not in _PAGER_VALUES
    return name in _RISKY_VARIABLES or name.startswith(_RISKY_PREFIXES)


@_handles("export", "declare", "typeset", "local", "readonly")
def _declare(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    for arg in args:
        value = arg.value
        if value is None:
            continue  # a substitution in it was walked; a dynamic name is caught below
        if value.startswith("-") and ("n" in value or "i" in value):
            w.unknown(text, "declare -n/-i makes assignments refer or evaluate")
            return cwd
        name, eq, assigned = value.partition("=")
        if eq and _risky_variable(name, assigned):
            w.unknown(text, f"setting {name} changes what later commands run")
            return cwd
    if any(a.value is None and "=" not in a.text for a in args):
        w.unknown(text, "a variable name that is not static")
        return cwd
    w.read(text)
    return cwd


@_handles("read", "mapfile", "readarray", "getopts")
def _sets_variables(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    """These store input in variables: named one of the risky ones, they change what runs."""
    for arg in args:
        value = arg.value
        if value is not None and _risky_variable(value.split("[", 1)[0], None):
            w.unknown(text, f"stores into {value}, which changes what later commands run")
            return cwd
        if value is not None:
            w.safe_vars.discard(value)  # now holds input, not a plain value
    w.read(text)
    return cwd


@_handles("let")
def _let(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    import re  # lazily: the hot path (plain words) needs no regex

    for arg in args:
        value = arg.value
        # the name an argument assigns is not evaluated; everything else is
        names = re.findall(r"[A-Za-z_][A-Za-z_0-9]*", re.sub(r"^\w+=", "", value or ""))
        if (
            value is None
            or "`" in value
            or "$" in value
            or any(n not in w.safe_vars for n in names)
        ):
            w.unknown(text, "let evaluates variables whose values may hold commands")
            return cwd
    w.read(text)
    return cwd


@_handles("printf")
def _printf(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    for k, arg in enumerate(args[:-1]):
        if arg.value == "-v":
            name = args[k + 1].value
            if name is None or _risky_variable(name.split("[", 1)[0], None):
                w.unknown(text, f"printf -v stores into {name or 'a dynamic name'}")
                return cwd
            w.safe_vars.discard(name)
    w.read(text)
    return cwd


@_handles("set")
def _set(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    # Shell options change no files; `-P` makes later `cd` follow symlinks.
    values = [a.value or "" for a in args]
    if any(v.startswith(("-", "+")) and not v.startswith("--") and "P" in v for v in values) or (
        "physical" in values
    ):
        w.physical = True
    w.read(text)
    return cwd


@_handles("unset")
def _unset(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    for arg in args:
        if arg.value is not None:
            w.functions.pop(arg.value, None)  # the name means the command again
    w.read(text)
    return cwd


@_handles("trap")
def _trap(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    operands = [a for a in args if a.value not in ("--",)]
    if not operands or operands[0].value in ("-l", "-p"):
        w.read(text)
        return cwd
    code = operands[0].value
    if len(operands) == 1 or code in ("-", ""):
        w.read(text)  # resets or ignores signals
        return cwd
    w.reparse(text, code, None)  # runs later, wherever the shell then is
    return cwd


@_handles("alias")
def _alias(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    if all(a.value is not None and "=" not in a.value for a in args):
        w.read(text)  # lists aliases
    else:
        w.unknown(text, "an alias changes what a later command name runs")
    return cwd


@_handles("history")
def _history(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    if all(a.value is not None and a.value.isdigit() for a in args):
        w.read(text)
    else:
        w.unknown(text, "history with options changes or writes the history")
    return cwd


@_handles("shopt")
def _shopt(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    if any(a.value is None or a.value.startswith(("-s", "-u", "-o")) for a in args):
        w.unknown(text, "shell options can change how later words expand")
    else:
        w.read(text)
    return cwd


@_handles("crontab")
def _crontab(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    if [a.value for a in args] == ["-l"]:
        w.read(text)
    else:
        w.unknown(text, "crontab installs commands to run later")
    return cwd


# -- wrappers


def _after_options(
    args: list[Arg], with_value: str, long_values: Iterable[str] = ()
) -> list[Arg] | None:
    _options, operands = _split_options(args, with_value, long_values, stop_at_operand=True)
    return operands


@_handles("env")
def _env(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    i = 0
    while i < len(args):
        value = args[i].value
        if value is None:
            w.unknown(text, "env with a non-static argument")
            return cwd
        if value in ("-i", "--ignore-environment", "-0", "--null", "-v", "--debug", "-"):
            i += 1
        elif value in ("-u", "--unset"):
            i += 2
        elif value.startswith("--unset=") or (value.startswith("-u") and len(value) > 2):
            i += 1
        elif value in ("-C", "--chdir") or value.startswith("--chdir="):
            new: str | None
            if value.startswith("--chdir="):
                new = value.split("=", 1)[1]
                i += 1
            else:
                new = args[i + 1].value if i + 1 < len(args) else None
                i += 2
            cwd = _join(cwd, new) if new is not None else None
        elif value == "--":
            i += 1
            break
        elif value.startswith("-"):
            w.unknown(text, f"env option {value}")
            return cwd
        elif "=" in value and not value.startswith("="):
            name, _, assigned = value.partition("=")
            if _risky_variable(name, assigned):
                w.unknown(text, f"setting {name} changes what the command runs")
                return cwd
            i += 1
        else:
            break
    rest = args[i:]
    if not rest:
        w.read(text)
        return cwd
    w.nested(text, rest, cwd)
    return cwd


def _wrapper(
    with_value: str, long_values: Iterable[str] = (), skip_operands: int = 0, builtin: bool = False
) -> Handler:
    long_set = tuple(long_values)

    def handler(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
        operands = _after_options(args, with_value, long_set) or []
        for arg in operands[:skip_operands]:
            if arg.value is None:
                w.unknown(text, "wrapper argument is not static")
                return cwd
        rest = operands[skip_operands:]
        if not rest:
            w.read(text)
            return cwd
        after = w.nested(text, rest, cwd)
        return after if builtin else cwd

    return handler


_HANDLERS["nice"] = _wrapper("n", ("--adjustment",))
_HANDLERS["nohup"] = _wrapper("")
_HANDLERS["timeout"] = _wrapper("sk", ("--signal", "--kill-after"), skip_operands=1)
_HANDLERS["stdbuf"] = _wrapper("ioe", ("--input", "--output", "--error"))
_HANDLERS["builtin"] = _wrapper("", builtin=True)
_HANDLERS["exec"] = _wrapper("a", ())


@_handles("time")
def _time(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    options, operands = _split_options(args, "fo", ("--format", "--output"), stop_at_operand=True)
    output = _values(options, "-o", "--output")
    if output:
        w.write(text, cwd, [Arg(v) for v in output], "time -o writes its report")
    if not operands:
        w.read(text)
        return cwd
    return w.nested(text, operands, cwd)  # the `time` keyword times a builtin in this shell


@_handles("command")
def _command(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    options, operands = _split_options(args, "", (), stop_at_operand=True)
    if _has(options, "-v", "-V"):
        w.read(text)
        return cwd
    return w.nested(text, operands, cwd)  # `command cd DIR` still changes directory


@_handles("sudo", "doas", "su", "runuser", "pkexec")
def _sudo(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    w.unknown(text, "runs with other privileges")
    return cwd


@_handles("xargs")
def _xargs(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    options, operands = _split_options(
        args,
        "IndLsEPae",
        (
            "--replace",
            "--max-args",
            "--delimiter",
            "--max-lines",
            "--max-chars",
            "--eof",
            "--max-procs",
            "--arg-file",
            "--process-slot-var",
        ),
        stop_at_operand=True,
    )
    replace = [v for v in _values(options, "-I", "--replace") if v]
    if _has(options, "-i"):
        replace.append("{}")
    # the replacement string stands for input read at run time
    operands = [
        Arg(None, False, a.text)
        if a.value is not None and any(r in a.value for r in replace)
        else a
        for a in operands
    ]
    if not operands:
        w.read(text)  # default command is echo
        return cwd
    w.nested(text, operands, cwd, extra_unknown=True)
    return cwd


# -- code strings


@_handles("bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "busybox")
def _shell(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    i = 0
    while i < len(args):
        value = args[i].value
        if value is None:
            break
        if value == "-c" or (
            value.startswith("-") and not value.startswith("--") and "c" in value[1:]
        ):
            code = args[i + 1].value if i + 1 < len(args) else None
            w.reparse(text, code, cwd)
            return cwd
        if value in ("--version",) and len(args) == 1:
            w.read(text)
            return cwd
        if value.startswith("-") and value not in ("-", "--"):
            if value in ("-o", "+o", "-O", "+O"):
                i += 2
                continue
            i += 1
            continue
        break
    w.unknown(text, "runs a shell script or reads code from stdin")
    return cwd


@_handles("eval")
def _eval(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    if any(a.value is None for a in args):
        w.unknown(text, "eval of a non-static string")
        return cwd
    w.reparse(text, " ".join(a.value or "" for a in args), cwd)
    return cwd


@_handles("source", ".")
def _source(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    w.unknown(text, "runs another script in this shell")
    return cwd


# -- find


_FIND_EXEC = ("-exec", "-execdir", "-ok", "-okdir")
_FIND_FILE_ACTIONS = ("-fprint", "-fprint0", "-fprintf", "-fls")


@_handles("find")
def _find(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    i = 0
    wrote = False
    while i < len(args):
        value = args[i].value
        i += 1
        if value in _FIND_EXEC:
            inner: list[Arg] = []
            while i < len(args) and args[i].value not in (";", "+"):
                inner.append(args[i])
                i += 1
            i += 1
            inner = [a for a in inner if a.value != "{}"]
            if not inner:
                w.unknown(text, "find -exec without a command")
            else:
                w.nested(text, inner, cwd, extra_unknown=True)
            wrote = True
        elif value == "-delete":
            w.unknown(text, "find -delete removes whatever matches")
            wrote = True
        elif value in _FIND_FILE_ACTIONS:
            target = args[i] if i < len(args) else Arg(None)
            i += 2 if value == "-fprintf" else 1
            w.write(text, cwd, [target], f"find {value} writes a file")
            wrote = True
    if not wrote:
        w.read(text)
    return cwd


# -- git


_GIT_READ = frozenset(
    [
        "status",
        "diff",
        "log",
        "show",
        "blame",
        "ls-files",
        "ls-tree",
        "rev-parse",
        "cat-file",
        "describe",
        "shortlog",
        "grep",
        "show-ref",
        "rev-list",
        "merge-base",
        "for-each-ref",
        "name-rev",
        "whatchanged",
        "count-objects",
        "check-ignore",
        "check-attr",
        "version",
        "help",
        "var",
        "cherry",
        "range-diff",
        "diff-tree",
        "diff-files",
        "diff-index",
        "ls-remote",
        "verify-commit",
        "verify-tag",
        "fsck",
        "annotate",
        "show-branch",
    ]
)


@_handles("git")
def _git(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    i = 0
    here = cwd
    while i < len(args):
        value = args[i].value
        if value is None:
            w.unknown(text, "git with a non-static argument")
            return cwd
        if value == "-C":
            new = args[i + 1].value if i + 1 < len(args) else None
            here = _join(here, new) if new is not None else None
            i += 2
        elif value in (
            "--no-pager",
            "-P",
            "--paginate",
            "-p",
            "--no-replace-objects",
            "--literal-pathspecs",
            "--glob-pathspecs",
            "--noglob-pathspecs",
            "--icase-pathspecs",
            "--no-optional-locks",
            "--bare",
        ) or value.startswith(("--work-tree=", "--namespace=")):
            i += 1
        elif value in ("--work-tree", "--namespace"):
            i += 2
        elif value in ("--version", "--help"):
            w.read(text)
            return cwd
        elif value.startswith("-"):
            w.unknown(text, f"git option {value} can change what git runs")
            return cwd
        else:
            break
    if i >= len(args):
        w.read(text)
        return cwd
    sub = args[i].value or ""
    rest = args[i + 1 :]
    values = [a.value for a in rest]
    if any(
        v is not None
        and (
            v == "--ext-diff"
            or v == "--output"
            or v.startswith("--output=")
            or v in ("-O", "--open-files-in-pager")
            or v.startswith("--open-files-in-pager")
        )
        for v in values
    ):
        outputs = []
        for k, v in enumerate(values):
            if v is not None and v.startswith("--output="):
                outputs.append(Arg(v.split("=", 1)[1]))
            elif v == "--output":
                outputs.append(rest[k + 1] if k + 1 < len(rest) else Arg(None))
        if outputs and not any(
            v in ("--ext-diff",) or (v or "").startswith(("-O", "--open-files")) for v in values
        ):
            w.write(text, here, outputs, f"git {sub} --output writes a file")
        else:
            w.unknown(text, f"git {sub} runs an external program")
        return cwd
    if any(
        v is not None
        and (v.startswith(("--upload-pack", "--receive-pack", "--exec=")) or v == "--lost-found")
        for v in values
    ) or (sub == "ls-remote" and any(v == "-u" or (v or "").startswith("-u") for v in values)):
        w.unknown(text, f"git {sub} is told to run a program or write objects")
        return cwd
    if sub in _GIT_READ:
        w.read(text)
        return cwd
    if sub == "branch":
        listing = {
            "-a",
            "--all",
            "-r",
            "--remotes",
            "-l",
            "--list",
            "-v",
            "-vv",
            "--verbose",
            "--show-current",
            "--no-color",
            "--color",
            "--column",
            "--no-column",
        }
        takes = {
            "--contains",
            "--no-contains",
            "--merged",
            "--no-merged",
            "--points-at",
            "--sort",
            "--format",
        }
        positional = False
        list_mode = False
        k = 0
        while k < len(values):
            v = values[k]
            if v is None:
                positional = True
            elif v in ("-l", "--list"):
                list_mode = True
            elif v in takes:
                k += 1
            elif v.startswith(tuple(t + "=" for t in takes)) or v in listing:
                pass
            elif v.startswith("-"):
                w.unknown(text, f"git branch {v} changes branches")
                return cwd
            else:
                positional = True
            k += 1
        if positional and not list_mode:
            w.unknown(text, "git branch NAME creates a branch")
        else:
            w.read(text)
        return cwd
    if sub == "remote":
        if (
            not values
            or values in (["-v"], ["--verbose"])
            or (values and values[0] in ("show", "get-url"))
        ):
            w.read(text)
        else:
            w.unknown(text, "git remote changes remotes")
        return cwd
    if sub == "config":
        if (
            values
            and all(v is not None for v in values)
            and values[0] in ("--get", "--get-all", "--get-regexp", "--list", "-l", "get", "list")
        ):
            w.read(text)
        else:
            w.unknown(text, "git config may change configuration")
        return cwd
    if sub in ("stash", "worktree", "tag", "reflog", "notes", "submodule"):
        if (sub == "tag" and (not values or values[0] in ("-l", "--list"))) or (
            sub in ("stash", "worktree", "reflog", "notes", "submodule")
            and (
                (sub == "reflog" and (not values or values[0] == "show"))
                or (values and values[0] in ("list", "show") and sub != "reflog")
                or (sub == "submodule" and values and values[0] == "status")
            )
        ):
            w.read(text)
        else:
            w.unknown(text, f"git {sub} changes the repository")
        return cwd
    if sub in ("checkout", "restore"):
        options, operands = _split_options(
            rest,
            "sbB" if sub == "checkout" else "s",
            ("--source", "--conflict", "--pathspec-from-file"),
        )
        if "--" in [a.value for a in rest]:
            after = rest[[a.value for a in rest].index("--") + 1 :]
            if after and sub == "checkout" and not _has(options, "-b", "-B", "--orphan"):
                w.write(text, here, after, f"git {sub} overwrites files")
                return cwd
        if sub == "restore" and operands and not _has(options, "--pathspec-from-file"):
            w.write(text, here, operands, "git restore overwrites files")
            return cwd
        w.unknown(text, f"git {sub} changes the work tree")
        return cwd
    if sub in ("rm", "add", "mv"):
        options, operands = _split_options(rest, "", ("--pathspec-from-file", "--chmod"))
        if _has(options, "--pathspec-from-file") or not operands:
            w.unknown(text, f"git {sub} without explicit paths")
        else:
            w.write(text, here, operands, f"git {sub} changes files")
        return cwd
    w.unknown(text, f"git {sub} is not a read-only git command")
    return cwd


# -- read-only tools with writing options


@_handles("sort")
def _sort(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    options, _ = _split_options(
        args,
        "okStT",
        (
            "--output",
            "--key",
            "--field-separator",
            "--buffer-size",
            "--temporary-directory",
            "--parallel",
            "--batch-size",
            "--files0-from",
            "--compress-program",
            "--random-source",
            "--sort",
        ),
    )
    if _has(options, "--compress-program"):
        w.unknown(text, "sort --compress-program runs a program")
        return cwd
    outputs = _values(options, "-o", "--output")
    if outputs:
        w.write(text, cwd, [Arg(v) for v in outputs], "sort -o writes a file")
    else:
        w.read(text)
    return cwd


@_handles("shuf")
def _shuf(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    options, _ = _split_options(
        args, "oni", ("--output", "--head-count", "--input-range", "--random-source")
    )
    outputs = _values(options, "-o", "--output")
    if outputs:
        w.write(text, cwd, [Arg(v) for v in outputs], "shuf -o writes a file")
    else:
        w.read(text)
    return cwd


@_handles("uniq")
def _uniq(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    _, operands = _split_options(
        args, "fsw", ("--skip-fields", "--skip-chars", "--check-chars", "--group", "--all-repeated")
    )
    if len(operands) >= 2:
        w.write(text, cwd, operands[1:2], "uniq writes its second operand")
    else:
        w.read(text)
    return cwd


@_handles("xxd")
def _xxd(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    _, operands = _split_options(args, "cglnosC", ("-cols", "-len", "-seek", "-name"))
    if len(operands) >= 2:
        w.write(text, cwd, operands[1:2], "xxd writes its second operand")
    else:
        w.read(text)
    return cwd


@_handles("rg")
def _rg(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    if any(
        a.value is not None
        and (
            a.value in ("--pre", "--hostname-bin")
            or a.value.startswith(("--pre=", "--hostname-bin="))
        )
        for a in args
    ):
        w.unknown(text, "rg --pre/--hostname-bin runs a program")
    else:
        w.read(text)
    return cwd


@_handles("tree")
def _tree(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    options, _ = _split_options(
        args, "oLPIH", ("--filelimit", "--timefmt", "--charset", "--sort", "--fromfile")
    )
    outputs = _values(options, "-o")
    if outputs:
        w.write(text, cwd, [Arg(v) for v in outputs], "tree -o writes a file")
    else:
        w.read(text)
    return cwd


@_handles("date")
def _date(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    if any(
        a.value is not None and (a.value in ("-s", "--set") or a.value.startswith("--set="))
        for a in args
    ):
        w.unknown(text, "date --set changes the clock")
    else:
        w.read(text)
    return cwd


@_handles("file")
def _file(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    if any(a.value in ("-C", "--compile") for a in args):
        w.unknown(text, "file -C writes a magic database")
    else:
        w.read(text)
    return cwd


@_handles("hostname")
def _hostname(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    if any(not (a.value or "x").startswith("-") for a in args) or any(
        a.value in ("-F", "--file") for a in args
    ):
        w.unknown(text, "hostname NAME changes the host name")
    else:
        w.read(text)
    return cwd


_SED_SIMPLE = set("pPdDnNgGhHxz=lFqQ{}!")


def _sed_script_writes(script: str) -> bool:
    """True when a sed script can write files or run commands (w, W, e, s///w, s///e)."""
    i = 0
    n = len(script)

    def skip_to_eol(k: int) -> int:
        while k < n and script[k] != "\n":
            k += 1
        return k

    while i < n:
        ch = script[i]
        if ch in " \t\n;":
            i += 1
            continue
        if ch == "#":
            i = skip_to_eol(i)
            continue
        # addresses
        if ch.isdigit() or ch in "$,~+":
            i += 1
            continue
        if ch == "/" or (ch == "\\" and i + 1 < n):
            delim = "/" if ch == "/" else script[i + 1]
            i += 1 if ch == "/" else 2
            while i < n and script[i] != delim:
                i += 2 if script[i] == "\\" else 1
            i += 1
            while i < n and script[i] in "IM":
                i += 1
            continue
        if ch in ("s", "y"):
            if i + 1 >= n:
                return True
            delim = script[i + 1]
            if delim in "\n\\":
                return True
            i += 2
            for _ in range(2):
                while i < n and script[i] != delim:
                    i += 2 if script[i] == "\\" else 1
                i += 1
            if ch == "s":
                while i < n and script[i] not in ";\n}":
                    if script[i] in "we":
                        return True
                    i += 1
            continue
        if ch in "aic":
            i = skip_to_eol(i)
            continue
        if ch in "rRbtT:vL":
            i += 1
            while i < n and script[i] not in ";\n":
                i += 1
            continue
        if ch in "wWe":
            return True
        if ch in _SED_SIMPLE or (ch.isalpha() and ch in "lqQ"):
            i += 1
            continue
        return True  # an unknown sed command: assume the worst
    return False


@_handles("sed", "gsed")
def _sed(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    in_place = False
    scripts: list[str | None] = []
    operands: list[Arg] = []
    i = 0
    only_operands = False
    while i < len(args):
        arg = args[i]
        value = arg.value
        i += 1
        if only_operands or value is None or not value.startswith("-") or value == "-":
            operands.append(arg)
            continue
        if value == "--":
            only_operands = True
        elif value.startswith("--"):
            name, eq, attached = value.partition("=")
            if name == "--in-place":
                in_place = True
            elif name == "--expression":
                scripts.append(attached if eq else (args[i].value if i < len(args) else None))
                i += 0 if eq else 1
            elif name == "--file":
                scripts.append(None)
                i += 0 if eq else 1
            elif name in ("--line-length",):
                i += 0 if eq else 1
        else:
            j = 1
            while j < len(value):
                flag = value[j]
                if flag == "i":
                    in_place = True
                    break  # the rest is a backup suffix
                if flag in "ef":
                    rest = value[j + 1 :]
                    script = rest if rest else (args[i].value if i < len(args) else None)
                    if not rest:
                        i += 1
                    scripts.append(script if flag == "e" else None)
                    break
                if flag == "l":
                    if not value[j + 1 :]:
                        i += 1
                    break
                j += 1
    if not scripts and operands:
        scripts.append(operands[0].value)
        operands = operands[1:]
    if any(s is None or _sed_script_writes(s) for s in scripts):
        w.unknown(text, "the sed script can write files or run commands")
        return cwd
    if in_place:
        w.write(text, cwd, operands, "sed -i rewrites its files")
        return cwd
    w.read(text)
    return cwd


_AWK_STRING = r'"(?:[^"\\]|\\.)*"'
_AWK_REGEX = r"(?:^|(?<=[(,~!&|{};\s]))/(?:[^/\\\n]|\\.)+/"


def _awk_program_writes(program: str) -> bool:
    import re  # lazily: the hot path (plain words) needs no regex

    code = re.sub(_AWK_STRING, '""', program)
    code = re.sub(_AWK_REGEX, "//", code)
    if "system" in code or "|" in code.replace("||", "") or "@" in code:
        return True
    # `print ... > file` within one statement; per statement, so a long run of
    # `print`s without a `;` stays linear (one regex over all was quadratic)
    for statement in re.split(r"[;}\n]", code):
        found = re.search(r"\bprintf?\b", statement)
        if found is not None and ">" in statement[found.end() :]:
            return True
    return False


@_handles("awk", "gawk", "mawk", "nawk")
def _awk(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    i = 0
    program: str | None = None
    while i < len(args):
        value = args[i].value
        if value is None:
            w.unknown(text, "awk with a non-static argument")
            return cwd
        if value == "--":
            i += 1
            break
        if value in ("-F", "-v"):
            i += 2
            continue
        if value.startswith(("-F", "-v")) and len(value) > 2:
            i += 1
            continue
        if value.startswith("-"):
            w.unknown(text, f"awk option {value} (program file, include or in-place)")
            return cwd
        break
    if i < len(args):
        program = args[i].value
    if program is None or _awk_program_writes(program):
        w.unknown(text, "the awk program can write files or run commands")
    else:
        w.read(text)
    return cwd


# -- write-capable tools with parseable targets


# cp options that make links or copy symlinks as symlinks
_CP_LINK_OPTIONS = frozenset(
    [
        "-s",
        "-l",
        "-P",
        "-d",
        "-a",
        "-r",
        "-R",
        "--symbolic-link",
        "--link",
        "--no-dereference",
        "--archive",
        "--recursive",
    ]
)


def _copy_like(kind: str) -> Handler:
    short = {"cp": "tS", "mv": "tS", "install": "tSmogf", "ln": "tS"}[kind]
    long_values = ("--target-directory", "--suffix", "--mode", "--owner", "--group")

    def handler(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
        options, operands = _split_options(args, short, long_values)
        directories = _values(options, "-t", "--target-directory")
        if kind == "install" and _has(options, "-d", "--directory"):
            w.write(text, cwd, operands, "install -d creates directories")
            return cwd
        if directories:
            destinations = [Arg(v) for v in directories]
            sources = operands
        elif kind == "ln" and len(operands) == 1 and operands[0].value is not None:
            destinations = [Arg(operands[0].value.rstrip("/").rsplit("/", 1)[-1] or None)]
            sources = operands
        else:
            destinations = operands[-1:]
            sources = operands[:-1]
        targets = list(destinations)
        if kind == "mv":
            targets = [*sources, *destinations]
        links = False
        linked: list[Arg] = []
        symbolic = _has(options, "-s", "--symbolic", "--symbolic-link")
        if kind == "ln" or (kind == "cp" and _has(options, "-l", "--link", "-s")):
            # Writing through a link writes what it points at, so that must be in
            # scope too: a hard link's source as named, a symlink's source as seen
            # from the link's directory (the destination itself, if it is a directory).
            links = True
            for source in sources:
                if symbolic and kind == "ln":
                    linked.extend(_link_sources(source, destinations, bool(directories)))
                else:
                    linked.append(source)
        elif kind == "cp" and any(name in _CP_LINK_OPTIONS for name, _ in options):
            links = True
        if kind == "cp" and any(
            name == "--preserve" and value is not None and ("links" in value or "all" in value)
            for name, value in options
        ):
            links = True
        before = len(w.parts)
        w.write(text, cwd, targets, f"{kind} writes its destination")
        if links and len(w.parts) > before:
            probe = _Walker(())
            if linked:
                probe.write(text, cwd, linked, "linked")
            pointed = probe.parts[0] if probe.parts else Part(text, False)
            w.parts[-1] = w.parts[-1]._replace(
                links=True,
                linked=pointed.targets,
                unbounded=w.parts[-1].unbounded or (pointed.write and pointed.unbounded),
            )
        return cwd

    return handler


def _link_sources(source: Arg, destinations: list[Arg], into_directory: bool) -> list[Arg]:
    value = source.value
    if value is None or source.multi:
        return [Arg(None, False, source.text)]
    if value.startswith(("/", "~")):
        return [source]
    out: list[Arg] = []
    for destination in destinations:
        where = destination.value
        if where is None:
            return [Arg(None, False, source.text)]
        bases = [where]  # -t DIR or `dir/`: the link is made inside it
        if not into_directory and not where.endswith("/"):
            parent = where.rsplit("/", 1)[0] if "/" in where else ""
            bases = [parent, where]  # `where` may be an existing directory
        for base in bases:
            out.append(Arg((base.rstrip("/") + "/" + value) if base else value))
    return out


for _name in ("cp", "mv", "install", "ln"):
    _HANDLERS[_name] = _copy_like(_name)
_HANDLERS["gcp"] = _HANDLERS["cp"]


def _every_operand(
    short: str, long_values: Iterable[str], why: str, skip_first: bool = False
) -> Handler:
    long_set = tuple(long_values)

    def handler(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
        options, operands = _split_options(args, short, long_set)
        if skip_first and not any(name == "--reference" for name, _ in options):
            operands = operands[1:]
        w.write(text, cwd, operands, why)
        return cwd

    return handler


_HANDLERS["rm"] = _every_operand("", (), "rm removes files")
_HANDLERS["rmdir"] = _every_operand("", (), "rmdir removes directories")
_HANDLERS["unlink"] = _every_operand("", (), "unlink removes a file")
_HANDLERS["shred"] = _every_operand(
    "ns", ("--iterations", "--size", "--random-source", "--remove"), "shred overwrites files"
)
_HANDLERS["truncate"] = _every_operand("sr", ("--size", "--reference"), "truncate resizes files")
_HANDLERS["touch"] = _every_operand(
    "drt", ("--date", "--reference", "--time"), "touch creates or stamps files"
)
_HANDLERS["mkdir"] = _every_operand("m", ("--mode", "--context"), "mkdir creates directories")
_HANDLERS["mkfifo"] = _every_operand("m", ("--mode",), "mkfifo creates files")
_HANDLERS["chown"] = _every_operand(
    "", ("--from", "--reference"), "chown changes owners", skip_first=True
)
_HANDLERS["chgrp"] = _every_operand("", ("--reference",), "chgrp changes groups", skip_first=True)


_CHMOD_MODE = r"^[ugoa]*[-+=][rwxXstugo]*([,][ugoa]*[-+=][rwxXstugo]*)*$|^[0-7]{1,4}$"


@_handles("chmod")
def _chmod(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    import re  # lazily: the hot path (plain words) needs no regex

    mode_seen = any((a.value or "").startswith("--reference") for a in args)
    targets: list[Arg] = []
    only = False
    for arg in args:
        value = arg.value
        if value is None or (only and mode_seen):
            targets.append(arg)
            continue
        if value == "--" and not only:
            only = True
            continue
        if not mode_seen and re.match(_CHMOD_MODE, value):
            mode_seen = True
            continue
        if value.startswith("-") and not only:
            continue
        targets.append(arg)
    w.write(text, cwd, targets, "chmod changes file modes")
    return cwd


@_handles("tee")
def _tee(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    options, operands = _split_options(args, "", ())
    append = _has(options, "-a", "--append")
    if not operands:
        w.read(text)
        return cwd
    w.write(text, cwd, operands, "tee writes its files", append=append)
    return cwd


@_handles("dd")
def _dd(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    outputs: list[Arg] = []
    for arg in args:
        if arg.value is None:
            w.unknown(text, "dd with a non-static operand")
            return cwd
        if arg.value.startswith("of="):
            outputs.append(Arg(arg.value[3:], arg.multi))
    if outputs:
        w.write(text, cwd, outputs, "dd of= writes a file")
    else:
        w.read(text)
    return cwd


_CURL_FILE_OPTIONS = (
    "-o",
    "--output",
    "-D",
    "--dump-header",
    "-c",
    "--cookie-jar",
    "--trace",
    "--trace-ascii",
    "--stderr",
    "--libcurl",
    "--etag-save",
    "--hsts",
    "--alt-svc",
)
_CURL_UNBOUNDED = (
    "-O",
    "--remote-name",
    "--remote-name-all",
    "-J",
    "--remote-header-name",
    "--output-dir",
    "-K",
    "--config",
    "--create-dirs",
)


@_handles("curl")
def _curl(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    options, _ = _split_options(
        args,
        "oDcHdXuAebFmwxTrCYyzEKQtU",
        (
            *_CURL_FILE_OPTIONS,
            "--header",
            "--data",
            "--data-raw",
            "--data-binary",
            "--data-urlencode",
            "--request",
            "--user",
            "--user-agent",
            "--referer",
            "--cookie",
            "--form",
            "--max-time",
            "--write-out",
            "--proxy",
            "--upload-file",
            "--range",
            "--url",
            "--connect-timeout",
            "--retry",
            "--retry-delay",
            "--retry-max-time",
            "--cacert",
            "--cert",
            "--key",
            "--resolve",
            "--json",
            "--config",
            "--output-dir",
            "--time-cond",
            "--quote",
        ),
    )
    names = {name for name, _ in options}
    if names & set(_CURL_UNBOUNDED) or any(
        "%output{" in (v or "\0") for v in _values(options, "-w", "--write-out")
    ):
        w.unknown(text, "curl writes files it does not name")
        return cwd
    outputs = _values(options, *_CURL_FILE_OPTIONS)
    outputs = [v for v in outputs if v != "-"]
    if outputs:
        w.write(text, cwd, [Arg(v) for v in outputs], "curl writes a file")
    else:
        w.read(text)
    return cwd


@_handles("wget")
def _wget(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    options, _ = _split_options(
        args,
        "OoaPeUtTwQ",
        (
            "--output-document",
            "--output-file",
            "--append-output",
            "--directory-prefix",
            "--user-agent",
            "--tries",
            "--timeout",
            "--wait",
            "--quota",
            "--header",
        ),
    )
    documents = _values(options, "-O", "--output-document")
    logs = _values(options, "-o", "--output-file", "-a", "--append-output")
    if not documents or _has(
        options, "-P", "--directory-prefix", "-e", "--execute", "-b", "--background"
    ):
        w.unknown(text, "wget saves downloads under names it does not state")
        return cwd
    files = [Arg(v) for v in [*documents, *logs] if v != "-"]
    if files:
        w.write(text, cwd, files, "wget writes a file")
    else:
        w.read(text)
    return cwd


@_handles(
    "vi", "vim", "nvim", "view", "nano", "pico", "emacs", "ed", "ex", "micro", "joe", "kak", "hx"
)
def _editor(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    operands: list[Arg] = []
    for arg in args:
        value = arg.value
        if value is not None and value.startswith(("-", "+")):
            if value.startswith(("-c", "--cmd", "-S", "+")) and value not in ("+",):
                w.unknown(text, "the editor is told to run commands")
                return cwd
            continue
        operands.append(arg)
    if not operands:
        w.unknown(text, "an editor without a file")
        return cwd
    w.write(text, cwd, operands, "an editor writes its files")
    return cwd


def _interpreter_named(name: str) -> Handler:
    queries = _VERSION_QUERY.get(name, frozenset())

    def handler(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
        if len(args) == 1 and args[0].value in queries:
            w.read(text)
            return cwd
        if name.startswith("python") and _runs_zodyssey(args):
            return _zodyssey(w, text, args[2:], cwd)
        return _interpreter(w, text, args, cwd)

    return handler


def _interpreter(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    values = [a.value for a in args]
    in_place: list[Arg] = []
    if any(
        v is not None and v.startswith("-") and not v.startswith("--") and "i" in v[1:]
        for v in values
    ):
        # perl -i / ruby -i rewrite their file operands, but the code can still do anything
        skip_next = False
        for arg in args:
            v = arg.value
            if skip_next:
                skip_next = False
                continue
            if v is not None and v.startswith("-"):
                skip_next = v[-1:] == "e" or v in ("-e", "-E", "-M", "-I")
                continue
            in_place.append(arg)
        targets = [Target(p) for p in (a.value for a in in_place) if p is not None]
        w.unknown(text, "interpreter code can write anywhere", targets)
        return cwd
    w.unknown(text, "interpreter code can write anywhere")
    return cwd


for _name in (
    "perl",
    "ruby",
    "python",
    "python3",
    "python2",
    "node",
    "deno",
    "bun",
    "php",
    "lua",
    "Rscript",
    "osascript",
    "pwsh",
    "tclsh",
):
    _HANDLERS[_name] = _interpreter_named(_name)


# -- zodyssey's own commands: the argv is judged in zodyssey.gate.trusted


def _runs_zodyssey(args: list[Arg]) -> bool:
    """`python -m zodyssey ...`"""
    return len(args) >= 2 and args[0].value == "-m" and args[1].value == "zodyssey"


def _zodyssey(
    w: _Walker, text: str, args: list[Arg], cwd: str | None, program: str = ""
) -> str | None:
    from zodyssey.gate import trusted

    kind, why, inner = trusted.judge([a.value for a in args])
    if kind == trusted.UNKNOWN:
        w.unknown(text, why)
    elif kind == trusted.READ and not program:
        w.read(text)
    else:
        words = tuple(a.value or "" for a in args)
        person = kind == trusted.PERSON
        w.parts.append(Part(text, True, (), person, why, trusted=(kind, program, *words)))
    if inner >= 0:  # `run window ... -- CMD`: the auditor command is judged as usual
        w.nested(text, list(args[inner:]), cwd)
    return cwd


_HANDLERS["zodyssey"] = _zodyssey


# -- archives and package managers: their query forms only read


_TAR_LIST_LETTERS = "tvfzjJZaO"
_TAR_LIST_OPTIONS = frozenset(
    [
        "--list",
        "--file",
        "--verbose",
        "--gzip",
        "--gunzip",
        "--ungzip",
        "--bzip2",
        "--xz",
        "--zstd",
        "--lzma",
        "--lzip",
        "--auto-compress",
        "--numeric-owner",
        "--wildcards",
        "--no-wildcards",
        "--anchored",
        "--no-anchored",
        "--ignore-case",
        "--utc",
        "--full-time",
        "--quoting-style",
        "--exclude",
        "--to-stdout",
        "--null",
        "--totals",
        "--occurrence",
    ]
)


@_handles("tar", "gtar", "bsdtar")
def _tar(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    values = [a.value for a in args]
    if any(v is None for v in values):
        w.unknown(text, "tar with a non-static argument")
        return cwd
    words = [v for v in values if v is not None]
    first = words[0] if words else ""
    # old style `tar tzf x.tgz`: the first word is a bundle of letters without a dash
    letters = first if first and not first.startswith("-") else ""
    short = "".join(v[1:] for v in words if v.startswith("-") and not v.startswith("--"))
    modes = set(letters + short) & set("txcruA")
    long_modes = {
        v
        for v in words
        if v
        in (
            "--list",
            "--extract",
            "--get",
            "--create",
            "--append",
            "--update",
            "--delete",
            "--concatenate",
        )
    }
    listing = (modes == {"t"} and not long_modes) or (not modes and long_modes == {"--list"})
    # A listing still runs programs through options such as --to-command,
    # --checkpoint-action=exec=, -I or -F (and GNU accepts any unambiguous
    # abbreviation of them), so only options known to be inert keep it read-only.
    risky = bool(set(letters + short) - set(_TAR_LIST_LETTERS)) or any(
        v.startswith("--") and v.split("=", 1)[0] not in _TAR_LIST_OPTIONS for v in words
    )
    if listing and not risky:
        w.read(text)
    else:
        w.unknown(text, "tar writes files it does not name")
    return cwd


@_handles("unzip")
def _unzip(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    flags = {a.value for a in args}
    if flags & {"-l", "-v", "-Z", "-t", "-z"} and not flags & {"-d", "-o"}:
        w.read(text)
    else:
        w.unknown(text, "unzip extracts files it does not name")
    return cwd


_PACKAGE_QUERIES: dict[str, frozenset[str]] = {
    "pip": frozenset({"list", "show", "freeze", "check", "--version", "-V", "help"}),
    "pip3": frozenset({"list", "show", "freeze", "check", "--version", "-V", "help"}),
    "npm": frozenset({"ls", "list", "view", "info", "outdated", "--version", "-v", "help"}),
    "yarn": frozenset({"--version", "-v", "info", "list", "why"}),
    "pnpm": frozenset({"--version", "-v", "list", "ls", "why"}),
    "cargo": frozenset({"--version", "-V", "tree", "metadata"}),
    "go": frozenset({"version", "env", "help"}),
    "uv": frozenset({"--version", "version", "tree"}),
}


def _package_query(name: str) -> Handler:
    queries = _PACKAGE_QUERIES[name]

    def handler(w: _Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
        first = args[0].value if args else None
        if first is not None and first in queries and all(a.value is not None for a in args):
            w.read(text)
        else:
            w.unknown(text, f"{name} {first or ''} can install, build or run code")
        return cwd

    return handler


for _name in _PACKAGE_QUERIES:
    _HANDLERS[_name] = _package_query(_name)
