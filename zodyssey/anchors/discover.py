"""Discovery: which documents are scanned, and every citation in them, resolved.

`collect_citations(root, config)` is the entry point other parts use (the
history helper among them). `discover` returns the same citations plus the
file index and the list of scanned documents, which the checker reports.
"""

from __future__ import annotations

import fnmatch
import os
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from zodyssey import git
from zodyssey.anchors import forms, grammar
from zodyssey.anchors.files import ExcludeRules, FileIndex, Resolution, walk_files
from zodyssey.anchors.fingerprint import JS_WHITESPACE, not_regular
from zodyssey.anchors.lock import LockFile
from zodyssey.anchors.model import Citation, Site, key_path, make_key
from zodyssey.anchors.parallel import split_run, worker_count
from zodyssey.anchors.past import GitPast, strict_names
from zodyssey.anchors.remote import OwnRemotes
from zodyssey.anchors.structure import DocStructure, analyse, needs_structure
from zodyssey.config import Config
from zodyssey.core.files import NotRegularFile, read_regular
from zodyssey.errors import UsageError

# The JavaScript checker's fixed extension list: a token ending in one of these
# is a citation even when nothing resolves (then it is reported `unresolved`).
JS_EXTENSIONS = frozenset(
    ("mjs", "md", "json", "jsonl", "js", "cjs", "yml", "yaml", "sh", "py", "toml", "ts")
)
_EXTENSION = re.compile(r"\.([A-Za-z][A-Za-z0-9_+\-]{0,15})$")
IGNORE_DOC_MARKER = "<!-- anchor-lock: ignore -->"
# Below this many documents a second process costs more than it saves.
PARALLEL_MIN_DOCUMENTS = 64


@dataclass
class Discovery:
    citations: list[Citation] = field(default_factory=list)
    documents: list[str] = field(default_factory=list)  # scanned (not skipped) documents
    skipped: list[str] = field(default_factory=list)  # documents opted out by marker
    # Per scanned document: how many leading lines the JavaScript checker read (see js_visible).
    js_lines: dict[str, int] = field(default_factory=dict)
    _js_doc_lines: dict[str, list[str]] = field(default_factory=dict)
    _js_seen: dict[Site, set[tuple[str, int, int, bool]]] = field(default_factory=dict)
    index: FileIndex = field(default_factory=lambda: FileIndex([]))
    past: GitPast | None = None  # what git remembers of files gone (see past.py)
    # Folders a rule left out of the walk: (path, "hidden" | "excluded").
    left_out_dirs: list[tuple[str, str]] = field(default_factory=list)
    # FIFOs, sockets and devices the walk found: never citable, never opened.
    special: FileIndex = field(default_factory=lambda: FileIndex([]))

    def no_single_file(
        self, root: Path | str, citation: Citation, old: str | None
    ) -> tuple[str, str, str | None] | None:
        """(kind, detail, target) when a citation that resolves to no file names several
        (`ambiguous`) or a FIFO, socket or device the walk found (`unreadable`, never
        opened so that it could block); None otherwise. `old`: its path from the lock
        or history."""
        if citation.candidates:
            shown = ", ".join(citation.candidates)
            return "ambiguous", f"matches {len(citation.candidates)} files: {shown}", old
        special = old if old is not None and old in self.special.file_set else None
        if special is None and self.special.files:
            special = self.special.resolve(citation.cited, citation.site.doc).path
        if special is None:
            return None
        return "unreadable", not_regular(root, special), special

    def left_out_file(self, root: Path | str, cited: str, doc: str) -> str | None:
        """What `unresolved` says when the cited file exists in a folder the walk
        leaves out (`.circleci/config.yml` in a hidden folder): the true reason,
        not "no file in the tree matches"; None otherwise."""
        if not cited.startswith(("./", "../")):
            for candidate in (cited, posixpath.join(posixpath.dirname(doc), cited)):
                for folder, why in self.left_out_dirs:
                    if candidate.startswith(folder + "/") and os.path.isfile(f"{root}/{candidate}"):
                        rule = (
                            "a hidden folder"
                            if why == "hidden"
                            else "a folder `exclude` leaves out"
                        )
                        return (
                            f"`{candidate}` exists, but {folder} is {rule}, which the walk does "
                            "not index, so nothing there can be cited: add it to "
                            f'[tool.zodyssey.anchors] include = ["{folder}"]'
                        )
        return None

    def js_visible(self, root: Path, citation: Citation) -> bool:
        """Did the JavaScript checker discover this very citation (and so could pin it)?

        Only in a document and line it read, and only if its grammar (fixed
        extensions) reads the same path and numbers there: our wider grammar can
        bind a continuation to a `main.go` the JS checker never saw as a path.
        """
        if citation.dialect not in ("path", "chain", "bare"):
            return False
        if citation.site.line > self.js_lines.get(citation.site.doc, 0):
            return False
        seen = self._js_seen.get(citation.site)
        if seen is None:
            lines = self._js_doc_lines.get(citation.site.doc)
            if lines is None:
                lines = read_document(root, citation.site.doc) or []
                self._js_doc_lines[citation.site.doc] = lines
            line = lines[citation.site.line - 1] if citation.site.line <= len(lines) else ""
            seen = {
                (r.cited, r.start, r.end, r.ranged)
                for r in grammar.scan_line(line, js_grammar_accepts, js=True)
            }
            self._js_seen[citation.site] = seen
        return (citation.cited, citation.start, citation.end, citation.ranged) in seen


