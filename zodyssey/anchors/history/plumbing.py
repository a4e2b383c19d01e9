"""The git plumbing behind `check-anchors --history`.

Plain `git` subprocesses rather than GitPython: blame, tree diffs and blob
reads are each one process whose machine-readable output we parse directly
(`--porcelain`, `-z`, `cat-file --batch`), and the blame worker must be a
plain picklable function for the process pool. Every path here is relative
to the repository's top level; `trace` converts to and from the
checked root.
"""

from __future__ import annotations

import re
import shutil
from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from zodyssey.git import GitError, GitUnavailable
from zodyssey.git import run as run_git

# The all-zero id git blame gives lines that are not committed yet.
UNCOMMITTED = "0" * 40


def _split_z(data: bytes) -> list[str]:
    return [item.decode("utf-8", "surrogateescape") for item in data.split(b"\0") if item]


@dataclass(frozen=True, slots=True)
class BlameLine:
    commit: str  # full id; UNCOMMITTED for lines not committed yet
    orig_line: int  # the line's number in that commit's version of the document
    path: str | None = None  # the document's name in that commit (another one, with -C)


@dataclass(frozen=True, slots=True)
class BlameResult:
    doc: str  # top-level-relative path of the document
    lines: dict[int, BlameLine]  # current line number -> origin
    error: str | None = None


def merge_ranges(numbers: Iterable[int]) -> list[tuple[int, int]]:
    """Sorted, merged inclusive ranges covering `numbers` (one `-L` each)."""
    ranges: list[tuple[int, int]] = []
    for number in sorted(set(numbers)):
        if ranges and number <= ranges[-1][1] + 1:
            ranges[-1] = (ranges[-1][0], number)
        else:
            ranges.append((number, number))
    return ranges


def parse_blame_porcelain(data: bytes) -> dict[int, BlameLine]:
    """Map final line numbers to their origin from `git blame --porcelain` output.

    Every blamed line starts with a header `<id> <orig> <final> [<count>]`;
    commit details follow only the first time an id appears, and the line's
    text follows a TAB. Only the headers matter here.
    """
    out: dict[int, BlameLine] = {}
    names: dict[str, str] = {}  # commit -> the name its latest group gave (`filename`)
    last: int | None = None
    for raw in data.split(b"\n"):
        if not raw or raw[:1] == b"\t":
            continue
        if raw.startswith(b"filename ") and last is not None:
            # Each group names the file the lines come from in that commit (-C: maybe
            # another document); later groups of the same commit may omit it.
            line = out[last]
            path = raw[len(b"filename ") :].decode("utf-8", "surrogateescape")
            names[line.commit] = path
            out[last] = BlameLine(line.commit, line.orig_line, path)
            continue
        parts = raw.split(b" ")
        if len(parts) not in (3, 4) or len(parts[0]) not in (40, 64):
            continue
        try:
            int(parts[0], 16)
            orig, final = int(parts[1]), int(parts[2])
        except ValueError:
            continue
        commit = parts[0].decode("ascii")
        out[final] = BlameLine(commit, orig, names.get(commit))
        last = final
    return out


# The letters and digits a line needs for blame to follow it into another document.
MOVED_LINE_CHARACTERS = 8


def blame_document(
    top: str, doc: str, line_numbers: tuple[int, ...], rev: str | None = None
) -> BlameResult:
    """Blame the given lines of one document (worker for the process pool).

    One git process per document, one `-L` per run of cited lines, so a long
    document with a few citations costs only the history of those lines.
    `-w` and `-M` keep whitespace edits and moves inside the document from
    re-dating a citation: the line was written when its words were; `-C8`
    follows a sentence moved from another document in the same commit (git's
    default asks for 40 letters and digits, more than a short citing sentence
    such as "Step five is src/app.py:5 here." has).
    `rev` blames the document as it was at that revision.
    """
    args = ["blame", "--porcelain", "-w", "-M", f"-C{MOVED_LINE_CHARACTERS}"]
    for first, last in merge_ranges(line_numbers):
        args += ["-L", f"{first},{last}"]
    if rev is not None:
        args.append(rev)
    args += ["--", doc]
    try:
        data = run_git(Path(top), args)
    except GitError as exc:
        return BlameResult(doc, {}, str(exc))
    except OSError as exc:
        return BlameResult(doc, {}, f"cannot run git blame: {exc}")
    return BlameResult(doc, parse_blame_porcelain(data))


