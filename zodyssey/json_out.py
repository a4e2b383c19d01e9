"""`--json` for commands that report in lines of text: one JSON object on stdout instead.

The command does the same work and exits with the same code as without
`--json`. What it would print on stdout becomes the object's `messages` (one
string per line); whatever the programs it starts write (acceptance criteria,
pytest) goes to stderr meanwhile, so stdout holds the one object and nothing
else. An error the command ends with is the object's `error` and still reaches
stderr and the exit code as it does without `--json`.

The object: `command` (e.g. "run verify"), `exit_code`, `ok` (exit code 0),
`messages`, `error` (the message, or null), plus what the command adds (for the
`run` verbs `slug` and `run`, the run's status summary afterwards; for
`hook install` `harness`, `project` and `dry_run`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zodyssey.errors import ZodysseyError

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    Handler = Callable[[argparse.Namespace], int]
    Details = Callable[[argparse.Namespace, dict[str, Any]], dict[str, Any]]

JSON_HELP = (
    "print one JSON object on stdout instead of text (command, exit_code, ok, messages, "
    "error{extra}); output of the programs it runs goes to stderr; exit codes unchanged"
)


def run_as_json(
    command: str, handler: Handler, args: argparse.Namespace, details: Details | None
) -> int:
    """Run `handler(args)` with its stdout collected, then print the one object."""
    import contextlib
    import io
    import json
    import os
    import sys

    buffer = io.StringIO()
    sys.stdout.flush()
    saved = os.dup(1)
    error: ZodysseyError | None = None
    code = 0
    try:
        os.dup2(2, 1)  # programs the command starts write to stderr, not into the object
        with contextlib.redirect_stdout(buffer):
            try:
                code = handler(args)
            except ZodysseyError as exc:
                error = exc
                code = exc.exit_code
    finally:
        os.dup2(saved, 1)
        os.close(saved)
    document: dict[str, Any] = {
        "command": command,
        "exit_code": code,
        "ok": code == 0,
        "messages": buffer.getvalue().splitlines(),
        "error": error.message if error is not None else None,
    }
    if details is not None:
        document.update(details(args, document))
    sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    sys.stdout.flush()
    if error is not None:
        raise error
    return code


class JsonAware:
    """A handler that answers with one JSON object when the command got `--json`.

    `details` is a function of (arguments, the object so far) giving the command's
    own keys, or a (module, name) pair naming one, imported only when it is needed."""

    def __init__(
        self, command: str, handler: Handler, details: Details | tuple[str, str] | None = None
    ) -> None:
        self.command = command
        self.handler = handler
        self.details = details

    def __call__(self, args: argparse.Namespace) -> int:
        if not getattr(args, "json", False):
            return self.handler(args)
        details = self.details
        if isinstance(details, tuple):
            import importlib

            details = getattr(importlib.import_module(details[0]), details[1])
        return run_as_json(self.command, self.handler, args, details)
