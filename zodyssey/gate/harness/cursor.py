"""Cursor: `.cursor/hooks.json` events `beforeShellExecution`, `preToolUse`, `beforeMCPExecution`.

`beforeShellExecution` carries the command at the top level; the project is
the first of `workspace_roots`. A block is
`{"permission": "deny", "user_message": ..., "agent_message": ...}` on stdout
with exit 2.
"""

from zodyssey.core.jsontext import loads
from zodyssey.gate.harness import Reply
from zodyssey.gate.toolcall import ToolCall, build_call

TYPE_CHECKING = False  # mypy treats this as typing.TYPE_CHECKING; no runtime import
if TYPE_CHECKING:
    from typing import Any


class Cursor:
    name = "cursor"
    reviewer_tools: "frozenset[str]" = frozenset()  # no agent reports: a person decides

    def to_call(self, payload: "dict[str, Any]") -> "ToolCall":
        event = payload.get("hook_event_name")
        if event == "beforeShellExecution" or ("command" in payload and "tool_name" not in payload):
            return build_call(self.name, "Shell", {"command": payload.get("command")}, payload)
        if event == "beforeReadFile":
            return build_call(self.name, "Read", {}, payload)
        tool_input = payload.get("tool_input")
        if isinstance(tool_input, str):
            # beforeMCPExecution sends the arguments as a JSON string
            try:
                tool_input = loads(tool_input)
            except ValueError:
                tool_input = {"input": tool_input}
        tool_name = payload.get("tool_name")
        if (
            event == "beforeMCPExecution"
            and isinstance(tool_name, str)
            and not tool_name.startswith("mcp__")
        ):
            tool_name = f"mcp__{payload.get('server') or 'cursor'}__{tool_name}"
        return build_call(self.name, tool_name, tool_input, payload)

    def report(self, payload: "dict[str, Any]") -> "str | None":
        return None

    def block(self, reason: str, slug: str) -> "Reply":
        import json  # only a block replies in JSON; allowing stays json-free

        text = f"zodyssey gate (run {slug}): {reason}"
        document = {"permission": "deny", "user_message": text, "agent_message": text}
        return Reply(2, json.dumps(document, ensure_ascii=False) + "\n", text + "\n")


ADAPTER = Cursor()
