"""The run vocabulary is data in `zodyssey.core.vocabulary`: phases, todo
statuses and the phase moves, read by `zodyssey run`, the gate and the audit.

How this could pass while broken: a table that `cmd_phase` no longer reads
would still satisfy a test of the table alone; so the moves are also driven
through the real `zodyssey run phase` command (tests/runs covers each refusal
there), and every respelling site is checked to read the one table.
"""

from __future__ import annotations

import typing
from typing import Any

from zodyssey.core.vocabulary import (
    AGENT_TODO_STATUSES,
    COMPLETED_PHASES,
    HALTED_PHASES,
    PERSON_PHASES,
    PHASE_MOVES,
    PHASES,
    TERMINAL_PHASES,
    TODO_STATUSES,
    move_refusal,
)

KNOWN_RULES = {"reason", "only_from", "not_from", "plan", "complete", "person"}


def test_every_phase_has_one_move_and_only_known_rules() -> None:
    assert list(PHASE_MOVES) == list(PHASES)
    for phase, move in PHASE_MOVES.items():
        assert set(move) <= KNOWN_RULES, phase
        for key in ("only_from", "not_from"):
            assert set(move.get(key, ())) <= set(PHASES), (phase, key)


def test_derived_sets() -> None:
    assert {"abandoned", "blocked", "audited"} == PERSON_PHASES
    assert set(TODO_STATUSES) - {"blocked"} == AGENT_TODO_STATUSES
    assert COMPLETED_PHASES <= TERMINAL_PHASES <= HALTED_PHASES
    assert [p for p, m in PHASE_MOVES.items() if m.get("complete")] == ["done"]


def test_the_pydantic_model_and_the_cli_use_the_same_statuses() -> None:
    from zodyssey.cli import build_parser
    from zodyssey.runs.models import TodoStatus

    assert typing.get_args(TodoStatus) == TODO_STATUSES
    parser: Any = build_parser()
    run = parser._subparsers._group_actions[0].choices["run"]
    todo = run._subparsers._group_actions[0].choices["todo"]
    (status,) = [a for a in todo._actions if a.dest == "status"]
    assert tuple(status.choices) == TODO_STATUSES


def test_move_refusals() -> None:
    assert (
        move_refusal("execute", "audited") == "only a done run can become audited (phase execute)"
    )
    assert move_refusal("done", "audited") is None
    assert (
        move_refusal("done", "blocked", run="run 'x'")
        == "run 'x' is done; it cannot become blocked"
    )
    assert move_refusal("audited", "abandoned") is not None
    assert move_refusal("execute", "abandoned") is None
    for halted in sorted(HALTED_PHASES):
        refusal = move_refusal(halted, "execute")
        assert refusal is not None and refusal.startswith(f"leaving terminal phase {halted}")
        assert move_refusal(halted, "review") is None
    assert move_refusal("plan", "execute") is None  # the bound-plan rule comes after


def test_gate_and_audit_read_the_vocabulary() -> None:
    from zodyssey.audit import checks
    from zodyssey.gate import trusted

    assert vars(trusted)["PERSON_PHASES"] is PERSON_PHASES
    assert vars(trusted)["AGENT_TODO_STATUSES"] is AGENT_TODO_STATUSES
    assert vars(checks)["COMPLETED_PHASES"] is COMPLETED_PHASES
