"""Plan parsing (standard library only: the gate hook reads plans on its hot path).

A plan is Markdown (format in docs/runs.md). Scope comes ONLY from `Files:`
bullets directly under todo rows of the comment-stripped document: a `Files:`
inside an HTML comment, a fence, front matter or prose grants nothing.
"""

from zodyssey.core.records import Fields

# The line shapes below are matched with string methods, not `re`: the gate
# hook parses the plan on every write it judges, and importing `re` (with
# `enum`, `functools` and `collections` behind it) would cost it about 5 ms.
# Whitespace is what `str.isspace` says, digits what `str.isdecimal` says (the
# same sets as `re`'s `\s` and `\d`); field names compare ASCII letters
# without regard to case. tests/runs/test_runs_plan_lines.py holds the
# grammar as regular expressions and checks these functions against them.


def todo_row(line: str) -> tuple[bool, str, str] | None:
    """`- [ ] 3. Title` -> (checked, "3", "Title"); ids may carry an `F` prefix."""
    if len(line) < 6 or not line.startswith("- [") or line[3] not in " xX" or line[4:6] != "] ":
        return None
    rest = line[6:]
    start = 1 if rest.startswith("F") else 0
    end = _digits_end(rest, start)
    if end == start or rest[end : end + 1] != "." or not rest[end + 1 : end + 2].isspace():
        return None
    return line[3] != " ", rest[:end], rest[end + 1 :].strip()


def _digits_end(text: str, start: int, limit: int | None = None) -> int:
    """Where the run of decimal digits from `start` ends (at most `limit` long)."""
    end = start
    stop = len(text) if limit is None else min(len(text), start + limit)
    while end < stop and text[end].isdecimal():
        end += 1
    return end


def field_bullet(line: str) -> tuple[int, str] | None:
    """An indented `- body` (or `*`, `+`) -> (indent, body without trailing blanks)."""
    body = line.lstrip()
    indent = len(line) - len(body)
    if indent == 0 or body[:1] not in ("-", "*", "+") or body[1:2] != " ":
        return None
    return indent, body[2:].rstrip()


def numbered_item(line: str) -> tuple[int, str] | None:
    """An indented `1. body` (or `1) body`) -> (indent, body without trailing blanks)."""
    body = line.lstrip()
    indent = len(line) - len(body)
    end = 0
    while end < len(body) and end < 9 and body[end].isdecimal():
        end += 1
    if indent == 0 or end == 0 or body[end : end + 1] not in (".", ")"):
        return None
    if body[end + 1 : end + 2] != " ":
        return None
    return indent, body[end + 2 :].rstrip()


def _command_of(text: str) -> str | None:
    found = first_backticked(text.replace("\n", " "))
    return found.strip() if found is not None else None


def labelled(body: str, label: str) -> str | None:
    """The value of `Label: value` (label in any ASCII case, blanks around the colon)."""
    head = body[: len(label)]
    if len(head) != len(label) or not head.isascii() or head.lower() != label.lower():
        return None
    rest = body[len(label) :].lstrip()
    if not rest.startswith(":"):
        return None
    return rest[1:].lstrip()


def first_backticked(text: str) -> str | None:
    """The text of the first non-empty `code span` (no backticks inside)."""
    start = text.find("`")
    while start != -1:
        end = text.find("`", start + 1)
        if end == -1:
            return None
        if end > start + 1:
            return text[start + 1 : end]
        start = end
    return None


def fence_run(line: str) -> str | None:
    """The opening run of a fence (at most 3 blanks, then 3 or more ` or ~)."""
    body = line.lstrip()
    if len(line) - len(body) > 3 or body[:1] not in ("`", "~"):
        return None
    mark = body[0]
    count = len(body) - len(body.lstrip(mark))
    return mark * count if count >= 3 else None


def blank_comments(text: str) -> str:
    """HTML comments (`<!-- ... -->`, or to the end when unclosed) blanked,
    newlines kept."""
    if "<!--" not in text:
        return text
    out: list[str] = []
    at = 0
    while (start := text.find("<!--", at)) != -1:
        close = text.find("-->", start + 4)
        end = len(text) if close == -1 else close + 3
        out.append(text[at:start])
        out.append("\n".join(" " * len(piece) for piece in text[start:end].split("\n")))
        at = end
    out.append(text[at:])
    return "".join(out)


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
    criteria: "tuple[Criterion, ...]" = ()

    @property
    def final(self) -> bool:
        return self.id.startswith("F")


