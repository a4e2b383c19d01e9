"""Which `zodyssey ...` command lines an agent may run from its shell during a run.

`zodyssey run` is the trusted writer of run state: the store enforces its
rules (no `todo done` without evidence, no `phase done` with open todos, the
review round cap), so the agent may call it like any other program. A few
forms exist for a person (a verdict, a forced `done`, abandoning or parking a
run); when an agent runs them they are refused with a reason that says to ask
the user.

The words are read by the very argparse definition the command uses
(`zodyssey.commands.run.register`, `zodyssey.commands.audit.register`), so
whatever argparse makes of them (`--`, abbreviations such as `--hum`, `=`
values, options after positionals) is what the gate judges: there is no second
table of options to drift from the real one. The parser only reads words,
never files: the state-dependent part (leaving a `blocked` phase) is judged by
the policy. Imported only when a command line names zodyssey, so it costs
nothing on other calls (argparse: a few milliseconds then).

Forms:
- read-only: `run status|lint|list`, any form argparse answers with its help
  or version (`--help`, `-h`, `--version`), `zodyssey audit` without
  `-o/--output`, `zodyssey run` alone (its usage);
- agent-allowed: `run start`, `run verify`, `run todo ...
  pending|in_flight|done|failed`, `run window ... -- CMD` (CMD is classified
  like any command), `run phase` to a non-terminal phase or `done`;
- person-only: `run review` in every form (a reviewer's verdict is taken from
  the harness's report of the reviewer dispatch, never from the agent),
  `zodyssey hook ...` (the harness runs it), `run todo --force-done`, `run todo
  ... blocked`, `run phase --force`, `run phase abandoned|blocked|audited`;
- anything else, and any argv the real parser refuses, is not on the
  allowlist (judged as an unknown program).
"""

import os
import sys

from zodyssey.core.vocabulary import AGENT_TODO_STATUSES, PERSON_PHASES

TYPE_CHECKING = False  # mypy treats this as typing.TYPE_CHECKING; no runtime import
if TYPE_CHECKING:
    import argparse
    import typing

READ = "read"
AGENT = "agent"
PERSON = "person"
UNKNOWN = "unknown"
ASK_THE_USER = "ask the user to run it in their own terminal"

_READ_SUBCOMMANDS = frozenset({"status", "lint", "list"})
# Top-level commands the parser below knows; the others are judged without it.
_PARSED = ("run", "audit")


class _Answered(Exception):
    """argparse printed help, usage or a version and would exit: nothing runs."""


class _Refused(Exception):
    """argparse refuses the words (the command would exit 2 without running)."""


_PARSER: "list[argparse.ArgumentParser]" = []


def parser() -> "argparse.ArgumentParser":
    """`zodyssey` with the real `run` and `audit` definitions, printing nothing."""
    if _PARSER:
        return _PARSER[0]
    import argparse

    from zodyssey.commands import audit, run

    class Judge(argparse.ArgumentParser):
        def _print_message(self, message: str, file: object = None) -> None:
            return None  # the hook's stdout is its reply to the harness

        def exit(self, status: int = 0, message: "str | None" = None) -> "typing.NoReturn":
            raise _Answered(message or "")

        def error(self, message: str) -> "typing.NoReturn":
            raise _Refused(message)

    top = Judge(prog="zodyssey", add_help=True)
    top.add_argument("--version", action="version", version="zodyssey")
    sub = top.add_subparsers(dest="command", parser_class=Judge)
    run.register(sub)
    audit.register(sub)
    _PARSER.append(top)
    return top


def parse(words: "list[str]") -> "argparse.Namespace | str | None":
    """The namespace argparse makes of `words` (after `zodyssey`); None when it only
    answers (help, usage, version); the reason when it refuses them."""
    try:
        return parser().parse_args(words)
    except _Answered:
        return None
    except _Refused as exc:
        return str(exc)
    except (TypeError, ValueError) as exc:  # a type conversion argparse did not wrap
        return str(exc)


def _person(why: str) -> "tuple[str, str, int]":
    return PERSON, f"`zodyssey run {why}` belongs to a person: {ASK_THE_USER}", -1


def _help_before_end(argv: "list[str]") -> bool:
    head = argv[: argv.index("--")] if "--" in argv else argv
    return "--help" in head or "-h" in head


