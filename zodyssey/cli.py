"""The `zodyssey` command: one argparse entry dispatching to one module per command.

`zodyssey.commands.COMMANDS` is the registry; each command module exposes
`register(subparsers)`, which adds its parser and sets `handler`, a function of
the parsed arguments returning an exit code (zodyssey/commands/__init__.py
states the pattern). Modules import their heavy dependencies inside the handler, so `--help` and
the gate hook stay fast. `zodyssey hook pre-tool|post-tool` bypasses argparse
entirely: it runs on every tool call of a coding agent.
"""

from __future__ import annotations

import sys

from zodyssey import __version__
from zodyssey.core.exits import MEANINGS, Exit
from zodyssey.errors import ZodysseyError

# Not `typing.TYPE_CHECKING`: `zodyssey hook pre-tool` must not pay for `typing`,
# `collections` or `importlib` (mypy treats this name the same way).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Sequence
    from typing import Any

EPILOG = (
    "exit codes (shared by every command):\n"
    + "".join(f"  {code:<3} {meaning}\n" for code, meaning in MEANINGS)
    + """
examples:
  zodyssey check                 citations and claims, as CI runs them
  check-anchors --update         re-baseline the citation lock deliberately
  zodyssey audit my-run --format html -o report.html
"""
)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole parser, or (`only`: a command name) the top level with that command alone.

    Building every command's parser imports every command module (about 50 ms
    of start-up); a run of one command needs only its own. `--help`, a bare
    `zodyssey` and an unknown command get the whole parser, so what they
    print is unchanged.
    """
    # argparse is imported here, not at the top: `zodyssey hook pre-tool` never needs it.
    import argparse
    import importlib

    from zodyssey.commands import COMMANDS

    class _Parser(argparse.ArgumentParser):
        def error(self, message: str) -> Any:
            # argparse exits 2 on bad arguments already; keep one clear line and the usage.
            self.print_usage(sys.stderr)
            self.exit(Exit.USAGE, f"{self.prog}: error: {message}\n")

    parser = _Parser(
        prog="zodyssey",
        description=(
            "Keep a repository honest in CI while AI coding agents work on it: a citation "
            "lock for file:line references in docs, claims defended by tests, a gate hook "
            "for coding agents, recorded run evidence and a post-run audit."
        ),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"zodyssey {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, module_name in COMMANDS.items():
        if only is not None and name != only:
            continue
        module = importlib.import_module(module_name)
        module.register(sub)
    return parser


# `zodyssey hook EVENT`: run by the harness, straight to the hook (no argparse).
HOOK_EVENTS = ("pre-tool", "post-tool", "subagent-stop")


def _run(argv: Sequence[str]) -> int:
    from zodyssey.commands import COMMANDS

    args = list(argv)
    if len(args) >= 2 and args[0] == "hook" and args[1] in HOOK_EVENTS:
        from zodyssey.gate.hook import main as hook_main

        return hook_main(args[1:])
    if args[:1] == ["sandbox"] and "-h" not in args[1:2] and "--help" not in args[1:2]:
        from zodyssey.sandbox.runner import main as sandbox_main

        return sandbox_main(args[1:])
    # The first word is the command when it names one (top-level options come
    # first otherwise, and those, like --help, need the whole parser).
    parser = build_parser(args[0] if args and args[0] in COMMANDS else None)
    namespace = parser.parse_args(args)
    handler: Callable[[argparse.Namespace], int] | None = getattr(namespace, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return Exit.USAGE
    return handler(namespace)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _run(sys.argv[1:] if argv is None else argv)
    except ZodysseyError as exc:
        print(f"zodyssey: error: {exc.message}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("zodyssey: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


def check_anchors_main(argv: Sequence[str] | None = None) -> int:
    """`check-anchors`: the same as `zodyssey anchors check`."""
    from zodyssey.commands import anchors

    rest = sys.argv[1:] if argv is None else list(argv)
    anchors.PROG = "check-anchors"  # its help and errors name the command as invoked
    return main(["anchors", "check", *rest])
