"""Plans of JavaScript-pipeline runs, read the way that pipeline reads them.

The audit must judge a JS run against the criteria the pipeline itself saw,
or criteria silently vanish (or appear). Its grammar differs from ours
(`zodyssey/core/plan.py`) in ways that matter:

- only rows inside the `## Todos` and `## Final verification wave` sections
  count; a section runs to the next line starting with `## `;
- front matter is recognised only as `---` newline ... newline `---` newline at
  the very start; HTML comments are removed (not blanked); code fences are
  not special;
- a todo row is `- [ ] N. title` (or `F<n>`) at column 0; inside a todo, any
  line that is not an indented `- ` bullet (a blank line, prose, a wrapped
  line at column 0) is skipped without ending the todo or its criteria list;
- after an `Acceptance criteria:` field, every `- ` bullet indented by four
  or more spaces is a criterion until a less indented bullet starts another
  field; criteria are numbered from 1 in that order.

Only bullets with a `-` marker are read (not `*` or `+`). The result uses our
plan types so the audit's rules need not know which grammar was used.
"""

from __future__ import annotations

import re

from zodyssey.core.plan import Criterion, Plan, Todo

_FRONT_MATTER = re.compile(r"\A---\n[\s\S]*?\n---\n")
_COMMENT = re.compile(r"<!--[\s\S]*?-->")
# `[^\r\n]` where the pipeline's JavaScript has `.`: its `.` stops at a carriage
# return, so a bullet of a CRLF plan is not a bullet there, and not here.
_ROW = re.compile(r"^- \[( |x|X)\] (F?\d+)\.\s+([^\r\n]+?)\s*$")
_NESTED = re.compile(r"^(\s+)- ([^\r\n]*)$")
_FILES = re.compile(r"^Files:\s*\[([^\]]*)\]", re.IGNORECASE)
_CRITERIA = re.compile(r"^Acceptance criteria:", re.IGNORECASE)
_QA = re.compile(r"^QA scenarios:", re.IGNORECASE)
_BACKTICKED = re.compile(r"`([^`]+)`")
_TITLE = re.compile(r"^# (.+?)\s*$", re.MULTILINE)


def _section(body: str, name: str) -> tuple[str, int]:
    """The text of section `## name` (to the next `## ` line) and its first line number."""
    header = re.compile(rf"^## {re.escape(name)}\s*$", re.MULTILINE)
    found = header.search(body)
    if found is None:
        return "", 0
    start = body.find("\n", found.start())
    if start == -1:
        return "", 0
    rest = body[start + 1 :]
    following = re.search(r"^## ", rest, re.MULTILINE)
    text = rest if following is None else rest[: following.start()]
    first_line = body[: start + 1].count("\n") + 1
    # The pipeline trims the section text: leading blank lines and the indent of its
    # first line go.
    stripped = text.lstrip()
    first_line += text[: len(text) - len(stripped)].count("\n")
    return stripped.rstrip(), first_line


def commands(text: str) -> list[str]:
    """Every backticked command of a criterion, in order."""
    return [m.group(1).strip() for m in _BACKTICKED.finditer(text) if m.group(1).strip()]


def _rows(block: str, first_line: int) -> list[Todo]:
    out: list[Todo] = []
    current: dict[str, object] | None = None
    todos: list[dict[str, object]] = []
    mode: str | None = None  # "acceptance" | "qa" | None
    for offset, line in enumerate(block.split("\n")):
        number = first_line + offset
        row = _ROW.match(line)
        if row:
            current = {
                "id": row.group(2),
                "title": row.group(3),
                "checked": row.group(1).lower() == "x",
                "line": number,
                "files": [],
                "criteria": [],
            }
            todos.append(current)
            mode = None
            continue
        if current is None:
            continue
        nested = _NESTED.match(line)
        if nested is None:
            continue  # blank, prose or a wrapped line: neither ends the todo nor the list
        indent, body = len(nested.group(1)), nested.group(2)
        if mode is not None and indent >= 4:
            if mode == "acceptance":
                criteria = current["criteria"]
                assert isinstance(criteria, list)
                item = body.strip()
                found = commands(item)
                criteria.append(
                    Criterion(len(criteria) + 1, item, found[0] if found else None, number)
                )
            continue
        mode = None
        listed = _FILES.match(body)
        if listed:
            current["files"] = [p.strip() for p in listed.group(1).split(",") if p.strip()]
        elif _CRITERIA.match(body):
            mode = "acceptance"
        elif _QA.match(body):
            mode = "qa"
    for raw in todos:
        files = raw["files"]
        criteria = raw["criteria"]
        assert isinstance(files, list) and isinstance(criteria, list)
        out.append(
            Todo(
                id=str(raw["id"]),
                title=str(raw["title"]),
                checked=bool(raw["checked"]),
                line=int(str(raw["line"])),
                # the pipeline keeps backticks in Files entries; scope checks strip them
                files=tuple(str(f).strip("`").strip() for f in files),
                criteria=tuple(criteria),
            )
        )
    return out


def parse_js_plan(text: str) -> Plan:
    """A JavaScript-pipeline plan, parsed by that pipeline's grammar."""
    body = text
    front = _FRONT_MATTER.match(text)
    if front is not None:
        body = text[front.end() :]
    offset = text[: len(text) - len(body)].count("\n")
    # Comments are removed as the pipeline removes them; line numbers after a
    # multi-line comment are approximate (they only locate findings).
    body = _COMMENT.sub("", body)
    plan = Plan()
    title = _TITLE.search(body)
    if title is not None:
        plan.title = title.group(1)
    for name in ("Todos", "Final verification wave"):
        block, first_line = _section(body, name)
        plan.todos.extend(_rows(block, first_line + offset))
    return plan
