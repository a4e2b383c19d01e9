"""History's `moved` is as certain as the lock's, and history judges no contentless span.

Issue 23 items 1 and 2: each scenario is a real repository whose history says
something the old history check got wrong (a move to an unrelated identical
line, a blank line judged `ok`), checked through the real command, with the
lock seeded from the same history as the second opinion: both must agree.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.anchors import run_cli
from tests.helpers.history import Repo

SWITCHES = (
    "func a(x int) string {\n  switch x {\n  case 1:\n    return one()\n  default:\n"
    "    return many()\n  }\n}\n\nfunc b(y int) string {\n  switch y {\n  case 2:\n"
    "    return two()\n  default:\n    return lots()\n  }\n}\n"
)


def _removed_default(repo: Repo) -> None:
    """`default:` of the first switch is cited, then removed; the second one's stays."""
    repo.write("src/sw.go", SWITCHES)
    repo.write("docs/guide.md", "The fallback is src/sw.go:5 in a.\n")
    repo.commit("write")
    lines = SWITCHES.split("\n")
    del lines[4:6]
    repo.write("src/sw.go", "\n".join(lines))
    repo.commit("no default in a")


def _brace_of_a_new_function(repo: Repo) -> None:
    """A cited closing brace, the body above it rewritten, a new function added below."""
    repo.write("src/f.py", "def f():\n    x = 1\n}\n\ndef g():\n    y = 2\n}\n")
    repo.write("docs/guide.md", "f ends at src/f.py:3.\n")
    repo.commit("write")
    repo.write(
        "src/f.py",
        "def f():\n    x = 10\n    if x:\n        z()\n}\n\ndef h():\n    w = 3\n}\n\n"
        "def g():\n    y = 2\n}\n",
    )
    repo.commit("rewrite f, add h")


def _changed_send_with_an_unrelated_twin(repo: Repo) -> None:
    """The cited send changed; an identical send elsewhere (a warm-up) was added later."""
    repo.write(
        "src/pool.go",
        "func (p *Pool) put(slot int) {\n  p.mu.Lock()\n  p.slots <- slot\n  p.mu.Unlock()\n}\n",
    )
    repo.write("docs/guide.md", "Returning a slot: src/pool.go:3.\n")
    repo.commit("write")
    repo.write(
        "src/pool.go",
        "func (p *Pool) put(slot int) {\n  p.mu.Lock()\n  p.tryReturnSlotLocked(slot)\n"
        "  p.mu.Unlock()\n}\n\nfunc warm(p *Pool) {\n  for slot := range 4 {\n"
        "    p.slots <- slot\n  }\n}\n",
    )
    repo.commit("warm-up; put returns through the helper")


SCENARIOS = {
    "removed-default": (_removed_default, "src/sw.go:5"),
    "brace": (_brace_of_a_new_function, "src/f.py:3"),
    "twin-send": (_changed_send_with_an_unrelated_twin, "src/pool.go:3"),
}


def _history(root: Path, *args: str) -> tuple[int, dict[str, object]]:
    proc = run_cli(root, "--history", "--format", "json", *args)
    assert proc.stdout, proc.stderr
    return proc.returncode, json.loads(proc.stdout)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_history_never_moves_a_citation_to_an_unrelated_identical_line(
    repo: Repo, name: str
) -> None:
    build, key = SCENARIOS[name]
    build(repo)
    guide = repo.read("docs/guide.md")
    code, payload = _history(repo.path)
    assert code == 9
    problems = payload["problems"]
    assert isinstance(problems, list) and len(problems) == 1
    problem = problems[0]
    assert (problem["kind"], problem["key"], problem["moved_to"]) == ("drift", key, None)
    assert problem["possibly"], "the identical places are shown, as not certain"
    assert "not certain" in problem["detail"]
    # --fix writes no guess into the document.
    code, payload = _history(repo.path, "--fix")
    assert code == 9
    assert repo.read("docs/guide.md") == guide


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_the_lock_seeded_from_history_says_the_same(repo: Repo, name: str) -> None:
    build, key = SCENARIOS[name]
    build(repo)
    seeded = run_cli(repo.path, "--update", "--from-history")
    assert seeded.returncode == 0, seeded.stdout + seeded.stderr
    proc = run_cli(repo.path, "--json")
    payload = json.loads(proc.stdout)
    assert [(p["kind"], p["key"]) for p in payload["problems"]] == [("drift", key)]


def test_a_real_shift_is_still_moved_in_both_modes(repo: Repo) -> None:
    # The control: lines inserted above a repeated line move it with its neighbours.
    repo.write("src/f.py", "def f():\n    return None\n\ndef g():\n    return None\n")
    repo.write("docs/guide.md", "g gives up at src/f.py:5.\n")
    repo.commit("write")
    repo.write("src/f.py", "import os\n\ndef f():\n    return None\n\ndef g():\n    return None\n")
    repo.commit("import")
    _code, payload = _history(repo.path)
    problems = payload["problems"]
    assert isinstance(problems, list)
    assert [(p["kind"], p["moved_to"]["key"]) for p in problems] == [("moved", "src/f.py:7")]


@pytest.mark.parametrize(
    "cited",
    ["", "//", "   #  ", "*/"],
    ids=["blank", "slashes", "hash", "comment-end"],
)
def test_history_refuses_contentless_spans_like_the_lock(repo: Repo, cited: str) -> None:
    repo.write("src/a.js", f"const a = 1;\n{cited}\nconst b = 2;\n")
    repo.write("docs/guide.md", "Between them: src/a.js:2, and src/a.js:1.\n")
    repo.commit("write")
    code, payload = _history(repo.path)
    assert code == 9
    problems = payload["problems"]
    assert isinstance(problems, list)
    assert [(p["kind"], p["key"]) for p in problems] == [("contentless", "src/a.js:2")]
    assert payload["counts"] == {
        "ok": 1,
        "moved": 0,
        "drift": 0,
        "gone": 0,
        "contentless": 1,
        "out-of-range": 0,
        "unreadable": 0,
        "unverifiable": 0,
        "unknown": 0,
    }
    lock = json.loads(run_cli(repo.path, "--json").stdout)
    assert [(p["kind"], p["key"]) for p in lock["problems"]] == [
        ("contentless", "src/a.js:2"),
        ("unlocked", "src/a.js:1"),
    ]


def test_an_uncommitted_citation_of_a_blank_line_is_contentless_not_unknown(repo: Repo) -> None:
    repo.write("src/a.js", "const a = 1;\n\nconst b = 2;\n")
    repo.write("docs/guide.md", "See src/a.js:1.\n")
    repo.commit("write")
    repo.write("docs/guide.md", "See src/a.js:1 and src/a.js:2.\n")
    _code, payload = _history(repo.path)
    problems = payload["problems"]
    assert isinstance(problems, list)
    assert [(p["kind"], p["key"]) for p in problems] == [("contentless", "src/a.js:2")]
