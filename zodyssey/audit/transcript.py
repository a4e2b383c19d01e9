"""Prove the gate ran: every tool call the harness's transcript records inside the
run's window has a pre-tool decision of the gate recorded under its id.

The hook side (`note`, on the hook's path: only `os` and `time`, both loaded
already) appends one short line per pre-tool decision to
`.zcode/state/<slug>.decisions` (run state: no agent tool may write there):

    pre<TAB>tool_use_id<TAB>exit code<TAB>unix time<TAB>transcript_path

one `write(2)` on a file opened with O_APPEND, for every active run the call was
judged for. A post-tool call writes a `post` line: that names the transcript
too when only the post-tool hook is wired.

The audit side (`check`) reads the transcripts those lines name (and those the
review recorded, and Claude Code's own folder of the project's sessions,
`~/.claude/projects/<project dir with each non-alphanumeric character as
->/*.jsonl`, so a session whose hook never ran is found too) with the
reviewer check's reader (`zodyssey.runs.review.read_transcript`), and fails
(`gate-unproven`) for each tool call whose timestamp lies in the run's window
(from `started_at` to the moment the run left the active phases, or now), or
whose time cannot place it outside (none, unreadable, without a zone and
inside in some zone), and whose id has no `pre` line: the hook was not wired, crashed before deciding,
its matcher left the tool out, or its interpreter was missing. A transcript
named but unreadable is a warning. A harness whose hook payload carries no
call id (Gemini CLI's BeforeTool) is matched by what the call was instead:
its decision line carries `args:NAME:DIGEST` (crc32 and length of the
canonical JSON of `tool_input`, `args_key`), its transcript (Gemini's chat
file, `~/.gemini/tmp/<project>/chats/*.jsonl`, found from
`~/.gemini/projects.json` even when no hook ran) records each call's name and
`args`, and every call of a transcript needs its own decision line with the
same key naming that transcript (two identical calls need two lines)
(docs/gate.md, "Proving the gate ran").
"""

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

SUFFIX = ".decisions"
# Tool-call items of the transcripts: Claude Code's `tool_use` content blocks,
# Codex's response items.
CALL_TYPES = (
    "tool_use",
    "server_tool_use",
    "function_call",
    "custom_tool_call",
    "local_shell_call",
)
MAX_SHOWN = 20


def decisions_file(root: str, slug: str) -> str:
    from zodyssey.core.paths import state_dir

    return os.path.join(state_dir(root), slug + SUFFIX)


def _field(value: "Any") -> str:
    text = value if isinstance(value, str) else ""
    return text.replace("\t", " ").replace("\n", " ").replace("\r", " ")[:1024]


def canonical(value: "Any") -> str:
    """`value` as JSON with sorted keys, no spaces, ASCII only: the same text on
    the hook's side (the payload's `tool_input`) and the audit's (the
    transcript's `args`), whatever order or escapes each was written with."""
    from _json import encode_basestring_ascii as quote  # loaded by jsontext already

    if isinstance(value, str):
        return str(quote(value))
    if value is None or isinstance(value, bool | int | float):
        return _scalar(value)
    if isinstance(value, dict):
        items = sorted((str(k), v) for k, v in value.items())
        return "{" + ",".join(str(quote(k)) + ":" + canonical(v) for k, v in items) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(canonical(v) for v in value) + "]"
    return str(quote(str(value)))


def _scalar(value: "Any") -> str:
    if value is None or isinstance(value, bool):
        return "null" if value is None else ("true" if value else "false")
    return str(value) if isinstance(value, int) else float.__repr__(value)


def args_key(name: "Any", args: "Any") -> str:
    """The id of a call whose harness gives none: its tool name and the crc32 and
    length of its arguments' canonical JSON."""
    import zlib

    text = canonical(args if args is not None else {}).encode("utf-8", "surrogatepass")
    return f"args:{_field(name)[:128]}:{zlib.crc32(text):08x}:{len(text)}"


def _ident(body: "dict[str, Any]") -> str:
    ident = _field(body.get("tool_use_id"))
    if ident or not isinstance(body.get("tool_name"), str):
        return ident
    return args_key(body["tool_name"], body.get("tool_input"))


def note(
    runs: "Iterable[tuple[str, Iterable[tuple[str, Any]]]]",
    payload: "Any",
    event: str,
    code: int,
) -> None:
    """Append the decision line to each run's decisions file (best effort: a
    failed write is found by the audit as a call without a decision)."""
    import time

    body = payload if isinstance(payload, dict) else {}
    line = (
        f"{event}\t{_ident(body)}\t{code}\t{time.time():.3f}\t"
        f"{_field(body.get('transcript_path'))}\n"
    ).encode("utf-8", "replace")
    for root, active in runs:
        for slug, _ in active:
            try:
                fd = os.open(
                    os.path.join(root, ".zcode", "state", slug + SUFFIX),
                    os.O_WRONLY | os.O_APPEND | os.O_CREAT,
                    0o644,
                )
            except OSError:
                continue
            try:
                os.write(fd, line)
            except OSError:
                pass
            finally:
                os.close(fd)


