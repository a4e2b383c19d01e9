"""Blob URLs of the repository's own remote (`https://github.com/O/R/blob/REF/path#L10-L20`).

The remotes are read with GitPython, and only once a scanned line actually
contains a blob URL, so repositories without such links never import git.
A URL at a branch or tag is checked against the working tree file, like any
other citation. A permalink (the ref is a commit sha, 7 to 40 hex digits)
says what the lines read at that commit: it is resolved to `path@sha`
(`permalink_key`), pinned and checked against the file as that commit holds
it (`read_at_commit`), never the work tree; a commit or object this clone
lacks makes it `unverifiable` (check.py).
"""

from __future__ import annotations

import re
from pathlib import Path

from zodyssey.anchors import grammar
from zodyssey.anchors.files import FileIndex
from zodyssey.anchors.model import make_key

# A ref GitHub reads as a commit: 7 to 40 hex digits (what `git rev-parse` takes).
_SHA = re.compile(r"[0-9a-fA-F]{7,40}")
# `path@sha`, the resolved form of a permalink (a file path never ends so by accident
# of discovery: only scan_line below makes it).
_AT_COMMIT = re.compile(r"^(.+)@([0-9a-f]{7,40})$")
_SCP = re.compile(r"^(?:[^@/]+@)?([^:/]+):(?!//)(.+)$")
_URL = re.compile(r"^[a-z+]+://(?:[^@/]+@)?([^/:]+)(?::[0-9]+)?/(.+)$")


def parse_remote_url(url: str) -> tuple[str, str, str] | None:
    """(host, owner, repo), lower-cased, for https, ssh and scp-like remote URLs."""
    url = url.strip()
    match = _URL.match(url) or _SCP.match(url)
    if match is None:
        return None
    host, path = match.group(1), match.group(2).strip("/")
    if path.endswith(".git"):
        path = path[:-4]
    parts = path.split("/")
    if len(parts) < 2:
        return None
    return host.lower(), "/".join(parts[:-1]).lower(), parts[-1].lower()


class OwnRemotes:
    """Blob URLs of this repository: those of its remotes, and those the lock pins.

    A blob URL pinned under one remote name stays this repository's citation
    when the remote is renamed (a transferred repository) or absent (a tree
    without `.git`): its exact key in the lock (`pinned`) says it was ours, so
    it keeps being checked instead of vanishing. A foreign URL never pinned
    is not read.
    """

    def __init__(self, root: Path, pinned: frozenset[str] = frozenset()) -> None:
        self.root = root
        self.pinned = pinned
        self._remotes: set[tuple[str, str, str]] | None = None

    def remotes(self) -> set[tuple[str, str, str]]:
        if self._remotes is None:
            self._remotes = set()
            from zodyssey.git import remote_urls

            for url in remote_urls(self.root):
                parsed = parse_remote_url(url)
                if parsed is not None:
                    self._remotes.add(parsed)
        return self._remotes

    def scan_line(self, line: str, index: FileIndex) -> list[grammar.RawRef]:
        out: list[grammar.RawRef] = []
        for match in grammar.BLOB_URL.finditer(line):
            own = _repository(match) in self.remotes()
            if not own and not self.pinned:
                continue
            ref = _blob_ref(match, index)
            if ref is None:
                continue
            if not own and make_key(ref.cited, ref.start, ref.end, ref.ranged) not in self.pinned:
                continue
            out.append(ref)
        return out


def _repository(match: re.Match[str]) -> tuple[str, str, str]:
    """(host, owner, repo) of a blob URL, as `parse_remote_url` spells a remote's."""
    host = match.group(1).split(":")[0].lower()
    if host.startswith("www."):
        host = host[4:]
    repo = match.group(3).lower()
    if repo.endswith(".git"):
        repo = repo[:-4]
    return host, match.group(2).lower(), repo


def _blob_ref(match: re.Match[str], index: FileIndex) -> grammar.RawRef | None:
    """The citation a blob URL makes (a permalink's cited path is `path@sha`)."""
    # The ref may itself contain `/` (a branch like feature/x): take the first
    # split whose remainder is a file; fall back to a one-segment ref. A sha is
    # one segment, and its path need not exist in the work tree.
    segments = match.group(4).split("/")
    sha = segments[0].lower() if _SHA.fullmatch(segments[0]) else None
    cut = 1
    for i in range(1, len(segments) if sha is None else 1):
        if "/".join(segments[i:]) in index.file_set:
            cut = i
            break
    cited = "/".join(segments[cut:])
    if not cited:
        return None
    begin = match.start(4) + len("/".join(segments[:cut])) + 1
    path_span = (begin, begin + len(cited))
    a = int(match.group(5))
    spans = [match.span(5)]
    b, ranged = a, False
    if match.group(6) is not None:
        b = int(match.group(6))
        ranged = b != 0
        spans.append(match.span(6))
    if sha is not None:
        return grammar.RawRef(f"{cited}@{sha}", a, b, ranged, "permalink", tuple(spans), path_span)
    return grammar.RawRef(cited, a, b, ranged, "blob", tuple(spans), path_span)


def at_commit(resolved: str) -> tuple[str, str] | None:
    """(path, sha) of a permalink's resolved `path@sha`, None for any other path."""
    if "@" not in resolved:
        return None
    match = _AT_COMMIT.match(resolved)
    return None if match is None else (match.group(1), match.group(2))


def read_at_commit(root: Path, path: str, sha: str) -> tuple[bytes | None, str | None]:
    """The bytes of `path` at commit `sha` (a repository-top path), or None and why not.

    Read from git's objects (`zodyssey.git`), never from the work tree: a
    commit this clone lacks (a shallow CI checkout), an ambiguous short sha,
    a path absent at that commit or an object missing (a partial clone) each
    say so, for a finding of their own.
    """
    from zodyssey import git

    never = "; it is never compared with the work tree"
    found = git.output(root, "rev-parse", "--verify", "--quiet", f"{sha}^{{commit}}")
    if found is None:
        return None, (
            f"commit {sha} is not in this clone (a shallow checkout, such as actions/checkout's "
            "default fetch-depth 1, an ambiguous short sha, or no git at all): fetch the "
            f"history (`git fetch --unshallow`, fetch-depth: 0) so the permalink can be checked"
            + never
        )
    commit = found.decode("ascii", "replace").strip()
    data = git.output(root, "cat-file", "blob", f"{commit}:{path}")
    if data is not None:
        return data, None
    listed = git.output(root, "ls-tree", commit, "--", path)
    if not listed:
        return None, f"{path} does not exist at commit {sha}; the permalink names nothing" + never
    return None, f"the content of {path} at commit {sha} is not in this clone" + never