def js_grammar_accepts(token: str) -> bool:
    """The JavaScript checker's rule: the token ends in `.<one of its extensions>`.

    Its pattern also needs a character before that dot (besides an optional
    leading `.`), so `.py:3` or `.json:2` in prose is not a citation, while
    `x/.py` and `_.py` are.
    """
    core = token[1:] if token.startswith(".") else token
    cut = core.rfind(".")
    return cut > 0 and core[cut + 1 :] in JS_EXTENSIONS


def _extension(token: str) -> str | None:
    """The extension of the token's file name; a bare dotfile name (`.env`) has none."""
    match = _EXTENSION.search(token.rsplit("/", 1)[-1])
    if match is None or match.start() == 0:
        return None
    return match.group(1)


NOT_REGULAR = "not a regular file: a FIFO, socket or device"


def read_document_text(root: Path, doc: str, errors: str = "surrogateescape") -> str:
    """A document's text (undecodable bytes kept, not lost, by default).

    Read through `read_regular`, so a document that became a FIFO or device
    after the walk is NotRegularFile at once, never a read that waits forever.
    """
    return read_regular(f"{root}/{doc}", "document").decode("utf-8", errors=errors)


def read_document(root: Path, doc: str) -> list[str] | None:
    """A document's lines as discovery reads them; None when it cannot be read."""
    try:
        return read_document_text(root, doc).split("\n")
    except (OSError, NotRegularFile):
        return None


