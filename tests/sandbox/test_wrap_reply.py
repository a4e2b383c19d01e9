"""The wrapped PreToolUse reply is JSON whatever the call's input held.

How this could pass while broken: a reply encoder of its own spelled a float
`inf` as bare `inf` (hypothesis found it through the installed hook), so the
harness could not read the reply at all.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from zodyssey.sandbox.wrap import claude_reply


@pytest.mark.parametrize(
    "value",
    [float("inf"), float("-inf"), 1e308, -0.0, "é\u2028\x00", {"k": [None, True, 3]}, 2**70],
)
def test_the_reply_echoes_any_input_as_json(value: Any) -> None:
    reply = claude_reply({"command": "ls", "extra": value}, "wrapped ls", "ask", "why")
    body = json.loads(reply)
    updated = body["hookSpecificOutput"]["updatedInput"]
    assert updated == {"command": "wrapped ls", "extra": value}
