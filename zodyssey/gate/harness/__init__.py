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

        def to_call(self, payload: "dict[str, Any]") -> "ToolCall": ...

        def block(self, reason: str, slug: str) -> "Reply": ...


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
