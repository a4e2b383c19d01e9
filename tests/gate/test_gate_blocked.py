"""`blocked` is an active, CLOSED state: the review round cap never opens the gate.

How these could pass while broken: the hook could treat `blocked` as finished
(everything allowed, silently), or the policy could check only the verdict
(a person parking an OKAY run in `blocked` would leave writes open), or the
reviewer could still be dispatched for a round the store will refuse. Each is
tried through the policy and through the real hook process.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers.gate import RunRepo, blocked, ctx, dispatch, run_hook, write
from zodyssey.gate.policy import decide

LINT_FAILING_PLAN = """# Broken plan
## Todos
- [ ] 1. Add the route
  - Files: [`src/server.py`]
  - Acceptance criteria:
    - the user will manually verify it
"""


@pytest.mark.parametrize("verdict", ["REJECT", "OKAY", None])
def test_blocked_run_refuses_product_writes(root: Path, verdict: str | None) -> None:
    c = ctx(root, phase="blocked", verdict=verdict)
    decision = decide(write(root, "src/server.py"), c)
    blocked(decision, "run-blocked")
    assert "ask the user" in decision.reason
    from tests.helpers.gate import bash

    blocked(decide(bash(root, "echo x > src/server.py"), c), "run-blocked")
    blocked(decide(bash(root, "make build"), c), "run-blocked")
    # reading and the agent's own notes stay open
    assert decide(bash(root, "git status"), c).allow
    assert decide(write(root, ".zcode/notepads/demo/new.md"), c).allow


def test_reviewer_dispatch_refused_at_the_round_cap(root: Path) -> None:
    c = ctx(root, phase="review", verdict="REJECT")
    c.state["review"]["round"] = 3
    decision = decide(dispatch(root, "momus"), c)
    blocked(decision, "run-blocked")
    assert "round cap" in decision.reason
    blocked(
        decide(dispatch(root, "momus"), ctx(root, phase="blocked", verdict="REJECT")), "run-blocked"
    )
    # one round left: allowed, with the nonce
    c.state["review"]["round"] = 2
    assert [e.kind for e in decide(dispatch(root, "momus"), c).effects] == ["slot", "review"]


@pytest.mark.parametrize("bad", ["3", None, 2.5, True])
def test_unreadable_round_counts_as_the_cap(root: Path, bad: object) -> None:
    c = ctx(root, phase="review", verdict=None)
    c.state["review"]["round"] = bad
    assert not decide(dispatch(root, "momus"), c).allow


def test_reviewer_dispatch_refused_while_the_plan_fails_lint(root: Path) -> None:
    c = ctx(root, phase="plan", verdict=None, plan=LINT_FAILING_PLAN)
    decision = decide(dispatch(root, "momus"), c)
    blocked(decision, "review-lint")
    assert "fails lint" in decision.reason
    # explorers do not need a clean plan
    assert decide(dispatch(root, "explore"), c).allow


def test_blocked_run_keeps_gating_through_the_hook(run_repo: Callable[..., RunRepo]) -> None:
    repo = run_repo(phase="blocked", verdict="REJECT")
    repo.set(round=3)
    edit = repo.payload("Write", {"file_path": "src/server.py", "content": "y"})
    result = run_hook(edit, repo.root)
    assert result.returncode == 2 and "blocked" in result.stderr
    task = repo.payload("Task", {"subagent_type": "momus", "prompt": "review", "description": "r"})
    result = run_hook(task, repo.root)
    assert result.returncode == 2 and "round cap" in result.stderr
    assert repo.state()["review"].get("pending_dispatch") is None
    state_write = repo.payload("Write", {"file_path": ".zcode/state/demo.json", "content": "{}"})
    assert run_hook(state_write, repo.root).returncode == 2


@pytest.mark.parametrize("agent", ["momus", "zodyssey:momus", "odyssey:momus"])
def test_namespaced_reviewer_is_the_reviewer(root: Path, agent: str) -> None:
    decision = decide(dispatch(root, agent), ctx(root, phase="review", verdict=None))
    assert [e.kind for e in decision.effects] == ["slot", "review"], decision


@pytest.mark.parametrize("agent", ["evil:momus", "feature-dev:momus", "momus-x"])
def test_a_lookalike_reviewer_is_no_review_dispatch(root: Path, agent: str) -> None:
    decision = decide(dispatch(root, agent), ctx(root, phase="review", verdict=None))
    assert "review" not in [e.kind for e in decision.effects], decision
    # and at the round cap it is not capped either: it simply is not the reviewer
    capped = ctx(root, phase="review", verdict="REJECT")
    capped.state["review"]["round"] = 3
    assert "review" not in [e.kind for e in decide(dispatch(root, agent), capped).effects]


@pytest.mark.parametrize(
    "agent", ["Plan", "Explore", "code-explorer", "feature-dev:code-explorer", "planner"]
)
def test_planners_and_explorers_run_in_the_plan_phase(root: Path, agent: str) -> None:
    decision = decide(dispatch(root, agent), ctx(root, phase="plan", verdict=None))
    assert decision.allow and [e.kind for e in decision.effects] == ["slot"], decision


@pytest.mark.parametrize("agent", ["general-purpose", "plugin:general-purpose", "", "momus-x"])
def test_executors_still_wait_for_okay(root: Path, agent: str) -> None:
    blocked(decide(dispatch(root, agent), ctx(root, phase="plan", verdict=None)), "dispatch-phase")


def test_agent_defaults_are_configurable(root: Path) -> None:
    from zodyssey.gate.context import GateSettings

    settings = GateSettings(
        reviewer_agent="critic",
        read_only_agents=frozenset({"scout"}),
        reviewer_namespaces=frozenset({"team"}),
    )
    c = ctx(root, phase="plan", verdict=None, settings=settings)
    assert decide(dispatch(root, "team:scout"), c).allow
    blocked(decide(dispatch(root, "Explore"), c), "dispatch-phase")
    assert [e.kind for e in decide(dispatch(root, "team:critic"), c).effects] == ["slot", "review"]
    assert "review" not in [e.kind for e in decide(dispatch(root, "zodyssey:critic"), c).effects]
