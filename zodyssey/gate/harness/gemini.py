"""Gemini CLI: `BeforeTool` hooks; tools `run_shell_command`, `write_file`, `replace`, ...

A block is `{"decision": "deny", "reason": ...}` on stdout and exit 2 with the
reason on stderr (Gemini treats exit 2 as a block on its own as well).
"""

from zodyssey.gate.harness import Reply, answer_text
from zodyssey.gate.toolcall import ToolCall, build_call

TYPE_CHECKING = False  # mypy treats this as typing.TYPE_CHECKING; no runtime import
if TYPE_CHECKING:
    from typing import Any


class Gemini:
    name = "gemini"
    reviewer_tools = frozenset(("invoke_agent",))

    def to_call(self, payload: "dict[str, Any]") -> "ToolCall":
        tool_input = payload.get("tool_input", payload.get("tool_args"))
        return build_call(self.name, payload.get("tool_name"), tool_input, payload)

    def report(self, payload: "dict[str, Any]") -> "str | None":
        """The subagent's final answer in the post-tool report of its dispatch."""
        return answer_text(payload.get("tool_response"))

    def block(self, reason: str, slug: str) -> "Reply":
        import json  # only a block replies in JSON; allowing stays json-free

        text = f"zodyssey gate (run {slug}): {reason}"
        return Reply(
            2,
            json.dumps({"decision": "deny", "reason": text}, ensure_ascii=False) + "\n",
            text + "\n",
        )


ADAPTER = Gemini()
