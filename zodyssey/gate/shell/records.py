"""The classifier's records: tuples with named fields, written out by hand.

A `typing.NamedTuple` would cost `typing` plus a class built through `exec`
on every hook run. `Record` (`zodyssey.core.records`) gives every record what a
NamedTuple has (`_fields`, `_asdict`, `_replace`, a readable repr); each
subclass lists its fields, a typed `__new__` and typed accessors. (`Target`, the record the gate
shares with the other tool kinds, lives in `zodyssey.gate.toolcall`.)
"""

from zodyssey.core.records import Record
from zodyssey.gate.toolcall import Target

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Analysis", "Arg", "Part", "Record", "Target"]


class Part(Record):
    """One simple command or redirection and what it may write.

    `unbounded`: may write somewhere it does not name. `links`: may create links
    that other parts' paths could run through. `linked`: what a link made by
    this part points at (writing through the link writes these, so the gate
    checks them like targets; they are not listed as targets). `trusted`: for
    zodyssey's own commands, (kind, program path or "", *argv after the
    program) as judged by `zodyssey.gate.trusted`; the policy decides them."""

    __slots__ = ()
    _fields = ("text", "write", "targets", "unbounded", "why", "links", "linked", "trusted")

    def __new__(
        cls,
        text: str,
        write: bool,
        targets: "tuple[Target, ...]" = (),
        unbounded: bool = False,
        why: str = "",
        links: bool = False,
        linked: "tuple[Target, ...]" = (),
        trusted: tuple[str, ...] = (),
    ) -> "Part":
        return tuple.__new__(cls, (text, write, targets, unbounded, why, links, linked, trusted))

    @property
    def text(self) -> str:
        text: str = self[0]
        return text

    @property
    def write(self) -> bool:
        write: bool = self[1]
        return write

    @property
    def targets(self) -> "tuple[Target, ...]":
        targets: tuple[Target, ...] = self[2]
        return targets

    @property
    def unbounded(self) -> bool:
        unbounded: bool = self[3]
        return unbounded

    @property
    def why(self) -> str:
        why: str = self[4]
        return why

    @property
    def links(self) -> bool:
        links: bool = self[5]
        return links

    @property
    def linked(self) -> "tuple[Target, ...]":
        linked: tuple[Target, ...] = self[6]
        return linked

    @property
    def trusted(self) -> tuple[str, ...]:
        trusted: tuple[str, ...] = self[7]
        return trusted


class Analysis(Record):
    """A classified command line: every part, in order."""

    __slots__ = ()
    _fields = ("command", "parts")

    def __new__(cls, command: str, parts: "tuple[Part, ...]") -> "Analysis":
        return tuple.__new__(cls, (command, parts))

    @property
    def command(self) -> str:
        command: str = self[0]
        return command

    @property
    def parts(self) -> "tuple[Part, ...]":
        parts: tuple[Part, ...] = self[1]
        return parts

    @property
    def is_write(self) -> bool:
        return any(p.write for p in self.parts)

    @property
    def unknown(self) -> bool:
        """True when some write-capable part cannot be bounded by named targets."""
        return any(p.write and p.unbounded for p in self.parts)

    @property
    def targets(self) -> "tuple[Target, ...]":
        seen: dict[str, Target] = {}
        for part in self.parts:
            for target in part.targets:
                previous = seen.get(target.path)
                if previous is None or (previous.append and not target.append):
                    seen[target.path] = target
        return tuple(seen.values())

    @property
    def linked(self) -> "tuple[Target, ...]":
        """Paths that links made by this command point at."""
        return tuple(t for part in self.parts for t in part.linked)

    def unbounded_parts(self) -> "list[Part]":
        return [p for p in self.parts if p.write and p.unbounded]

    def as_record(self) -> "dict[str, Any]":
        return {
            "command": self.command,
            "class": "write" if self.is_write else "read",
            "targets": [t.path for t in self.targets],
            "unknown": self.unknown,
        }


class Arg(Record):
    """A word: static value after unquoting (None when it depends on expansion);
    `multi` for an unquoted glob or brace pattern that may name several paths."""

    __slots__ = ()
    _fields = ("value", "multi", "text")

    def __new__(cls, value: str | None, multi: bool = False, text: str = "") -> "Arg":
        return tuple.__new__(cls, (value, multi, text))

    @property
    def value(self) -> str | None:
        value: str | None = self[0]
        return value

    @property
    def multi(self) -> bool:
        multi: bool = self[1]
        return multi

    @property
    def text(self) -> str:
        text: str = self[2]
        return text