@dataclass
class TreeChanges:
    """What happened to paths between two snapshots (with rename detection)."""

    old_to_new: dict[str, str] = field(default_factory=dict)  # renames
    new_to_old: dict[str, str] = field(default_factory=dict)
    deleted: set[str] = field(default_factory=set)
    added: set[str] = field(default_factory=set)
    uncertain: bool = False  # renames could not be detected (an unreadable object)

    def forward(self, path: str) -> str | None:
        """The path's name after the change, None if it was deleted."""
        if path in self.deleted:
            return None
        return self.old_to_new.get(path, path)

    def backward(self, path: str) -> str | None:
        """The path's name before the change, None if it was added."""
        if path in self.added:
            return None
        return self.new_to_old.get(path, path)


def parse_name_status_z(data: bytes) -> TreeChanges:
    """Parse `--name-status -z` output: `S\\0path\\0`, or `Rnn\\0old\\0new\\0`."""
    items = _split_z(data)
    changes = TreeChanges()
    index = 0
    while index < len(items):
        status = items[index]
        letter = status[:1]
        if letter in ("R", "C") and index + 2 < len(items):
            old, new = items[index + 1], items[index + 2]
            index += 3
            if letter == "R":
                changes.old_to_new[old] = new
                changes.new_to_old[new] = old
            else:
                changes.added.add(new)  # a copy: the source lives on unchanged
            continue
        if index + 1 >= len(items):
            break
        path = items[index + 1]
        index += 2
        if letter == "D":
            changes.deleted.add(path)
        elif letter == "A":
            changes.added.add(path)
    return changes


@dataclass(frozen=True, slots=True)
class PathChange:
    status: str  # "A", "D", "R" (other letters are ignored)
    path: str  # the path (for R: the old name)
    new: str | None = None  # R: the new name


def parse_chain_log(data: bytes) -> list[tuple[str, list[PathChange]]]:
    """Parse `git log --name-status -z --format=%x01%H`: commits newest first."""
    commits: list[tuple[str, list[PathChange]]] = []
    items = data.split(b"\0")
    index = 0
    while index < len(items):
        token = items[index].decode("utf-8", "surrogateescape")
        index += 1
        if token.startswith("\x01"):
            commits.append((token[1:], []))
            continue
        status = token.lstrip("\n")
        if not status or not commits:
            continue
        letter = status[:1]
        if letter in ("R", "C"):
            if index + 1 >= len(items):
                break
            old = items[index].decode("utf-8", "surrogateescape")
            new = items[index + 1].decode("utf-8", "surrogateescape")
            index += 2
            change = PathChange("R", old, new) if letter == "R" else PathChange("A", new)
            commits[-1][1].append(change)
            continue
        if index >= len(items):
            break
        path = items[index].decode("utf-8", "surrogateescape")
        index += 1
        if letter in ("A", "D"):
            commits[-1][1].append(PathChange(letter, path))
    return commits


