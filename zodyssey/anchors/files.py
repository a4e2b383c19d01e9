"""The file index: one walk of the tree, then constant-time resolution.

Resolution order (ambiguity is reported, never guessed):
1. exact repo-relative path;
2. relative to the citing document's directory (a tie-breaker the JS checker
   lacked: when it exists, the suffix step below would have listed it anyway);
3. the unique file whose path ends with `/` + cited;
4. when the cited text has no `/`, the unique file whose basename ends with it
   (hidden files, `.name`, take no part in this step: the JS checker never saw them).

The JS checker scanned every file for every citation (quadratic). Here the
suffix step is a dictionary built once from every path's `/`-suffixes, and
the basename step is answered for all pending queries in one pass over the
basenames, bucketed by query length.
"""

from __future__ import annotations

import fnmatch
import os
import posixpath
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

# Hidden directories the JS checker walked although it skipped every other
# dot-directory; more can be allowed with [tool.zodyssey.anchors] include_hidden.
HIDDEN_ALLOWED = (".github", ".zcode-plugin")


@dataclass(frozen=True, slots=True)
class Resolution:
    path: str | None  # the unique target
    candidates: tuple[str, ...] = ()  # several: ambiguous; none and no path: unresolved

    @property
    def ambiguous(self) -> bool:
        return self.path is None and len(self.candidates) > 1


class ExcludeRules:
    """config.exclude: bare names (globs allowed) match any path component's
    name; entries with a `/` match the repo-relative path of a directory or file.

    `include` ([tool.zodyssey.anchors] include) names repository paths (a folder,
    or a glob) walked although a rule would leave them out: a hidden folder such
    as `.planning`, or an excluded one. Every folder a rule leaves out is recorded
    in `left_out` (path, "hidden" or "excluded"), so a summary can say so.
    """

    def __init__(
        self,
        patterns: Iterable[str],
        include_hidden: Iterable[str] = (),
        include: Iterable[str] = (),
    ) -> None:
        names, paths = _split_patterns(patterns)
        self.plain_names = {n for n in names if not any(c in n for c in "*?[")}
        self.name_glob = _any_of([n for n in names if n not in self.plain_names])
        self.path_glob = _any_of(paths)
        self.hidden_allowed = set(HIDDEN_ALLOWED) | set(include_hidden)
        self.included = [f"{folder}/" for folder in map(_included_folder, include) if folder]
        self.left_out: list[tuple[str, str]] = []

    def _included(self, rel: str) -> bool:
        """`rel` (a folder) lies on the way to, or inside, an included path."""
        folder = rel + "/"
        return any(folder.startswith(i) or i.startswith(folder) for i in self.included)

    def skip_dir(self, name: str, rel: str) -> bool:
        if self.included and self._included(rel):
            return False
        if name.startswith(".") and name not in self.hidden_allowed:
            self.left_out.append((rel, "hidden"))
            return True
        if self.skip_entry(name, rel):
            self.left_out.append((rel, "excluded"))
            return True
        return False

    def skip_entry(self, name: str, rel: str) -> bool:
        if name in self.plain_names:
            return True
        if self.name_glob is not None and self.name_glob.match(name):
            return True
        return self.path_glob is not None and self.path_glob.match(rel) is not None


def _split_patterns(patterns: Iterable[str]) -> tuple[list[str], list[str]]:
    """config.exclude entries as (bare names, paths with a `/`); blank entries dropped."""
    names: list[str] = []
    paths: list[str] = []
    for raw in patterns:
        pattern = raw.strip().strip("/")
        if pattern:
            (paths if "/" in pattern else names).append(pattern)
    return names, paths


def _any_of(globs: list[str]) -> re.Pattern[str] | None:
    """One pattern matching any of the fnmatch `globs`; None when there are none."""
    return re.compile("|".join(fnmatch.translate(g) for g in globs)) if globs else None


