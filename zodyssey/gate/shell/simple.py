"""Simple commands: what one command and its words can write.

`Commands.simple` unwraps the command name, applies the user's read-only
entries and hands the words to the command's handler (`commands.handler_for`)
or to the allowlists in `tables`; `read`, `write` and `unknown` record what it
found. A command line of plain words (`git status`) is classified here alone,
without the parser or the tree walker: `Walker` (walker.py) extends this class
with the syntax tree. When a plain command turns out to need the parser (code
in a string: `eval ...`, `bash -c ...`), `run` raises `NeedsParser` and the
caller starts again with a `Walker`.
"""

from zodyssey.gate.shell.commands import handler_for
from zodyssey.gate.shell.records import Arg, Part, Target
from zodyssey.gate.shell.tables import (
    DEV_SINKS,
    EVALUATED_SUBSCRIPT,
    NAME_BUILTINS,
    OPTIONS_THAT_MATTER,
    READ_ONLY,
    SYSTEM_BIN,
    VERSION_QUERY,
)
from zodyssey.gate.shell.words import join_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any


class TooLarge(Exception):
    pass


class NeedsParser(Exception):
    """Raised by `Commands.run`: this command holds code only the walker can read."""


def _search(pattern: str, text: str) -> bool:
    import re  # only where a subscript may be evaluated: most commands need no regex

    return re.search(pattern, text) is not None


def through_links(parts: "list[Part]") -> "tuple[Part, ...]":
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


class Commands:
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
        self.cdpath = False  # CDPATH may be set: `cd NAME` may go anywhere

    # -- recording
    def read(self, text: str) -> None:
        self.parts.append(Part(text, False))

    def unknown(self, text: str, why: str, targets: "Sequence[Target]" = ()) -> None:
        self.parts.append(Part(text, True, tuple(targets), True, why))

    def write(
        self,
        text: str,
        cwd: str | None,
        paths: "Sequence[Arg]",
        why: str,
        append: bool = False,
    ) -> None:
        targets: list[Target] = []
        unbounded = not paths
        for arg in paths:
            path = _written_path(cwd, arg)
            if path is None:
                unbounded = True
            elif path:
                targets.append(Target(path, append))
        if not targets and not unbounded:
            self.read(text)  # only sinks such as /dev/null
            return
        self.parts.append(Part(text, True, tuple(targets), unbounded, why))

    def simple(
        self,
        text: str,
        name_arg: "Arg",
        args: "list[Arg]",
        cwd: str | None,
        functions: bool = True,
    ) -> str | None:
        name = name_arg.value
        if name is None or name_arg.multi or name == "":
            self.unknown(text, "the command name is not static")
            return cwd
        if "/" in name:
            base = name.rsplit("/", 1)[1]
            if not _in_system_bin(name, base):
                return self._program(text, name, base, args, cwd)
            name = base
        name = _python_alias(name)
        as_written = name == name_arg.value
        function = self.functions.get(name_arg.value or "") if functions else None
        if function is not None and as_written:
            return self.call(text, name, function[0], cwd)
        return self._named(text, name, as_written, args, cwd)

    def _named(
        self, text: str, name: str, as_written: bool, args: "list[Arg]", cwd: str | None
    ) -> str | None:
        """A command by its name (a function of the script ruled out)."""
        if self._configured_read_only(name, args):
            self.read(text)
            return cwd
        if name in NAME_BUILTINS and as_written and _evaluates(name, args):
            self.unknown(text, f"{name} evaluates a subscript or callback it is given")
            return cwd
        handler = handler_for(name)
        if handler is not None:
            abbreviated = abbreviated_option(name, args)
            if abbreviated:
                self.unknown(text, f"{name} {abbreviated} abbreviates an option that matters")
                return cwd
            return handler(self, text, args, cwd)
        if _listed_read_only(name, args):
            self.read(text)
            return cwd
        self.unknown(text, f"{name} is not on the read-only allowlist")
        return cwd

    def _program(
        self, text: str, name: str, base: str, args: "list[Arg]", cwd: str | None
    ) -> str | None:
        """A command named by a path outside the system directories."""
        if base == "zodyssey" or base.startswith("python"):
            from zodyssey.gate.shell.commands import zodyssey

            program = join_path(cwd, name)
            # The policy checks that `program` is the installed zodyssey.
            if program is not None and base == "zodyssey":
                return zodyssey.judge(self, text, args, cwd, program)
            if program is not None and zodyssey.runs_zodyssey(args):
                return zodyssey.judge(self, text, args[2:], cwd, program)
        self.unknown(text, f"runs the program {name}")
        return cwd

    def _configured_read_only(self, name: str, args: "list[Arg]") -> bool:
        """The command line starts with one of the configured read-only commands."""
        words = [name, *[a.value for a in args]]
        return any(
            len(words) >= len(entry) and all(w == e for w, e in zip(words, entry, strict=False))
            for entry in self.read_only
        )

    def nested(
        self, text: str, args: "list[Arg]", cwd: str | None, extra_unknown: bool = False
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

    # -- what only the walker can do
    def run(self, source: str, cwd: str | None, depth: int, keep_functions: bool = False) -> None:
        raise NeedsParser(source)

    def call(self, text: str, name: str, definition: "Any", cwd: str | None) -> str | None:
        raise NeedsParser(text)  # functions exist only in a walked script


def _written_path(cwd: str | None, arg: "Arg") -> str | None:
    """The path `arg` writes as seen from `cwd`: "" for a sink (/dev/null),
    None when it cannot be named now (not static, a pattern, `~user`)."""
    value = arg.value
    if value is None or arg.multi or value == "":
        return None
    if value in DEV_SINKS:
        return ""
    if value.startswith("~") and not (value == "~" or value.startswith("~/")):
        return None  # ~user/...
    return join_path(cwd, value)


def _in_system_bin(name: str, base: str) -> bool:
    """`/bin/ls`, `/usr/bin/git`: the command itself, named by its system path."""
    return any(name == prefix + base for prefix in SYSTEM_BIN)


def _python_alias(name: str) -> str:
    """`python3.11`, `python3` and `python2.7` are judged as `python3`."""
    if name.startswith("python") and name[6:].replace(".", "").isdigit():
        return "python3"
    return name


def _listed_read_only(name: str, args: "list[Arg]") -> bool:
    """On the read-only allowlist, or its version query (`node --version`)."""
    if name in READ_ONLY:
        return True
    return name in VERSION_QUERY and len(args) == 1 and args[0].value in VERSION_QUERY[name]


def _evaluates(name: str, args: "list[Arg]") -> bool:
    """A builtin given a subscript it evaluates (`printf -v`'s name, any other
    argument) or a callback (`mapfile -C`)."""
    values = [a.value or "" for a in args]
    if name == "printf":
        values = [v for k, v in enumerate(values) if k and values[k - 1] == "-v"]
    return any("[" in v and _search(EVALUATED_SUBSCRIPT, v) for v in values) or _callback(
        name, values
    )


def _callback(name: str, values: list[str]) -> bool:
    """`mapfile -C CALLBACK` / `readarray -C`: runs the callback it is given."""
    return name in ("mapfile", "readarray") and any(v.startswith("-C") for v in values)


def abbreviated_option(name: str, args: "Sequence[Arg]") -> str | None:
    options = OPTIONS_THAT_MATTER.get(name)
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
