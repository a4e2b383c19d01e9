"""The post-tool side of a review: the reviewer's verdict from the harness's report.

The harness runs the post-tool hook when a dispatch returns, with the
subagent's final answer in the report (`tool_response`). When the dispatch is
the reviewer dispatch the pre-tool hook recorded as pending, its answer is the
round's verdict (`zodyssey.runs.review.record_reported`). The agent cannot run
this itself: the gate blocks `zodyssey hook ...`, the hook script and
interpreters from the agent's shell in every phase (docs/gate.md).
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
    answer = adapter.report(payload)
    transcript = payload.get("transcript_path")
    transcript = transcript if isinstance(transcript, str) and transcript else None
    for root, active in runs:
        for slug, state in active:
            if isinstance(state, str):
                continue
            line = record_reported(
                os.fspath(root), slug, key, call.subagent_type, adapter.name, answer, transcript
            )
            if line is not None:
                sys.stderr.write(f"zodyssey gate (run {slug}): {line}\n")
