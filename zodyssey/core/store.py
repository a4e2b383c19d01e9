"""The one run-state store: every write of run state goes through here.

Each write takes a real file lock (fcntl), re-reads the file, changes one
part, writes a temp file, fsyncs it and renames it over the old one. Two
processes updating different parts never lose each other's change, and a
killed writer leaves the old or the new file, never a torn one.

Standard library only: the gate hook uses it on its hot path (dispatch
ledger, review nonce, file locks, ungated-shell log). Paths may be `str` or
`Path` (the helpers of `zodyssey.core.paths` answer in the type they are
given), so the hook works on strings and never imports `pathlib` (nor `json`
to read).
"""

import fcntl
import os
import time

from zodyssey.core.atomic import write_atomic
from zodyssey.core.exits import Exit
from zodyssey.core.files import NotRegularFile, read_regular, read_regular_text
from zodyssey.core.paths import state_path
from zodyssey.core.vocabulary import STATE, TERMINAL_PHASES, is_slug
from zodyssey.errors import ZodysseyError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path
    from typing import Any, TypeVar

    T = TypeVar("T")
    StrPath = str | os.PathLike[str]

LOCK_TTL_SECONDS = 30 * 60


class StateError(ZodysseyError):
    """Run state that cannot be read or written (exit 2 unless told otherwise)."""

    exit_code = Exit.USAGE


