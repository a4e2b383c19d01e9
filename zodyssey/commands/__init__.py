"""One module per `zodyssey` subcommand, all written the same way.

The pattern (tox's "a command registers itself"):
- `COMMANDS` below is the one registry: command name -> module. `zodyssey/cli.py`
  imports the modules listed here, in this order (the order of `--help`).
- Each module has `register(subparsers)`: it adds its parser and sets
  `handler`, a function of the parsed arguments returning an exit code
  (`zodyssey.core.exits.Exit`). A command with verbs takes them from `verbs()`,
  so the command given without a verb is answered one way everywhere: its help
  on stderr, exit 2. A handler that lives in another package is named with
  `lazy()`, so nothing heavy is imported until that command runs.
- `--format` comes from `add_format()`: one list of output formats,
  `zodyssey.formats.FORMATS`, for every command.

A module parses and checks arguments, then calls the package that does the work
(`zodyssey.anchors`, `zodyssey.claims`, `zodyssey.runs`, `zodyssey.audit`,
`zodyssey.gate`); heavy imports stay inside the handlers so `--help` stays fast.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    Handler = Callable[[argparse.Namespace], int]

# command name -> module that registers it (order is the order in --help)
COMMANDS: dict[str, str] = {
    "check": "zodyssey.commands.check",
    "anchors": "zodyssey.commands.anchors",
    "claims": "zodyssey.commands.claims",
    "hook": "zodyssey.commands.hook",
    "gate": "zodyssey.commands.gate",
    "run": "zodyssey.commands.run",
    "audit": "zodyssey.commands.audit",
    "init": "zodyssey.commands.init",
    "sandbox": "zodyssey.commands.sandbox",
    "completion": "zodyssey.commands.completion",
}


class _NoVerb:
    """The handler of a command given without its verb: its help on stderr, exit 2."""

    def __init__(self, parser: argparse.ArgumentParser) -> None:
        self.parser = parser

    def __call__(self, args: argparse.Namespace) -> int:
        import sys

        from zodyssey.core.exits import Exit

        self.parser.print_help(sys.stderr)
        return Exit.USAGE


def verbs(
    parser: argparse.ArgumentParser, dest: str, metavar: str = "VERB"
) -> argparse._SubParsersAction[argparse.ArgumentParser]:
    """The verbs of a command (`zodyssey claims check`, `zodyssey run start`, ...)."""
    parser.set_defaults(handler=_NoVerb(parser))
    return parser.add_subparsers(dest=dest, metavar=metavar, parser_class=type(parser))


class _Lazy:
    def __init__(self, module: str, name: str) -> None:
        self.module = module
        self.name = name

    def __call__(self, args: argparse.Namespace) -> int:
        import importlib

        handler: Handler = getattr(importlib.import_module(self.module), self.name)
        return handler(args)


def lazy(module: str, name: str) -> Handler:
    """A handler that imports `module` only when the command runs, then calls `name`."""
    return _Lazy(module, name)


def add_format(
    parser: argparse.ArgumentParser,
    *,
    default: str | None = "text",
    extra: tuple[str, ...] = (),
    json_flag: bool = True,
) -> None:
    """`--format` over `zodyssey.formats.FORMATS` (plus a command's own `extra`), and
    `--json` as its shorthand."""
    from zodyssey.formats import FORMATS

    parser.add_argument(
        "--format",
        choices=(*FORMATS, *extra),
        default=default,
        help="output format (default: text)",
    )
    if json_flag:
        parser.add_argument(
            "--json",
            action="store_const",
            const="json",
            dest="format",
            help="same as --format json",
        )
