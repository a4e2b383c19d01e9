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


def is_wrapped(command: str) -> bool:
    return MARK in command and "hook_entry.py" in command


def wants_wrap(harness: str, payload: "Any", command: str, is_write: bool) -> str | None:
    """The permission decision to wrap with (`allow`/`ask`), or None: not wrapped."""
    if harness not in WRAP_HARNESSES or not command.strip() or is_wrapped(command):
        return None
    if "zodyssey" in command:
        # `zodyssey run ...` writes run state: it cannot run in the sandbox,
        # and the classifier's trusted-command rules judge it (unwrapped).
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
