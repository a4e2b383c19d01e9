"""ZCode / ZOdyssey native: one stdout line with a fixed prefix, exit 2.

The `ZODYSSEY_BLOCK gate:` prefix lets run reports count blocks in a log.
The reason also goes to stderr so a Claude Code host feeds it to the model.
"""

from zodyssey.gate.harness import Reply, answer_text
from zodyssey.gate.toolcall import ToolCall, build_call

TYPE_CHECKING = False  # mypy treats this as typing.TYPE_CHECKING; no runtime import
if TYPE_CHECKING:
    from typing import Any


class ZCode:
    name = "zcode"
    reviewer_tools = frozenset(("Task", "Agent"))

    def to_call(self, payload: "dict[str, Any]") -> "ToolCall":
        return build_call(self.name, payload.get("tool_name"), payload.get("tool_input"), payload)

    def report(self, payload: "dict[str, Any]") -> "str | None":
        """The subagent's final answer in the post-tool report of its dispatch."""
        return answer_text(payload.get("tool_response"))

    def block(self, reason: str, slug: str) -> "Reply":
        import json  # only a block replies in JSON; allowing stays json-free

        line = json.dumps(
            {"decision": "block", "reason": f"ZODYSSEY_BLOCK gate: {reason} (slug={slug})"},
            ensure_ascii=False,
        )
        return Reply(2, line + "\n", f"ZODYSSEY_BLOCK gate: {reason} (slug={slug})\n")


ADAPTER = ZCode()