def glob_to_regex(pattern: str) -> re.Pattern[str]:
    """Repository globs: `**/` spans directories, `*` and `?` stay inside one."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:[^/]+/)*")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def select_documents(files: list[str], patterns: list[str]) -> list[str]:
    """Documents matching the globs; hidden files (`docs/.draft.md`) never count, as for the JS checker."""
    chosen: list[list[str]] = []
    for pattern in patterns:
        glob = pattern.lstrip("./") if pattern.startswith("./") else pattern
        compiled = glob_to_regex(glob).match
        # A match starts with the glob's text before its first wildcard and ends with
        # the text after its last: string tests first, the regex only for those.
        head, tail = _literal_ends(glob)
        chosen.append(
            [
                f
                for f in files
                if f.endswith(tail)
                and f.startswith(head)
                and f[f.rfind("/") + 1] != "."
                and compiled(f)
            ]
        )
    if len(chosen) == 1:
        return chosen[0]
    selected = {f for part in chosen for f in part}
    return [f for f in files if f in selected]


def _literal_ends(glob: str) -> tuple[str, str]:
    """The text of `glob` before its first wildcard (`*`, `?`) and after its last;
    the whole glob twice when it has none."""
    wildcards = [i for i, c in enumerate(glob) if c in "*?"]
    if not wildcards:
        return glob, glob
    return glob[: wildcards[0]], glob[wildcards[-1] + 1 :]


# Directory names the JS checker never walked (besides every hidden one but these two).
_JS_SKIPPED = frozenset(("node_modules", ".git", ".zcode", "dist", "build", "coverage"))
_JS_HIDDEN_WALKED = frozenset((".github", ".zcode-plugin"))


def js_scanned_lines(doc: str, text: str, lines: list[str]) -> int:
    """How many leading lines of `doc` the JavaScript checker read (0: the whole document unseen).

    Its lock can only hold keys cited there; a citation elsewhere (a document it
    skipped, or a line past its CHANGELOG window) is one it never saw.
    """
    if not doc.endswith(".md") or IGNORE_DOC_MARKER in text:
        return 0  # the JS checker skipped a document with the marker text anywhere, code included
    for part in doc.split("/"):
        if part in _JS_SKIPPED or (part.startswith(".") and part not in _JS_HIDDEN_WALKED):
            return 0
    if doc == "CHANGELOG.md":
        return scan_window(doc, lines, {doc: "top-section"}, js=True)
    return len(lines)


def scan_window(doc: str, lines: list[str], windows: dict[str, str], *, js: bool = False) -> int:
    """How many lines of `doc` are scanned: all, or a CHANGELOG-style top section.

    The top section ends before the second column-0 `## [` heading; headings
    inside fences (``` or ~~~) and HTML comments are illustrations (a release
    template) and do not count. `js`: the JavaScript checker's window, which
    knows only ``` fences (what its lock could have seen).
    """
    if _window_mode(doc, windows) != "top-section":
        return len(lines)
    if js:
        return _js_window(lines)
    return _top_section(lines)


def _window_mode(doc: str, windows: dict[str, str]) -> str | None:
    """The window of `doc`: by its exact name, else by the first glob it matches."""
    mode = windows.get(doc)
    if mode is None:
        for pattern, value in windows.items():
            # A name without wildcards matched above or not at all: no fnmatch per
            # document for it (the default window is the plain `CHANGELOG.md`).
            if _GLOB_CHARS.search(pattern) and fnmatch.fnmatchcase(doc, pattern):
                return value
    return mode


_GLOB_CHARS = re.compile(r"[*?\[]")


def _top_section(lines: list[str]) -> int:
    """Lines before the second column-0 `## [` heading outside fences and comments."""
    headings = 0
    fence: str | None = None  # the opening fence's marker while inside one
    in_comment = False
    for number, line in enumerate(lines):
        if in_comment:
            in_comment = "-->" not in line
            continue
        opened = _ANY_FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = None
            continue
        if opened:
            fence = opened.group(1)
            continue
        start = line.find("<!--")
        if start >= 0 and "-->" not in line[start + 4 :]:
            in_comment = True
        if line.startswith("## ["):
            headings += 1
            if headings == 2:
                return number
    return len(lines)


def _js_window(lines: list[str]) -> int:
    headings = 0
    in_fence = False
    for number, line in enumerate(lines):
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        if line.startswith("## ["):
            headings += 1
            if headings == 2:
                return number
    return len(lines)


_ANY_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


# JavaScript's `\s` (not Python's: no U+0085, no \x1c-\x1f), as in the JS checker's fence test.
_FENCE = re.compile("^[" + re.escape(JS_WHITESPACE) + "]{0,3}```")


class _Acceptor:
    """Decides whether `token:N` names a file, memoised per token.

    A token that names no file now still counts when it names a path of the lock
    (`lock_index`) or a file git history knows (`past`): a citation must not
    vanish because its file did (it is then reported, `gone` or `unresolved`).
    The lock's index is built on first need: most repositories never ask it.
    """

    def __init__(
        self, index: FileIndex, lock: LockFile | None = None, past: GitPast | None = None
    ) -> None:
        self.index = index
        self.lock = lock
        self._lock_index: list[FileIndex | None] = []  # empty: not built yet
        self.past = past
        self.memo: dict[str, bool] = {}
        self.doc = ""

    @property
    def lock_index(self) -> FileIndex | None:
        if not self._lock_index:
            self._lock_index.append(lock_paths(self.lock))
        return self._lock_index[0]

    def __call__(self, token: str) -> bool:
        verdict = self.memo.get(token)
        if verdict is None:
            verdict = self._decide(token)
            self.memo[token] = verdict
        if not verdict and self.doc:
            # A path relative to the citing document (not memoisable across documents).
            return self.index.resolve(token, self.doc, basename_step=False).path is not None
        return verdict

    def names_a_gone_file(self, token: str) -> bool:
        """`token` names exactly (path or `/`-suffix) a file the lock pins or git knew."""
        lock_index = self.lock_index
        if lock_index is not None and strict_names(lock_index, token):
            return True
        return self.past is not None and bool(self.past.strictly_named(token))

    def _decide(self, token: str) -> bool:
        if js_grammar_accepts(token):
            return True  # the JS checker's grammar: a citation even when unresolved
        ext = _extension(token)
        if ext is not None and "/" in token:
            return True  # a path with a directory and an extension: surely a path
        # Anything else counts only when it names a file (`Makefile:3`, `main.go:10`);
        # prose like `localhost:8080` or `12:30` does not.
        found = self.index.resolve_global(token, basename_step=ext is not None)
        if found.path is not None or found.candidates:
            return True
        return self.names_a_gone_file(token)


def lock_paths(lock: LockFile | None) -> FileIndex | None:
    """The paths the lock pins, and the gone files the adoption baseline names (an index
    for `strict_names`), or None without either."""
    if lock is None or not (lock.citations or lock.known_paths):
        return None
    return FileIndex(sorted({key_path(key) for key in lock.citations} | lock.known_paths))


# The JavaScript checker's walk: these names skipped anywhere (files too), and every
# hidden entry except these two directories.
JS_SKIP_NAMES = (
    "node_modules",
    ".git",
    ".zcode",
    "dist",
    "build",
    "coverage",
    ".claude-flow",
    ".swarm",
    ".zcode-cache",
)
JS_DOCUMENTS = ["**/*.md"]
JS_WINDOWS = {"CHANGELOG.md": "top-section"}


def js_files(
    root: Path, unreadable: list[str] | None = None, special: list[str] | None = None
) -> list[str]:
    """The files the JavaScript checker walked: its skip list, no hidden entries."""
    files = walk_files(root, ExcludeRules(JS_SKIP_NAMES), unreadable, special)
    return [f for f in files if not f[f.rfind("/") + 1 :].startswith(".")]


def discover(root: Path, config: Config, *, lock: LockFile | None = None) -> Discovery:
    """Every citation of the scanned documents, resolved.

    Under a JavaScript checker's lock (`lock.legacy`) the documents and the
    citable files are that checker's (its walk, every `.md`, its CHANGELOG
    window), whatever `documents`, `exclude` and `windows` say: its lock pins
    exactly what it saw, and a document it scans that we skipped (say under
    `venv/`) would let us pass what it fails.
    """
    unreadable: list[str] = []
    special: list[str] = []
    config, files, left_out = _walk(root, config, lock, unreadable, special)
    # A FIFO named like a document would block its reader; a device feeds it anything.
    unreadable.extend(f"{d} ({NOT_REGULAR})" for d in select_documents(special, config.documents))
    index = FileIndex(files)
    past = GitPast(root)
    result = Discovery(
        index=index, past=past, left_out_dirs=left_out, special=FileIndex(sorted(special))
    )
    pinned_keys = frozenset(lock.citations) if lock is not None else frozenset()
    documents = select_documents(files, config.documents)
    parts = min(worker_count(), max(1, len(documents) // PARALLEL_MIN_DOCUMENTS))
    if parts > 1:
        index.prepare()  # build the suffix table once, before the children inherit it

    def work(
        part: int, count: int
    ) -> tuple[list[str], list[str], list[Any], dict[str, int], list[str]]:
        lo, hi = len(documents) * part // count, len(documents) * (part + 1) // count
        found: list[Citation] = []
        js_lines: dict[str, int] = {}
        accept = _Acceptor(index, lock, past)
        failed: list[str] = []
        remotes = OwnRemotes(root, pinned_keys)
        scanned, skipped = _scan_documents(
            root, config, index, documents[lo:hi], found, js_lines, accept, failed, remotes
        )
        # Children send plain tuples: rebuilding is cheaper than pickling dataclasses.
        rows = found if part == 0 else [_row(c) for c in found]
        return scanned, skipped, rows, js_lines, failed

    for part, (scanned, skipped, found, js_lines, failed) in enumerate(split_run(work, parts)):
        result.documents.extend(scanned)
        result.skipped.extend(skipped)
        result.js_lines.update(js_lines)
        result.citations.extend(found if part == 0 else _from_rows(found))
        unreadable.extend(failed)
    if any(c.symbol is not None for c in result.citations):
        from zodyssey.anchors.symbols.resolve import locate

        locate(root, result.citations)  # each symbol citation gets its symbol's span now
    _refuse_unreadable(unreadable)
    return result


def _refuse_unreadable(unreadable: list[str]) -> None:
    if not unreadable:
        return
    shown = ", ".join(unreadable[:5]) + (
        f" and {len(unreadable) - 5} more" if len(unreadable) > 5 else ""
    )
    raise UsageError(
        f"cannot read {shown}: a document or folder that cannot be read would pass every "
        "citation in it unchecked; make it readable to this user, or leave it out with "
        "`exclude` in [tool.zodyssey]"
    )


def _walk(
    root: Path,
    config: Config,
    lock: LockFile | None,
    unreadable: list[str],
    special: list[str],
) -> tuple[Config, list[str], list[tuple[str, str]]]:
    """(the configuration in force, the walked files, the folders left out by rule)."""
    anchors_table = config.section("anchors")
    include_hidden = _strings(anchors_table, "include_hidden")  # checked in every mode
    include = _strings(anchors_table, "include")
    if lock is not None and lock.exists and lock.legacy:
        from dataclasses import replace

        config = replace(config, documents=list(JS_DOCUMENTS), windows=dict(JS_WINDOWS))
        return config, js_files(root, unreadable, special), []
    rules = ExcludeRules(config.exclude, include_hidden, include)
    files = walk_files(root, rules, unreadable, special)
    return config, files, rules.left_out


def _strings(table: dict[str, Any], name: str) -> list[str]:
    value = table.get(name, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UsageError(f"[tool.zodyssey.anchors] {name} must be a list of strings")
    return list(value)


def _row(c: Citation) -> tuple[Any, ...]:
    return (
        c.cited,
        c.start,
        c.end,
        c.site.doc,
        c.site.line,
        c.resolved,
        c.key,
        c.ranged,
        c.dialect,
        c.number_spans,
        c.candidates,
        c.path_span,
        c.symbol,
    )


def _from_rows(rows: list[Any]) -> list[Citation]:
    out: list[Citation] = []
    site = Site("", 0)
    for r in rows:
        if r[3] != site.doc or r[4] != site.line:
            site = Site(r[3], r[4])
        out.append(
            Citation(r[0], r[1], r[2], site, r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12])
        )
    return out


def _scan_documents(
    root: Path,
    config: Config,
    index: FileIndex,
    documents: list[str],
    out: list[Citation],
    js_lines: dict[str, int],
    accept: _Acceptor,
    failed: list[str],
    remotes: OwnRemotes,
) -> tuple[list[str], list[str]]:
    scanned: list[str] = []
    skipped: list[str] = []
    for doc in documents:
        try:
            text = read_document_text(root, doc)
        except OSError as exc:
            failed.append(f"{doc} ({exc.strerror})")
            continue
        except NotRegularFile:
            failed.append(f"{doc} ({NOT_REGULAR})")
            continue
        if doc.endswith(".ipynb"):
            text = notebook_text(text)
        lines = text.split("\n")
        structure = _structure_of(doc, text, lines)
        if structure is not None and structure.ignore_doc:
            skipped.append(doc)
            continue
        scanned.append(doc)
        js_lines[doc] = js_scanned_lines(doc, text, lines)
        accept.doc = doc
        _scan_document(doc, lines, structure, config, index, accept, remotes, out)
    return scanned, skipped


_JSON_ESCAPE = re.compile(r"\\.")
_AS_READ = {"\\n": "  ", "\\r": "  ", "\\t": "  ", '\\"': ' "'}


def notebook_text(text: str) -> str:
    """A notebook (JSON) as a reader reads its cells, column for column.

    A cell's source is a list of lines or one string; in one string the lines
    are joined by the escape `\\n`, which would glue `n` onto the next path
    (`\\nsrc/a.py:3`). Each `\\n`, `\\r`, `\\t` and `\\"` becomes two characters a
    reader would see there (spaces, or a space and the quote), so every column
    stays the file's own and `--fix` rewrites the numbers in place.
    """
    if "\\" not in text:
        return text
    return _JSON_ESCAPE.sub(lambda m: _AS_READ.get(m.group(0), m.group(0)), text)


def _structure_of(doc: str, text: str, lines: list[str]) -> DocStructure | None:
    """The document's structure when it needs one; an unclosed ignore region is an error."""
    if not needs_structure(text):
        return None
    structure = analyse(text, lines)
    if structure.unclosed is not None:
        raise UsageError(
            f"{doc}:{structure.unclosed}: `<!-- anchor-lock: ignore-begin -->` has no "
            "`<!-- anchor-lock: ignore-end -->` after it; close the region (an open "
            "one would silently skip every citation to the end of the document)"
        )
    return structure


