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
    """Run one command; every failure is one line on stderr and a documented code.

    Standard output that is closed (`>&-`), full (`> /dev/full`) or a pipe whose
    reader went away is such a failure too (exit 2): a report that was not
    written must not pass for one that was. A closed descriptor is first
    plugged with /dev/null, so no file or git process opened later takes its
    number and receives the report.
    """
    closed = _plug_closed_streams()
    watched = _Watched(sys.stdout)
    sys.stdout = watched
    try:
        code = _run(sys.argv[1:] if argv is None else argv)
    except ZodysseyError as exc:
        _say(f"zodyssey: error: {exc.message}")
        code = exc.exit_code
    except KeyboardInterrupt:
        _say("zodyssey: interrupted")
        return 130
    except SystemExit as exc:  # argparse's --help, --version and usage errors
        code = exc.code if isinstance(exc.code, int) else Exit.USAGE if exc.code else Exit.OK
    except OSError as exc:
        if watched.failed is None:
            where = f" ({exc.filename})" if exc.filename else ""
            _say(f"zodyssey: error: {exc.strerror or exc}{where}")
            return Exit.USAGE
    finally:
        sys.stdout = watched.stream
    if watched.failed is None:
        try:
            watched.stream.flush()
        except OSError as exc:
            watched.failed = exc.strerror or str(exc)
    if watched.failed is not None:
        return _output_lost(watched.failed)
    if closed is not None and closed.getvalue():
        return _output_lost("standard output is closed")
    return code


class _Watched:
    """Standard output, noting a write or flush that fails (argparse swallows those
    for --help and --version; a report cut off must not look written)."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.failed: str | None = None

    def write(self, text: str) -> int:
        try:
            written: int = self.stream.write(text)
        except OSError as exc:
            self.failed = exc.strerror or str(exc)
            raise
        return written

    def flush(self) -> None:
        try:
            self.stream.flush()
        except OSError as exc:
            self.failed = exc.strerror or str(exc)
            raise

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def _plug_closed_streams() -> Any:
    """Put /dev/null on a closed fd 0, 1 or 2; for a closed stdout, return the
    in-memory stream that stands in for it (what was written there is lost)."""
    import io
    import os

    closed = None
    for fd, name in ((0, "stdin"), (1, "stdout"), (2, "stderr")):
        if getattr(sys, name) is not None:
            continue
        null = os.open(os.devnull, os.O_RDWR)
        if null != fd:
            os.dup2(null, fd)
            os.close(null)
        if fd == 1:
            closed = io.StringIO()
            sys.stdout = closed
        else:
            setattr(sys, name, open(fd, "r" if fd == 0 else "w", closefd=False))  # noqa: SIM115
    return closed


def _output_lost(why: str) -> int:
    """Exit 2 with one line: the report could not be written to standard output."""
    import os

    try:  # what is still buffered must not fail again at exit
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.close(null)
    except OSError:
        pass
    _say(
        f"zodyssey: error: cannot write to standard output ({why}): the output is lost; "
        "write the report to a file with -o FILE"
    )
    return Exit.USAGE


def _say(line: str) -> None:
    import contextlib

    with contextlib.suppress(OSError, ValueError, AttributeError):
        print(line, file=sys.stderr)


def check_anchors_main(argv: Sequence[str] | None = None) -> int:
    """`check-anchors`: the same as `zodyssey anchors check`."""
    from zodyssey.commands import anchors

    rest = sys.argv[1:] if argv is None else list(argv)
    anchors.PROG = "check-anchors"  # its help and errors name the command as invoked
    return main(["anchors", "check", *rest])
