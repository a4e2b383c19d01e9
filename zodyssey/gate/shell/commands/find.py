"""find: its actions (-exec, -delete, -fprint) decide whether it writes."""

from zodyssey.gate.shell.commands import handles
from zodyssey.gate.shell.records import Arg

TYPE_CHECKING = False
if TYPE_CHECKING:
    from zodyssey.gate.shell.commands import Walker


# -- find


_FIND_EXEC = ("-exec", "-execdir", "-ok", "-okdir")
_FIND_FILE_ACTIONS = ("-fprint", "-fprint0", "-fprintf", "-fls")


@handles("find")
def _find(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    i = 0
    wrote = False
    while i < len(args):
        value = args[i].value
        i += 1
        action = _ACTIONS.get(value or "")
        if action is not None:
            i = action(w, text, args, i, cwd)
            wrote = True
    if not wrote:
        w.read(text)
    return cwd


# Each action is judged from the word after it (`args[i]`); it returns the
# index of the word after what it takes.
def _exec(w: "Walker", text: str, args: "list[Arg]", i: int, cwd: str | None) -> int:
    """-exec/-execdir/-ok/-okdir CMD ... ; (or +): CMD runs on every match."""
    inner: list[Arg] = []
    while i < len(args) and args[i].value not in (";", "+"):
        inner.append(args[i])
        i += 1
    inner = [a for a in inner if a.value != "{}"]
    if not inner:
        w.unknown(text, "find -exec without a command")
    else:
        w.nested(text, inner, cwd, extra_unknown=True)
    return i + 1


def _delete(w: "Walker", text: str, args: "list[Arg]", i: int, cwd: str | None) -> int:
    w.unknown(text, "find -delete removes whatever matches")
    return i


def _file_action(w: "Walker", text: str, args: "list[Arg]", i: int, cwd: str | None) -> int:
    """-fprint FILE, -fprint0 FILE, -fls FILE, -fprintf FILE FORMAT write FILE."""
    action = args[i - 1].value
    target = args[i] if i < len(args) else Arg(None)
    w.write(text, cwd, [target], f"find {action} writes a file")
    return i + (2 if action == "-fprintf" else 1)


_ACTIONS = {
    **dict.fromkeys(_FIND_EXEC, _exec),
    "-delete": _delete,
    **dict.fromkeys(_FIND_FILE_ACTIONS, _file_action),
}


# -- git
