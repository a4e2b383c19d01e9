"""Which `zodyssey ...` command lines an agent may run from its shell during a run.

`zodyssey run` is the trusted writer of run state: the store enforces its
rules (no `todo done` without evidence, no
`phase done` with open todos, the review round cap), so the agent may call it
like any other program. A few forms exist for a person to override those rules
(a human verdict, a forced `done`, abandoning or parking a run); when an agent
runs them they are refused with a reason that says to ask the user.

The shell classifier (`zodyssey.gate.shell`) hands the argv after the program
name to `judge`, which only looks at words, never at files: the state-dependent
part (leaving a `blocked` phase) is judged by the policy. Imported only when a
command line names zodyssey, so it costs nothing on other calls.

Forms (argparse accepts unambiguous abbreviations of long options, so an
abbreviation of a person-only option counts as that option):
- read-only: `run status|lint|list`, `--help` anywhere, `zodyssey --version`,
  `zodyssey audit` without `-o/--output`;
- agent-allowed: `run start`, `run verify`,
  `run todo ... pending|in_flight|done|failed`, `run window ... -- CMD` (CMD is
  classified like any command), `run phase` to a non-terminal phase or `done`;
- person-only: `run review` in every form (a reviewer's verdict is taken from
  the harness's report of the reviewer dispatch, never from the agent), `zodyssey
  hook ...` (the harness runs it), `run todo --force-done`, `run todo ...
  blocked`, `run phase --force`, `run phase abandoned|blocked|audited`;
- anything else is not on the allowlist (judged as an unknown program).
"""

import os
import sys

from zodyssey.core.vocabulary import AGENT_TODO_STATUSES, PERSON_PHASES

READ = "read"
AGENT = "agent"
PERSON = "person"
UNKNOWN = "unknown"
ASK_THE_USER = "ask the user to run it in their own terminal"

# Long options of each `zodyssey run` subcommand, and which of them take a value.
_COMMON = {"--repo": True, "--help": False}
_OPTIONS: dict[str, dict[str, bool]] = {
    "start": {**_COMMON, "--title": True, "--plan": True, "--max-rounds": True},
    "lint": dict(_COMMON),
    "list": {**_COMMON, "--json": False, "--all": False},
    "review": {
        **_COMMON,
        "--artifact": True,
        "--human": True,
        "--by": True,
        "--comment": True,
    },
    "verify": {**_COMMON, "--criterion": True, "--timeout": True},
    "todo": {
        **_COMMON,
        "--force-done": False,
        "--reason": True,
        "--owner": True,
    },
    "window": {**_COMMON, "--label": True, "--timeout": True},
    "phase": {
        **_COMMON,
        "--note": True,
        "--reason": True,
        "--force": False,
    },
    "status": {**_COMMON, "--json": False},
}
_READ_SUBCOMMANDS = frozenset({"status", "lint", "list"})


def _person(why: str) -> "tuple[str, str, int]":
    return PERSON, f"`zodyssey run {why}` belongs to a person: {ASK_THE_USER}", -1


def _parse(sub: str, words: "list[str]") -> "tuple[dict[str, str], list[str], int] | str":
    """(options by full name, positionals, index of the word after `--` or -1), or why not."""
    known = _OPTIONS[sub]
    options: dict[str, str] = {}
    positionals: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--":
            return options, positionals, i + 1
        if word == "-h":
            options["--help"] = ""
        elif word.startswith("--"):
            given, eq, value = word.partition("=")
            matches = [name for name in known if name.startswith(given)]
            if given in known:
                matches = [given]
            if len(matches) != 1:
                return f"zodyssey run {sub} {given} is not an option it knows"
            name = matches[0]
            if known[name] and not eq:
                if i + 1 >= len(words):
                    return f"zodyssey run {sub} {name} needs a value"
                value = words[i + 1]
                i += 1
            options[name] = value
        elif word.startswith("-") and word != "-":
            return f"zodyssey run {sub} {word} is not an option it knows"
        else:
            positionals.append(word)
        i += 1
    return options, positionals, -1


def judge(words: "list[str | None]") -> "tuple[str, str, int]":
    """(kind, reason, start of an embedded command or -1) for the words after `zodyssey`."""
    if any(w is None for w in words):
        return UNKNOWN, "a word of the zodyssey command is not static", -1
    argv = [w for w in words if w is not None]
    if not argv or argv[0] in ("--version", "--help", "-h"):
        return READ, "", -1
    if "--help" in argv or "-h" in argv:
        head = argv[: argv.index("--")] if "--" in argv else argv
        if "--help" in head or "-h" in head:
            return READ, "", -1
    if argv[0] == "audit":
        for word in argv[1:]:
            name = word.partition("=")[0]
            if word.startswith("-o") or (len(name) > 3 and "--output".startswith(name)):
                return UNKNOWN, "zodyssey audit -o writes a report file", -1
        return READ, "", -1
    if argv[0] == "hook":
        return (
            PERSON,
            "`zodyssey hook ...` is run by the harness around each tool call, never from the "
            f"agent's shell (it records the reviewer's verdict): {ASK_THE_USER}",
            -1,
        )
    if argv[0] != "run":
        return UNKNOWN, f"zodyssey {argv[0]} is not on the read-only allowlist", -1
    if len(argv) < 2:
        return READ, "", -1  # prints the usage
    sub = argv[1]
    if sub not in _OPTIONS:
        return UNKNOWN, f"zodyssey run {sub} is not a subcommand the gate knows", -1
    parsed = _parse(sub, argv[2:])
    if isinstance(parsed, str):
        return UNKNOWN, parsed, -1
    options, positionals, after = parsed
    if "--help" in options:
        return READ, "", -1
    if sub in _READ_SUBCOMMANDS:
        return READ, "", -1
    if sub == "review":
        # The reviewer's verdict comes from the harness's report of its dispatch,
        # never from the agent's shell; what is left of `run review` is a person's.
        return _person("review")
    if sub == "todo":
        if "--force-done" in options:
            return _person("todo --force-done")
        status = positionals[2] if len(positionals) > 2 else ""
        if status == "blocked":
            return _person("todo ... blocked")
        if status not in AGENT_TODO_STATUSES:
            return UNKNOWN, f"zodyssey run todo status {status!r} is not one it knows", -1
        return AGENT, "", -1
    if sub == "phase":
        if "--force" in options:
            return _person("phase --force")
        target = positionals[1] if len(positionals) > 1 else ""
        if target in PERSON_PHASES:
            return _person(f"phase {target}")
        return AGENT, "", -1
    if sub == "window":
        if after < 0 or after >= len(argv) - 2:
            return UNKNOWN, "zodyssey run window without `-- CMD`", -1
        return AGENT, "", after + 2  # index into the words after `zodyssey`
    return AGENT, "", -1  # start, verify


def phase_move(words: "tuple[str, ...]") -> "tuple[str, str | None, str] | None":
    """(slug, --repo or None, target) when `words` (after `zodyssey`) move a run's phase."""
    if len(words) < 2 or words[0] != "run" or words[1] != "phase":
        return None
    parsed = _parse("phase", list(words[2:]))
    if isinstance(parsed, str):
        return None
    options, positionals, _ = parsed
    if len(positionals) < 2:
        return None
    return positionals[0], options.get("--repo"), positionals[1]


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
