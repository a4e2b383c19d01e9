"""Codex CLI: Claude-compatible wire format.

Bash and `apply_patch` carry their text in `tool_input.command`; every
`*** Update/Add/Delete File:` path of a patch is a write target. A block is
exit 2 with the reason on stderr plus a `permissionDecision: deny` document
on stdout, which Codex also honours.
"""

from zodyssey.gate.harness import Reply
from zodyssey.gate.toolcall import ToolCall, build_call

TYPE_CHECKING = False  # mypy treats this as typing.TYPE_CHECKING; no runtime import
if TYPE_CHECKING:
    from typing import Any


class Codex:
    name = "codex"
    reviewer_tools: "frozenset[str]" = frozenset()  # no agent reports: a person decides

    def to_call(self, payload: "dict[str, Any]") -> "ToolCall":
        return build_call(self.name, payload.get("tool_name"), payload.get("tool_input"), payload)

    def report(self, payload: "dict[str, Any]") -> "str | None":
        return None

    def block(self, reason: str, slug: str) -> "Reply":
        import json  # only a block replies in JSON; allowing stays json-free

        text = f"zodyssey gate (run {slug}): {reason}"
        document = {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": text,
            }
        }
        return Reply(2, json.dumps(document, ensure_ascii=False) + "\n", text + "\n")


ADAPTER = Codex()
