"""Defenders of README's scope-lock claim that the drill found missing (issue 25).

Drilling `scope-lock` (its code: the gate's `_scope_rule` and `_in_scope`) with
only the two end-to-end tests of test_promise_gate.py left three breaks alive:
the `.git`/`HEAD` guard of `_in_scope` removed, the "outside the repository only
an exact declaration counts" guard removed, and `_scope_rule`'s "the plan grants
nothing, and says why" guard removed. Each is a real promise of the gate: a
declared directory never hands out git metadata or a foreign tree, and an agent
told "blocked" is told the reason. The rows run the gate's own red-team checks
(tests/gate) under the claim's id, plus the reason check.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from tests.gate import test_gate_policy_redteam as redteam
from tests.helpers.gate import call
from zodyssey.gate.context import plan_view
from zodyssey.gate.policy import decide

ROWS = [
    ("pkg/a.py", "allow"),  # inside a declared directory
    ("pkg/.git/config", "scope"),  # git metadata inside it: never product code
    ("pkg/HEAD", "scope"),
    ("../outside.py", "allow"),  # outside the repository, declared exactly
    ("../odir/f.py", "scope"),  # outside, under a declared directory: not granted
]


def _root(tmp_path: Path) -> Path:
    root: Path = redteam.root.__wrapped__(tmp_path)  # type: ignore[attr-defined]
    return root


@pytest.mark.claim("scope-lock")
@pytest.mark.parametrize(("path", "expected"), ROWS)
def test_declared_directories_grant_no_git_metadata_and_no_foreign_tree(
    tmp_path: Path, path: str, expected: str
) -> None:
    redteam.test_scope(_root(tmp_path), path, expected)


@pytest.mark.claim("scope-lock")
def test_a_plan_that_grants_nothing_says_why(tmp_path: Path) -> None:
    root = _root(tmp_path)
    # A reviewed plan (the review binds these bytes) that is not UTF-8: readable,
    # so no other rule stops the write first, and it grants nothing.
    text = redteam.PLAN.encode() + b"\xff\xfe"
    c = redteam.ctx(root, bound=hashlib.sha256(text).hexdigest())
    c._plan = plan_view(str(root / ".zcode/plans/demo.md"), text, str(root))
    decision = decide(call("Write", {"file_path": "src/ok.py"}, root), c)
    assert not decision.allow and decision.rule == "scope", decision
    assert "not UTF-8" in decision.reason and "nothing is in scope" in decision.reason