# ----------------------------------------------------------------------------- audit


class Decisions:
    """What the decisions file of a run says: the ids decided in pre-tool and the
    transcripts the hook was told about."""

    def __init__(self) -> None:
        self.decided: set[str] = set()
        self.transcripts: list[str] = []
        # (transcript's real path, args key) -> how many pre lines (calls without ids)
        self.by_args: dict[tuple[str, str], int] = {}


def read_decisions(path: str) -> Decisions:
    out = Decisions()
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return out
    for line in lines:
        fields = line.split("\t")
        if len(fields) < 5:
            continue
        event, tool_use_id, _, _, transcript = fields[:5]
        if event == "pre" and tool_use_id.startswith("args:"):
            key = (os.path.realpath(transcript), tool_use_id)
            out.by_args[key] = out.by_args.get(key, 0) + 1
        elif event == "pre" and tool_use_id:
            out.decided.add(tool_use_id)
        if transcript and transcript not in out.transcripts:
            out.transcripts.append(transcript)
    return out


def _epoch(value: "Any", default: float | None = None) -> float | None:
    """The unix time of an ISO 8601 timestamp with a zone, else `default`."""
    if not isinstance(value, str) or not value:
        return default
    from datetime import datetime

    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return default
    return default if moment.tzinfo is None else moment.timestamp()


# When a transcript says a call happened: (earliest, latest) unix time, or the
# reason it cannot be placed at all. A time without a zone lies anywhere from
# UTC-12 to UTC+14 of what it says.
_ZONES = (14 * 3600.0, 12 * 3600.0)
# Unix times at or above this many units are milliseconds (seconds would be past
# the year 5000), at or above 1e14 microseconds.
_MILLIS = 1e11


def _number_time(value: float) -> "tuple[float, float] | str":
    if value != value or value < 0 or value >= 1e17:  # NaN, negative, absurd
        return f"the number {value!r} is no unix time"
    seconds = value / 1e6 if value >= 1e14 else value / 1e3 if value >= _MILLIS else value
    return (seconds, seconds)


def _when(value: "Any") -> "tuple[float, float] | str":
    """Where a transcript timestamp puts a call (see `When`)."""
    if isinstance(value, bool):
        return f"the timestamp {value!r} is not a time"
    if isinstance(value, int | float):
        return _number_time(float(value))
    if not isinstance(value, str) or not value.strip():
        return f"the timestamp {str(value)[:40]!r} is not a time"
    text = value.strip()
    if text.isdigit() or text.replace(".", "", 1).isdigit():
        return _number_time(float(text))
    from datetime import datetime

    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return f"the timestamp {text[:40]!r} cannot be read"
    if moment.tzinfo is None:
        from datetime import UTC

        naive = moment.replace(tzinfo=UTC).timestamp()
        return (naive - _ZONES[0], naive + _ZONES[1])
    return (moment.timestamp(), moment.timestamp())


def _nearest(
    own: "Any", has_own: bool, enclosing: "tuple[float, float] | str"
) -> "tuple[float, float] | str":
    """An item's time: its own timestamp when that places it, else the enclosing
    one when that does, else the reason neither does."""
    if not has_own:
        return enclosing
    mine = _when(own)
    if isinstance(mine, str) and not isinstance(enclosing, str):
        return enclosing
    return mine


NO_TIME = "the transcript gives it no timestamp"


def _call_id(item: "dict[str, Any]") -> str | None:
    """The id of a transcript item that is a tool call, else None."""
    kind = item.get("type")
    if kind not in CALL_TYPES:
        return None
    ident = item.get("id") if kind in ("tool_use", "server_tool_use") else None
    ident = ident or item.get("call_id")
    return ident if isinstance(ident, str) and ident else None


def tool_calls(documents: "list[Any]") -> "list[tuple[str, str, tuple[float, float] | str]]":
    """(id, tool name, time: (earliest, latest) or why it has none) of every tool call the transcript records; the
    time is the nearest enclosing timestamp (a Claude Code line's, a Codex
    rollout line's)."""
    out: list[tuple[str, str, tuple[float, float] | str]] = []
    seen: set[str] = set()
    stack: list[tuple[Any, tuple[float, float] | str]] = [
        (doc, NO_TIME) for doc in reversed(documents)
    ]
    while stack:
        item, when = stack.pop()
        if isinstance(item, list):
            stack.extend((value, when) for value in reversed(item))
            continue
        if not isinstance(item, dict):
            continue
        when = _nearest(item.get("timestamp"), "timestamp" in item, when)
        ident = _call_id(item)
        if ident is not None and ident not in seen:
            seen.add(ident)
            out.append((ident, str(item.get("name") or item.get("type")), when))
        stack.extend((value, when) for value in reversed(list(item.values())))
    return out