def collect_citations(root: Path, config: Config) -> list[Citation]:
    """Every citation in the scanned documents of `root`, resolved."""
    return discover(root, config).citations


def _scan_document(
    doc: str,
    lines: list[str],
    structure: DocStructure | None,
    config: Config,
    index: FileIndex,
    accept: Callable[[str], bool],
    remotes: OwnRemotes,
    out: list[Citation],
) -> None:
    limit = scan_window(doc, lines, config.windows)
    ignored = structure.ignored_lines if structure else set()
    commented = structure if structure is not None and structure.comments else None
    per_line = _scan_lines(lines, limit, ignored, commented, accept, remotes, index)
    if structure is not None:
        _add_links(structure, limit, ignored, per_line)
    gone = getattr(accept, "names_a_gone_file", None)
    for number in sorted(per_line):
        site = Site(doc, number + 1)
        for ref in per_line[number]:
            out.append(_resolve(ref, site, index, gone))


def _scan_lines(
    lines: list[str],
    limit: int,
    ignored: set[int],
    commented: DocStructure | None,
    accept: Callable[[str], bool],
    remotes: OwnRemotes,
    index: FileIndex,
) -> dict[int, list[grammar.RawRef]]:
    """The refs of each line (0-based) below `limit`, ignored lines and comments left out."""
    offset = 0
    per_line: dict[int, list[grammar.RawRef]] = {}
    maybe = forms.MAYBE_CITATION.search
    for number in range(limit):
        line = lines[number]
        if number not in ignored and maybe(line) is not None:
            refs = forms.scan(line, accept)
            if "/blob/" in line:
                refs.extend(remotes.scan_line(line, index))
            if commented is not None and refs:
                refs = _outside_comments(refs, commented, offset)
            if refs:
                per_line[number] = refs
        offset += len(line) + 1
    return per_line