def now_iso() -> str:
    now = time.time()
    seconds = int(now)
    micros = int((now - seconds) * 1_000_000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{micros:06d}Z"


def validate_slug(slug: str) -> str:
    if not is_slug(slug):
        raise StateError(f"invalid run slug {slug!r}: use lowercase letters, digits and '-'")
    return slug


class file_lock:  # lower case: used as `with file_lock(path):`, like a function
    """Exclusive advisory lock guarding `path` (a sibling `.lock` file)."""

    def __init__(self, path: "StrPath") -> None:
        directory, name = os.path.split(os.fspath(path))
        self._dir = directory or "."
        self._lock = os.path.join(self._dir, f".{name}.lock")
        self._fd = -1

    def __enter__(self) -> None:
        os.makedirs(self._dir, exist_ok=True)
        fd = os.open(self._lock, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd

    def __exit__(self, *exc: object) -> None:
        fd, self._fd = self._fd, -1
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)


def read_json(path: "StrPath") -> "Any":
    try:
        text = read_regular_text(path, "file")
    except FileNotFoundError:
        raise
    except NotRegularFile as exc:
        raise StateError(exc.message) from exc
    except OSError as exc:
        raise StateError(f"cannot read {path}: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise StateError(f"{path} is not UTF-8 text") from exc
    from zodyssey.core.jsontext import loads  # json.loads without importing json

    try:
        return loads(text)
    except ValueError as exc:
        import json  # loaded already: jsontext hands every failure to json.loads

        if not isinstance(exc, json.JSONDecodeError):
            raise
        raise StateError(f"{path} is not valid JSON (line {exc.lineno}: {exc.msg})") from exc


def dump_json(value: "Any") -> str:
    from zodyssey.core.jsontext import dumps  # json.dumps without importing json

    return dumps(value, indent=2, ensure_ascii=False) + "\n"


def update_json(path: "StrPath", mutate: "Callable[[Any], T]", default: "Callable[[], Any]") -> "T":
    """Lock, re-read (or start from `default()`), mutate in place, write atomically.

    `mutate` receives the current value and returns whatever the caller wants
    back; the (mutated) value is written. Raising inside `mutate` writes nothing.
    """
    with file_lock(path):
        try:
            value = read_json(path)
        except FileNotFoundError:
            value = default()
        result = mutate(value)
        write_atomic(path, dump_json(value))
        return result


def append_jsonl(path: "StrPath", record: "dict[str, Any]") -> None:
    """Append one JSON line under the lock (rewritten atomically, never torn)."""
    from zodyssey.core.jsontext import dumps  # json.dumps without importing json

    with file_lock(path):
        try:
            existing = read_regular(path, "file")
        except FileNotFoundError:
            existing = b""
        except NotRegularFile as exc:
            raise StateError(exc.message) from exc
        if existing and not existing.endswith(b"\n"):
            existing += b"\n"
        line = dumps(record, ensure_ascii=False, sort_keys=True) + "\n"
        write_atomic(path, existing + line.encode("utf-8"))


def jsonl_values(text: str) -> "Iterator[tuple[int, str, Any, ValueError | RecursionError | None]]":
    """The one JSONL reader: (line number, line, value, error) for every line
    of `text` that is not blank; value None and the error when it is not JSON.
    Callers decide what a bad line costs (the store raises, the evidence and
    the audit report it and go on)."""
    import json  # only callers off the hook's path read JSONL

    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield number, line, json.loads(line), None
        except (ValueError, RecursionError) as exc:
            yield number, line, None, exc


def read_jsonl(path: "StrPath") -> "list[Any]":
    try:
        text = read_regular_text(path, "file")
    except FileNotFoundError:
        return []
    except NotRegularFile as exc:
        raise StateError(exc.message) from exc
    out: list[Any] = []
    for number, _line, value, error in jsonl_values(text):
        if error is not None:
            message = getattr(error, "msg", str(error))
            raise StateError(f"{path}:{number} is not valid JSON ({message})") from error
        out.append(value)
    return out


class RunStore:
    """Read and update the state file of one run."""

    def __init__(self, root: "Path | str", slug: str) -> None:
        self.root = root
        self.slug = validate_slug(slug)
        self.path: Path | str
        if isinstance(root, str):  # one call per path type: mypy types the helpers per type
            self.path = state_path(root, slug)
        else:
            self.path = state_path(root, slug)

    def exists(self) -> bool:
        return os.path.isfile(self.path)

    def read(self) -> "dict[str, Any]":
        try:
            value = read_json(self.path)
        except FileNotFoundError as exc:
            raise StateError(
                f"no run {self.slug!r} under {self.root} (expected {self.path}); "
                f"start one with `zodyssey run start {self.slug}`"
            ) from exc
        if not isinstance(value, dict):
            raise StateError(f"{self.path} does not hold a JSON object")
        return value

    def update(self, mutate: "Callable[[dict[str, Any]], T]") -> "T":
        """Change one part of the state under the lock; stamps `updated_at`."""

        def apply(state: "Any") -> "T":
            if not isinstance(state, dict):
                raise StateError(f"{self.path} does not hold a JSON object")
            result = mutate(state)
            state["updated_at"] = now_iso()
            return result

        def missing() -> "Any":
            raise StateError(f"no run {self.slug!r} under {self.root} (expected {self.path})")

        return update_json(self.path, apply, missing)

    def create(self, state: "dict[str, Any]") -> None:
        """Write a new state; refuses when an active run of this slug exists."""

        def put(current: "Any") -> None:
            if current is not None:
                phase = current.get("phase") if isinstance(current, dict) else None
                if phase not in TERMINAL_PHASES:
                    raise StateError(
                        f"run {self.slug!r} is already active (phase {phase}); "
                        "finish or abandon it first",
                        exit_code=Exit.REFUSED_STATE,
                    )
            current_keys = list(current.keys()) if isinstance(current, dict) else []
            for key in current_keys:
                del current[key]

        with file_lock(self.path):
            try:
                existing: Any = read_json(self.path)
            except FileNotFoundError:
                existing = None
            put(existing)
            write_atomic(self.path, dump_json(state))


def list_runs(root: "Path") -> "list[tuple[str, dict[str, Any] | StateError]]":
    """Every run state under `root` as (slug, state or the error reading it)."""
    directory = root / STATE
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return []
    runs: list[tuple[str, dict[str, Any] | StateError]] = []
    for name in names:
        if not name.endswith(".json") or name.endswith(".inflight.json") or name.startswith("."):
            continue
        slug = name[: -len(".json")]
        try:
            value = read_json(directory / name)
        except (StateError, FileNotFoundError) as exc:
            runs.append((slug, exc if isinstance(exc, StateError) else StateError(str(exc))))
            continue
        if not isinstance(value, dict):
            runs.append((slug, StateError(f"{directory / name} does not hold a JSON object")))
            continue
        runs.append((slug, value))
    return runs