def gemini_calls(
    documents: "list[Any]",
) -> "list[tuple[str, str, tuple[float, float] | str, str]]":
    """(id, tool name, timestamp, args key) of every call a Gemini CLI chat file
    records (`toolCalls` of its `gemini` messages; a message is written again as
    it is updated, so each call id counts once)."""
    out: list[tuple[str, str, tuple[float, float] | str, str]] = []
    seen: set[str] = set()
    for message in documents:
        calls = message.get("toolCalls") if isinstance(message, dict) else None
        for call in calls if isinstance(calls, list) else []:
            ident = call.get("id") if isinstance(call, dict) else None
            if not isinstance(ident, str) or not ident or ident in seen:
                continue
            seen.add(ident)
            outer = _nearest(message.get("timestamp"), "timestamp" in message, NO_TIME)
            when = _nearest(call.get("timestamp"), "timestamp" in call, outer)
            name = str(call.get("name") or "")
            out.append((ident, name, when, args_key(name, call.get("args"))))
    return out


def gemini_project_transcripts(project_dir: str, home: str | None = None) -> "list[str]":
    """Gemini CLI's chat files of sessions in `project_dir`, found whether or not a
    hook ran: `~/.gemini/tmp/<name>/chats/*.jsonl`, the name from
    `~/.gemini/projects.json` (older clients: the sha256 of the directory)."""
    base = os.path.join(home or os.path.expanduser("~"), ".gemini")
    out: list[str] = []
    for name in _gemini_names(base, project_dir):
        folder = os.path.join(base, "tmp", name, "chats")
        try:
            found = sorted(os.listdir(folder))
        except OSError:
            continue
        out.extend(os.path.join(folder, n) for n in found if n.endswith(".jsonl"))
    return out


def _gemini_names(base: str, project_dir: str) -> "list[str]":
    """The folder names under `~/.gemini/tmp/` that may hold the project's chats."""
    import hashlib

    names = [hashlib.sha256(project_dir.encode("utf-8", "surrogateescape")).hexdigest()]
    try:
        from zodyssey.core.store import read_json

        projects = read_json(os.path.join(base, "projects.json")).get("projects")
        named = projects.get(project_dir) if isinstance(projects, dict) else None
    except (OSError, ValueError, AttributeError):
        return names
    if isinstance(named, str) and named and "/" not in named and named not in (".", ".."):
        names.insert(0, named)
    return names


def window(state: "dict[str, Any]") -> "tuple[float | None, float | None]":
    """(start, end) of the run's active time; end None while it is active."""
    from zodyssey.core.vocabulary import is_active

    start = _epoch(state.get("started_at"))
    end = None
    history = state.get("phase_history")
    for entry in history if isinstance(history, list) else []:
        if isinstance(entry, dict) and not is_active(entry.get("to")):
            end = _epoch(entry.get("at"))
            if end is not None:
                break
    return start, end


def claude_project_transcripts(project_dir: str, home: str | None = None) -> "list[str]":
    """Claude Code's transcripts of sessions in `project_dir`: found whether or not
    a hook ever ran (`$CLAUDE_CONFIG_DIR` or `~/.claude`, `projects/<munged dir>`)."""
    base = os.environ.get("CLAUDE_CONFIG_DIR") or os.path.join(
        home or os.path.expanduser("~"), ".claude"
    )
    munged = "".join(c if c.isascii() and c.isalnum() else "-" for c in project_dir)
    folder = os.path.join(base, "projects", munged)
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    return [os.path.join(folder, n) for n in names if n.endswith(".jsonl")]


class Unproven:
    """One transcript's verdict: the calls in the window without a decision, each
    (id, tool name, why it counts as in the window: "" when its time lies there,
    else why its time cannot place it outside)."""

    def __init__(
        self, path: str, readable: bool, missing: "list[tuple[str, str, str]]", seen: int
    ) -> None:
        self.path = path
        self.readable = readable
        self.missing = missing
        self.seen = seen


