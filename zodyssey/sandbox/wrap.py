"""Wrapping an allowed shell call in the sandbox, for harnesses that let a hook
rewrite the call (Claude Code's PreToolUse `updatedInput`).

The rewritten command is

    ['HELPER'] 'PYTHON' -S -P '.../zodyssey/gate/hook_entry.py' sandbox --run SLUG --repo 'ROOT' -- bash -c 'ORIGINAL'

(HELPER: the native helper when it is built, `zodyssey/sandbox/native.py`; it
applies the grants the Python runner left and execs the command, or runs the
Python runner that follows it) with ORIGINAL byte for byte inside single quotes, so the person reading the
call (or a permission prompt) sees what runs. Claude Code applies
`updatedInput` only together with a permission decision (`allow` or `ask`;
checked in its 2.1 binary), so:

* `permission_mode` `bypassPermissions` (nothing would prompt anyway): every
  allowed shell call is wrapped, with `allow`;
* any other mode: only calls the classifier takes to write are wrapped, with
  `ask`, so the user confirms the wrapped command (those calls prompt in these
  modes unless the user allowed them by a rule); read-only calls run as they
  are, and the post-call check is their backstop.

Hot path: no `json` (the reply is encoded with `_json`'s C string encoder,
which `zodyssey.core.jsontext` has loaded already), no `shlex`, no `typing`.
"""

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

WRAP_HARNESSES = ("claude-code",)
MARK = " sandbox --run "  # in every wrapped command, after the entry script
ENTRY = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "gate", "hook_entry.py"
)


def quote(text: str) -> str:
    """`text` as one shell word in single quotes (a `'` as `'"'"'`)."""
    return "'" + text.replace("'", "'\"'\"'") + "'"


def wrapped(command: str, slug: str, root: str) -> str:
    """`slug`: the run, or several joined by `,` (each becomes a `--run`)."""
    runs = " --run ".join(slug.split(","))
    from zodyssey.sandbox.native import available

    helper = available(root)  # the native start (zodyssey/sandbox/native.py), if built
    return (
        (f"{quote(helper)} " if helper else "")
        + f"{quote(sys.executable)} -S -P {quote(ENTRY)}{MARK}{runs} --repo {quote(root)} "
        f"-- bash -c {quote(command)}"
    )


def is_wrapped(command: str, slug: str, root: str) -> bool:
    """True only when `command` is, byte for byte, what `wrapped` makes of its last
    word for these runs and this root (text that merely looks wrapped, names
    another run or repository, or carries a comment is wrapped again)."""
    if MARK not in command:
        return False
    words = static_words(command)
    if not words or words[-3:-1] != ["bash", "-c"]:
        return False
    return command == wrapped(words[-1], slug, root)


# The `zodyssey run` verbs that write run state: trusted code, so they run
# unwrapped; what they execute for the agent (criteria, quality checks, the
# wiring probe) they run inside the run's sandbox themselves.
TRUSTED_RUN_VERBS = frozenset(("start", "verify", "todo", "phase"))
# Characters of a word outside quotes: no expansion, operator, comment or glob.
_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:@%+,=-")


def static_words(command: str) -> "list[str] | None":
    """The words of `command` when it is one simple command of static words
    (plain characters, single quotes, double quotes holding no `$`, backquote,
    backslash or `!`), else None: any operator, redirection, comment, newline,
    expansion or glob makes it something else."""
    words: list[str] = []
    current: list[str] = []
    in_word = False
    i = 0
    while i < len(command):
        ch = command[i]
        if ch in " \t":
            if in_word:
                words.append("".join(current))
                current, in_word = [], False
            i += 1
            continue
        if ch in "'\"":
            end = command.find(ch, i + 1)
            if end < 0:
                return None
            body = command[i + 1 : end]
            if ch == '"' and any(c in body for c in "$`\\!"):
                return None
            current.append(body)
        elif ch in _PLAIN:
            current.append(ch)
            end = i
        else:
            return None
        in_word = True
        i = end + 1
    if in_word:
        words.append("".join(current))
    return words or None


def trusted_form(command: str) -> bool:
    """True only for `zodyssey run VERB ...` (VERB in TRUSTED_RUN_VERBS) as one simple
    command of static words, run by the bare name or the installed console script,
    that the command's own parser reads as an agent form. Mentioning zodyssey (a
    comment, a compound command, `python -m zodyssey` from a folder the agent
    fills, a redirection) is never enough."""
    words = static_words(command)
    if not words or len(words) < 3 or words[1] != "run":
        return False
    program = words[0]
    from zodyssey.gate import trusted

    if program != "zodyssey" and not (
        program.startswith("/")
        and program.endswith("/zodyssey")
        and trusted.is_gate_program(program)
    ):
        return False
    kind, _, inner = trusted.judge(list(words[1:]))
    if kind != trusted.AGENT or inner >= 0:
        return False
    parsed = trusted.parse(words[1:])
    return getattr(parsed, "run_command", None) in TRUSTED_RUN_VERBS


def wants_wrap(harness: str, payload: "Any", command: str, is_write: bool) -> str | None:
    """The permission decision to wrap with (`allow`/`ask`), or None: not wrapped."""
    if harness not in WRAP_HARNESSES or not command.strip():
        return None
    if "zodyssey" in command and trusted_form(command):
        # `zodyssey run start|verify|todo|phase` writes run state: trusted code,
        # judged by the trusted-command rules, runs unwrapped (and sandboxes what
        # it executes); any other text naming zodyssey is wrapped like any call.
        return None
    mode = payload.get("permission_mode") if isinstance(payload, dict) else None
    if mode == "bypassPermissions":
        return "allow"
    return "ask" if is_write else None


def claude_reply(tool_input: "dict[str, Any]", command: str, decision: str, reason: str) -> str:
    """The PreToolUse reply that runs `command` in place of the call's own."""
    updated = dict(tool_input)
    updated["command"] = command
    body = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": decision,
            "permissionDecisionReason": reason,
            "updatedInput": updated,
        }
    }
    from zodyssey.core.jsontext import dumps  # the hook's one JSON writer

    return dumps(body) + "\n"
