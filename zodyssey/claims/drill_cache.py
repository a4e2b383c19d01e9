"""The drill's cache: a claim's last verdict, keyed by what it depends on.

The key is the sha256 of the drill engine's version, the claim's text, its code
specs, the bytes of every span, the linked tests' node ids and the bytes of
their test files (with the `conftest.py` files above them). A claim whose key is
unchanged is not drilled again; anything else is. The file is JSON
(`invariants/claims.drill.json` by default, `drill_cache` in the
configuration), sorted, 2-space indented, written atomically and only when it
changes; commit it so CI re-drills only what changed:

    {"_comment": "...", "version": 1,
     "claims": {"bash-gate": {"key": "<sha256>", "status": "drilled",
                "breaks": [{"id", "kind", "what", "status", "tests", "cause"}]}}}
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zodyssey.claims.drill import ClaimResult, Target
from zodyssey.claims.drill_breaks import ENGINE, ENGINE_OTHER
from zodyssey.errors import UsageError

CACHE_VERSION = 1
_COMMENT = (
    "Drill cache written by `zodyssey claims drill`: per claim, the verdict of its "
    "last drill and the key (claim text, code, linked tests) it holds for."
)


def _test_files(root: Path, tests: list[str]) -> list[str]:
    files: set[str] = set()
    for nodeid in tests:
        path = nodeid.split("::", 1)[0]
        files.add(path)
        parent = Path(path).parent
        while True:
            conftest = (parent / "conftest.py").as_posix()
            if (root / conftest).is_file():
                files.add(conftest)
            if parent == parent.parent:
                break
            parent = parent.parent
    return sorted(files)


def cache_key(root: Path, target: Target) -> str:
    digest = hashlib.sha256()

    def add(label: str, data: bytes) -> None:
        digest.update(f"{label}\0{len(data)}\0".encode())
        digest.update(data)

    add("engine", ENGINE.encode())
    if any(not span.path.endswith(".py") for span in target.spans):
        add("engine", ENGINE_OTHER.encode())  # tree-sitter breaks (other languages)
    add("text", target.claim.text.encode("utf-8"))
    for spec in target.specs:
        add("spec", spec.encode("utf-8"))
    for span in target.spans:
        add("span", f"{span.path}\0{span.kind}\0{span.symbol}".encode())
        add("content", span.content(root))
    for nodeid in target.tests:
        add("test", nodeid.encode("utf-8"))
    for path in _test_files(root, target.tests):
        try:
            add("file", (root / path).read_bytes())
        except OSError:
            add("missing", path.encode("utf-8"))
    return digest.hexdigest()


@dataclass(frozen=True)
class CachedBreak:
    id: str
    kind: str
    what: str
    status: str
    tests: tuple[str, ...]
    cause: str


@dataclass(frozen=True)
class CachedClaim:
    key: str
    status: str
    breaks: tuple[CachedBreak, ...]


def read_cache(path: Path) -> dict[str, CachedClaim]:
    """The cache at `path` ({} when there is none); exit 2 when it cannot be used."""
    from zodyssey.core.files import read_regular_text

    how = "fix it or delete it (the next drill re-creates it)"
    try:
        data = json.loads(read_regular_text(path, "drill cache"))  # a FIFO: exit 2, no hang
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read drill cache {path}: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise UsageError(f"drill cache {path} is not valid JSON ({exc.msg}); {how}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("claims"), dict):
        raise UsageError(f"drill cache {path} has no `claims` object; {how}")
    out: dict[str, CachedClaim] = {}
    for claim_id, entry in data["claims"].items():
        try:
            breaks = tuple(
                CachedBreak(
                    str(b["id"]),
                    str(b["kind"]),
                    str(b["what"]),
                    str(b["status"]),
                    tuple(str(t) for t in b.get("tests", [])),
                    str(b.get("cause", "")),
                )
                for b in entry["breaks"]
            )
            out[str(claim_id)] = CachedClaim(str(entry["key"]), str(entry["status"]), breaks)
        except (KeyError, TypeError) as exc:
            raise UsageError(f"drill cache {path}: entry {claim_id!r} is malformed; {how}") from exc
    return out


def entry_of(result: ClaimResult, key: str) -> CachedClaim:
    return CachedClaim(
        key,
        result.status,
        tuple(
            CachedBreak(
                r.brk.id,
                r.brk.kind,
                r.brk.what,
                r.outcome.status,
                tuple(r.outcome.tests),
                r.outcome.cause,
            )
            for r in result.results
        ),
    )


def render_cache(entries: dict[str, CachedClaim]) -> str:
    claims: dict[str, Any] = {}
    for claim_id in sorted(entries):
        entry = entries[claim_id]
        claims[claim_id] = {
            "key": entry.key,
            "status": entry.status,
            "breaks": [
                {
                    "id": b.id,
                    "kind": b.kind,
                    "what": b.what,
                    "status": b.status,
                    "tests": list(b.tests),
                    "cause": b.cause,
                }
                for b in entry.breaks
            ],
        }
    document = {"_comment": _COMMENT, "version": CACHE_VERSION, "claims": claims}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def write_cache(path: Path, entries: dict[str, CachedClaim]) -> bool:
    """Write when the content changes; True when written."""
    from zodyssey.core.atomic import write_atomic
    from zodyssey.core.files import read_regular_text, require_regular_target

    text = render_cache(entries)
    require_regular_target(path, "drill cache")
    try:
        if read_regular_text(path, "drill cache") == text:
            return False
    except (OSError, UnicodeDecodeError):
        pass
    try:
        write_atomic(os.path.realpath(path), text)  # through a symlink, as the ledger
    except OSError as exc:
        raise UsageError(f"cannot write drill cache {path}: {exc.strerror}") from exc
    return True
