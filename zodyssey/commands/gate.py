"""`zodyssey gate classify`: the gate's shell classifier as a command.

With `--jsonl`, reads lines `{"command": "..."}` on stdin and writes one line
per input: `{"command", "class": "read"|"write", "targets": [...], "unknown": bool}`.
Without it, classifies the COMMAND arguments (one per argument) the same way.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from zodyssey.commands import verbs
from zodyssey.core.exits import Exit
from zodyssey.errors import UsageError

EPILOG = """\
output fields:
  class     read: nothing in the command can write; write: some part can
  targets   files the write-capable parts name (as written, after cd/-C joins)
  unknown   true when some write-capable part names no target (or not all)

exit codes:
  0   every line classified
  2   bad arguments, or an input line that is not {"command": "..."}
      or one the classifier fails on (that line is answered with
      {"line": N, "error": "..."}; every other line is still classified, in order)

examples:
  zodyssey gate classify --jsonl < corpus.jsonl
  zodyssey gate classify 'echo x > src/app.py'
"""


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "gate",
        help="Shell command classifier used by the gate.",
        description="Tools of the gate hook.",
    )
    actions = verbs(parser, "gate_command")
    classify = actions.add_parser(
        "classify",
        help="classify shell commands as read or write, with their targets",
        description=(
            "Classify shell command lines the way the gate hook does: every simple command "
            "is parsed, unknown commands count as write-capable with no target."
        ),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    classify.add_argument(
        "--jsonl", action="store_true", help='read {"command": ...} lines on stdin'
    )
    classify.add_argument(
        "--read-only",
        action="append",
        default=[],
        metavar="CMD",
        help="treat CMD (words, e.g. 'npm test') as read-only, like [tool.zodyssey.gate] read_only",
    )
    classify.add_argument("commands", nargs="*", metavar="COMMAND")
    classify.set_defaults(handler=run)


def _line(record: dict[str, Any]) -> str:
    """One output line: UTF-8 where it can be, `\\uXXXX` escapes where it cannot
    (a lone surrogate from a JSON escape or an undecodable argument byte)."""
    text = json.dumps(record, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(record)
    return text + "\n"


def _problem(raw: bytes) -> tuple[Any, str | None]:
    """(the decoded record, None) or (None, what is wrong with the input line)."""
    try:
        record = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return None, "is not UTF-8"
    except json.JSONDecodeError as exc:
        return None, f"is not JSON ({exc.msg})"
    if not isinstance(record, dict) or not isinstance(record.get("command"), str):
        return None, 'is not an object with a "command" string'
    return record, None


def _answer(number: int, raw: bytes, read_only: list[list[str]]) -> tuple[dict[str, Any], bool]:
    """The output record of one input line, and whether it is an error."""
    from zodyssey.gate.shell import classify

    record, error = _problem(raw)
    if error is None:
        try:
            return classify(record["command"], read_only).as_record(), False
        except Exception as exc:  # a classifier bug: say so for this line, go on
            error = f"could not be classified ({type(exc).__name__}: {exc})"
    print(f"zodyssey gate classify: stdin line {number} {error}", file=sys.stderr)
    return {"line": number, "error": error}, True


def run(args: argparse.Namespace) -> int:
    from zodyssey.gate.shell import classify

    read_only = [entry.split() for entry in args.read_only if entry.split()]
    out = sys.stdout
    if not args.jsonl:
        if not args.commands:
            raise UsageError("give COMMAND arguments, or --jsonl with lines on stdin")
        for command in args.commands:
            out.write(_line(classify(command, read_only).as_record()))
        return 0
    # Every input line gets an output line, in order: a line that is not
    # {"command": "..."} gets {"line": N, "error": "..."} and exit 2 at the end.
    bad = 0
    for number, raw in enumerate(sys.stdin.buffer, start=1):
        if not raw.strip():
            continue
        answer, failed = _answer(number, raw, read_only)
        bad += failed
        out.write(_line(answer))
        out.flush()
    return Exit.USAGE if bad else Exit.OK
