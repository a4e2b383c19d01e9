"""A recording hook: appends the payload it is given to a JSON-lines file, allows.

Wired beside the gate's own entry (never instead of it) by the client tests:
`python3 record_hook.py LOG EVENT`. It prints nothing and exits 0, so it never
changes what the client decides; the gate's entry stays exactly as
`zodyssey hook install` wrote it.
"""

import json
import os
import sys

# The variables that tell the hook where it runs; nothing else of the environment is kept.
KEPT = (
    "CLAUDE_PROJECT_DIR",
    "GEMINI_PROJECT_DIR",
    "GEMINI_CWD",
    "ZCODE_PROJECT_DIR",
    "CURSOR_PROJECT_DIR",
    "CODEX_HOME",
)


def main() -> int:
    log, event = sys.argv[1], sys.argv[2]
    raw = sys.stdin.buffer.read().decode("utf-8", "replace")
    try:
        payload = json.loads(raw)
    except ValueError:
        payload = raw
    env = {k: v for k, v in os.environ.items() if k in KEPT}
    line = json.dumps({"event": event, "payload": payload, "env": env}, ensure_ascii=False)
    with open(log, "a", encoding="utf-8") as out:
        out.write(line + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
