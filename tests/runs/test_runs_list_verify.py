"""`run list` finds the runs that gate; `run verify` shows why a criterion failed.

Broken ways to pass: `list` skipping `blocked` runs (the ones that keep
gating) or an unreadable state file (the gate treats it as active) with exit 0;
`verify` saying FAILED without the output that says why.
"""

from __future__ import annotations

import json

from tests.helpers.runs import PLAN, Repo


def test_list_shows_active_runs_blocked_included(repo: Repo) -> None:
    empty = repo.run("list")
    assert empty.code == 0 and "no active runs" in empty.out
    repo.write("plan.md", PLAN)
    assert repo.run("start", "other", "--plan", "plan.md").code == 0
    for n in range(3):  # (a reviewer dispatch reviews every active run: demo starts after)
        assert repo.review_by_reviewer("REJECT", f"toolu_{n}").code == 0
    assert repo.run("start", "demo", "--plan", "plan.md").code == 0
    listing = repo.run("list")
    assert listing.code == 0, listing.text
    rows = {line.split()[0]: line.split() for line in listing.out.splitlines()[1:]}
    assert rows["demo"][1:4] == ["plan", "-", "0/3"]
    assert rows["other"][1:4] == ["blocked", "REJECT", "3/3"]
    document = json.loads(repo.run("list", "--json").out)
    assert {r["slug"] for r in document["runs"]} == {"demo", "other"}
    assert all(r["active"] for r in document["runs"])


def test_list_fails_on_an_unreadable_state(repo: Repo) -> None:
    repo.write(".zcode/state/broken.json", "{not json")
    listing = repo.run("list")
    assert listing.code == 2
    assert "broken" in listing.out and "UNREADABLE" in listing.out


def test_list_hides_finished_runs_unless_all(approved: Repo) -> None:
    assert approved.run("phase", "demo", "abandoned", "--reason", "not needed").code == 0
    assert "no active runs" in approved.run("list").out
    assert "abandoned" in approved.run("list", "--all").out


def test_verify_failure_shows_the_output_and_where_the_rest_is(approved: Repo) -> None:
    noisy = "\n".join(f"line {i}" for i in range(100))
    approved.write("greeting.txt", noisy + "\n")  # no 'hello': criterion 2 fails
    result = approved.run("verify", "demo", "1")
    assert result.code == 1, result.text
    assert "FAIL" in result.out
    full = [line for line in result.out.splitlines() if "full output:" in line]
    assert full, result.out
    again = approved.run("verify", "demo", "1")
    assert again.code == 10, again.text
    assert "change a file the plan declares" in again.err and "last output" in again.err


def test_verify_shows_at_most_forty_lines_of_a_long_failure(approved: Repo) -> None:
    from zodyssey.runs.verification import FAILURE_LINES, failure_excerpt

    record = {
        "stdout": {"tail": "\n".join(f"out-{i}" for i in range(200)), "size": 9, "stored": False},
        "stderr": {"tail": "boom\n", "size": 5, "stored": False},
    }
    lines = failure_excerpt(approved.root, "demo", record)
    assert len(lines) == FAILURE_LINES + 2  # the note on what was cut, the path line
    assert lines[-2].endswith("stderr| boom") and "earlier lines not shown" in lines[0]
