"""The round cap holds in the store: `blocked` is active until a person decides.

Broken ways this could still pass: `run start` over a blocked run could
archive it as finished and hand out a fresh round count; an agent's artifact
or todo could still be recorded in `blocked`.
"""

from __future__ import annotations

from tests.helpers.runs import Repo


def block(started: Repo) -> None:
    for n in range(3):
        started.mint_nonce(f"n{n}")
        result = started.run(
            "review", "demo", "--artifact", str(started.artifact("REJECT", f"n{n}"))
        )
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
    started.mint_nonce("n9")
    result = started.run("review", "demo", "--artifact", str(started.artifact("OKAY", "n9")))
    assert result.code == 11 and "ask the user" in result.text
    person = started.run("review", "demo", "--human", "OKAY", "--by", "alice")
    assert person.code == 0, person.text
    assert started.state()["phase"] == "execute"


def test_todo_refused_in_blocked(started: Repo) -> None:
    block(started)
    result = started.run("todo", "demo", "1", "in_flight")
    assert result.code == 11 and "blocked" in result.text