def _outside_comments(
    refs: list[grammar.RawRef], structure: DocStructure, offset: int
) -> list[grammar.RawRef]:
    """The refs of a line (starting at `offset` in the text) not inside an HTML comment."""
    return [
        r
        for r in refs
        if not structure.in_comment(
            offset + (r.number_spans[0][0] if r.number_spans else max(r.path_span[0], 0))
        )
    ]


def _add_links(
    structure: DocStructure,
    limit: int,
    ignored: set[int],
    per_line: dict[int, list[grammar.RawRef]],
) -> None:
    """The document's Markdown links with a line fragment, by line (0-based)."""
    for link in structure.links:
        if link.line >= limit or link.line in ignored:
            continue
        ref = _link_ref(link.target, link.fragment, link.column, link.fragment_column)
        if ref is not None:
            per_line.setdefault(link.line, []).append(ref)


def _link_ref(
    target: str, fragment: str, column: int, fragment_column: int
) -> grammar.RawRef | None:
    parsed = grammar.parse_fragment(fragment)
    if parsed is None:
        return None
    a, b, ranged, spans = parsed
    if column < 0 or fragment_column < 0:
        spans = ()
    else:
        spans = tuple((fragment_column + s, fragment_column + e) for s, e in spans)
    path_span = (column, column + len(target)) if column >= 0 else (-1, -1)
    return grammar.RawRef(target, a, b, ranged, "link", spans, path_span)