class FirstParentChain:
    """Renames, additions and deletions along HEAD's first-parent chain.

    One `git log` for the whole history; following a path between a commit
    and HEAD is then a few dictionary lookups and binary searches per rename
    instead of a tree diff per commit (which, with rename detection across
    thousands of commits, costs tens of milliseconds each).
    """

    def __init__(
        self,
        commits: list[tuple[str, list[PathChange]]],
        refine: Callable[[str], list[PathChange] | None] | None = None,
    ) -> None:
        # Without rename detection (`refine` given), a rename reads as a deletion plus
        # an addition; `refine` redoes one commit's diff with renames when a walk
        # reaches it, and commits whose diff cannot be read are remembered.
        self._refine = refine
        self._refined: set[int] = set()
        self.unreadable: dict[int, str] = {}
        self.commits = [commit for commit, _ in commits]
        self.position = {commit: pos for pos, commit in enumerate(self.commits)}
        self.changes = [changes for _, changes in commits]
        # path -> sorted positions (0 = HEAD, larger = older) of changes naming it
        self.touches: dict[str, list[int]] = {}
        for pos, changes in enumerate(self.changes):
            for change in changes:
                for name in (change.path, change.new):
                    if name is not None:
                        spots = self.touches.setdefault(name, [])
                        if not spots or spots[-1] != pos:
                            spots.append(pos)

    def _changes_at(self, pos: int, name: str) -> list[PathChange]:
        """The changes of the commit at `pos`, with renames worked out when needed."""
        changes = self.changes[pos]
        if self._refine is None:
            return changes
        if pos not in self._refined:
            changes = self._refine_once(pos, self._refine)
        if pos in self.unreadable and any(
            c.path == name and c.status in ("A", "D") for c in changes
        ):
            raise GitError(
                f"commit {self.commits[pos][:12]} adds or deletes {name} and its diff cannot "
                "be read (an unreadable object), so whether it was a rename is unknown"
            )
        return changes

    def _refine_once(
        self, pos: int, refine: Callable[[str], list[PathChange] | None]
    ) -> list[PathChange]:
        """Work out the renames of the commit at `pos`, once: only when its changes
        hold both an add and a delete, as a rename left undetected does. A diff that
        cannot be read marks the commit unreadable."""
        self._refined.add(pos)
        changes = self.changes[pos]
        statuses = {c.status for c in changes}
        if "A" in statuses and "D" in statuses:
            better = refine(self.commits[pos])
            if better is None:
                self.unreadable[pos] = self.commits[pos]
            else:
                self.changes[pos] = changes = better
        return changes

    def on_chain(self, commit: str) -> bool:
        return commit in self.position

    def backward(self, commit: str, path: str) -> str | None:
        """The name at `commit` of `path` at HEAD; None if added after `commit`."""
        limit = self.position[commit]  # changes strictly newer than `commit`: pos < limit
        name = path
        cursor = 0
        while True:
            spots = self.touches.get(name, [])
            at = bisect_left(spots, cursor)
            if at >= len(spots) or spots[at] >= limit:
                return name
            pos = spots[at]
            for change in self._changes_at(pos, name):
                if change.status == "A" and change.path == name:
                    return None
                if change.status == "R" and change.new == name:
                    name = change.path
                    break
            cursor = pos + 1

    def forward(self, commit: str, path: str) -> tuple[str | None, str | None]:
        """(name at HEAD, None) of `path` at `commit`, or (None, deleting commit)."""
        cursor = self.position[commit]  # changes newer than `commit`: pos < cursor
        name = path
        while True:
            spots = self.touches.get(name, [])
            at = bisect_left(spots, cursor) - 1
            if at < 0:
                return name, None
            pos = spots[at]
            for change in self._changes_at(pos, name):
                if change.status == "D" and change.path == name:
                    return None, self.commits[pos]
                if change.status == "R" and change.path == name:
                    assert change.new is not None
                    name = change.new
                    break
            cursor = pos


def _follow_log(
    log: list[tuple[str, list[PathChange]]], path: str
) -> tuple[str, str | None, list[str]]:
    """Follow `path` through the commits of `log`, oldest first: (the name it ends
    with, the commit that deleted that name or None, the names renames gave it)."""
    name, deleter, renames = path, None, []
    for step, changes in log:
        for change in changes:
            if change.path != name:
                continue
            if change.status == "R" and change.new is not None:
                name, deleter = change.new, None
                renames.append(name)
                break
            if change.status == "D":
                deleter = step
    return name, deleter, renames


@dataclass(frozen=True, slots=True)
class Fate:
    """What became of a file between a commit and HEAD."""

    head_name: str | None  # its name in HEAD; None when deleted
    deleter: str | None = None  # the commit that deleted it (None: unknown or kept)
    deleted_as: str | None = None  # its name when it was deleted
    renames: tuple[str, ...] = ()  # the names it took on the way, oldest first


@dataclass(frozen=True, slots=True)
class RepoInfo:
    top: Path  # the work tree's top level
    prefix: str  # the checked root relative to `top` ("" or "sub/dir/")
    head: str | None  # None before the first commit
    shallow: frozenset[str]  # shallow boundary commits (empty when complete)
    commit_count: int  # commits reachable from HEAD (how deep history goes)


