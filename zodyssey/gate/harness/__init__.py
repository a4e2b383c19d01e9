"""Harness adapters: one module per coding-agent harness behind one Protocol.

Each adapter turns that harness's hook payload into a `ToolCall` and a block
decision into that harness's reply (exit code, stdout, stderr). Allowing is
always silent (exit 0, no output): the gate only ever denies, so it never
overrides the harness's own permission prompts, and it never emits `defer`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

if TYPE_CHECKING:
    from zodyssey.gate.toolcall import ToolCall


class Reply(NamedTuple):
    exit_code: int
    stdout: str = ""
    stderr: str = ""


ALLOW = Reply(0)


class Harness(Protocol):
    name: str

    def to_call(self, payload: dict[str, Any]) -> ToolCall: ...

    def block(self, reason: str, slug: str) -> Reply: ...


# --harness value -> module under zodyssey.gate.harness
HARNESSES: dict[str, str] = {
    "claude-code": "claude_code",
    "zcode": "zcode",
    "codex": "codex",
    "gemini": "gemini",
    "cursor": "cursor",
}


def get_harness(name: str) -> Harness:
    module = HARNESSES.get(name)
    if module is None:
        raise KeyError(name)
    adapter: Harness = importlib.import_module(f"zodyssey.gate.harness.{module}").ADAPTER
    return adapter
