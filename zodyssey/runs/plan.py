"""Plan parsing (standard library only: the gate hook reads plans on its hot path).

A plan is Markdown (format in docs/runs.md). Scope comes ONLY from `Files:`
bullets directly under todo rows of the comment-stripped document: a `Files:`
inside an HTML comment, a fence, front matter or prose grants nothing.
"""

from __future__ import annotations

import re

from zodyssey.record import Fields

_TODO_ROW = re.compile(r"^- \[( |x|X)\] (F?\d+)\.\s+(.*?)\s*$")
_FIELD = re.compile(r"^(\s+)[-*+] (.*?)\s*$")
_FILES = re.compile(r"^Files\s*:\s*(.*)$", re.IGNORECASE)
_CRITERIA = re.compile(r"^Acceptance criteria\s*:\s*(.*)$", re.IGNORECASE)
_BACKTICKED = re.compile(r"`([^`]+)`")
_HEADING = re.compile(r"^#{1,6}\s")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")


# Records rather than dataclasses or NamedTuples: importing dataclasses or
# typing costs the gate hook milliseconds on every write decision.
class Criterion(Fields):
    index: int  # type: ignore[assignment]  # 1-based; shadows tuple.index on purpose
    text: str  # the bullet text exactly as written (after the bullet marker)
    command: str | None  # the backticked command, None when the bullet has none
    line: int


class Todo(Fields):
    id: str  # "1", "2", "F1"
    title: str
    checked: bool
    line: int
    files: tuple[str, ...] = ()
    criteria: tuple[Criterion, ...] = ()

    @property
    def final(self) -> bool:
        return self.id.startswith("F")


class Plan:
    def __init__(self, title: str = "", todos: list[Todo] | None = None) -> None:
        self.title = title
        self.todos: list[Todo] = todos if todos is not None else []

    def todo(self, todo_id: str) -> Todo | None:
        for todo in self.todos:
            if todo.id == todo_id:
                return todo
        return None

    def scope(self) -> tuple[frozenset[str], frozenset[str]]:
        """(declared files, declared directories without trailing slash)."""
        files: set[str] = set()
        dirs: set[str] = set()
        for todo in self.todos:
            for path in todo.files:
                if path.endswith("/"):
                    stripped = path.rstrip("/")
                    dirs.add(stripped or "/")
                else:
                    files.add(path)
        return frozenset(files), frozenset(dirs)


def plan_sha256(data: bytes | str) -> str:
    raw = data.encode("utf-8") if isinstance(data, str) else data
    try:
        # The builtin SHA-256 gives the same digest as hashlib's without
        # loading OpenSSL (milliseconds per hook call).
        from _sha256 import sha256  # type: ignore[import-not-found]
    except ImportError:  # an interpreter built without it
        from hashlib import sha256
    digest: str = sha256(raw).hexdigest()
    return digest


def strip_non_plan(text: str) -> list[str]:
    """Lines of the plan with HTML comments, front matter and fences blanked.

    Blanking (rather than deleting) keeps line numbers meaningful.
    """
    text = text.replace("\r\n", "\n")
    # HTML comments may span lines: blank their characters but keep newlines.
    text = re.sub(r"<!--.*?(-->|\Z)", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    lines = text.split("\n")
    if lines and lines[0].strip() == "---":
        for end in range(1, len(lines)):
            if lines[end].strip() in ("---", "..."):
                for i in range(end + 1):
                    lines[i] = ""
                break
    fence: str | None = None
    for i, line in enumerate(lines):
        match = _FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)[0] * len(match.group(1))
            lines[i] = ""
        elif fence is not None:
            if line.strip().startswith(fence) and set(line.strip()) <= {fence[0]}:
                fence = None
            lines[i] = ""
    return lines


def _split_files(value: str) -> tuple[str, ...]:
    value = value.strip()
    if value.startswith("[") and value.endswith("]"):
        value = value[1:-1]
    out: list[str] = []
    for part in value.split(","):
        item = part.strip().strip("`").strip()
        if item and item not in ("none", "None", "-"):
            out.append(item)
    return tuple(out)


def parse_plan(text: str) -> Plan:
    lines = strip_non_plan(text)
    plan = Plan()
    current: dict[str, object] | None = None
    todos: list[dict[str, object]] = []
    criteria_indent: int | None = None
    for number, line in enumerate(lines, start=1):
        if not plan.title and line.startswith("# "):
            plan.title = line[2:].strip()
            continue
        row = _TODO_ROW.match(line)
        if row:
            current = {
                "id": row.group(2),
                "title": row.group(3),
                "checked": row.group(1) != " ",
                "line": number,
                "files": [],
                "criteria": [],
            }
            todos.append(current)
            criteria_indent = None
            continue
        if current is None:
            continue
        if not line.strip():
            continue
        if not line[0].isspace():
            # Column-0 text (a heading, prose, another list) ends the todo.
            current = None if (_HEADING.match(line) or line.strip()) else current
            criteria_indent = None
            continue
        bullet = _FIELD.match(line)
        if not bullet:
            continue
        indent, body = len(bullet.group(1)), bullet.group(2)
        if criteria_indent is not None and indent > criteria_indent:
            crits = current["criteria"]
            assert isinstance(crits, list)
            found = _BACKTICKED.search(body)
            crits.append(
                Criterion(len(crits) + 1, body, found.group(1).strip() if found else None, number)
            )
            continue
        criteria_indent = None
        files = _FILES.match(body)
        if files:
            listed = current["files"]
            assert isinstance(listed, list)
            listed.extend(_split_files(files.group(1)))
            continue
        if _CRITERIA.match(body):
            criteria_indent = indent
    for raw in todos:
        plan.todos.append(
            Todo(
                id=str(raw["id"]),
                title=str(raw["title"]),
                checked=bool(raw["checked"]),
                line=int(str(raw["line"])),
                files=tuple(raw["files"]),  # type: ignore[arg-type]
                criteria=tuple(raw["criteria"]),  # type: ignore[arg-type]
            )
        )
    return plan