def open_repository(root: Path) -> RepoInfo:
    """Describe the repository holding `root`, or raise GitUnavailable saying why."""
    if shutil.which("git") is None:
        raise GitUnavailable("git is not installed or not on PATH; --history reads git history")
    try:
        out = run_git(root, ["rev-parse", "--show-toplevel", "--show-prefix"])
    except GitError as exc:
        raise GitUnavailable(
            f"{root} is not inside a git work tree ({exc}); --history reads git history"
        ) from exc
    except OSError as exc:
        raise GitUnavailable(f"cannot run git in {root}: {exc}") from exc
    lines = out.decode("utf-8", "surrogateescape").split("\n")
    top = Path(lines[0])
    prefix = lines[1] if len(lines) > 1 else ""
    try:
        head: str | None = run_git(top, ["rev-parse", "--verify", "-q", "HEAD"]).decode().strip()
    except GitError:
        head = None
    shallow: frozenset[str] = frozenset()
    count = 0
    if head:
        shallow_file = run_git(top, ["rev-parse", "--git-path", "shallow"]).decode().strip()
        shallow_path = Path(shallow_file)
        if not shallow_path.is_absolute():
            shallow_path = top / shallow_path
        if shallow_path.is_file():
            shallow = frozenset(shallow_path.read_text().split())
        count = int(run_git(top, ["rev-list", "--count", "HEAD"]).decode().strip() or 0)
    return RepoInfo(top, prefix, head, shallow, count)