def _resolve(
    ref: grammar.RawRef,
    site: Site,
    index: FileIndex,
    names_a_gone_file: Callable[[str], bool] | None = None,
) -> Citation:
    dialect = ref.dialect
    if dialect in _LINE_DIALECTS and ref.cited in index.file_set and ref.symbol is None:
        # The common case: the path as written is a file of the tree (what
        # `_resolve_path` answers first for it, with nothing else to decide).
        path = ref.cited
        return Citation(
            path,
            ref.start,
            ref.end,
            site,
            path,
            f"{path}:{ref.start}-{ref.end}" if ref.ranged else f"{path}:{ref.start}",
            ref.ranged,
            dialect,
            ref.number_spans,
            (),
            ref.path_span,
            None,
        )
    if dialect == "link":
        found = index.resolve_link(unquote(ref.cited), site.doc)
    elif ref.dialect == "permalink":
        found = Resolution(ref.cited)  # `path@sha`: read at that commit, not in the tree
    elif ref.dialect == "blob":
        found = index.resolve_link("/" + ref.cited, site.doc)
    else:
        found = _resolve_path(ref.cited, site.doc, index, names_a_gone_file)
    key = make_key(found.path, ref.start, ref.end, ref.ranged) if found.path else None
    if ref.symbol is not None and found.path:
        key = f"{found.path}::{ref.symbol}"
    return Citation(
        cited=ref.cited,
        start=ref.start,
        end=ref.end,
        site=site,
        resolved=found.path,
        key=key,
        ranged=ref.ranged,
        dialect=ref.dialect,
        number_spans=ref.number_spans,
        candidates=found.candidates,
        path_span=ref.path_span,
        symbol=ref.symbol,
    )