def unproven(
    root: str,
    slug: str,
    state: "dict[str, Any]",
    extra: "Iterable[str]" = (),
    decisions_path: str | None = None,
) -> "list[Unproven]":
    """Per transcript: the tool calls inside the run's window with no pre-tool decision
    (the decisions file: beside the state, `decisions_path`, else the live one)."""
    from zodyssey.runs.review import read_transcript

    decisions = read_decisions(decisions_path or decisions_file(root, slug))
    paths = _transcript_paths(root, state, [*decisions.transcripts, *extra])
    start, end = window(state)
    out = []
    for path in paths:
        documents = read_transcript(path)
        if documents is None:
            out.append(Unproven(path, False, [], 0))
            continue
        inside = [
            (ident, name, why)
            for ident, name, when in tool_calls(documents)
            if (why := _inside(when, start, end)) is not None
        ]
        missing = [(i, n, w) for i, n, w in inside if i not in decisions.decided]
        keyed = _unmatched_by_args(path, documents, decisions, start, end)
        missing.extend(keyed[0])
        out.append(Unproven(path, True, missing, len(inside) + keyed[1]))
    return out


def _unmatched_by_args(
    path: str,
    documents: "list[Any]",
    decisions: "Decisions",
    start: float | None,
    end: float | None,
) -> "tuple[list[tuple[str, str, str]], int]":
    """(the calls without ids, Gemini's, inside the window that no decision line
    of this transcript matches, how many there were): each decision line
    matches one call of its key."""
    budget = {k: n for (p, k), n in decisions.by_args.items() if p == os.path.realpath(path)}
    missing: list[tuple[str, str, str]] = []
    count = 0
    for ident, name, when, key in gemini_calls(documents):
        why = _inside(when, start, end)
        if why is None:
            continue
        count += 1
        if budget.get(key, 0) > 0:
            budget[key] -= 1
        else:
            missing.append((ident, name, why))
    return missing, count


def _inside(
    when: "tuple[float, float] | str", start: float | None, end: float | None
) -> str | None:
    """None when the call lies outside the run's window; "" when its time lies
    inside; else why its time cannot put it outside (fail closed: a time that
    cannot be read, a run whose start cannot, a time without a zone that may lie
    inside)."""
    if isinstance(when, str):
        return when
    if start is None:
        return "the run's start time cannot be read"
    earliest, latest = when
    if latest < start or (end is not None and earliest > end):
        return None
    if earliest == latest or (earliest >= start and (end is None or latest <= end)):
        return ""
    return "its timestamp has no time zone, and in some zone it lies in the run's window"


def _transcript_paths(root: str, state: "dict[str, Any]", named: "Iterable[str]") -> "list[str]":
    """The transcripts named (decision lines, review rounds) and Claude Code's own
    of the project, each once."""
    paths = list(dict.fromkeys(named))
    project = state.get("project_dir") if isinstance(state.get("project_dir"), str) else root
    known = {os.path.realpath(p) for p in paths}
    for found in [
        *claude_project_transcripts(str(project)),
        *gemini_project_transcripts(str(project)),
    ]:
        if os.path.realpath(found) not in known:
            known.add(os.path.realpath(found))
            paths.append(found)
    return paths


def check(run: "Any", emit: "Callable[..., None]") -> None:
    """The audit's `gate-unproven` check of a zodyssey run (see the module docstring)."""
    if run.source != "zodyssey":
        return
    from pathlib import Path

    from zodyssey.core.store import read_json
    from zodyssey.core.vocabulary import ARCHIVE

    state_path = Path(run.state_path).resolve()
    # .zcode/state/<slug>.json, or an archived run's .zcode/archive/<run>/<slug>.json;
    # its decisions lie beside it (`run start` archives them with the run).
    archived = state_path.parent.parent.as_posix().endswith("/" + ARCHIVE)
    root = str(state_path.parents[3] if archived else state_path.parents[2])
    decisions = str(state_path.with_suffix(SUFFIX))
    try:
        state = read_json(state_path)
    except (OSError, ValueError):
        return
    if not isinstance(state, dict):
        return
    extra = [r.transcript_path for r in run.review.rounds if getattr(r, "transcript_path", None)]
    for verdict in unproven(root, run.slug, state, extra, decisions):
        if not verdict.readable:
            emit(
                "gate-unproven",
                "warning",
                f"the harness transcript {verdict.path} cannot be read here, so the gate's "
                "decisions for its calls are not cross-checked",
                verdict.path,
                key=f"unread/{verdict.path}",
            )
            continue
        for ident, name, why in verdict.missing[:MAX_SHOWN]:
            placed = (
                "in the run's window"
                if not why
                else f"that cannot be placed outside the run's window ({why})"
            )
            emit(
                "gate-unproven",
                "error",
                f"the {name} call {ident} {placed} has no gate decision: the "
                "pre-tool hook did not run for it (not wired, crashed, matcher narrowed or "
                "interpreter missing)",
                verdict.path,
                key=f"call/{ident}",
            )
        if len(verdict.missing) > MAX_SHOWN:
            emit(
                "gate-unproven",
                "error",
                f"and {len(verdict.missing) - MAX_SHOWN} more calls in {verdict.path} without "
                "a gate decision",
                verdict.path,
                key=f"more/{verdict.path}",
            )
