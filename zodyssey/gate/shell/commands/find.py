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
