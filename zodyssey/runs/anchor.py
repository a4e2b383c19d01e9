"""The evidence chain's head, also kept where an edit of `.zcode/` does not reach: git.

Every record `zodyssey run` appends moves the ref
`refs/zodyssey/evidence/<slug>/<run_id>` to a blob naming the chain's new
length and last hash, with a reflog entry saying the same
(`zodyssey evidence seq=N hash=H`). The audit reads the reflog: every entry
must name a record the chain still holds, with that hash, and the last one
the chain's tail. Cutting records off the chain, or editing one and
recomputing every hash after it (the chain's hashes are unkeyed), leaves the
chain disagreeing with the reflog; making them agree again means rewriting
git's own files under `.git/`, which the gate never lets an agent write.

The reflog expires (`git gc` expires reflog entries after 90 days, `git
reflog expire` at once), the ref does not: it names the chain's head now, and
since every record names its predecessor's hash, the head pins every record
up to it. So the head is checked against the ref itself, and the reflog's
entries where they remain. What an expired reflog can no longer show: a
chain cut back and grown again by later records (the entries naming the cut
records are gone), and the runs started before the latest one.

Outside git nothing is anchored (the audit says so). Standard library only.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from zodyssey import git
from zodyssey.core.files import NotRegularFile, read_regular

_ENTRY = re.compile(r"\tzodyssey evidence seq=(\d+) hash=([0-9a-f]{64})\s*$")
_START = re.compile(r"\tzodyssey run start run_id=([0-9a-f]{1,64})\s*$")
_HASH = re.compile(r"^[0-9a-f]{64}$")


def ref_name(slug: str, run_id: str) -> str:
    return f"refs/zodyssey/evidence/{slug}/{run_id}"


def runs_ref(slug: str) -> str:
    return f"refs/zodyssey/runs/{slug}"


def _safe(run_id: str) -> bool:
    return bool(run_id) and len(run_id) <= 64 and all(ch in "0123456789abcdef" for ch in run_id)


def _move_ref(root: Path, ref: str, body: dict[str, object], message: str) -> None:
    # hermetic: `update-ref` runs the `reference-transaction` hook, and this runs in
    # the gate's hook process (a violation) and in `zodyssey run`, outside the sandbox
    body_bytes = json.dumps(body).encode()
    oid = git.run(root, ["hash-object", "-w", "--stdin"], stdin=body_bytes, hermetic=True)
    git.run(
        root,
        ["update-ref", "--create-reflog", "-m", message, ref, oid.decode().strip()],
        hermetic=True,
    )


def note_start(root: Path, slug: str, run_id: str) -> None:
    """Record in git that run `run_id` of `slug` started: the live state must be the last."""
    if not _safe(run_id) or git.toplevel(root) is None:
        return
    try:
        body: dict[str, object] = {"slug": slug, "run_id": run_id}
        _move_ref(root, runs_ref(slug), body, f"zodyssey run start run_id={run_id}")
    except git.GitError:
        return  # the audit finds no start anchor and checks nothing more


def started_runs(root: Path, slug: str) -> list[str] | None:
    """The run ids `run start` anchored for `slug`, oldest first (None: none recorded)."""
    text = _reflog(root, runs_ref(slug))
    if not text:
        return None
    found = [m.group(1) for m in map(_START.search, text.splitlines()) if m is not None]
    return found or None


def latest_started(root: Path, slug: str) -> str | None:
    """The run id the ref `refs/zodyssey/runs/<slug>` names (kept when its reflog expired)."""
    body = _ref_body(root, runs_ref(slug))
    run_id = body.get("run_id") if body is not None else None
    return run_id if isinstance(run_id, str) and _safe(run_id) else None


def _ref_body(root: Path, ref: str) -> dict[str, object] | None:
    """The JSON object of the blob `ref` names; None when there is no such ref or blob."""
    try:
        data = git.run(root, ["cat-file", "blob", ref])
    except git.GitError:
        return None
    try:
        body = json.loads(data)
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def _reflog(root: Path, ref: str) -> str | None:
    try:
        where = git.run(root, ["rev-parse", "--git-path", f"logs/{ref}"])
    except git.GitError:
        return None
    path = Path(where.decode("utf-8", "surrogateescape").strip())
    path = path if path.is_absolute() else root / path
    try:
        return read_regular(path, "reflog").decode("utf-8", "replace")
    except (OSError, NotRegularFile):
        return None


def write_anchor(root: Path, slug: str, run_id: str | None, seq: int, head: str) -> None:
    """Move the run's anchor ref to (seq, head); nothing outside git or without a run id."""
    if run_id is None or not _safe(run_id) or git.toplevel(root) is None:
        return
    body: dict[str, object] = {"slug": slug, "run_id": run_id, "seq": seq, "hash": head}
    try:
        _move_ref(root, ref_name(slug, run_id), body, f"zodyssey evidence seq={seq} hash={head}")
    except git.GitError:
        return  # the audit finds the anchor short of the chain and says so


@dataclass
class Anchors:
    available: bool  # False outside git (nothing could be anchored)
    entries: list[tuple[int, str]] = field(default_factory=list)  # (seq, hash), oldest first
    problem: str | None = None
    # The reflog no longer holds the head the ref names (expired): the head was
    # taken from the ref itself; earlier entries may be gone.
    expired: bool = False


def read_anchors(root: Path, slug: str, run_id: str | None) -> Anchors:
    if git.toplevel(root) is None:
        return Anchors(False)
    if run_id is None or not _safe(run_id):
        return Anchors(True, problem="the run state names no run id to find its anchor by")
    try:
        where = git.run(root, ["rev-parse", "--git-path", f"logs/{ref_name(slug, run_id)}"])
    except git.GitError as exc:
        return Anchors(True, problem=exc.message)
    path = Path(where.decode("utf-8", "surrogateescape").strip())
    path = path if path.is_absolute() else root / path
    head = _ref_body(root, ref_name(slug, run_id))
    try:
        text = read_regular(path, "the anchor's reflog").decode("utf-8", "replace")
    except FileNotFoundError:
        if head is None:
            return Anchors(True, problem=f"no anchor ref {ref_name(slug, run_id)} in git")
        text = ""  # the ref without its reflog (expired and pruned)
    except OSError as exc:
        return Anchors(True, problem=f"cannot read the anchor's reflog: {exc.strerror}")
    except NotRegularFile as exc:
        return Anchors(True, problem=exc.message)
    return _with_ref(_anchors_of(text), head)


def _with_ref(found: Anchors, head: dict[str, object] | None) -> Anchors:
    """The reflog's entries, ended by the head the ref names when the reflog lacks it."""
    if head is None:
        return found  # no ref (deleted): the reflog alone, as it stands
    seq, digest = head.get("seq"), head.get("hash")
    if not (isinstance(seq, int) and isinstance(digest, str) and _HASH.match(digest)):
        found.problem = found.problem or "the anchor ref names no chain head zodyssey wrote"
        return found
    if not found.entries or found.entries[-1] != (seq, digest):
        found.entries.append((seq, digest))
        found.expired = True
    return found


def _anchors_of(text: str) -> Anchors:
    """The entries of the anchor's reflog, refused at the first zodyssey did not write."""
    entries: list[tuple[int, str]] = []
    for line in text.splitlines():
        found = _ENTRY.search(line)
        if found is None:
            return Anchors(
                True, entries, "the anchor's reflog holds an entry zodyssey did not write"
            )
        entries.append((int(found.group(1)), found.group(2)))
    return Anchors(True, entries)
