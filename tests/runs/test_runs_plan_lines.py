"""The plan's line shapes, matched with string methods (zodyssey/core/plan.py),
agree with the grammar written as regular expressions.

The gate parses the plan on every write it judges and does not import `re`
for it; these patterns are the grammar the functions implement (docs/runs.md),
and hypothesis looks for a line on which the two disagree. Field names are
ASCII letters in any case (`re.IGNORECASE` would also let `ı` stand for `i`
and `ſ` for `s`).
"""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from zodyssey.core.plan import (
    blank_comments,
    fence_run,
    field_bullet,
    first_backticked,
    labelled,
    parse_plan,
    todo_row,
)

TODO_ROW = re.compile(r"^- \[( |x|X)\] (F?\d+)\.\s+(.*?)\s*$")
FIELD = re.compile(r"^(\s+)[-*+] (.*?)\s*$")
FILES = re.compile(r"^[Ff][Ii][Ll][Ee][Ss]\s*:\s*(.*)$")
CRITERIA = re.compile(
    r"^[Aa][Cc][Cc][Ee][Pp][Tt][Aa][Nn][Cc][Ee] [Cc][Rr][Ii][Tt][Ee][Rr][Ii][Aa]\s*:\s*(.*)$"
)
BACKTICKED = re.compile(r"`([^`]+)`")
FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
COMMENT = re.compile(r"<!--.*?(-->|\Z)", re.S)

# pieces that make the shapes above likely, and the characters that test their
# edges: Unicode blanks and digits, `ı`/`ſ`, carriage returns, NUL
PIECES = [
    "- [ ] ",
    "- [x] ",
    "- [X] ",
    "- [y] ",
    "-  [ ] ",
    "F",
    "f",
    "1",
    "42",
    "\u0663",
    "\u00b2",
    ".",
    " ",
    "  ",
    "\t",
    "\u00a0",
    "\u2003",
    "\u3000",
    "\x1c",
    "\r",
    "\x00",
    "Title",
    "- ",
    "* ",
    "+ ",
    "-\t",
    "Files",
    "FILES",
    "files",
    "F\u0131les",
    "Fi\u017fe",
    "Acceptance criteria",
    "ACCEPTANCE CRITERIA",
    "Acceptance  criteria",
    ":",
    "`",
    "``",
    "```",
    "````",
    "~~~",
    "~~",
    "`a b`",
    "<!--",
    "-->",
    "<!-->",
    "-",
    ">",
    "x",
    "[",
    "]",
    "\u00e9",
]
lines = st.lists(st.sampled_from(PIECES), max_size=10).map("".join) | st.text(max_size=30)


@given(lines)
@example("- [x] F12.\u00a0Ship it \u2003")
@example("- [ ] \u0663. three")
@example("- [ ] 1.")
@example("- ( ] 1. x")
def test_todo_row(line: str) -> None:
    found = TODO_ROW.match(line)
    expected = (found.group(1) != " ", found.group(2), found.group(3)) if found else None
    assert todo_row(line) == expected


@given(lines)
@example("\u3000* body \t")
@example(" -  spaced")
def test_field_bullet(line: str) -> None:
    found = FIELD.match(line)
    expected = (len(found.group(1)), found.group(2)) if found else None
    assert field_bullet(line) == expected


@given(lines)
@example("FILES \t: [`a`]")
@example("F\u0131les: a")
@example("Files")
def test_labels(body: str) -> None:
    for pattern, label in ((FILES, "Files"), (CRITERIA, "Acceptance criteria")):
        found = pattern.match(body)
        assert labelled(body, label) == (found.group(1) if found else None)


@given(lines)
@example("``x`")
@example("a `` b")
def test_first_backticked(text: str) -> None:
    found = BACKTICKED.search(text)
    assert first_backticked(text) == (found.group(1) if found else None)


@given(lines)
@example("   ````x")
@example("    ```")
@example("\u00a0~~~")
def test_fence_run(line: str) -> None:
    found = FENCE.match(line)
    assert fence_run(line) == (found.group(1) if found else None)


documents = st.lists(lines, max_size=8).map("\n".join)


@given(documents)
@example("a<!--b\nc-->d<!--e")
@example("<!-->x-->")
@settings(max_examples=300)
def test_blank_comments(text: str) -> None:
    expected = COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    assert blank_comments(text) == expected


def test_a_whole_plan() -> None:
    plan = parse_plan(
        "# T\n"
        "- [ ] 1. First\n"
        "  - FILES : [`src/a.py`, `b/`]\n"
        "  - Acceptance criteria:\n"
        "    - `pytest -q` exits 0\n"
        "    - no command here\n"
        "<!-- - [ ] 2. Hidden\n  - Files: [`x`] -->\n"
        "```\n- [ ] 3. Fenced\n```\n"
        "- [x] F1.\tLast\n"
        "  * F\u0131les: [`y`]\n"
    )
    assert [(t.id, t.title, t.checked, t.files) for t in plan.todos] == [
        ("1", "First", False, ("src/a.py", "b/")),
        ("F1", "Last", True, ()),  # `Fıles` is not a Files field
    ]
    criteria = plan.todos[0].criteria
    assert [(c.command, c.line) for c in criteria] == [("pytest -q", 5), (None, 6)]
