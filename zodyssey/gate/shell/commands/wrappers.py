"""Wrappers that run another command: env, nice, timeout, time, command, xargs, sudo."""

from zodyssey.gate.shell.commands import HANDLERS, handles
from zodyssey.gate.shell.records import Arg
from zodyssey.gate.shell.tables import (
    risky_variable,
)
from zodyssey.gate.shell.words import (
    has_option,
    join_path,
    option_values,
    split_options,
    value_at,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from zodyssey.gate.shell.commands import Handler, Walker


# -- wrappers


def _after_options(
    args: "list[Arg]", with_value: str, long_values: "Iterable[str]" = ()
) -> "list[Arg] | None":
    _options, operands = split_options(args, with_value, long_values, stop_at_operand=True)
    return operands


# env's options that change nothing here -> how many words each takes
_ENV_OPTIONS = {
    **dict.fromkeys(("-i", "--ignore-environment", "-0", "--null", "-v", "--debug", "-"), 1),
    "-u": 2,
    "--unset": 2,
}


@handles("env")
def _env(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    """env is a program: its -C moves the command it runs, never the shell."""
    found = _env_words(w, text, args, cwd)
    if found is not None:
        rest, inner = found
        if rest:
            w.nested(text, rest, inner)
        else:
            w.read(text)
    return cwd


def _env_words(
    w: "Walker", text: str, args: "list[Arg]", cwd: str | None
) -> "tuple[list[Arg], str | None] | None":
    """(the command env runs, the directory it runs in), or None once decided."""
    i = 0
    while i < len(args):
        value = args[i].value
        if value is None:
            w.unknown(text, "env with a non-static argument")
            return None
        if value == "--":
            return args[i + 1 :], cwd
        if value.startswith("-"):
            used, cwd = _env_option(value, value_at(args, i + 1), cwd)
            if not used:
                w.unknown(text, f"env option {value}")
                return None
            i += used
        elif "=" in value and not value.startswith("="):
            name, _, assigned = value.partition("=")
            if risky_variable(name, assigned):
                w.unknown(text, f"setting {name} changes what the command runs")
                return None
            i += 1
        else:
            break
    return args[i:], cwd


def _env_option(value: str, following: str | None, cwd: str | None) -> "tuple[int, str | None]":
    """(how many words the option takes, 0 for one not known; the directory
    the command runs in after it)."""
    if value in _ENV_OPTIONS:
        return _ENV_OPTIONS[value], cwd
    if value.startswith("--unset=") or (value.startswith("-u") and len(value) > 2):
        return 1, cwd
    if value.startswith("--chdir="):
        return 1, join_path(cwd, value.split("=", 1)[1])
    if value in ("-C", "--chdir"):
        return 2, join_path(cwd, following) if following is not None else None
    return 0, cwd


def _wrapper(
    with_value: str,
    long_values: "Iterable[str]" = (),
    skip_operands: int = 0,
    builtin: bool = False,
) -> "Handler":
    long_set = tuple(long_values)

    def handler(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
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


HANDLERS["nice"] = _wrapper("n", ("--adjustment",))
HANDLERS["nohup"] = _wrapper("")
HANDLERS["timeout"] = _wrapper("sk", ("--signal", "--kill-after"), skip_operands=1)
HANDLERS["stdbuf"] = _wrapper("ioe", ("--input", "--output", "--error"))
HANDLERS["builtin"] = _wrapper("", builtin=True)
HANDLERS["exec"] = _wrapper("a", ())


@handles("time")
def _time(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    options, operands = split_options(args, "fo", ("--format", "--output"), stop_at_operand=True)
    output = option_values(options, "-o", "--output")
    if output:
        w.write(text, cwd, [Arg(v) for v in output], "time -o writes its report")
    if not operands:
        w.read(text)
        return cwd
    return w.nested(text, operands, cwd)  # the `time` keyword times a builtin in this shell


@handles("command")
def _command(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    options, operands = split_options(args, "", (), stop_at_operand=True)
    if has_option(options, "-v", "-V"):
        w.read(text)
        return cwd
    return w.nested(text, operands, cwd)  # `command cd DIR` still changes directory


@handles("sudo", "doas", "su", "runuser", "pkexec")
def _sudo(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    w.unknown(text, "runs with other privileges")
    return cwd


_XARGS_LONG_VALUES = (
    "--max-args",
    "--delimiter",
    "--max-chars",
    "--max-procs",
    "--arg-file",
    "--process-slot-var",
)


@handles("xargs")
def _xargs(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    # GNU xargs: -e, -i, -l and --eof, --replace, --max-lines take their value
    # only attached (`-eEND`, `--eof=END`): `xargs -e rm` runs `rm`.
    options, operands = split_options(
        args, "IndLsEPa", _XARGS_LONG_VALUES, stop_at_operand=True, short_optional="eil"
    )
    operands = _replaced(operands, _replacements(options))
    if not operands:
        w.read(text)  # default command is echo
        return cwd
    w.nested(text, operands, cwd, extra_unknown=True)
    return cwd


def _replacements(options: "list[tuple[str, str | None]]") -> list[str]:
    """The replacement strings of -I, -i and --replace (`{}` when none is given)."""
    replace = [v for v in option_values(options, "-I", "--replace") if v]
    if any(name in ("-i", "--replace") and value is None for name, value in options):
        replace.append("{}")
    replace.extend(v for n, v in options if n == "-i" and v)
    return replace


def _replaced(operands: "list[Arg]", replace: list[str]) -> "list[Arg]":
    """A word holding a replacement string stands for input read at run time."""
    return [
        Arg(None, False, a.text)
        if a.value is not None and any(r in a.value for r in replace)
        else a
        for a in operands
    ]


# -- code strings
