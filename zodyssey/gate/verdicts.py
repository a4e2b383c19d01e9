"""The post-tool side of a review: the reviewer's verdict from the harness's report.

The harness runs the post-tool hook when a dispatch returns, with the
subagent's final answer in the report (`tool_response`). When the dispatch is
the reviewer dispatch the pre-tool hook recorded as pending, its answer is the
round's verdict (`zodyssey.runs.review.record_reported`).

A dispatch the harness runs in the background (Claude Code's `Agent` by
default) is reported at once with no answer (`status: "async_launched"`) but
with the id of the agent it started: that id's digest is bound to the pending
dispatch (`bind_launch`), and the answer comes when that agent stops, in the
SubagentStop event (`stopped`, `zodyssey.runs.review.record_stopped`).

The agent cannot run this itself: the gate blocks `zodyssey hook ...`, the hook
script and interpreters from the agent's shell in every phase (docs/gate.md).
"""

import os
import sys

TYPE_CHECKING = False  # mypy treats this as typing.TYPE_CHECKING; no runtime import
if TYPE_CHECKING:
    from typing import Any


def record(
    runs: "list[tuple[str, list[tuple[str, Any]]]]",
    call: "Any",
    payload: "dict[str, Any]",
    adapter: "Any",
) -> None:
    """Record the reported verdict in every run whose pending dispatch this is."""
    from zodyssey.gate.toolcall import anon_key
    from zodyssey.runs.review import record_reported

    key = call.tool_use_id or anon_key(call)
    agent_id = launched_agent(payload) if getattr(adapter, "stop_events", ()) else None
    answer = adapter.report(payload)
    transcript = _text(payload.get("transcript_path"))
    for root, slug in _readable(runs):
        if agent_id is not None:
            from zodyssey.runs.review import bind_launch

            line = bind_launch(os.fspath(root), slug, key, agent_id)
        else:
            line = record_reported(
                os.fspath(root),
                slug,
                key,
                call.subagent_type,
                adapter.name,
                answer,
                transcript,
                answering_agent(payload),
            )
        if line is not None:
            sys.stderr.write(f"zodyssey gate (run {slug}): {line}\n")


# An agent id longer than this is no id a harness gave.
MAX_AGENT_ID = 256


def _text(value: "Any", limit: int = 4096) -> "str | None":
    return value if isinstance(value, str) and 0 < len(value) <= limit else None


def _readable(runs: "list[tuple[str, list[tuple[str, Any]]]]") -> "list[tuple[str, str]]":
    """(root, slug) of every active run whose state was read."""
    return [(root, slug) for root, active in runs for slug, st in active if isinstance(st, dict)]


def launched_agent(payload: "dict[str, Any]") -> "str | None":
    """The agent id of a dispatch the harness reports started in the background (Claude
    Code: `tool_response` `{isAsync: true, status: "async_launched", agentId}`), or None."""
    response = payload.get("tool_response")
    if not isinstance(response, dict):
        return None
    if response.get("isAsync") is not True and response.get("status") != "async_launched":
        return None
    return _text(response.get("agentId"), MAX_AGENT_ID)


def answering_agent(payload: "dict[str, Any]") -> "str | None":
    """The agent id a harness reports answered a dispatch in the foreground (Claude Code:
    `tool_response.agentId` beside `status: "completed"`), or None."""
    response = payload.get("tool_response")
    if not isinstance(response, dict):
        return None
    return _text(response.get("agentId"), MAX_AGENT_ID)


def stopped(runs: "list[tuple[str, list[tuple[str, Any]]]]", payload: "Any", adapter: "Any") -> int:
    """A subagent stopped (Claude Code's SubagentStop): its last message is the verdict
    when it is the reviewer the pending dispatch launched. Exit 0, or 1 with a note:
    never 2, which would keep the subagent running with the note as its instruction."""
    try:
        if not isinstance(payload, dict) or adapter is None:
            return 0
        agent_id = _text(payload.get("agent_id"), MAX_AGENT_ID)
        agent_type = _text(payload.get("agent_type"), MAX_AGENT_ID)
        if agent_id is None or agent_type is None:
            return 0
        answer = payload.get("last_assistant_message")
        answer = answer if isinstance(answer, str) else None
        transcript = _text(payload.get("transcript_path"))
        from zodyssey.gate.effects import stop_agent
        from zodyssey.runs.review import record_stopped

        for root, slug in _readable(runs):
            stop_agent(root, slug, agent_id)  # its background dispatch slot
            line = record_stopped(
                os.fspath(root), slug, agent_id, agent_type, adapter.name, answer, transcript
            )
            if line is not None:
                sys.stderr.write(f"zodyssey gate (run {slug}): {line}\n")
        return 0
    except Exception as exc:  # report, never block the stop
        sys.stderr.write(f"zodyssey gate subagent-stop: {exc.__class__.__name__}: {exc}\n")
        return 1
