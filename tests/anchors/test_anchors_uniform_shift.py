"""A uniform shift is certain for a lock without evidence (issue 23, item 5).

A JavaScript checker's lock stores no neighbour evidence. With full history
the file at the lock's commit stands in; in a `fetch-depth: 1` clone (the
default of actions/checkout) or without git nothing does, and every pin below
an inserted line used to be drift. Pins each found exactly once, all by the
same offset, are `moved`, and `--fix` rewrites them.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers.anchors import commit, git, make_repo, run_cli, write

SOURCE = "".join(f"def step_{i}():\n    return {i}\n\n" for i in range(1, 21))
DOC = "Steps: src/a.py:4, src/a.py:7-8, src/a.py:31 and src/a.py:58-59.\n"


def _js_lock(root: Path) -> None:
    """Pin with our --update, then strip everything a JavaScript lock lacks."""
    assert run_cli(root, "--update").returncode == 0
    path = root / "anchors/anchors.lock.json"
    ours = json.loads(path.read_text())
    js = {"_comment": "pins", "exempt": [], "citations": ours["citations"]}
    (root / "scripts").mkdir()
    (root / "scripts/anchors.lock.json").write_text(json.dumps(js, indent=2) + "\n")
    path.unlink()


def _origin(tmp_path: Path, *, above: int = 3) -> Path:
    origin = make_repo(tmp_path / "origin", {"src/a.py": SOURCE, "docs/steps.md": DOC})
    _js_lock(origin)
    commit(origin, "lock")
    write(origin, "src/a.py", "".join(f"import m{i}\n" for i in range(above)) + SOURCE)
    commit(origin, "imports above everything")
    return origin


def _moved(root: Path) -> tuple[int, list[tuple[str, str, str | None]]]:
    proc = run_cli(root, "--lock", "scripts/anchors.lock.json", "--json")
    payload = json.loads(proc.stdout)
    return proc.returncode, [
        (p["kind"], p["key"], (p["moved_to"] or {}).get("key")) for p in payload["problems"]
    ]


EXPECTED = [
    ("moved", "src/a.py:31", "src/a.py:34"),
    ("moved", "src/a.py:4", "src/a.py:7"),
    ("moved", "src/a.py:58-59", "src/a.py:61-62"),
    ("moved", "src/a.py:7-8", "src/a.py:10-11"),
]


def test_a_shallow_clone_sees_the_shift_as_moved_and_fix_rewrites_it(tmp_path: Path) -> None:
    origin = _origin(tmp_path)
    clone = tmp_path / "clone"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", f"file://{origin}", str(clone)], check=True
    )
    assert git(clone, "rev-parse", "--is-shallow-repository").strip() == "true"
    code, problems = _moved(clone)
    assert code == 9
    assert sorted(problems) == EXPECTED
    fixed = run_cli(clone, "--lock", "scripts/anchors.lock.json", "--fix")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert (clone / "docs/steps.md").read_text() == (
        "Steps: src/a.py:7, src/a.py:10-11, src/a.py:34 and src/a.py:61-62.\n"
    )


def test_without_git_the_shift_is_moved_too(tmp_path: Path) -> None:
    origin = _origin(tmp_path)
    bare = tmp_path / "bare"
    shutil.copytree(origin, bare, ignore=shutil.ignore_patterns(".git"))
    assert sorted(_moved(bare)[1]) == EXPECTED


def test_an_insertion_between_pins_shifts_only_those_below(tmp_path: Path) -> None:
    origin = make_repo(tmp_path / "origin", {"src/a.py": SOURCE, "docs/steps.md": DOC})
    _js_lock(origin)
    lines = SOURCE.split("\n")
    lines[20:20] = ["# one", "# two"]  # between line 8 and line 31
    write(origin, "src/a.py", "\n".join(lines))
    shutil.rmtree(origin / ".git")
    _code, problems = _moved(origin)
    assert sorted(problems) == [
        ("moved", "src/a.py:31", "src/a.py:33"),
        ("moved", "src/a.py:58-59", "src/a.py:60-61"),
    ]


SHIFTED_BY_ONE = [
    ("moved", "src/a.py:31", "src/a.py:32"),
    ("moved", "src/a.py:4", "src/a.py:5"),
    ("moved", "src/a.py:58-59", "src/a.py:59-60"),
    ("moved", "src/a.py:7-8", "src/a.py:8-9"),
]


@pytest.mark.parametrize(
    ("case", "copies", "line_4_moves"),
    [("repeated", 1, True), ("repeated-changed", 2, False), ("nowhere", 0, False)],
)
def test_a_repeated_pin_moves_with_the_unique_ones_and_one_found_nowhere_stays_drift(
    tmp_path: Path, case: str, copies: int, line_4_moves: bool
) -> None:
    # Issue 35, item 8. Copies of `def step_2():` at the end make the pin of line 4
    # not unique. The three unique pins agree on +1; `def step_2():` standing at
    # 4 + 1 moved with them. When line 4 was changed too, its content is nowhere at
    # the offset (elsewhere only, or nowhere at all): it stays drift while the others
    # move (reported as `contentless`: a blank line stands at 4 now). Old code: every
    # pin drift or contentless, one repeated or missing pin spoiled the file.
    source = SOURCE + "def step_2():\n" * copies
    origin = make_repo(tmp_path / "origin", {"src/a.py": source, "docs/steps.md": DOC})
    _js_lock(origin)
    lines = source.split("\n")
    if case != "repeated":
        lines[3] = "def step_2(value):"
    lines[0:0] = ["import os"]
    write(origin, "src/a.py", "\n".join(lines))
    shutil.rmtree(origin / ".git")
    code, problems = _moved(origin)
    assert code == 9
    expected = [
        p if line_4_moves or p[1] != "src/a.py:4" else ("contentless", p[1], None)
        for p in SHIFTED_BY_ONE
    ]
    assert sorted(problems) == sorted(expected)


def test_a_unique_pin_at_another_offset_disagrees_and_nothing_moves(tmp_path: Path) -> None:
    # Line 4 changed, and its old text now stands once at the end of the file: a
    # unique pin at another offset than the others' +1, so no shift is certain.
    source = SOURCE + "# tail\n" + "def step_2():\n"
    origin = make_repo(tmp_path / "origin", {"src/a.py": source, "docs/steps.md": DOC})
    _js_lock(origin)
    lines = source.split("\n")
    lines[3] = "def step_2(value):"
    lines[0:0] = ["import os"]
    write(origin, "src/a.py", "\n".join(lines))
    shutil.rmtree(origin / ".git")
    code, problems = _moved(origin)
    assert code == 9
    assert {kind for kind, _key, _to in problems} <= {"drift", "contentless"}, problems


def test_a_pin_in_place_among_the_shifted_ones_contradicts_the_shift(tmp_path: Path) -> None:
    # Lines 7-8 still match where they were, between pins that moved by +1: not one shift.
    origin = make_repo(tmp_path / "origin", {"src/a.py": SOURCE, "docs/steps.md": DOC})
    _js_lock(origin)
    lines = SOURCE.split("\n")
    lines[0:0] = ["import os"]
    del lines[5]  # a blank line above 7-8 removed: 7-8 are back in place, 31 and 58 not
    lines[10:10] = ["# added"]
    write(origin, "src/a.py", "\n".join(lines))
    shutil.rmtree(origin / ".git")
    code, problems = _moved(origin)
    assert code == 9
    assert {kind for kind, _key, _to in problems} <= {"drift", "contentless"}, problems


@pytest.mark.parametrize("case", ["one-pin", "two-offsets"])
def test_anything_less_than_a_uniform_shift_stays_drift(tmp_path: Path, case: str) -> None:
    doc = "One: src/a.py:31.\n" if case == "one-pin" else DOC
    source = SOURCE
    origin = make_repo(tmp_path / "origin", {"src/a.py": source, "docs/steps.md": doc})
    _js_lock(origin)
    lines = source.split("\n")
    if case == "two-offsets":
        lines[40:40] = ["# later"]  # between 31 and 58: they shift by different offsets
    lines[0:0] = ["import os"]
    write(origin, "src/a.py", "\n".join(lines))
    shutil.rmtree(origin / ".git")
    code, problems = _moved(origin)
    assert code == 9
    assert problems
    assert {kind for kind, _key, _to in problems} <= {"drift", "contentless"}
