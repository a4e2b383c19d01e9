"""Reading untrusted artifact files without ever raising past the audit.

The state file is the one artifact without which there is nothing to audit:
when it is missing or unreadable the audit stops with exit 3, naming the path
and the reason (`ArtifactMissing`). Every other artifact is read with
`read_optional_json`, which returns the reason instead of raising, so the
checks can turn it into a finding. A path that is not a regular file (a FIFO,
a device) is the one exception: it is refused with exit 2 (`NotRegularFile`,
zodyssey/core/files.py) before anything could block on it.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from zodyssey.core.exits import Exit
from zodyssey.core.files import open_regular
from zodyssey.errors import ZodysseyError

# Larger than any honest artifact; protects the audit from a file meant to exhaust memory.
MAX_ARTIFACT_BYTES = 64 * 1024 * 1024


class ArtifactMissing(ZodysseyError):
    """A run artifact the audit cannot do without is missing or unreadable (exit 3)."""

    exit_code = Exit.MISSING


def read_bytes(path: Path) -> tuple[bytes | None, str | None]:
    """(content, None) or (None, reason)."""
    try:
        # A FIFO or device is refused (NotRegularFile, exit 2) before anything blocks.
        fd = open_regular(path, "run artifact")
        with os.fdopen(fd, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > MAX_ARTIFACT_BYTES:
                return None, f"{size} bytes is larger than the {MAX_ARTIFACT_BYTES} byte limit"
            return handle.read(), None
    except FileNotFoundError:
        return None, "does not exist"
    except IsADirectoryError:
        return None, "is a directory"
    except OSError as exc:
        return None, exc.strerror or str(exc)


def decode_json(data: bytes) -> tuple[Any, str | None]:
    """(value, None) or (None, reason) for bytes claimed to hold one JSON document."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, f"is not UTF-8 text (byte {exc.start})"
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        return None, f"is not valid JSON (line {exc.lineno} column {exc.colno}: {exc.msg})"
    except RecursionError:
        return None, "is not valid JSON (nested too deeply)"


def read_optional_json(path: Path) -> tuple[Any, str | None]:
    data, reason = read_bytes(path)
    if data is None:
        return None, reason
    return decode_json(data)


def read_required_json(path: Path, what: str) -> Any:
    value, reason = read_optional_json(path)
    if reason is not None:
        raise ArtifactMissing(f"{what} {path} {reason}")
    return value


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def as_str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def as_int(value: Any) -> int | None:
    # bool is an int in Python; an artifact saying `true` for a count is not a count.
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def as_float(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    return None


def as_bool(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def display_path(path: Path, root: Path) -> str:
    """Repository-relative when inside the repository (findings are read by people)."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except (ValueError, OSError):
        return str(path)


def inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
        return True
    except (ValueError, OSError):
        return False
