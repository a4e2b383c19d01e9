"""zodyssey's own commands: the argv is judged in `zodyssey.gate.trusted`.

`zodyssey run status|lint|list` only read; the other `run` forms the agent may
use become a write-capable part carrying `trusted`, which the policy decides
(the store enforces their rules); forms that belong to a person are marked so
the policy can refuse them with a reason. `run window ... -- CMD` judges CMD
like any other command.
"""

from zodyssey.gate.shell.commands import handles
from zodyssey.gate.shell.records import Arg, Part

TYPE_CHECKING = False
if TYPE_CHECKING:
    from zodyssey.gate.shell.commands import Walker


def runs_zodyssey(args: "list[Arg]") -> bool:
    """`python -m zodyssey ...`"""
    return len(args) >= 2 and args[0].value == "-m" and args[1].value == "zodyssey"


def judge(
    w: "Walker", text: str, args: "list[Arg]", cwd: str | None, program: str = ""
) -> str | None:
    """Record `zodyssey ARGS` (`program`: the path it was run by, "" for a bare name)."""
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


@handles("zodyssey")
def _zodyssey(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    return judge(w, text, args, cwd)
