"""Bounded work (issue 21, item 8): every input the hook parses has a bound.

A hook that runs into the harness's timeout lets the call through. Appending
1.3 million `Files:` lines to the plan (allowed before OKAY) made every later
check parse 31 MB for 41.8 s, past the 30 s timeout `hook install` writes.
Now the plan, the payload, the edits of one call and a dispatch prompt are
bounded, and over the bound the call blocks with a reason.

How this could pass while broken: the bound could make the hook exit early
with an allow (so each case asserts a block, and what the reason says); the
cost could hide in reading the input rather than parsing it (so the hook's
whole CPU time is measured, in a real process); a machine under load would
make a wall-clock bound flaky (so the bound is on the process's CPU seconds,
which load does not inflate).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.gate import RunRepo, hook_env

WORST_CPU_SECONDS = 2.0


def timed_hook(payload: str, project: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    """The hook as a real process; returns it and the CPU seconds it used."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [sys.executable, "-m", "zodyssey", "hook", "pre-tool"],
        input=payload,
        capture_output=True,
        text=True,
        env=hook_env(project),
        check=False,
        timeout=300,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return done, cpu


def huge_plan(repo: RunRepo) -> RunRepo:
    """The plan of issue 21: 1.3 million `Files:` lines appended before OKAY."""
    line = "  - Files: [`src/server.py`]\n"
    with open(repo.plan_path, "a", encoding="utf-8") as handle:
        handle.write(line * 1_300_000)
    return repo


def edit(repo: RunRepo, **tool_input: Any) -> str:
    return json.dumps(repo.payload("Edit", tool_input))


CASES: dict[str, tuple[Callable[[RunRepo], str], str]] = {
    "a 31 MB plan": (
        lambda r: json.dumps(
            huge_plan(r).payload("Task", {"subagent_type": "momus", "prompt": "review"})
        ),
        "plan",
    ),
    "100,000 edits in one call": (
        lambda r: json.dumps(
            r.payload(
                "MultiEdit",
                {
                    "file_path": "src/server.py",
                    "edits": [{"old_string": "x", "new_string": "y"}] * 100_000,
                },
            )
        ),
        "edits",
    ),
    "an 8 MB dispatch prompt": (
        lambda r: json.dumps(
            r.payload("Task", {"subagent_type": "explore", "prompt": "look " * 1_600_000})
        ),
        "prompt",
    ),
    "a 40 MB payload": (
        lambda r: json.dumps(
            r.payload("Write", {"file_path": "src/server.py", "content": "x" * 40_000_000})
        ),
        "stdin",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_worst_inputs_block_with_a_reason_in_bounded_time(
    run_repo: Callable[..., RunRepo], case: str
) -> None:
    repo = run_repo(phase="plan", verdict=None)
    build, word = CASES[case]
    payload = build(repo)
    done, cpu = timed_hook(payload, repo.root)
    assert done.returncode == 2, (done.returncode, done.stderr[-500:])
    assert "too large" in done.stderr and word in done.stderr, done.stderr[-500:]
    assert cpu < WORST_CPU_SECONDS, f"{case}: {cpu:.2f} s of CPU"


def test_a_plan_under_the_bound_still_grants_its_scope(run_repo: Callable[..., RunRepo]) -> None:
    repo = run_repo()
    payload = edit(repo, file_path="src/server.py", old_string="x", new_string="y")
    done, _ = timed_hook(payload, repo.root)
    assert done.returncode == 0, done.stderr
    assert os.path.getsize(repo.plan_path) < 4096


def test_a_huge_plan_keeps_every_later_check_short(run_repo: Callable[..., RunRepo]) -> None:
    repo = run_repo(phase="plan", verdict=None)
    huge_plan(repo)
    for payload in (
        edit(repo, file_path="src/server.py", old_string="x", new_string="y"),
        json.dumps(repo.payload("Bash", {"command": "sed -i s/x/y/ src/server.py"})),
        json.dumps(repo.payload("Write", {"file_path": str(repo.plan_path), "content": "# p\n"})),
    ):
        done, cpu = timed_hook(payload, repo.root)
        assert done.returncode in (0, 2) and "Traceback" not in done.stderr, done.stderr
        assert cpu < WORST_CPU_SECONDS, f"{payload[:80]}: {cpu:.2f} s of CPU"
