"""`zodyssey claims drill`: break a claim's code in a scratch copy, run its linked tests.

For each claim that names code (docs/claims.md, "The drill"):

    claim --code=/citations--> spans --drill_breaks--> breaks
          --scratch copy + linked tests (pytest, the project's configuration)-->
          killed | survived | not judged

The user's work tree is only read: every break is written into a scratch copy
(its tracked and untracked, not ignored, files) in a temporary directory, one
copy per worker, and the copies are removed however the drill ends (SIGINT
included). The linked tests also run on the unbroken copy (queued with the
breaks, in another copy): when they do not pass there, nothing they do on a
broken copy means anything, and every break of the claim is not judged.
"""

from __future__ import annotations

import itertools
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zodyssey.claims.drill_breaks import Break, Span, SpecError, resolve
from zodyssey.claims.model import Claim

KILLED = "killed"
SURVIVED = "survived"
NOT_JUDGED = "not-judged"
SKIPPED = "skipped"  # a break `drill-skip=` names: never run, its reason printed
PASSED = "passed"  # the unbroken copy's run

# Set in the environment of every test run of the drill, so a suite can tell.
DRILL_ENV = "ZODYSSEY_DRILL"
# Where the unbroken run's Python processes record what they read (drill_site/).
DEPS_ENV = "ZODYSSEY_DRILL_DEPS"
DEPS_ROOT_ENV = "ZODYSSEY_DRILL_DEPS_ROOT"
_DROPPED_ENV = {"PYTEST_ADDOPTS", DEPS_ENV, DEPS_ROOT_ENV}
_IGNORED_DIRS = {
    ".git",
    ".venv",
    "venv",
    "__pycache__",
    "node_modules",
    ".tox",
    ".nox",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
}
# A failure that is really an import or syntax problem is not a kill.
_IMPORT_ERRORS = ("ImportError", "ModuleNotFoundError", "SyntaxError", "IndentationError")


@dataclass
class Outcome:
    status: str  # killed | survived | not-judged (a break); passed | not-judged (unbroken)
    tests: list[str] = field(default_factory=list)  # failed (killed) or passed (survived)
    cause: str = ""
    seconds: float = 0.0
    cut: bool = False  # by the budget or an interrupt: never cached
    durations: dict[str, float] = field(default_factory=dict)  # seconds per linked test


@dataclass
class Target:
    """One claim to drill: its code, its breaks and its linked tests."""

    claim: Claim
    specs: tuple[str, ...]
    tests: list[str]
    spans: list[Span] = field(default_factory=list)
    breaks: list[Break] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # specs that name no code
    equivalent: int = 0  # operator mutants with the original's syntax tree: never run
    planned: int = 0  # with --shard: the breaks of the whole plan (this shard runs some)
    shard: tuple[int, int] | None = None  # (K, N) of --shard K/N


def code_specs(claim: Claim, root: Path) -> tuple[str, ...]:
    """The marker's `code=` specs, else the code citations in the claim's text."""
    if claim.code:
        return claim.code
    from zodyssey.anchors.grammar import scan_line
    from zodyssey.claims.drill_breaks import TEXT_SYMBOL

    found: list[str] = [m.group(1) for m in TEXT_SYMBOL.finditer(claim.text)]

    def accept(token: str) -> bool:
        return not token.endswith(".md") and (root / token).is_file()

    for ref in scan_line(claim.text, accept):
        found.append(f"{ref.cited}:{ref.start}" + (f"-{ref.end}" if ref.end > ref.start else ""))
    return tuple(dict.fromkeys(found))


def plan(root: Path, claim: Claim, tests: list[str], *, with_breaks: bool = True) -> Target:
    """The claim's spans and (unless `with_breaks` is false: `add_breaks` later) its breaks."""
    target = Target(claim, code_specs(claim, root), sorted(tests))
    for spec in target.specs:
        try:
            target.spans.extend(resolve(root, spec))
        except SpecError as exc:
            target.problems.append(str(exc))
    if with_breaks:
        add_breaks(root, target)
    return target