def _included_folder(raw: str) -> str:
    """The literal folder an include entry starts with (up to its first wildcard); "" for none."""
    entry = raw.strip()
    entry = (entry[2:] if entry.startswith("./") else entry).strip("/")
    cut = min((entry.find(c) for c in "*?[" if c in entry), default=len(entry))
    literal = entry[:cut]
    if cut < len(entry):  # a glob: the folders before its first wildcard
        literal = literal.rsplit("/", 1)[0] if "/" in literal else ""
    return literal


def walk_files(
    root: Path,
    rules: ExcludeRules,
    unreadable: list[str] | None = None,
    special: list[str] | None = None,
) -> list[str]:
    """Every regular file under root (symlinks are not followed), POSIX-relative.

    A folder that cannot be listed is recorded in `unreadable` (its path, `.`
    for the root) when the caller asks: skipping it silently would pass every
    citation inside it unchecked. A FIFO, socket or device not excluded goes
    into `special` when asked (a document must not be one).
    """
    out: list[str] = []
    stack: list[tuple[str, str]] = [(str(root), "")]
    while stack:
        directory, prefix = stack.pop()
        for entry in _listing(directory, prefix, unreadable):
            name = entry.name
            rel = prefix + name
            kind = _kind(entry)
            if kind == "dir":
                if not rules.skip_dir(name, rel):
                    stack.append((entry.path, rel + "/"))
            elif kind is None or rules.skip_entry(name, rel):
                continue
            elif kind == "file":
                out.append(rel)
            elif kind == "special" and special is not None:
                special.append(rel)
    out.sort()
    return out


def _listing(directory: str, prefix: str, unreadable: list[str] | None) -> list[os.DirEntry[str]]:
    """The entries of one folder; none, and the folder recorded in `unreadable`, when it cannot be listed."""
    try:
        return list(os.scandir(directory))
    except OSError as exc:
        if unreadable is not None:
            unreadable.append(f"{prefix.rstrip('/') or '.'}/ ({exc.strerror})")
        return []


def _kind(entry: os.DirEntry[str]) -> str | None:
    """ "dir", "file", "symlink" or "special" (a FIFO, socket or device); None when
    that cannot be told (the entry went away meanwhile)."""
    try:
        if entry.is_dir(follow_symlinks=False):
            return "dir"
        if entry.is_file(follow_symlinks=False):
            return "file"
        return "symlink" if entry.is_symlink() else "special"
    except OSError:
        return None


def _file_suffix_hits(path: str, base: str, lengths: list[int], hits: dict[str, list[str]]) -> None:
    """Add `path` to the bucket of every query (of the sorted `lengths`) its basename ends with."""
    size = len(base)
    for length in lengths:
        if length > size:
            break
        bucket = hits.get(base[size - length :])
        if bucket is not None:
            bucket.append(path)


