"""Shell builtins: directory changes, variables, traps, aliases, eval, source."""

from zodyssey.gate.shell.commands import handles
from zodyssey.gate.shell.records import Arg
from zodyssey.gate.shell.tables import (
    refers_or_evaluates,
    risky_variable,
)
from zodyssey.gate.shell.words import (
    join_path,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from zodyssey.gate.shell.commands import Walker


# -- navigation


def _searched(w: "Walker", name: str) -> bool:
    """`cd NAME` may go anywhere when CDPATH may be set: NAME is searched there first."""
    return w.cdpath and not name.startswith(("/", "./", "../", "~")) and name not in (".", "..")


def _logical(joined: str) -> str:
    """Bash's `cd` is logical: `dir/..` is removed by name, not by following a
    symlink `dir` to its real parent, so the gate must see the same path."""
    import posixpath

    normal = posixpath.normpath(joined)
    return "" if normal == "." else normal


def _option(value: str | None) -> bool:
    return (value or "").startswith("-") and value != "-"


def _physical(w: "Walker", options: "list[str | None]") -> bool:
    """`cd -P` (or `set -P` before it): symlinks are resolved, `..` follows them."""
    return w.physical or any(o and o != "--" and "P" in o for o in options)


@handles("cd", "pushd")
def _cd(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    w.read(text)
    operands = [a for a in args if not _option(a.value)]
    if not operands:
        return "~"
    return _cd_into(w, operands[0], cwd, [a.value for a in args if _option(a.value)])


def _cd_into(
    w: "Walker", operand: "Arg", cwd: str | None, options: "list[str | None]"
) -> str | None:
    """The directory `cd OPERAND` goes to, None when it is not known now."""
    target = operand.value
    if target is None or operand.multi or target == "-" or _searched(w, target):
        return None
    joined = join_path(cwd, target)
    if joined is None or joined.startswith("~") or ".." not in joined.split("/"):
        return joined
    return joined if _physical(w, options) else _logical(joined)


@handles("popd")
def _popd(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    w.read(text)
    return None


# -- shell state


@handles("export", "declare", "typeset", "local", "readonly")
def _declare(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    for arg in args:
        why = _declared_why(text, arg)
        if why:
            w.unknown(text, why)
            return cwd
    if any(a.value is None and "=" not in a.text for a in args):
        w.unknown(text, "a variable name that is not static")
        return cwd
    w.read(text)
    return cwd


def _declared_why(text: str, arg: "Arg") -> str:
    """Why one argument of export/declare/... changes what later commands run ("": it does not)."""
    value = arg.value
    if value is None:
        return ""  # a substitution in it was walked; a dynamic name is caught after
    if arg.multi:
        return "a brace or glob pattern as a variable name"
    if refers_or_evaluates(value) and not text.startswith("export"):
        return "declare -n/-i makes assignments refer or evaluate"
    name, eq, assigned = value.partition("=")
    if eq and risky_variable(name, assigned):
        return f"setting {name} changes what later commands run"
    return ""


@handles("read", "mapfile", "readarray", "getopts", "wait")
def _sets_variables(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    """These store input in variables: named one of the risky ones, they change what runs."""
    for arg in args:
        value = arg.value
        if value is not None and risky_variable(value.split("[", 1)[0], None):
            w.unknown(text, f"stores into {value}, which changes what later commands run")
            return cwd
        if value is not None:
            w.safe_vars.discard(value)  # now holds input, not a plain value
    w.read(text)
    return cwd


@handles("let")
def _let(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    for arg in args:
        why = _let_why(w, arg.value)
        if why:
            w.unknown(text, why)
            return cwd
    w.read(text)
    return cwd


def _let_why(w: "Walker", value: str | None) -> str:
    """Why one expression of `let` may run a command ("": it cannot)."""
    import re  # lazily: the hot path (plain words) needs no regex

    # the name an argument assigns is not evaluated; everything else is
    names = re.findall(r"[A-Za-z_][A-Za-z_0-9]*", re.sub(r"^\w+=", "", value or ""))
    assigned = re.match(r"^\s*(\w+)\s*[-+*/%^|&]?=", value or "")
    if assigned is not None and risky_variable(assigned.group(1), None):
        return f"let sets {assigned.group(1)}, which changes what later commands run"
    if value is None or "`" in value or "$" in value or any(n not in w.safe_vars for n in names):
        return "let evaluates variables whose values may hold commands"
    return ""


@handles("printf")
def _printf(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    for k, arg in enumerate(args[:-1]):
        if arg.value == "-v":
            name = args[k + 1].value
            if name is None or risky_variable(name.split("[", 1)[0], None):
                w.unknown(text, f"printf -v stores into {name or 'a dynamic name'}")
                return cwd
            w.safe_vars.discard(name)
    w.read(text)
    return cwd


@handles("set")
def _set(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    # Shell options change no files; `-P` makes later `cd` follow symlinks.
    values = [a.value or "" for a in args]
    if any(v.startswith(("-", "+")) and not v.startswith("--") and "P" in v for v in values) or (
        "physical" in values
    ):
        w.physical = True
    w.read(text)
    return cwd


@handles("unset")
def _unset(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    for arg in args:
        if arg.value is not None:
            w.functions.pop(arg.value, None)  # the name means the command again
    w.read(text)
    return cwd


@handles("trap")
def _trap(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
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


@handles("alias")
def _alias(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    if all(a.value is not None and "=" not in a.value for a in args):
        w.read(text)  # lists aliases
    else:
        w.unknown(text, "an alias changes what a later command name runs")
    return cwd


@handles("history")
def _history(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    if all(a.value is not None and a.value.isdigit() for a in args):
        w.read(text)
    else:
        w.unknown(text, "history with options changes or writes the history")
    return cwd


@handles("shopt")
def _shopt(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    if any(a.value is None or a.value.startswith(("-s", "-u", "-o")) for a in args):
        w.unknown(text, "shell options can change how later words expand")
    else:
        w.read(text)
    return cwd


@handles("eval")
def _eval(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    if any(a.value is None for a in args):
        w.unknown(text, "eval of a non-static string")
        return cwd
    w.reparse(text, " ".join(a.value or "" for a in args), cwd)
    return cwd


@handles("source", ".")
def _source(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    w.unknown(text, "runs another script in this shell")
    return cwd


# -- find


@handles("hash")
def _hash(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    """`hash` lists, forgets or looks up remembered programs; `-p PATH NAME`
    makes NAME run PATH."""
    if any(a.value is None or (a.value.startswith("-") and "p" in a.value) for a in args):
        w.unknown(text, "hash -p makes a command name run another program")
    else:
        w.read(text)
    return cwd
