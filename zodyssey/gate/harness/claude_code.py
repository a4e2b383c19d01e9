"""Claude Code: PreToolUse payload on stdin; block = exit 2 with the reason on stderr.

Exit 2 is the only exit code that blocks: any other non-zero exit lets the
tool call through, so the hook process catches everything and exits 2.
"""

from zodyssey.gate.harness import Reply, answer_text
from zodyssey.gate.toolcall import ToolCall, build_call

TYPE_CHECKING = False  # mypy treats this as typing.TYPE_CHECKING; no runtime import
if TYPE_CHECKING:
    from typing import Any


class ClaudeCode:
    name = "claude-code"
    reviewer_tools = frozenset(("Task", "Agent"))

    def to_call(self, payload: "dict[str, Any]") -> "ToolCall":
        return build_call(self.name, payload.get("tool_name"), payload.get("tool_input"), payload)

    def report(self, payload: "dict[str, Any]") -> "str | None":
        """The subagent's final answer in the post-tool report of its dispatch."""
        return answer_text(payload.get("tool_response"))

    def block(self, reason: str, slug: str) -> "Reply":
        return Reply(2, "", f"zodyssey gate (run {slug}): {reason}\n")


ADAPTER = ClaudeCode()
