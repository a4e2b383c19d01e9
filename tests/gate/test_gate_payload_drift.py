"""A client that adds a payload field or a new value never crashes the hook.

The recorded pre-tool payloads of the real clients (tests/data/client_payloads/,
phase plan and after OKAY), each with fields a later client release might
send: unknown top-level keys of any JSON type, a `permission_mode` or `model`
value the gate has never seen, unknown keys inside `tool_input`. Fed as a
subprocess to the command `zodyssey hook install` wrote, the hook must answer
in its protocol (exit 0 or 2, never a traceback or an internal error), and
for new top-level fields and values it must decide what it decided on the
recorded payload: it decides on what it knows.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.clients.scenarios import concrete
from tests.gate.test_client_payloads import (
    FIXTURES,
    installed_command,
    run_installed,
    scenario_repo,
)

CALLS = [
    (path, index)
    for path, document in FIXTURES
    if document["run"] is not None
    for index, call in enumerate(document["calls"])
    if not call.get("xfail")
]
KNOWN = {"session_id", "cwd", "tool_name", "tool_input", "tool_use_id", "hook_event_name"}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
new_keys = st.text(
    alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x2FF), min_size=1, max_size=16
).filter(lambda key: key not in KNOWN and not key.startswith(("tool_", "agent", "workspace")))
new_words = st.text(min_size=0, max_size=30)


def answer(done: Any) -> str:
    """The hook's decision in its protocol; fails on anything else."""
    said = done.stdout + done.stderr
    assert "Traceback" not in said and "internal gate error" not in said, said
    assert done.returncode in (0, 2), (done.returncode, said)
    if done.returncode == 2:
        return "block"
    if done.stdout:
        reply = json.loads(done.stdout)
        decision = json.dumps(reply)
        if '"deny"' in decision or '"block"' in decision:
            return "block"
    return "allow"


def replay(tmp_path_factory: pytest.TempPathFactory, path: Path, index: int, change: Any) -> str:
    document = json.loads(path.read_text(encoding="utf-8"))
    call = document["calls"][index]
    repo = scenario_repo(tmp_path_factory, document)
    home = repo.parent / "home"
    payload = concrete(call["payload"], repo, home)
    change(payload)
    command = installed_command(repo, document["harness"], "pre-tool")
    return answer(run_installed(command, payload, concrete(call["env"], repo, home), repo))


def expected(path: Path, index: int) -> str:
    document = json.loads(path.read_text(encoding="utf-8"))
    value: str = document["calls"][index]["expect"]
    return value


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    case=st.sampled_from(CALLS),
    extra=st.dictionaries(new_keys, json_values, min_size=1, max_size=4),
    mode=new_words,
    model=json_values,
)
def test_new_top_level_fields_and_values_keep_the_decision(
    tmp_path_factory: pytest.TempPathFactory,
    case: tuple[Path, int],
    extra: dict[str, Any],
    mode: str,
    model: Any,
) -> None:
    def change(payload: dict[str, Any]) -> None:
        payload.update(extra)
        payload["permission_mode"] = mode
        payload["model"] = model

    path, index = case
    assert replay(tmp_path_factory, path, index, change) == expected(path, index)


@settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    case=st.sampled_from(CALLS),
    extra=st.dictionaries(new_keys, json_values, min_size=1, max_size=3),
)
def test_new_tool_input_fields_never_crash_the_hook(
    tmp_path_factory: pytest.TempPathFactory, case: tuple[Path, int], extra: dict[str, Any]
) -> None:
    """Inside `tool_input` a new key may mean anything (Gemini's `dir_path` moved the
    command): the hook may block on it, but answers; a product write never opens."""

    def change(payload: dict[str, Any]) -> None:
        if isinstance(payload.get("tool_input"), dict):
            payload["tool_input"].update(extra)

    path, index = case
    decided = replay(tmp_path_factory, path, index, change)
    if expected(path, index) == "block":
        assert decided == "block"