class FileIndex:
    def __init__(self, files: list[str]) -> None:
        self.files = files
        self.file_set = set(files)
        self._suffixes: dict[str, list[str]] | None = None
        self._basename_cache: dict[str, tuple[str, ...]] = {}
        self._memo: dict[str, Resolution] = {}

    def prepare(self) -> None:
        self._suffix_table()

    def _suffix_table(self) -> dict[str, list[str]]:
        if self._suffixes is None:
            table: dict[str, list[str]] = {}
            for path in self.files:
                cut = path.find("/")
                while cut != -1:
                    table.setdefault(path[cut + 1 :], []).append(path)
                    cut = path.find("/", cut + 1)
            self._suffixes = table
        return self._suffixes

    def suffixes(self, cited: str) -> list[str]:
        """Files whose path ends with `/` + cited."""
        return list(self._suffix_table().get(cited, ()))

    def prepare_basenames(self, queries: Iterable[str]) -> None:
        """Answer many basename-suffix queries with one pass over the files."""
        pending = {q for q in queries if q and "/" not in q} - self._basename_cache.keys()
        if not pending:
            return
        lengths = sorted({len(q) for q in pending})
        hits: dict[str, list[str]] = {q: [] for q in pending}
        for path in self.files:
            base = path[path.rfind("/") + 1 :]
            # The JS checker never saw hidden files; letting `eslintrc.json` match
            # `.eslintrc.json` would turn its unique answers into ambiguous ones.
            if not base.startswith("."):
                _file_suffix_hits(path, base, lengths, hits)
        for query, paths in hits.items():
            self._basename_cache[query] = tuple(paths)

    def _basename_matches(self, cited: str) -> tuple[str, ...]:
        if cited not in self._basename_cache:
            self.prepare_basenames([cited])
        return self._basename_cache[cited]

    def resolve_global(self, cited: str, *, basename_step: bool = True) -> Resolution:
        """Resolution that does not depend on the citing document (memoised)."""
        memo_key = cited if basename_step else "\0" + cited
        found = self._memo.get(memo_key)
        if found is not None:
            return found
        found = self._resolve_global(cited, basename_step)
        if not found.path and not found.candidates and not cited.isascii():
            found = _other_forms(cited, found, lambda o: self._resolve_global(o, basename_step))
        self._memo[memo_key] = found
        return found

    def _resolve_global(self, cited: str, basename_step: bool) -> Resolution:
        if cited in self.file_set:
            result = Resolution(cited)
        else:
            suffix = self._suffix_table().get(cited, [])
            if len(suffix) == 1:
                result = Resolution(suffix[0])
            elif suffix:
                result = Resolution(None, tuple(suffix))
            elif basename_step and "/" not in cited:
                base = self._basename_matches(cited)
                result = Resolution(base[0]) if len(base) == 1 else Resolution(None, base)
            else:
                result = Resolution(None)
        return result

    def resolve(self, cited: str, doc: str, *, basename_step: bool = True) -> Resolution:
        found = self._resolve(cited, doc, basename_step)
        if not found.path and not found.candidates and not cited.isascii():
            # A name in another Unicode normal form (NFD on macOS, NFC in the document)
            # is the same name to a reader: compared by normal form.
            found = _other_forms(cited, found, lambda o: self._resolve(o, doc, basename_step))
        return found

    def _resolve(self, cited: str, doc: str, basename_step: bool) -> Resolution:
        if cited.startswith(("./", "../")):
            # Written relative to the document: that place only, never a suffix guess.
            joined = posixpath.normpath(posixpath.join(posixpath.dirname(doc), cited))
            inside = not joined.startswith("../") and joined not in (".", "..")
            return Resolution(joined if inside and joined in self.file_set else None)
        if cited in self.file_set:
            return Resolution(cited)
        beside = _beside_document(cited, doc)
        if beside is not None and beside in self.file_set:
            return Resolution(beside)
        return self.resolve_global(cited, basename_step=basename_step)

    def resolve_link(self, target: str, doc: str) -> Resolution:
        """A Markdown link target: relative to the document, or to the root when it starts with `/`."""
        found = self._resolve_link(target, doc)
        if not found.path and not target.isascii():
            found = _other_forms(target, found, lambda o: self._resolve_link(o, doc))
        return found

    def _resolve_link(self, target: str, doc: str) -> Resolution:
        if target.startswith("/"):
            joined = target.lstrip("/")
        else:
            joined = posixpath.join(posixpath.dirname(doc), target)
        normal = posixpath.normpath(joined)
        if normal.startswith("../") or normal in (".", ".."):
            return Resolution(None)
        return Resolution(normal) if normal in self.file_set else Resolution(None)


def _other_forms(cited: str, found: Resolution, resolve: Callable[[str], Resolution]) -> Resolution:
    """`cited` resolved in its other Unicode normal forms (NFC, NFD), when it did not
    resolve as written; `found` when none does."""
    for form in ("NFC", "NFD"):
        other = unicodedata.normalize(form, cited)
        if other != cited:
            again = resolve(other)
            if again.path or again.candidates:
                return again
    return found


def _beside_document(cited: str, doc: str) -> str | None:
    """`cited` read relative to the folder of `doc`; None for a document at the root."""
    cut = doc.rfind("/")
    if cut <= 0:
        return None
    relative = doc[:cut] + "/" + cited
    # normpath only when the text has `.`/`..` segments or doubled slashes (it is slow).
    if "./" in cited or "//" in cited or cited.endswith("/.") or cited.endswith(".."):
        relative = posixpath.normpath(relative)
    return relative
