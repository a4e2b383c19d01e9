"""Harness adapters: one module per coding-agent harness behind one Protocol.

Each adapter turns that harness's hook payload into a `ToolCall` and a block
decision into that harness's reply (exit code, stdout, stderr). Allowing is
always silent (exit 0, no output): the gate only ever denies, so it never
overrides the harness's own permission prompts, and it never emits `defer`.
"""

TYPE_CHECKING = False  # mypy treats this as typing.TYPE_CHECKING; no runtime import
if TYPE_CHECKING:
    from typing import Any, Protocol

    from zodyssey.gate.toolcall import ToolCall

    class Harness(Protocol):
        name: str
        # Dispatch tools whose post-tool report carries the subagent's final
        # answer (empty: the harness identifies no agents, a person decides).
        reviewer_tools: "frozenset[str]"

        def to_call(self, payload: "dict[str, Any]") -> "ToolCall": ...

        def block(self, reason: str, slug: str) -> "Reply": ...

        def report(self, payload: "dict[str, Any]") -> "str | None": ...


class Reply(tuple[int, str, str]):
    """(exit_code, stdout, stderr): a tuple with names, like a NamedTuple.

    Written out by hand because this module is on the hook's hot path and
    `typing.NamedTuple` costs `typing` plus a class built through `exec`.
    """

    __slots__ = ()

    def __new__(cls, exit_code: int, stdout: str = "", stderr: str = "") -> "Reply":
        return tuple.__new__(cls, (exit_code, stdout, stderr))

    @property
    def exit_code(self) -> int:
        return self[0]

    @property
    def stdout(self) -> str:
        return self[1]

    @property
    def stderr(self) -> str:
        return self[2]

    def __repr__(self) -> str:
        return f"Reply(exit_code={self[0]!r}, stdout={self[1]!r}, stderr={self[2]!r})"


ALLOW = Reply(0)

# Where a dispatch's post-tool report keeps the subagent's final answer, by harness:
# Claude Code `content` (text blocks), Gemini `llmContent` (text or parts).
ANSWER_KEYS = ("content", "llmContent", "result", "output", "text")


def answer_text(response: "Any", keys: "tuple[str, ...]" = ANSWER_KEYS) -> "str | None":
    """The text of a subagent's final answer in a post-tool `tool_response`, or None.

    Only the answer itself counts: the report may echo the dispatch prompt (the
    orchestrator's words), which must never be taken for the reviewer's.
    """
    if isinstance(response, str):
        return response
    if isinstance(response, list):
        texts = []
        for block in response[:256]:
            if isinstance(block, str):
                texts.append(block)
            elif (
                isinstance(block, dict)
                and isinstance(block.get("text"), str)
                and block.get("type", "text") == "text"
            ):
                texts.append(block["text"])
        return "\n".join(texts) if texts else None
    if isinstance(response, dict):
        if response.get("error"):
            return None
        for key in keys:
            if key in response:
                return answer_text(response[key], ())
    return None


# --harness value -> module under zodyssey.gate.harness
HARNESSES: dict[str, str] = {
    "claude-code": "claude_code",
    "zcode": "zcode",
    "codex": "codex",
    "gemini": "gemini",
    "cursor": "cursor",
}


def get_harness(name: str) -> "Harness":
    module = HARNESSES.get(name)
    if module is None:
        raise KeyError(name)
    # __import__ rather than importlib: `import importlib` is not free at start-up
    adapter: Harness = __import__(f"zodyssey.gate.harness.{module}", fromlist=("ADAPTER",)).ADAPTER
    return adapter
