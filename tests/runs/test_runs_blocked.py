"""The round cap holds in the store: `blocked` is active until a person decides.

Broken ways this could still pass: `run start` over a blocked run could
archive it as finished and hand out a fresh round count; a reviewer's
report or an agent's todo could still be recorded in `blocked`.
"""

from __future__ import annotations

from tests.helpers.runs import Repo


def block(started: Repo) -> None:
    for n in range(3):
        result = started.review_by_reviewer("REJECT", f"toolu_{n}")
        assert result.code == 0, result.text
    assert started.state()["phase"] == "blocked"


def test_start_over_a_blocked_run_is_refused(started: Repo) -> None:
    block(started)
    result = started.run("start", "demo")
    assert result.code == 11, result.text
    assert "already active (phase blocked)" in result.text
    state = started.state()
    assert state["phase"] == "blocked" and state["review"]["round"] == 3
    assert not (started.root / ".zcode" / "archive").exists()


def test_agent_review_refused_in_blocked_person_decides(started: Repo) -> None:
    block(started)
    result = started.dispatch_reviewer("toolu_9")  # the gate refuses the reviewer in blocked
    assert result.code == 2 and "ask the user" in result.text, result.text
    assert started.report_reviewer(started.answer("OKAY"), "toolu_9").code == 0
    assert started.state()["phase"] == "blocked"
    person = started.run("review", "demo", "--human", "OKAY", "--by", "alice")
    assert person.code == 0, person.text
    assert started.state()["phase"] == "execute"


def test_todo_refused_in_blocked(started: Repo) -> None:
    block(started)
    result = started.run("todo", "demo", "1", "in_flight")
    assert result.code == 11 and "blocked" in result.text