_LINE_DIALECTS = frozenset(("path", "chain", "bare"))


def _resolve_path(
    cited: str, doc: str, index: FileIndex, names_a_gone_file: Callable[[str], bool] | None
) -> Resolution:
    found = index.resolve(cited, doc)
    if (
        found.path is not None
        and names_a_gone_file is not None
        and found.path.rsplit("/", 1)[-1] != cited.rsplit("/", 1)[-1]
        and names_a_gone_file(cited)
    ):
        # Only the loose basename step matched (`a.py` -> `src/data.py`), while the
        # lock or git names a file `a.py` that is gone: the citation is of that one.
        return Resolution(None)
    return found


# Extensions of files a reader takes for documents, whatever `documents` says: a pin
# still written in one that is no longer scanned (`guide.md` renamed `guide.markdown`)
# must not vanish unseen.
DOCUMENT_EXTENSIONS = (".md", ".markdown", ".mdown", ".mkd", ".mdx", ".rst", ".adoc")


@dataclass
class LeftOut:
    """Documents that exist but are not scanned, and why (see `left_out_documents`)."""

    by_rule: list[tuple[str, str]] = field(default_factory=list)  # (doc, hidden|excluded|sparse)
    unmatched: list[str] = field(default_factory=list)  # document-like, not in `documents`
    folders: list[tuple[str, str]] = field(default_factory=list)  # without git: folders only
    counted: bool = True  # False: no git, so `by_rule` is unknown and `folders` stands in
    # Where `include` goes, spelled as the configuration file in use spells it (Config.where).
    anchors_table: str = "[tool.zodyssey.anchors] in pyproject.toml"
    top_table: str = "[tool.zodyssey] in pyproject.toml"

    def summary(self) -> str:
        """One line: how many were left out by rule and how to include them ('' if none)."""
        return self._by_rule_summary() if self.counted else self._folders_summary()

    def _by_rule_summary(self) -> str:
        if not self.by_rule:
            return ""
        hidden = sorted({_top_folder(d) for d, why in self.by_rule if why == "hidden"})
        parts = self._parts(hidden)
        ruled = [d for d, why in self.by_rule if why != "sparse"]
        advice = []
        if ruled:
            example = (hidden or [_top_folder(d) for d in ruled])[0]
            advice.append(
                f'to check their citations, add include = ["{example}"] under {self.anchors_table}'
            )
        if len(ruled) < len(self.by_rule):
            advice.append(
                "git has the documents not checked out, and their pins are checked only in "
                "a checkout that has them (`git sparse-checkout add` the folder, or check a "
                "full clone)"
            )
        label = "left out by rule" if len(ruled) == len(self.by_rule) else "not read"
        return f"{len(self.by_rule)} document(s) {label}: {'; '.join(parts)}; " + "; ".join(advice)

    def _parts(self, hidden: list[str]) -> list[str]:
        """`N in hidden folders (...)`, `M excluded by exclude`, `K not checked out`."""
        parts = []
        if hidden:
            count = sum(1 for _, why in self.by_rule if why == "hidden")
            parts.append(f"{count} in hidden folders ({', '.join(hidden[:3])})")
        excluded = sum(1 for _, why in self.by_rule if why == "excluded")
        if excluded:
            parts.append(f"{excluded} excluded by `exclude`")
        sparse = sum(1 for _, why in self.by_rule if why == "sparse")
        if sparse:
            parts.append(f"{sparse} not checked out (sparse checkout)")
        return parts

    def _folders_summary(self) -> str:
        hidden = [f for f, why in self.folders if why == "hidden"]
        if not hidden:
            return ""
        return (
            f"hidden folders not walked: {', '.join(hidden[:5])}; to check documents in them, "
            f'add include = ["{hidden[0]}"] under {self.anchors_table}'
        )