class GitHistory:
    """Cached history queries against one repository (top-level paths)."""

    def __init__(self, info: RepoInfo) -> None:
        self.info = info
        self.top = info.top
        self._since: dict[str, TreeChanges] = {}
        self._trees: dict[str, list[str]] = {}
        self._worktree: TreeChanges | None = None
        self._tracked: set[str] | None = None
        self._chain: FirstParentChain | None = None
        self._range_logs: dict[str, list[tuple[str, list[PathChange]]]] = {}
        self._hunks: dict[tuple[str, str], list[tuple[int, int, int, list[str]]]] = {}
        # Why rename detection over the whole history was given up (None: it was not).
        self.degraded: str | None = None

    def chain(self) -> FirstParentChain:
        """HEAD's first-parent history with its renames (one git log, cached).

        With an unreadable object somewhere in history (a lost blob, a broken
        partial clone) rename detection over the whole log fails; then the log
        is read without it, and renames are worked out commit by commit where a
        cited file is added or deleted, so one bad object costs only the
        citations whose history touches it.
        """
        if self._chain is None:
            commits: list[tuple[str, list[PathChange]]] = []
            refine = None
            if self.info.head is not None:
                base = ["log", "--first-parent", "--name-status", "-z", "--format=%x01%H"]
                try:
                    commits = parse_chain_log(run_git(self.top, [*base, "-M", "HEAD", "--"]))
                except GitError as exc:
                    self.degraded = str(exc)
                    commits = parse_chain_log(
                        run_git(self.top, [*base, "--no-renames", "HEAD", "--"])
                    )
                    refine = self._one_commit
            self._chain = FirstParentChain(commits, refine)
        return self._chain

    def _one_commit(self, commit: str) -> list[PathChange] | None:
        """One first-parent commit's changes with rename detection; None if unreadable."""
        try:
            data = run_git(
                self.top,
                [
                    "diff-tree",
                    "-r",
                    "-M",
                    "--name-status",
                    "-z",
                    "--root",
                    "-m",
                    "--first-parent",
                    commit,
                    "--",
                ],
            )
        except GitError:
            return None
        parsed = parse_chain_log(b"\x01" + commit.encode() + b"\0" + data.split(b"\0", 1)[-1])
        return parsed[0][1] if parsed else []

    def written_in(self, origin: BlameLine, doc: str, holds: Callable[[str], bool]) -> str:
        """The commit that wrote the citation on the blamed line, not the last edit of it.

        Blame names the last commit that touched the line; while the line as it
        was before that commit already `holds` the citation (a typo fixed beside
        it, a word changed), that older line is blamed in turn (bounded).
        """
        commit, path, line = origin.commit, origin.path or doc, origin.orig_line
        for _ in range(_REDATE_STEPS):
            before = self._line_before(commit, path, line)
            if before is None or not holds(before[1]):
                return commit
            older = blame_document(str(self.top), path, (before[0],), f"{commit}^")
            found = older.lines.get(before[0])
            if found is None or found.commit == UNCOMMITTED:
                return commit
            commit, path, line = found.commit, found.path or path, found.orig_line
        return commit

    def _line_before(self, commit: str, path: str, line: int) -> tuple[int, str] | None:
        """(number, text) in `commit`'s first parent of the line `commit` turned into `line`.

        None when the commit added the line (or has no parent): from its
        zero-context diff, a line replaced in place has a predecessor at the same
        offset of its hunk.
        """
        key = (commit, path)
        hunks = self._hunks.get(key)
        if hunks is None:
            try:
                data = run_git(
                    self.top,
                    [
                        "diff",
                        "-U0",
                        "--no-color",
                        "--no-ext-diff",
                        f"{commit}^",
                        commit,
                        "--",
                        path,
                    ],
                )
            except GitError:
                data = b""
            hunks = _parse_hunks(data.decode("utf-8", "replace"))
            self._hunks[key] = hunks
        for old_start, new_start, new_count, removed in hunks:
            if new_start <= line < new_start + new_count:
                offset = line - new_start
                return (old_start + offset, removed[offset]) if offset < len(removed) else None
        return None

    def tracked(self) -> set[str]:
        """Paths in the index (tracked by git), top-level relative."""
        if self._tracked is None:
            self._tracked = set(_split_z(run_git(self.top, ["ls-files", "-z", "--full-name"])))
        return self._tracked

    def worktree_changes(self) -> TreeChanges:
        """HEAD -> work tree (staged and unstaged), renames detected."""
        if self._worktree is None:
            if self.info.head is None:
                self._worktree = TreeChanges()
            else:
                self._worktree = parse_name_status_z(
                    run_git(self.top, ["diff", "HEAD", "-M", "--name-status", "-z", "--"])
                )
        return self._worktree

    def changes_since(self, commit: str) -> TreeChanges:
        """commit -> HEAD, renames detected (tree to tree, so it stays cheap).

        When rename detection cannot read an object, the diff is redone without
        it and marked `uncertain`: additions and deletions may then be renames.
        """
        cached = self._since.get(commit)
        if cached is None:
            head = self.info.head or commit
            base = ["diff-tree", "-r", "--name-status", "-z", commit, head, "--"]
            try:
                cached = parse_name_status_z(run_git(self.top, [*base[:2], "-M", *base[2:]]))
            except GitError as exc:
                self.degraded = self.degraded or str(exc)
                cached = parse_name_status_z(
                    run_git(self.top, [*base[:2], "--no-renames", *base[2:]])
                )
                cached.uncertain = True
            self._since[commit] = cached
        return cached

    def name_then(self, commit: str, head_path: str) -> str | None:
        """The name at `commit` of the file at `head_path` in HEAD (None: added later).

        Along the first-parent chain renames are followed commit by commit;
        for a commit off that chain (on a merged branch) one tree diff and
        then `git log --follow` answer instead.
        """
        chain = self.chain()
        if chain.on_chain(commit):
            # A merge whose first-parent diff pairs nothing (renamed and edited on the
            # branch) reads as an addition there; the branch's own commits may still
            # hold the rename, which --follow finds.
            name = chain.backward(commit, head_path)
            return name if name is not None else self.follow_back(commit, head_path)
        since = self.changes_since(commit)
        name = since.backward(head_path)
        if name is None:
            name = self.follow_back(commit, head_path)
            if name is None and since.uncertain:
                raise GitError(
                    f"{head_path} is new since {commit[:12]} per a diff without rename "
                    "detection (an object git cannot read), so it may be a rename"
                )
        return name

    def name_at_head(self, commit: str, path: str) -> Fate:
        """What became of `path` at `commit` by HEAD: its name there, or who deleted it.

        The first-parent chain (or one tree diff, for a commit off it) answers
        most cases. When it says deleted, every commit between `commit` and
        HEAD is read (`_chase`): a rename on a merged branch whose merge pairs
        nothing, or a rename before the deletion, is only visible there.
        """
        chain = self.chain()
        deleter: str | None = None
        if chain.on_chain(commit):
            name, deleter = chain.forward(commit, path)
        else:
            since = self.changes_since(commit)
            name = since.forward(path)
            if name is None and since.uncertain:
                raise GitError(
                    f"{path} is gone since {commit[:12]} per a diff without rename detection "
                    "(an object git cannot read), so it may have been renamed"
                )
        if name is not None:
            return Fate(name)
        chased = self._chase(commit, path)
        return chased if chased is not None else Fate(None, deleter, path)

    def _chase(self, commit: str, path: str) -> Fate | None:
        """Follow `path` through every commit in `commit..HEAD`, parents first.

        Renames move the name on, a deletion of the current name is remembered
        (a later rename of that name on a parallel branch overrides it). None
        when this says no more than the first-parent answer (git cannot read the
        log, or the name it ends with is not in HEAD without a deletion).
        """
        log = self._range_log(commit)
        if log is None:
            return None
        name, deleter, renames = _follow_log(log, path)
        if deleter is not None:
            return Fate(None, deleter, name, tuple(renames))
        if renames and name in self.head_files():
            return Fate(name, None, None, tuple(renames))
        return None

    def _range_log(self, commit: str) -> list[tuple[str, list[PathChange]]] | None:
        """The changes of every commit in `commit..HEAD`, parents first (read once);
        None when git cannot read the log."""
        log = self._range_logs.get(commit)
        if log is None:
            try:
                log = parse_chain_log(
                    run_git(
                        self.top,
                        [
                            "log",
                            "-M",
                            "--no-merges",
                            "--topo-order",
                            "--reverse",
                            "--name-status",
                            "-z",
                            "--format=%x01%H",
                            f"{commit}..{self.info.head or commit}",
                            "--",
                        ],
                    )
                )
            except GitError:
                return None
            self._range_logs[commit] = log
        return log

    def head_files(self) -> set[str]:
        return set(self.tree_files(self.info.head)) if self.info.head else set()

    def follow_back(self, commit: str, path: str) -> str | None:
        """The name `path` (at HEAD) had at `commit`, following renames step by step.

        Used when one tree diff shows the file as added: a rename followed by
        heavy edits falls below the similarity threshold of a single diff but
        is still visible commit by commit.
        """
        try:
            data = run_git(
                self.top,
                [
                    "log",
                    "--follow",
                    "-M",
                    "--name-status",
                    "-z",
                    "--format=",
                    f"{commit}..{self.info.head or commit}",
                    "--",
                    path,
                ],
            )
        except GitError:
            return None
        name = path
        items = _split_z(data)
        index = 0
        while index < len(items):
            status = items[index].strip()
            if status[:1] in ("R", "C") and index + 2 < len(items):
                if items[index + 2] == name:
                    name = items[index + 1]
                index += 3
            else:
                index += 2
        return name if self.exists_at(commit, name) else None

    def tree_files(self, commit: str) -> list[str]:
        files = self._trees.get(commit)
        if files is None:
            files = _split_z(
                run_git(self.top, ["ls-tree", "-r", "-z", "--name-only", "--full-tree", commit])
            )
            self._trees[commit] = files
        return files

    def exists_at(self, commit: str, path: str) -> bool:
        try:
            run_git(self.top, ["cat-file", "-e", f"{commit}:{path}"])
        except GitError:
            return False
        return True


