"""Words: what a shell word's value is after unquoting, and GNU-style options.

Patterns stay strings: `re` compiles (and caches) them on first use, and only
words that need it import `re`, keeping a plain read call free of it.
"""

from zodyssey.gate.shell.records import Arg
from zodyssey.gate.shell.tables import AMBIGUOUS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Any

Options = list[tuple[str, "str | None"]]

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


def plain_words(command: str) -> list[str] | None:
    """The words of a command line that needs no parser, else None."""
    if not command or not set(command) <= _PLAIN_CHARS:
        return None
    words = command.split()
    if not words or "=" in words[0] or words[0] in _RESERVED_WORDS or "==" in words:
        return None  # (tree-sitter-bash rejects a trailing `==`; both paths must agree)
    return words


def has_brace_pattern(text: str) -> bool:
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


def unescape_word(text: str) -> tuple[str, bool]:
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


def string_value(node: "Any", src: str) -> str | None:
    """Value of a double-quoted string, None when it contains expansions."""
    pieces: list[str] = []
    for child in node.children:
        kind = child.type
        if kind == '"':
            continue
        if kind == "string_content":
            text = src[child.start_byte : child.end_byte]
            if "\\" in text:
                import re

                text = re.sub(
                    r'\\([$`"\\\n])', lambda m: "" if m.group(1) == "\n" else m.group(1), text
                )
            pieces.append(text)
        else:
            return None
    return "".join(pieces)


def to_arg(node: "Any", src: str) -> "Arg":
    """The `Arg` of a word node of the syntax tree (`src` is the parsed text)."""
    text = src[node.start_byte : node.end_byte]
    kind = node.type
    if kind == "word":
        value, multi = unescape_word(text)
        return Arg(value, multi, text)
    if kind == "number":
        return Arg(text, False, text)
    if kind == "raw_string":
        return Arg(text[1:-1], False, text)
    if kind == "string":
        return Arg(string_value(node, src), False, text)
    if kind == "concatenation":
        return _concatenation(node, src, text)
    return Arg(None, False, text)


def _concatenation(node: "Any", src: str, text: str) -> "Arg":
    """Words written next to each other (`a"b"$c`): one value, None when a piece has none."""
    values: list[str] = []
    multi = False
    unquoted: list[str] = []  # quoted pieces blanked out, for brace detection
    for child in node.children:
        part = to_arg(child, src)
        if part.value is None:
            return Arg(None, False, text)
        values.append(part.value)
        multi = multi or part.multi
        unquoted.append(part.value if child.type == "word" else "_" * len(part.value))
    joined = "".join(unquoted)
    if "{" in joined and has_brace_pattern(joined):
        multi = True
    return Arg("".join(values), multi, text)


def join_path(cwd: str | None, path: str) -> str | None:
    """`path` as seen from `cwd` ("" the call's directory, None unknown)."""
    if path.startswith("/") or path.startswith("~"):
        return path
    if cwd is None or cwd == AMBIGUOUS:
        return None
    if cwd == "":
        return path
    return cwd.rstrip("/") + "/" + path


# ---------------------------------------------------------------- options


def split_options(
    args: "Sequence[Arg]",
    short_values: str = "",
    long_values: "Iterable[str]" = (),
    stop_at_operand: bool = False,
    short_optional: str = "",
) -> "tuple[Options, list[Arg]]":
    """Split GNU-style arguments into (option, value) pairs and operands.

    `short_values` lists short flags that take a value (attached or next);
    `long_values` long options that take one (`--opt=v` or `--opt v`);
    `short_optional` short flags whose value is optional and so can only be
    attached (`-i.bak`; `-i x` leaves `x` an operand). A long option not in
    `long_values` takes a value only as `--opt=v` (GNU's optional arguments).
    A non-static argument counts as an operand; a non-static option value
    is "\\0" (read back as None by `option_values`).
    """
    long_set = set(long_values)
    options: Options = []
    operands: list[Arg] = []
    i = 0
    only_operands = False
    while i < len(args):
        arg = args[i]
        value = arg.value
        i += 1
        if only_operands or value is None or value == "-" or not value.startswith("-"):
            operands.append(arg)
            only_operands = only_operands or stop_at_operand
        elif value == "--":
            only_operands = True
        elif value.startswith("--"):
            i = _long_option(value, args, i, long_set, options)
        else:
            i = _short_cluster(value, args, i, short_values, short_optional, options)
    return options, operands


def _long_option(
    value: str, args: "Sequence[Arg]", i: int, long_set: "set[str]", options: "Options"
) -> int:
    """Adds `--opt`, `--opt=v` or `--opt v` to `options`; returns the next word's index."""
    name, eq, attached = value.partition("=")
    if eq:
        options.append((name, attached))
    elif name in long_set and i < len(args):
        options.append((name, _option_value(args[i])))
        return i + 1
    else:
        options.append((name, None))
    return i


def _short_cluster(
    value: str,
    args: "Sequence[Arg]",
    i: int,
    short_values: str,
    short_optional: str,
    options: "Options",
) -> int:
    """Adds the flags of `-abc`, `-ofile`, `-o file` to `options`; returns the
    next word's index. The first flag that takes a value ends the cluster."""
    for j in range(1, len(value)):
        flag = "-" + value[j]
        rest = value[j + 1 :]
        if value[j] in short_optional:
            options.append((flag, rest or None))
            return i
        if value[j] in short_values:
            if rest or i >= len(args):
                options.append((flag, rest or None))
                return i
            options.append((flag, _option_value(args[i])))
            return i + 1
        options.append((flag, None))
    return i


def _option_value(arg: "Arg") -> str:
    """An option's value taken from the next word ("\\0" when it is not static)."""
    return arg.value if arg.value is not None else "\0"


def value_at(args: "Sequence[Arg]", i: int) -> str | None:
    """The value of `args[i]`, None when it is missing or not static."""
    return args[i].value if i < len(args) else None


def has_option(options: "Sequence[tuple[str, str | None]]", *names: str) -> bool:
    return any(name in names for name, _ in options)


def option_values(options: "Sequence[tuple[str, str | None]]", *names: str) -> list[str | None]:
    return [(None if v == "\0" else v) for n, v in options if n in names]
