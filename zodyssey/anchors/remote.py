"""Blob URLs of the repository's own remote (`https://github.com/O/R/blob/REF/path#L10-L20`).

The remotes are read with GitPython, and only once a scanned line actually
contains a blob URL, so repositories without such links never import git.
The URL is checked against the working tree file, like any other citation:
a lock pins content, whatever ref the link names.
"""

from __future__ import annotations

import re
from pathlib import Path

from zodyssey.anchors import grammar
from zodyssey.anchors.files import FileIndex
from zodyssey.anchors.model import make_key

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
            host = match.group(1).split(":")[0].lower()
            if host.startswith("www."):
                host = host[4:]
            owner, repo = match.group(2).lower(), match.group(3).lower()
            if repo.endswith(".git"):
                repo = repo[:-4]
            own = (host, owner, repo) in self.remotes()
            if not own and not self.pinned:
                continue
            ref_and_path = match.group(4)
            path_start = match.start(4)
            # The ref may itself contain `/` (a branch like feature/x): take the first
            # split whose remainder is a file; fall back to a one-segment ref.
            segments = ref_and_path.split("/")
            cut = 1
            for i in range(1, len(segments)):
                if "/".join(segments[i:]) in index.file_set:
                    cut = i
                    break
            cited = "/".join(segments[cut:])
            if not cited:
                continue
            begin = path_start + len("/".join(segments[:cut])) + 1
            a = int(match.group(5))
            spans = [match.span(5)]
            b = a
            ranged = False
            if match.group(6) is not None:
                b = int(match.group(6))
                ranged = b != 0
                spans.append(match.span(6))
            if not own and make_key(cited, a, b, ranged) not in self.pinned:
                continue
            out.append(
                grammar.RawRef(
                    cited, a, b, ranged, "blob", tuple(spans), (begin, begin + len(cited))
                )
            )
        return out
