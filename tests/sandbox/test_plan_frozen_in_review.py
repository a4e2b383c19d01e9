"""The plan is frozen while a review is pending, in the kernel and in the effect
check too (issue 34): from the reviewer's dispatch to its report, the run's
allowance (zodyssey/core/allowance.py) protects the plan, so

- the sandbox grants no write to it nor to its folder: a wrapped shell
  `cp decoy plan` (or `mv`) fails with EACCES and the plan keeps its bytes;
  once the report came, the plan is the agent's to write again;
- a process the agent left running, started before the dispatch (its kernel
  domain, if any, was made when the plan was writable), that rewrites the plan
  while the reviewer reads it is caught by the effect check at the dispatch's
  post-tool: a violation in the evidence, and the plan put back.

How this could pass while broken: a copy that never ran (the control before
the dispatch shows the same command writes the plan), a freeze that outlives
the review (the copy after the report succeeds), a background writer that had
not written yet when the report came (the test waits until the plan holds the
decoy before reporting).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import clean_env
from tests.helpers.runs import PLAN, Repo, make_repo
from zodyssey.core.paths import evidence_path
from zodyssey.runs import evidence as chain
from zodyssey.sandbox import landlock
from zodyssey.sandbox.wrap import wrapped

ABI = landlock.abi_version()
needs_landlock = pytest.mark.skipif(ABI < 1, reason="Landlock is not available on this kernel")
DECOY = "# Decoy\n\nNothing to review here.\n"


def effect_violations(repo: Repo) -> list[dict[str, Any]]:
    records = chain.read_evidence(evidence_path(repo.root, "demo")).records
    return [r for r in records if r.get("kind") == chain.VIOLATION]


@pytest.fixture
def started(tmp_path: Path) -> Repo:
    repo = make_repo(tmp_path / "repo")
    plan_file = tmp_path / "plan.md"
    plan_file.write_text(PLAN, encoding="utf-8")
    done = repo.run("start", "demo", "--plan", str(plan_file))
    assert done.code == 0, done.text
    repo.write(".zcode/staging/decoy.md", DECOY)
    return repo


def plan_of(repo: Repo) -> Path:
    return repo.root / ".zcode" / "plans" / "demo.md"


def in_sandbox(repo: Repo, command: str) -> subprocess.CompletedProcess[str]:
    """`command` as the hook wraps a shell call of run demo: the kernel decides."""
    return subprocess.run(
        ["bash", "-c", wrapped(command, "demo", str(repo.root))],
        cwd=repo.root,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@needs_landlock
def test_a_wrapped_copy_onto_the_plan_fails_while_the_reviewer_reads_it(started: Repo) -> None:
    repo = started
    plan = plan_of(repo)
    assert repo.state()["sandbox"]["landlock_abi"] >= 1  # the run is Landlocked
    # control: before the dispatch the same copy writes the plan (then put back)
    done = in_sandbox(repo, "cp .zcode/staging/decoy.md .zcode/plans/demo.md")
    assert done.returncode == 0, done.stderr
    assert plan.read_text() == DECOY
    plan.write_text(PLAN, encoding="utf-8")
    assert repo.dispatch_reviewer().code == 0
    for command in (
        "cp .zcode/staging/decoy.md .zcode/plans/demo.md",
        "mv .zcode/staging/decoy.md .zcode/plans/demo.md",
        "cat .zcode/staging/decoy.md > .zcode/plans/demo.md",
        "rm -f .zcode/plans/demo.md",
    ):
        done = in_sandbox(repo, command)
        assert done.returncode != 0, (command, done.stdout, done.stderr)
        assert "ermission denied" in done.stderr or "ot permitted" in done.stderr, done.stderr
        assert plan.read_text() == PLAN, command
    # the report ends the review: the plan is the agent's to fix again
    report = repo.report_reviewer("VERDICT: REJECT\nBLOCKERS:\n- too wide\n")
    assert report.code == 0, report.text
    assert repo.state()["review"]["verdict"] == "REJECT"
    done = in_sandbox(repo, "cp .zcode/staging/decoy.md .zcode/plans/demo.md")
    assert done.returncode == 0, done.stderr
    assert plan.read_text() == DECOY


def test_a_background_rewrite_of_the_plan_during_the_review_is_undone_and_recorded(
    started: Repo, tmp_path: Path
) -> None:
    repo = started
    plan = plan_of(repo)
    go = tmp_path / "go"
    # started before the dispatch, it waits, then writes the decoy over the plan
    writer = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import os, sys, time\n"
            "go, plan, decoy = sys.argv[1:]\n"
            "while not os.path.exists(go): time.sleep(0.02)\n"
            "open(plan, 'w').write(open(decoy).read())\n",
            str(go),
            str(plan),
            str(repo.root / ".zcode" / "staging" / "decoy.md"),
        ],
    )
    try:
        assert repo.dispatch_reviewer().code == 0
        go.touch()  # the reviewer reads the plan now
        assert writer.wait(timeout=30) == 0
    finally:
        writer.kill()
    assert plan.read_text() == DECOY  # the rewrite happened, during the review
    report = repo.report_reviewer("VERDICT: REJECT\nBLOCKERS:\n- too wide\n")
    assert report.code == 2, report.text
    assert "demo.md" in report.err, report.err
    assert plan.read_text() == PLAN  # put back: the plan the reviewer was sent
    [record] = effect_violations(repo)
    [change] = record["changes"]
    assert change["path"] == str(plan.resolve()) and change["action"] == "restored", change


def test_the_plan_changed_before_the_dispatch_is_no_violation(started: Repo) -> None:
    """The plan is the agent's to write until the dispatch: the effect check, which
    now watches it in every phase, lets such a change be."""
    repo = started
    plan = plan_of(repo)
    assert (
        repo.hook(
            "pre-tool",
            {
                "session_id": "s",
                "cwd": str(repo.root),
                "hook_event_name": "PreToolUse",
                "tool_name": "Bash",
                "tool_input": {"command": "ls"},
                "tool_use_id": "toolu_ls",
            },
        ).code
        == 0
    )
    time.sleep(0.01)
    plan.write_text(PLAN + "\n", encoding="utf-8")
    done = repo.dispatch_reviewer()
    assert done.code == 0, done.text
    assert effect_violations(repo) == []
