"""A hook that misbehaves on purpose, to see what a client does with it.

`python3 probe_hook.py MODE [ARG]`, wired as a user hook by the client
behaviour tests (never in a repository):

* `crash`: a Python traceback on stderr, exit 1 (an uncaught exception);
* `exit3`: one line on stderr, exit 3;
* `sleep`: sleeps ARG seconds, then writes the file named by a third argument
  and exits 0 silently (past the hook's timeout: the file shows whether the
  client killed the hook or waited for it);
* `rewrite-claude`, `rewrite-gemini`, `rewrite-codex`: allow, asking the client to
  run ARG instead of the shell command it was given, in that client's own
  rewrite field (Claude Code and Codex `hookSpecificOutput.updatedInput`,
  Gemini CLI `hookSpecificOutput.tool_input`).
"""

import json
import sys
import time


def main() -> int:
    mode = sys.argv[1]
    arg = sys.argv[2] if len(sys.argv) > 2 else ""
    payload = json.loads(sys.stdin.read() or "{}")
    if mode == "crash":
        sys.stderr.write(
            "Traceback (most recent call last):\n"
            '  File "hook.py", line 1, in <module>\n'
            "RuntimeError: the probe hook crashed\n"
        )
        return 1
    if mode == "exit3":
        sys.stderr.write("the probe hook failed with exit 3\n")
        return 3
    if mode == "sleep":
        time.sleep(float(arg))
        with open(sys.argv[3], "w") as marker:
            marker.write("the hook ran to its end\n")
        return 0
    tool_input = dict(payload.get("tool_input") or {})
    key = "cmd" if "cmd" in tool_input else "command"
    tool_input[key] = arg
    if mode == "rewrite-gemini":
        out = {"hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": tool_input}}
    else:
        out = {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "allow",
                "updatedInput": tool_input,
            }
        }
    sys.stdout.write(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