class Plan:
    def __init__(self, title: str = "", todos: "list[Todo] | None" = None) -> None:
        self.title = title
        self.todos: list[Todo] = todos if todos is not None else []
        # (line, message): what the grammar read but cannot take as written (plan lint)
        self.problems: list[tuple[int, str]] = []

    def todo(self, todo_id: str) -> "Todo | None":
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


def _blank_front_matter(lines: list[str]) -> None:
    """Blank a leading `---` ... `---` (or `...`) block, its markers included."""
    if not lines or lines[0].strip() != "---":
        return
    for end in range(1, len(lines)):
        if lines[end].strip() in ("---", "..."):
            lines[: end + 1] = [""] * (end + 1)
            return


def strip_non_plan(text: str) -> list[str]:
    """Lines of the plan with HTML comments, front matter and fences blanked.

    Blanking (rather than deleting) keeps line numbers meaningful.
    """
    lines = blank_comments(text.replace("\r\n", "\n")).split("\n")
    _blank_front_matter(lines)
    fence: str | None = None
    for i, line in enumerate(lines):
        opening = fence_run(line) if fence is None else None
        if opening is not None:
            fence = opening
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


class _Reader:
    """What `parse_plan` knows as it reads the plan's lines in order."""

    __slots__ = ("criteria_indent", "current", "lines", "plan", "todos")

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.plan = Plan()
        self.current: dict[str, object] | None = None  # the todo being read
        self.todos: list[dict[str, object]] = []
        self.criteria_indent: int | None = None  # inside its acceptance criteria list

    def read(self, number: int, line: str) -> None:
        if not self.plan.title and line.startswith("# "):
            self.plan.title = line[2:].strip()
            return
        row = todo_row(line)
        if row:
            self._start(number, row)
        elif self.current is None or not line.strip():
            return
        elif not line[0].isspace():
            self._end(number, line)
        else:
            self._indented(number, line)

    def _start(self, number: int, row: "tuple[bool, str, str]") -> None:
        checked, todo_id, title = row
        self.current = {
            "id": todo_id,
            "title": title,
            "checked": checked,
            "line": number,
            "files": [],
            "criteria": [],
        }
        self.todos.append(self.current)
        self.criteria_indent = None

    def _end(self, number: int, line: str) -> None:
        """Column-0 text (a heading, prose, another list) ends the todo."""
        after_blank = number < 2 or not self.lines[number - 2].strip()
        if self.criteria_indent is not None and not after_blank and not line.startswith("#"):
            self.plan.problems.append(
                (
                    number,
                    "a line at column 0 right after an acceptance criterion ends the todo "
                    "here: indent it to continue the criterion, or leave a blank line",
                )
            )
        self.current = None
        self.criteria_indent = None

    def _criteria(self) -> "list[Criterion]":
        assert self.current is not None
        crits = self.current["criteria"]
        assert isinstance(crits, list)
        return crits

    def _indented(self, number: int, line: str) -> None:
        bullet = field_bullet(line)
        if self.criteria_indent is not None and bullet is None:
            # Inside a criteria list: a numbered item is a criterion like a bulleted one,
            # and a deeper non-bullet line continues the criterion above it.
            bullet = numbered_item(line)
            crits = self._criteria()
            depth = len(line) - len(line.lstrip())
            if bullet is None and crits and depth > self.criteria_indent:
                last = crits[-1]
                text = last.text + "\n" + line.strip()
                crits[-1] = Criterion(last.index, text, _command_of(text), last.line)
                return
        if not bullet:
            return
        indent, body = bullet
        if self.criteria_indent is not None and indent > self.criteria_indent:
            crits = self._criteria()
            crits.append(Criterion(len(crits) + 1, body, _command_of(body), number))
            return
        self.criteria_indent = None
        self._field(indent, body)

    def _field(self, indent: int, body: str) -> None:
        assert self.current is not None
        files = labelled(body, "Files")
        if files is not None:
            listed = self.current["files"]
            assert isinstance(listed, list)
            listed.extend(_split_files(files))
        elif labelled(body, "Acceptance criteria") is not None:
            self.criteria_indent = indent


def parse_plan(text: str) -> "Plan":
    lines = strip_non_plan(text)
    reader = _Reader(lines)
    for number, line in enumerate(lines, start=1):
        reader.read(number, line)
    plan = reader.plan
    for raw in reader.todos:
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