# How many times a citation is re-dated past edits of its line's other words.
_REDATE_STEPS = 32

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def _parse_hunks(diff: str) -> list[tuple[int, int, int, list[str]]]:
    """`git diff -U0` hunks as (old start, new start, new count, removed lines)."""
    hunks: list[tuple[int, int, int, list[str]]] = []
    for line in diff.split("\n"):
        match = _HUNK.match(line)
        if match:
            new_count = int(match.group(4)) if match.group(4) is not None else 1
            hunks.append((int(match.group(1)), int(match.group(3)), new_count, []))
        elif hunks and line.startswith("-") and not line.startswith("---"):
            hunks[-1][3].append(line[1:])
    return hunks


def read_blobs(top: Path, requests: Sequence[tuple[str, str]]) -> dict[tuple[str, str], bytes]:
    """Contents of `commit:path` for every request, in one `git cat-file --batch`.

    Requests whose object is missing (or whose path cannot be named on one
    line) are simply absent from the result.
    """
    wanted = [(c, p) for c, p in dict.fromkeys(requests) if "\n" not in p]
    if not wanted:
        return {}
    stdin = b"".join(f"{c}:{p}\n".encode("utf-8", "surrogateescape") for c, p in wanted)
    data = run_git(top, ["cat-file", "--batch"], stdin=stdin)
    out: dict[tuple[str, str], bytes] = {}
    pos = 0
    for request in wanted:
        newline = data.index(b"\n", pos)
        header = data[pos:newline].split(b" ")
        pos = newline + 1
        if len(header) == 3 and header[1] == b"blob":
            size = int(header[2])
            out[request] = data[pos : pos + size]
            pos += size + 1  # the content is followed by one newline
        elif len(header) == 3:
            pos += int(header[2]) + 1  # a tree or other object: skip it
    return out