def add_breaks(root: Path, target: Target) -> None:
    """The breaks of every span (only for a claim that is drilled: the cache key
    holds the spans, so a cached claim needs none)."""
    from dataclasses import replace

    from zodyssey.claims.drill_breaks import breaks_of

    for span in target.spans:
        try:
            made, equivalent = breaks_of(root, span)
        except SpecError as exc:
            target.problems.append(str(exc))
            continue
        target.breaks.extend(made)
        target.equivalent += equivalent
    skips = dict(target.claim.skips)
    for skipped, reason in target.claim.skips:
        if not reason:
            target.problems.append(
                f"drill-skip={skipped} gives no reason (write it in parentheses)"
            )
    known = {b.id for b in target.breaks}
    for skipped in skips:
        if skipped not in known:
            target.problems.append(f"drill-skip={skipped} names no break of the claim's code")
    target.breaks = [replace(b, skip=skips[b.id]) if skips.get(b.id) else b for b in target.breaks]


# --- the scratch copies ----------------------------------------------------------------


def _listed_files(root: Path) -> list[str] | None:
    """The work tree's tracked and untracked-but-not-ignored files (None outside git)."""
    from zodyssey.git import output

    out = output(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    if out is None:
        return None
    return sorted({name for name in out.decode("utf-8", "surrogateescape").split("\0") if name})


def make_copy(root: Path, dest: Path) -> None:
    """A copy of the work tree at `dest` (never links into it: a break must not reach it)."""
    files = _listed_files(root)
    if files is None:
        shutil.copytree(
            root,
            dest,
            symlinks=True,
            ignore=lambda _d, names: [n for n in names if n in _IGNORED_DIRS],
        )
        return
    dest.mkdir(parents=True)
    for name in files:
        source = root / name
        if not source.exists() and not source.is_symlink():
            continue  # deleted in the work tree, still in the index
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            os.symlink(os.readlink(source), target)
        elif source.is_file():
            shutil.copy2(source, target)


SCRATCH_ENV = "ZODYSSEY_DRILL_SCRATCH"
_MEMORY_DIR = "/dev/shm"
_MEMORY_FLOOR = 1 << 30  # free bytes a memory folder must have, at least


def scratch_parent(root: Path, jobs: int) -> str | None:
    """Where the scratch directory goes: `$ZODYSSEY_DRILL_SCRATCH`; else the temp
    folder when `TMPDIR` names one; else the memory-backed `/dev/shm` when it has
    ample room (1 GiB, and 20 times the copies); else the temp folder (None).
    Copying and removing a tree is many times faster in memory."""
    given = os.environ.get(SCRATCH_ENV)
    if given:
        return given
    if os.environ.get("TMPDIR") or not os.access(_MEMORY_DIR, os.W_OK | os.X_OK):
        return None
    try:
        stat = os.statvfs(_MEMORY_DIR)
    except OSError:
        return None
    free = stat.f_bavail * stat.f_frsize
    need = max(_MEMORY_FLOOR, 20 * jobs * _tree_bytes(root))
    return _MEMORY_DIR if free >= need else None


def _tree_bytes(root: Path) -> int:
    """The bytes a copy of the work tree takes (its listed files; outside git, all)."""
    files = _listed_files(root)
    paths = (root / f for f in files) if files is not None else root.rglob("*")
    total = 0
    for path in paths:
        with suppress(OSError):
            total += path.lstat().st_size
    return total


class Scratch:
    """`jobs` independent copies of the work tree in one temporary directory, and
    the bytecode prefix of their test runs (`pycache`: the interpreter's own
    files linked to the bytecode store, drill_bytecode.py)."""

    def __init__(self, root: Path, jobs: int) -> None:
        from zodyssey.claims.drill_bytecode import link_store, store_dir

        self.base = Path(tempfile.mkdtemp(prefix="zodyssey-drill-", dir=scratch_parent(root, jobs)))
        self.pycache = self.base / "pycache"
        store = store_dir(root)
        if store is not None:
            link_store(self.pycache, store, avoid=[root, self.base])
        self.copies: queue.Queue[Path] = queue.Queue()
        first = self.base / "copy-0"
        make_copy(root, first)
        self.copies.put(first)
        for n in range(1, jobs):
            other = self.base / f"copy-{n}"
            shutil.copytree(first, other, symlinks=True)
            self.copies.put(other)

    @contextmanager
    def copy(self) -> Iterator[Path]:
        path = self.copies.get()
        try:
            yield path
        finally:
            self.copies.put(path)

    def remove(self) -> None:
        shutil.rmtree(self.base, ignore_errors=True)


# --- running the linked tests -----------------------------------------------------------


class Runner:
    """Runs pytest on node ids inside a copy; tracks its processes to kill them on interrupt."""

    def __init__(self, work: Path, deadline: float | None, root: Path | None = None) -> None:
        self.work = work
        self.deadline = deadline
        self.root = root  # the work tree the copies mirror
        self.stopped = threading.Event()
        self._live: set[subprocess.Popen[bytes]] = set()
        self._lock = threading.Lock()

    def track(self, proc: subprocess.Popen[bytes]) -> None:
        """A process of the drill's (a warm pytest process) killed on interrupt."""
        with self._lock:
            self._live.add(proc)
            if self.stopped.is_set():
                _kill_group(proc)

    def untrack(self, proc: subprocess.Popen[bytes]) -> None:
        with self._lock:
            self._live.discard(proc)

    def kill_all(self) -> None:
        self.stopped.set()
        with self._lock:
            live = list(self._live)
        for proc in live:
            _kill_group(proc)

    def run(
        self,
        copy: Path,
        nodeids: list[str],
        limit: Callable[[], float],
        record: Path | None = None,
    ) -> Outcome:
        """The linked tests `nodeids` in `copy`; `limit()` is the run's time limit in
        seconds, asked again while it runs (it may be learnt meanwhile). With
        `record`, every Python process of the run appends what it read there
        (drill_site/sitecustomize.py)."""
        if self.stopped.is_set():
            return Outcome(NOT_JUDGED, cause="interrupted before it ran", cut=True)
        if self.deadline is not None and self.deadline <= time.monotonic():
            return Outcome(NOT_JUDGED, cause="cut by the --budget before it ran", cut=True)
        junit = self.work / f"junit-{uuid.uuid4().hex}.xml"
        started = time.monotonic()
        proc = subprocess.Popen(
            _pytest_argv(junit, nodeids),
            cwd=copy,
            env=self.env(copy, record),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        with self._lock:
            self._live.add(proc)
            if self.stopped.is_set():  # kill_all ran while this one started
                _kill_group(proc)
        try:
            out = self._wait(proc, started, limit)
        finally:
            with self._lock:
                self._live.discard(proc)
        seconds = time.monotonic() - started
        try:
            if out is None:
                return self._cut(proc, seconds, limit)
            if self.stopped.is_set():
                return Outcome(NOT_JUDGED, cause="interrupted", seconds=seconds, cut=True)
            outcome = judge_run(
                proc.returncode, out.decode("utf-8", "replace"), junit, seconds, nodeids
            )
            outcome.durations = _durations(junit, nodeids)
            return outcome
        finally:
            junit.unlink(missing_ok=True)

    def env(self, copy: Path, record: Path | None = None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in _DROPPED_ENV}
        paths = [str(copy / "src")] if (copy / "src").is_dir() else []
        given = [self._in_copy(p, copy) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
        paths += [str(copy), *given]
        if record is not None:
            paths.append(str(Path(__file__).with_name("drill_site")))
            env[DEPS_ENV] = str(record)
            env[DEPS_ROOT_ENV] = str(copy)
        env["PYTHONPATH"] = os.pathsep.join(paths)
        # Bytecode is cached under the scratch directory, never beside any source
        # (the user's tree included): the runs of the drill share it, and the
        # interpreter's own files reach the store kept between drills.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(self.work / "pycache")  # Scratch.pycache
        env[DRILL_ENV] = "1"
        return env

    def _in_copy(self, entry: str, copy: Path) -> str:
        """A PYTHONPATH entry inside the work tree (its `lib/`, say) as the same folder
        of the copy: the tests import the broken copy, not the user's files."""
        if self.root is None:
            return entry
        try:
            rel = Path(entry).resolve().relative_to(self.root.resolve())
        except (ValueError, OSError):
            return entry
        return str(copy / rel)

    def _wait(
        self, proc: subprocess.Popen[bytes], started: float, limit: Callable[[], float]
    ) -> bytes | None:
        """The run's output; None when its time limit or the budget ran out first."""
        while True:
            left = started + limit() - time.monotonic()
            if self.deadline is not None:
                left = min(left, self.deadline - time.monotonic())
            if left <= 0:
                return None
            with suppress(subprocess.TimeoutExpired):
                out, _ = proc.communicate(timeout=min(left, 1.0))
                return out

    def _cut(
        self, proc: subprocess.Popen[bytes], seconds: float, limit: Callable[[], float]
    ) -> Outcome:
        _kill_group(proc)
        proc.communicate()
        budget = self.deadline is not None and time.monotonic() >= self.deadline - 0.05
        why = "cut by the --budget while it ran" if budget else f"timed out after {limit():.0f} s"
        return Outcome(NOT_JUDGED, cause=why, seconds=seconds, cut=True)


def _pytest_argv(junit: Path, nodeids: list[str]) -> list[str]:
    argv = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider"]
    if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
        argv += ["-p", "zodyssey.claims.plugin"]
    return [*argv, f"--junitxml={junit}", "-o", "junit_logging=no", *nodeids]


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def _junit_name(nodeid: str) -> str:
    """The `classname::name` pytest's JUnit file gives the test `nodeid`."""
    path, _, rest = nodeid.partition("::")
    parts = rest.split("::")
    module = path.removesuffix(".py").replace("/", ".")
    return ".".join([module, *parts[:-1]]) + "::" + parts[-1]


def _cases(junit: Path, nodeids: list[str]) -> list[tuple[str, str, str]]:
    """(node id, outcome, message) of every test case of a JUnit file."""
    try:
        tree = ET.parse(junit)
    except (OSError, ET.ParseError):
        return []
    ids = {_junit_name(n): n for n in nodeids}
    found: list[tuple[str, str, str]] = []
    for case in tree.iter("testcase"):
        name = f"{case.get('classname', '')}::{case.get('name', '')}"
        found.append((ids.get(name, name), *_case_outcome(case)))
    return found


def _durations(junit: Path, nodeids: list[str]) -> dict[str, float]:
    """Seconds each test case of a JUnit file took, by node id."""
    try:
        tree = ET.parse(junit)
    except (OSError, ET.ParseError):
        return {}
    ids = {_junit_name(n): n for n in nodeids}
    out: dict[str, float] = {}
    for case in tree.iter("testcase"):
        name = ids.get(f"{case.get('classname', '')}::{case.get('name', '')}")
        with suppress(ValueError):
            if name is not None:
                out[name] = float(case.get("time") or 0)
    return out


def _case_outcome(case: ET.Element) -> tuple[str, str]:
    """(outcome, message) of one JUnit test case: a failure or error wins over a skip."""
    outcome, message = PASSED, ""
    for child in case:
        if child.tag in ("failure", "error"):
            outcome = "failed"
            message = (child.get("message") or "") + "\n" + (child.text or "")
        elif child.tag == "skipped" and outcome == PASSED:
            outcome, message = "skipped", child.get("message") or ""
    return outcome, message


def cause_of(output: str) -> str:
    """The line of pytest's output that says why: the first `E   ` line, else the last."""
    lines = [line.rstrip() for line in output.splitlines() if line.strip()]
    for line in lines:
        if line.startswith("E   "):
            return line[4:].strip()
    for line in lines:
        if line.startswith("ERROR"):
            return line
    return lines[-1] if lines else "no output"


_EXIT_CAUSES = {
    2: "the run was interrupted (a collection error)",
    3: "pytest internal error",
    4: "pytest usage error",
    5: "no test collected",
}


def judge_run(code: int, output: str, junit: Path, seconds: float, nodeids: list[str]) -> Outcome:
    """killed / passed / not judged from pytest's exit code and its JUnit file."""
    return judge_cases(code, output, _cases(junit, nodeids), seconds)


def judge_cases(
    code: int, output: str, cases: list[tuple[str, str, str]], seconds: float
) -> Outcome:
    """killed / passed / not judged from pytest's exit code and each test's outcome."""
    if code == 0:
        return _passed_run(cases, seconds)
    if code == 1:
        failed = [(name, msg) for name, outcome, msg in cases if outcome == "failed"]
        real = [name for name, msg in failed if not any(e in msg for e in _IMPORT_ERRORS)]
        if real:
            return Outcome(KILLED, tests=real, seconds=seconds)
        if failed:
            return Outcome(
                NOT_JUDGED, cause="import error: " + cause_of(failed[0][1]), seconds=seconds
            )
    what = _EXIT_CAUSES.get(code, f"pytest exit {code}")
    return Outcome(NOT_JUDGED, cause=f"{what}: {cause_of(output)}", seconds=seconds)


def _passed_run(cases: list[tuple[str, str, str]], seconds: float) -> Outcome:
    """Exit 0: passed only when linked tests ran and none was skipped."""
    if not cases:
        return Outcome(NOT_JUDGED, cause="no linked test ran", seconds=seconds)
    skipped = [name for name, outcome, _ in cases if outcome != PASSED]
    if skipped:
        return Outcome(
            NOT_JUDGED,
            cause=f"linked tests did not run: {', '.join(skipped)} skipped",
            seconds=seconds,
        )
    return Outcome(PASSED, tests=[name for name, _, _ in cases], seconds=seconds)


# --- the drill ---------------------------------------------------------------------------


@dataclass
class BreakResult:
    brk: Break
    outcome: Outcome


@dataclass(frozen=True)
class Deps:
    """What the unbroken run of a claim's linked tests read (drill_site/)."""

    files: tuple[str, ...]  # repository files opened, or imported by the test process
    modules: tuple[str, ...]  # top-level modules the test process imported from elsewhere
    imported: tuple[str, ...] = ()  # repository modules any process of the run imported


def read_deps(record: Path, copy: Path) -> Deps | None:
    """The union of what every Python process of a run recorded; None when none did
    (the recording did not reach the run: the drill cannot know what it read)."""
    try:
        lines = record.read_text(encoding="utf-8", errors="surrogateescape").splitlines()
    except OSError:
        return None
    files: set[str] = set()
    modules: set[str] = set()
    imported: set[str] = set()
    bases = {str(copy), os.path.realpath(copy)}
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            return None  # a process cut while it wrote: not known
        # (a name opened relative to a directory descriptor, say by rmtree, is not
        # one of the copy's files: only what exists there is kept)
        files |= {
            r for p in entry.get("files", []) if (r := _relative(p, bases)) and (copy / r).exists()
        }
        modules |= {str(m) for m in entry.get("modules", [])}
        imported |= {r for p in entry.get("imported", []) if (r := _relative(p, bases))}
    if not lines:
        return None
    return Deps(tuple(sorted(files)), tuple(sorted(modules)), tuple(sorted(imported)))


def _relative(path: str, bases: set[str]) -> str | None:
    for base in bases:
        if path.startswith(base + "/"):
            return path[len(base) + 1 :]
    return None


@dataclass
class ClaimResult:
    target: Target
    baseline: Outcome | None = None
    results: list[BreakResult] = field(default_factory=list)
    cached: bool = False
    deps: Deps | None = None  # what the unbroken run read; None: not known (never cached)

    @property
    def status(self) -> str:
        """drilled | survived | not-judged | not-drillable | bad-code."""
        if not self.target.specs:
            return "not-drillable"
        if self.target.problems:
            return "bad-code"
        if any(r.outcome.status == SURVIVED for r in self.results):
            return SURVIVED
        run = [r for r in self.results if r.outcome.status != SKIPPED]
        if run and all(r.outcome.status == KILLED for r in run):
            return "drilled"
        return NOT_JUDGED

    @property
    def complete(self) -> bool:
        """Every break killed or survived (or skipped by the marker): what the cache
        may keep. A break not judged (an import error, a cut, a timeout) is judged
        again next time."""
        return any(r.outcome.status != SKIPPED for r in self.results) and all(
            r.outcome.status in (KILLED, SURVIVED, SKIPPED) for r in self.results
        )


Progress = Callable[[int, int, dict[str, int]], None]


@dataclass
class _Tally:
    """Breaks counted per outcome as they finish, for the progress bar."""

    total: int
    progress: Progress | None
    done: int = 0
    counts: dict[str, int] = field(default_factory=lambda: {KILLED: 0, SURVIVED: 0, NOT_JUDGED: 0})

    def add(self, status: str) -> None:
        self.counts[status] = self.counts.get(status, 0) + 1
        self.done += 1

    def show(self) -> None:
        if self.progress:
            self.progress(self.done, self.total, self.counts)


def drill(
    root: Path,
    targets: list[Target],
    *,
    jobs: int = 1,
    budget: float | None = None,
    timeout: float | None = None,
    progress: Progress | None = None,
    fresh: bool = False,
    warm_pool: Callable[[Runner], Any] | None = None,
) -> list[ClaimResult]:
    """Drill every target with breaks (others come back as they are) in `jobs` copies;
    `warm_pool` (`drill_fork.WarmPool`, passed in by the caller: that module builds on
    this one) serves breaks from one warm pytest process per copy, unless `fresh`."""
    results = [ClaimResult(t) for t in targets]
    for r in results:
        r.results += [
            BreakResult(b, Outcome(SKIPPED, cause=b.skip)) for b in r.target.breaks if b.skip
        ]
    live = _live(results)
    if not live:
        return results
    deadline = time.monotonic() + budget if budget is not None else None
    tally = _Tally(sum(len(_to_run(r.target)) for r in live), progress)
    jobs = max(1, min(jobs, tally.total + len(live)))
    scratch = Scratch(root, jobs)
    runner = Runner(scratch.base, deadline, root)
    pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="drill")
    usable = warm_pool is not None and not fresh and hasattr(os, "fork")
    warm = warm_pool(runner) if usable and warm_pool is not None else None
    try:
        _Schedule(pool, scratch, runner, timeout, tally, warm).run(live)
    except BaseException:
        # Interrupted (SIGINT) or failed: stop the runs going, start no other.
        runner.kill_all()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    finally:
        pool.shutdown(wait=True)
        if warm is not None:
            warm.close_all()
        scratch.remove()
    return results


def _to_run(target: Target) -> list[Break]:
    """The breaks the drill runs: all but those `drill-skip=` names."""
    return [b for b in target.breaks if not b.skip]


def _live(results: list[ClaimResult]) -> list[ClaimResult]:
    """The claims with breaks to run; code with nothing to break is a problem."""
    live: list[ClaimResult] = []
    for r in results:
        if r.target.problems:
            continue
        if _to_run(r.target):
            live.append(r)
        elif r.target.specs and not r.target.breaks:
            r.target.problems.append("its code has nothing the drill can break")
    return live


@dataclass
class _Schedule:
    """The runs of one drill: each claim's unbroken run and its breaks, all queued at once.

    A break may run while its claim's unbroken run is still going (in another
    copy): its outcome counts only once that run passed. When it did not, every
    break of the claim is not judged, and the breaks not started yet are
    cancelled."""

    pool: ThreadPoolExecutor
    scratch: Scratch
    runner: Runner
    timeout: float | None
    tally: _Tally
    warm: Any = None  # drill_fork.WarmPool; None: every break in a fresh process
    baselines: dict[Future[None], ClaimResult] = field(default_factory=dict)
    breaks: dict[Future[Outcome], tuple[ClaimResult, Break]] = field(default_factory=dict)
    held: list[Future[Outcome]] = field(default_factory=list)  # done, baseline still running

    def run(self, live: list[ClaimResult]) -> None:
        self._submit(live)
        self.tally.show()
        remaining: set[Future[Any]] = {*self.baselines, *self.breaks}
        while remaining:
            # A timeout keeps the main thread where a signal (SIGINT) can reach it.
            finished, not_done = wait(remaining, timeout=0.5, return_when=FIRST_COMPLETED)
            remaining = set(not_done)
            for future in finished:
                self._finished(future)
            self.tally.show()
        for future, (r, brk) in self.breaks.items():
            r.results.append(BreakResult(brk, self._final(future, r)))

    def _submit(self, live: list[ClaimResult]) -> None:
        """Every unbroken run first, then every break (a claim with no linked test
        has no run: its breaks are not judged at once)."""
        for r in live:
            if r.target.tests:
                self.baselines[self.pool.submit(self._baseline, r)] = r
            else:
                r.baseline = Outcome(NOT_JUDGED, cause="the claim has no linked test")
                r.results += [BreakResult(b, _unjudged(r.baseline)) for b in _to_run(r.target)]
                for _ in _to_run(r.target):
                    self.tally.add(NOT_JUDGED)
        for r in self.baselines.values():
            for brk in _to_run(r.target):
                self.breaks[self.pool.submit(self._break, r, brk)] = (r, brk)

    def _baseline(self, result: ClaimResult) -> None:
        """The claim's unbroken run: in the warm process that then serves its breaks
        in this copy (one pytest start fewer), else in a fresh process, which also
        says why the tests do not pass when they do not."""
        record = self.scratch.base / f"deps-{uuid.uuid4().hex}.jsonl"
        with self.scratch.copy() as copy:
            if self.warm is not None:
                limit = self.timeout or 900.0
                server = self.warm.server(copy, id(result), result.target.tests, limit, record)
                deps = read_deps(record, copy) if server is not None else None
                if server is not None and deps is not None:
                    result.baseline, result.deps = server.unbroken, deps
                    record.unlink(missing_ok=True)
                    return
                record.unlink(missing_ok=True)
            result.baseline = self.runner.run(
                copy, result.target.tests, lambda: self.timeout or 900.0, record
            )
            result.deps = read_deps(record, copy)
        record.unlink(missing_ok=True)

    def _break(self, result: ClaimResult, brk: Break) -> Outcome:
        def limit() -> float:
            # Ten times the unbroken run (at least a minute); 15 minutes while unknown.
            base = result.baseline
            return self.timeout or (max(60.0, 10 * base.seconds) if base else 900.0)

        tests = _fastest_first(result)
        if self.warm is None:
            return _one_break(self.scratch, self.runner, brk, tests, limit)
        with self.scratch.copy() as copy:
            server = self.warm.server(copy, id(result), tests, limit())
            if server is not None:
                with _broken(copy, brk) as original:
                    outcome: Outcome | None = self.warm.run_break(
                        copy, server, brk, original, limit()
                    )
                if outcome is not None:
                    return outcome
            return _cold_break(copy, self.runner, brk, tests, limit)

    def _finished(self, future: Future[Any]) -> None:
        result = self.baselines.get(future)
        if result is None:
            self._break_done(future)
            return
        future.result()
        assert result.baseline is not None
        if result.baseline.status != PASSED:
            for other, (r, _) in self.breaks.items():
                if r is result:
                    other.cancel()
        for held in [f for f in self.held if self.breaks[f][0] is result]:
            self.held.remove(held)
            self.tally.add(self._final(held, result).status)

    def _break_done(self, future: Future[Outcome]) -> None:
        result = self.breaks[future][0]
        if not future.cancelled():
            future.result()  # an exception in the run: raised here
        if result.baseline is None:
            self.held.append(future)  # counted once the unbroken run says
        else:
            self.tally.add(self._final(future, result).status)

    def _final(self, future: Future[Outcome], result: ClaimResult) -> Outcome:
        """The break's verdict: its own, only when the unbroken run passed."""
        assert result.baseline is not None
        if result.baseline.status != PASSED or future.cancelled():
            return _unjudged(result.baseline)
        return _reached(future.result(), result, self.breaks[future][1])


def _reached(outcome: Outcome, result: ClaimResult, brk: Break) -> Outcome:
    """A survivor of a Python file the unbroken run never read from the scratch copy
    (the tests import that code from elsewhere: an installed copy, a path outside
    the repository, a compiled module beside it) is not judged: the break never
    reached the tests."""
    deps = result.deps
    if outcome.status != SURVIVED or deps is None or not brk.path.endswith(".py"):
        return outcome
    if brk.path in deps.imported or brk.path in deps.files:
        return outcome
    why = (
        f"the linked tests never imported {brk.path} from the scratch copy: they import "
        "that code from elsewhere (an installed copy, a PYTHONPATH entry outside the "
        "repository, a compiled module), so no break of it reaches them"
    )
    return Outcome(NOT_JUDGED, tests=outcome.tests, cause=why, seconds=outcome.seconds)


def _fastest_first(result: ClaimResult) -> list[str]:
    """The claim's linked tests, the fastest of the unbroken run first (once known):
    with `-x` the run of a break stops at the first test that fails."""
    base = result.baseline
    tests = result.target.tests
    if base is None or not base.durations:
        return tests
    return sorted(tests, key=lambda t: (base.durations.get(t, float("inf")), t))


def _unjudged(baseline: Outcome) -> Outcome:
    """A break of a claim whose linked tests do not pass unbroken: not judged."""
    why = f"its linked tests do not pass on the unbroken copy: {baseline.cause}"
    return Outcome(NOT_JUDGED, cause=why, cut=baseline.cut)


_MTIME_SHIFTS = itertools.count(7, 7)  # seconds; one value per break ever run here


@contextmanager
def _broken(copy: Path, brk: Break) -> Iterator[bytes]:
    """The break written into `copy` while the block runs (the file's own bytes and
    modification time back afterwards); yields the file's original bytes."""
    path = copy / brk.path
    original = path.read_bytes()
    before = path.stat()
    try:
        path.write_bytes(brk.source)
        # A modification time no other version of the file has: a cached .pyc
        # (checked by mtime and size) can never pass for the broken module, nor
        # the broken one's for the original once its own mtime is back.
        shift = next(_MTIME_SHIFTS) * 1_000_000_000
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + shift))
        yield original
    finally:
        path.write_bytes(original)
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def _one_break(
    scratch: Scratch, runner: Runner, brk: Break, tests: list[str], limit: Callable[[], float]
) -> Outcome:
    with scratch.copy() as copy:
        return _cold_break(copy, runner, brk, tests, limit)


def _cold_break(
    copy: Path, runner: Runner, brk: Break, tests: list[str], limit: Callable[[], float]
) -> Outcome:
    """The break in a fresh pytest process."""
    with _broken(copy, brk):
        outcome = runner.run(copy, tests, limit)
    if outcome.status == PASSED:
        return Outcome(SURVIVED, tests=outcome.tests, seconds=outcome.seconds)
    return outcome