def _top_folder(doc: str) -> str:
    """The outermost hidden (or, failing that, first) folder of a path."""
    parts = doc.split("/")[:-1]
    for i, part in enumerate(parts):
        if part.startswith(".") and part not in _JS_HIDDEN_WALKED:
            return "/".join(parts[: i + 1])
    return "/".join(parts[:1]) or doc


def left_out_documents(root: Path, config: Config, discovery: Discovery) -> LeftOut:
    """Documents git knows (tracked, or untracked and not ignored) the scan did not read.

    `by_rule`: they match `documents` but a hidden folder or `exclude` left them
    out, or a sparse checkout left them out of the work tree (`sparse`: git has
    them, the walk could not see them); `unmatched`: document-like names
    (`guide.markdown`) outside `documents`. A tracked document deleted from the
    work tree (not yet committed) is gone, not left out. Asked of git (`git
    ls-files -t`), so what a repository ignores never counts; without git only
    the left-out folders are known.
    """
    listed = git.output(root, "ls-files", "-z", "-t", "--cached", "--others", "--exclude-standard")
    tables = {"anchors_table": config.where("anchors"), "top_table": config.where()}
    if listed is None:
        out = LeftOut(folders=list(discovery.left_out_dirs), counted=False)
        out.anchors_table, out.top_table = tables["anchors_table"], tables["top_table"]
        return out
    seen = set(discovery.documents) | set(discovery.skipped)
    hidden_ok = set(_JS_HIDDEN_WALKED) | set(_strings(config.section("anchors"), "include_hidden"))
    tags: dict[str, str] = {}
    for entry in listed.decode("utf-8", "surrogateescape").split("\0"):
        if len(entry) > 2 and entry[2:] not in seen:
            tags.setdefault(entry[2:], entry[0])
    files = sorted(tags)
    out = LeftOut(anchors_table=tables["anchors_table"], top_table=tables["top_table"])
    matched = set(select_documents(files, config.documents))
    for doc in files:
        if tags[doc] == "S" and not os.path.lexists(root / doc):
            if doc in matched or _document_like(doc):
                out.by_rule.append((doc, "sparse"))
        elif not os.path.lexists(root / doc):
            continue  # deleted in the work tree: gone, not left out
        elif doc in matched:
            out.by_rule.append((doc, "hidden" if _in_hidden(doc, hidden_ok) else "excluded"))
        elif _document_like(doc):
            out.unmatched.append(doc)
    return out


def _in_hidden(doc: str, hidden_ok: set[str]) -> bool:
    return any(p.startswith(".") and p not in hidden_ok for p in doc.split("/")[:-1])


def _document_like(doc: str) -> bool:
    """A name a reader takes for a document (`guide.markdown`), not a hidden file."""
    return doc.lower().endswith(DOCUMENT_EXTENSIONS) and not doc.rsplit("/", 1)[-1].startswith(".")
