"""docs/gate.md's promise: a FIFO planted as run state or plan blocks at once, never a hang.

Through the real hook in a subprocess with a timeout well inside the
harness's 30 s: a hook that waits on the FIFO fails the test.
"""

from __future__ import annotations

import os
from typing import Any

import pytest


@pytest.mark.claim("hook-reads-regular-files")
@pytest.mark.parametrize("planted", ["state", "plan"])
def test_a_fifo_as_state_or_plan_blocks_at_once(lab: Any, planted: str) -> None:
    repo = lab.repo()
    state = lab.start_run(repo, verdict="OKAY")
    target = state if planted == "state" else repo / ".zcode/plans/demo.md"
    target.unlink()
    os.mkfifo(target)
    outcome = lab.hook(repo, lab.write(repo, "src/app.py"))
    assert outcome.blocked, outcome
    assert target.name in outcome.stderr and "not a regular file" in outcome.stderr
