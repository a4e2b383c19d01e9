"""Shells and language interpreters: code strings are parsed again or unknown."""

from zodyssey.gate.shell.commands import HANDLERS, handles
from zodyssey.gate.shell.records import Arg, Target
from zodyssey.gate.shell.tables import (
    VERSION_QUERY,
)
from zodyssey.gate.shell.words import value_at

TYPE_CHECKING = False
if TYPE_CHECKING:
    from zodyssey.gate.shell.commands import Handler, Walker


# -- code strings


@handles("bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "busybox")
def _shell(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    i = 0
    while i < len(args):
        value = args[i].value
        if value is None:
            break
        if _runs_string(value):
            w.reparse(text, value_at(args, i + 1), cwd)
            return cwd
        if value == "--version" and len(args) == 1:
            w.read(text)
            return cwd
        if not value.startswith("-") or value in ("-", "--"):
            break
        i += 2 if value in ("-o", "-O") else 1  # (`-o NAME`, `-O NAME`: a shell option)
    w.unknown(text, "runs a shell script or reads code from stdin")
    return cwd


def _runs_string(value: str) -> bool:
    """`-c`, or a cluster holding it (`-ec`): the next word is the code."""
    return value == "-c" or (
        value.startswith("-") and not value.startswith("--") and "c" in value[1:]
    )


def _interpreter_named(name: str) -> "Handler":
    queries = VERSION_QUERY.get(name, ())

    def handler(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
        if len(args) == 1 and args[0].value in queries:
            w.read(text)
            return cwd
        if name.startswith("python"):
            from zodyssey.gate.shell.commands import zodyssey

            if zodyssey.runs_zodyssey(args):
                return zodyssey.judge(w, text, args[2:], cwd)
        return _interpreter(w, text, args, cwd)

    return handler


def _interpreter(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    if any(_edits_in_place(a.value) for a in args):
        # perl -i / ruby -i rewrite their file operands, but the code can still do anything
        targets = [Target(p) for p in (a.value for a in _file_operands(args)) if p is not None]
        w.unknown(text, "interpreter code can write anywhere", targets)
        return cwd
    w.unknown(text, "interpreter code can write anywhere")
    return cwd


def _edits_in_place(value: str | None) -> bool:
    """`-i`, also in a cluster (`-pi`) or with a suffix (`-i.bak`)."""
    return (
        value is not None
        and value.startswith("-")
        and not value.startswith("--")
        and "i" in value[1:]
    )


def _file_operands(args: "list[Arg]") -> "list[Arg]":
    """The words that are neither options nor the value of -e, -E, -M, -I (or
    of a cluster ending in e: `-pe CODE`)."""
    operands: list[Arg] = []
    skip_next = False
    for arg in args:
        v = arg.value
        if skip_next:
            skip_next = False
        elif v is not None and v.startswith("-"):
            skip_next = v[-1:] == "e" or v in ("-e", "-E", "-M", "-I")
        else:
            operands.append(arg)
    return operands


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
    HANDLERS[_name] = _interpreter_named(_name)
