"""The lock file: what each cited span said when it was pinned.

Shape (a superset of the JavaScript checker's `scripts/anchors.lock.json`):

    {
      "_comment": "free text",
      "exempt": ["<cited>:<a>[-<b>]", ...],          # as written, skipped entirely
      "citations": {"<path>:<a>[-<b>]": "<12 hex>"},  # the JS tool's pins, unchanged
      "spans": {"<path>:<a>-<b>": "<12 hex> <12 hex> ..."},  # ranges only: per-line pins
      "evidence": {"<path>:<a>[-<b>]": "u|r <before> <after> <line> ..."},  # where it was
      "said": {"<path>:<a>[-<b>]": "<line>\\n<line>..."},  # what it said (said.py)
      "format": "zodyssey-anchors/1"                  # ours; absent: a JavaScript lock
    }

`spans` and `evidence` are ours and optional (`evidence`: per key, whether the
span was unique in its file when pinned, and 8-hex locators of its neighbours
and of its own lines; `moved` needs it, see check.py): a JS lock (without it) reads and verifies
unchanged, and the JS tool ignores the extra key. Written sorted, 2-space
indented, with a trailing newline, atomically (temp file, fsync, rename).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zodyssey.core.atomic import write_atomic
from zodyssey.core.files import NotRegularFile, open_regular, require_regular_target
from zodyssey.errors import UsageError

DEFAULT_COMMENT = (
    "Content fingerprints for every file:line citation in the scanned documents. "
    "Written by `check-anchors --update` (zodyssey); a pin proves the cited lines are "
    "unchanged since pinning, not that the citation is right. Re-baselining is a "
    "deliberate act: when a citation drifted, correct the citation rather than re-pin it."
)


# Marks a lock written by us; the JavaScript checker ignores it (and drops it on its
# own --update, which makes the lock a JavaScript one again, as it then is).
FORMAT_KEY = "format"
FORMAT = "zodyssey-anchors/1"


def _written_by_us(data: dict[str, Any]) -> bool:
    # `spans` and our comment are signs too: locks we wrote before the marker existed.
    comment = data.get("_comment")
    return (
        str(data.get(FORMAT_KEY, "")).startswith("zodyssey")
        or "spans" in data
        or "evidence" in data
        or "said" in data
        or (isinstance(comment, str) and "zodyssey" in comment)
    )


@dataclass
class LockFile:
    citations: dict[str, str] = field(default_factory=dict)
    exempt: list[str] = field(default_factory=list)
    spans: dict[str, list[str]] = field(default_factory=dict)  # key -> per-line hashes
    evidence: dict[str, str] = field(default_factory=dict)  # key -> encoded Evidence
    # key -> the pinned lines as normalised text (said.py): what a drift report shows as "was"
    said: dict[str, str] = field(default_factory=dict)
    comment: str = DEFAULT_COMMENT
    exists: bool = False
    extra: dict[str, Any] = field(default_factory=dict)  # unknown top-level keys, kept
    # Files gone from the tree that the adoption baseline's entries named (baseline.py):
    # known like pinned paths, so such a citation stays one without git history.
    known_paths: set[str] = field(default_factory=set)
    # Written by the JavaScript checker (no sign of ours): it could only pin its own
    # dialects, so citations it could not see are notes, not problems (check.py).
    legacy: bool = False

    def to_json(self) -> str:
        document: dict[str, Any] = {
            "_comment": self.comment,
            "exempt": sorted(set(self.exempt)),
            "citations": {k: self.citations[k] for k in sorted(self.citations)},
        }
        if not self.legacy:
            # A JavaScript checker's lock (fixed by --fix) stays in its shape.
            document[FORMAT_KEY] = FORMAT
            spans = {k: " ".join(self.spans[k]) for k in sorted(self.spans) if k in self.citations}
            if spans:
                document["spans"] = spans
            evidence = {k: self.evidence[k] for k in sorted(self.evidence) if k in self.citations}
            if evidence:
                document["evidence"] = evidence
            said = {k: self.said[k] for k in sorted(self.said) if k in self.citations}
            if said:
                document["said"] = said
        for key, value in self.extra.items():
            document.setdefault(key, value)
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _recover(path: Path) -> str:
    return (
        f"restore it from version control (git checkout -- {path}) or delete it "
        "and re-baseline deliberately with `check-anchors --update`"
    )


def read_lock(path: str | Path) -> LockFile:
    """Read a lock; a missing file is an empty lock, a malformed one a UsageError (exit 2)."""
    target = Path(path)
    raw = _read_regular(target)
    if raw is None:
        return LockFile()
    data = _parse_object(target, raw)
    comment = data.get("_comment")
    known = ("_comment", "exempt", "citations", "spans", "evidence", "said", FORMAT_KEY)
    return LockFile(
        citations=_citations(target, data),
        exempt=_exempt(target, data),
        # Per-line detail and evidence are optional extras: entries we cannot read are ignored.
        spans={k: v.split() for k, v in _strings_of(data, "spans").items()},
        evidence=_strings_of(data, "evidence"),
        said=_strings_of(data, "said"),
        comment=comment if isinstance(comment, str) else DEFAULT_COMMENT,
        exists=True,
        extra={k: v for k, v in data.items() if k not in known},
        legacy=not _written_by_us(data),
    )


def _citations(target: Path, data: dict[str, Any]) -> dict[str, str]:
    citations = data.get("citations", {})
    if not isinstance(citations, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in citations.items()
    ):
        raise UsageError(
            f"lock {target}: `citations` must map citation keys to hash strings (it is "
            f"{type(citations).__name__ if citations is not None else 'null'}); {_recover(target)}"
        )
    return dict(citations)


def _exempt(target: Path, data: dict[str, Any]) -> list[str]:
    exempt = data.get("exempt", [])
    if exempt is None:
        return []
    if not isinstance(exempt, list) or not all(isinstance(e, str) for e in exempt):
        raise UsageError(f"lock {target}: `exempt` must be a list of strings; {_recover(target)}")
    return list(exempt)


def _strings_of(data: dict[str, Any], name: str) -> dict[str, str]:
    """The string values of the optional map `name` (anything else in it is ignored)."""
    raw = data.get(name, {})
    if not isinstance(raw, dict):
        return {}
    return {k: v for k, v in raw.items() if isinstance(v, str)}


def _read_regular(target: Path) -> bytes | None:
    """The lock's bytes; None when there is none; exit 2 for anything but a regular file.

    One open, checked by what it opened (`open_regular`: a symlink followed, so
    a linked lock is read and written through): no stat-then-open window in
    which a FIFO could take the lock's place and block the check forever.
    """
    try:
        fd = open_regular(target, "lock")
    except FileNotFoundError:
        return None
    except NotRegularFile as exc:
        advice = "move it away" if "a directory" in str(exc) else "remove it"
        raise UsageError(f"{exc}; {advice}, then {_recover(target)}") from exc
    except OSError as exc:
        raise UsageError(f"cannot read lock {target}: {exc.strerror}") from exc
    try:
        with os.fdopen(fd, "rb") as handle:
            return handle.read()
    except OSError as exc:
        raise UsageError(f"cannot read lock {target}: {exc.strerror}") from exc


def _parse_object(target: Path, raw: bytes) -> dict[str, Any]:
    try:
        # utf-8-sig: an editor's BOM in front of an otherwise valid lock is no reason to fail.
        data = json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UsageError(f"lock {target} is not valid JSON ({exc}); {_recover(target)}") from exc
    except RecursionError as exc:
        raise UsageError(
            f"lock {target} is not valid JSON (nested too deeply); {_recover(target)}"
        ) from exc
    if not isinstance(data, dict):
        raise UsageError(f"lock {target} is not a JSON object; {_recover(target)}")
    return data


def write_lock(path: str | Path, lock: LockFile) -> None:
    """Write atomically; a symlinked lock is written through to its target.

    Replacing the link with a regular file would leave the shared target (the
    lock other checkouts or tools read) stale while this one looks updated.
    """
    target = os.path.realpath(path)
    require_regular_target(target, "lock")  # never rename a file over a FIFO someone reads
    write_atomic(target, lock.to_json())


def check_foreign_rewrite(path: str | Path, lock: LockFile) -> None:
    """Refuse a lock of ours that another tool rewrote since the last commit (exit 2).

    The JavaScript checker's `--update` keeps only its own keys: our `format`,
    `spans` and `evidence` go, and the lock then reads as a JavaScript one,
    under which citations it could not see are notes, not failures; later
    edits would pass. A lock that is ours at HEAD and foreign in the work tree
    is that case. Committing the rewrite makes it deliberate (no error then).
    """
    if not lock.exists or not lock.legacy:
        return
    from zodyssey import git

    target = Path(os.path.realpath(path))
    committed = git.output(target.parent, "show", f"HEAD:./{target.name}")
    if committed is None:
        return
    try:
        data = json.loads(committed.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return
    if isinstance(data, dict) and _written_by_us(data):
        raise UsageError(
            f"lock {path} is zodyssey's at HEAD but has lost its fields (`format`, `spans`, "
            "`evidence`) in the work tree: another tool's --update (the JavaScript checker's?) "
            "rewrote it, and read as that tool's lock it would pass citations that tool cannot "
            f"see. Restore it (git checkout -- {path}) and re-pin with `check-anchors --update`; "
            "to hand the lock to the other tool on purpose, commit it as it is"
        )


def last_own_pins(path: str | Path, depth: int = 64) -> tuple[str, frozenset[str]] | None:
    """(commit, keys) of the newest committed version of this lock that was zodyssey's.

    For a lock in the JavaScript checker's shape: if it was ours before (its
    `--update` rewrote it, and the rewrite was committed), the keys our lock
    pinned are citations that were checked, and must not turn into notes
    unseen. None when git has no such version (among the last `depth` commits
    that changed the lock).
    """
    from zodyssey import git

    target = Path(os.path.realpath(path))
    listed = git.output(target.parent, "log", f"-n{depth}", "--format=%H", "--", f"./{target.name}")
    if listed is None:
        return None
    for commit in listed.decode("ascii", "replace").split():
        blob = git.output(target.parent, "show", f"{commit}:./{target.name}")
        try:
            data = json.loads(blob.decode("utf-8-sig")) if blob is not None else None
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            continue
        if isinstance(data, dict) and _written_by_us(data):
            citations = data.get("citations")
            keys = frozenset(citations) if isinstance(citations, dict) else frozenset()
            return commit, keys
    return None