def judge(words: "list[str | None]") -> "tuple[str, str, int]":
    """(kind, reason, start of an embedded command or -1) for the words after `zodyssey`."""
    if any(w is None for w in words):
        return UNKNOWN, "a word of the zodyssey command is not static", -1
    argv = [w for w in words if w is not None]
    if not argv:
        return READ, "", -1  # prints the usage
    if argv[0] == "hook":
        if _help_before_end(argv):
            return READ, "", -1
        return (
            PERSON,
            "`zodyssey hook ...` is run by the harness around each tool call, never from the "
            f"agent's shell (it records the reviewer's verdict): {ASK_THE_USER}",
            -1,
        )
    if argv[0] not in _PARSED and not argv[0].startswith("-"):
        if _help_before_end(argv):
            return READ, "", -1
        return UNKNOWN, f"zodyssey {argv[0]} is not on the read-only allowlist", -1
    parsed = parse(argv)
    if parsed is None:
        return READ, "", -1
    if isinstance(parsed, str):
        return UNKNOWN, f"zodyssey refuses these arguments ({parsed})", -1
    command = getattr(parsed, "command", None)
    if command == "audit":
        if parsed.output is not None:
            return UNKNOWN, "zodyssey audit -o writes a report file", -1
        return READ, "", -1
    if command != "run":
        return READ, "", -1  # `zodyssey` alone prints its usage
    return _judge_run(parsed, argv)


def _judge_run(parsed: "argparse.Namespace", argv: "list[str]") -> "tuple[str, str, int]":
    sub = getattr(parsed, "run_command", None)
    if sub is None or sub in _READ_SUBCOMMANDS:
        return READ, "", -1
    if sub == "review":
        # The reviewer's verdict comes from the harness's report of its dispatch,
        # never from the agent's shell; what is left of `run review` is a person's.
        return _person("review")
    if sub in ("todo", "phase"):
        value = parsed.status if sub == "todo" else parsed.phase
        if not isinstance(value, str):  # `-- --` leaves argparse an empty list here
            return (
                UNKNOWN,
                f"zodyssey run {sub} names no {'status' if sub == 'todo' else 'phase'}",
                -1,
            )
    if sub == "todo":
        if parsed.force_done:
            return _person("todo --force-done")
        if parsed.status == "blocked":
            return _person("todo ... blocked")
        if parsed.status not in AGENT_TODO_STATUSES:
            return UNKNOWN, f"zodyssey run todo status {parsed.status!r} is not one it knows", -1
        return AGENT, "", -1
    if sub == "phase":
        if parsed.force:
            return _person("phase --force")
        if parsed.phase in PERSON_PHASES:
            return _person(f"phase {parsed.phase}")
        return AGENT, "", -1
    if sub == "window":
        rest = list(parsed.rest or [])
        if "--" not in rest or rest.index("--") >= len(rest) - 1:
            return UNKNOWN, "zodyssey run window without `-- CMD`", -1
        # REMAINDER is the tail of argv: the command after `--` starts here.
        return AGENT, "", len(argv) - len(rest) + rest.index("--") + 1
    if sub in ("start", "verify"):
        return AGENT, "", -1
    return UNKNOWN, f"zodyssey run {sub} is not a subcommand the gate knows", -1


def phase_move(words: "tuple[str, ...]") -> "tuple[str, str | None, str] | None":
    """(slug, --repo or None, target) when `words` (after `zodyssey`) move a run's phase."""
    if "run" not in words:
        return None
    parsed = parse(list(words))
    if parsed is None or isinstance(parsed, str):
        return None
    if getattr(parsed, "command", None) != "run" or parsed.run_command != "phase":
        return None
    return str(parsed.slug), parsed.repo, str(parsed.phase)


def is_gate_program(path: str) -> bool:
    """True when `path` (absolute, resolved by the caller's cwd) is the installed zodyssey.

    That is: `zodyssey` or a `python*` in the directory of the interpreter the
    gate runs under (the virtualenv's `bin/`). Only the directory is resolved:
    a virtualenv's `python` is a link to the base interpreter, which would
    import another zodyssey or none.
    """
    directory, name = os.path.split(path)
    ours = os.path.realpath(os.path.dirname(sys.executable))
    if os.path.realpath(directory) != ours:
        return False
    if name == "zodyssey":
        return os.path.isfile(path)
    return name.startswith("python") and os.path.exists(path)
