"""Shells and language interpreters: code strings are parsed again or unknown."""

from zodyssey.gate.shell.commands import HANDLERS, handles
from zodyssey.gate.shell.records import Arg, Target
from zodyssey.gate.shell.tables import (
    VERSION_QUERY,
)

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
    HANDLERS[_name] = _interpreter_named(_name)
