"""`zodyssey claims drill`: break a claim's code in a scratch copy, run its linked tests.

For each claim that names code (docs/claims.md, "The drill"):

    claim --code=/citations--> spans --drill_breaks--> breaks
          --scratch copy + linked tests (pytest, the project's configuration)-->
          killed | survived | not judged

The user's work tree is only read: every break is written into a scratch copy
(its tracked and untracked, not ignored, files) in a temporary directory, one
copy per worker, and the copies are removed however the drill ends (SIGINT
included). Before any break, the linked tests run on the unbroken copy: when
they do not pass there, nothing they do on a broken copy means anything, and
every break of the claim is not judged.
"""

from __future__ import annotations

import itertools
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

from zodyssey.claims.drill_breaks import Break, Span, SpecError, breaks_for, resolve
from zodyssey.claims.model import Claim

KILLED = "killed"
SURVIVED = "survived"
NOT_JUDGED = "not-judged"
PASSED = "passed"  # the unbroken copy's run

# Set in the environment of every test run of the drill, so a suite can tell.
DRILL_ENV = "ZODYSSEY_DRILL"
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


@dataclass
class Target:
    """One claim to drill: its code, its breaks and its linked tests."""

    claim: Claim
    specs: tuple[str, ...]
    tests: list[str]
    spans: list[Span] = field(default_factory=list)
    breaks: list[Break] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # specs that name no code


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


def plan(root: Path, claim: Claim, tests: list[str]) -> Target:
    target = Target(claim, code_specs(claim, root), sorted(tests))
    for spec in target.specs:
        try:
            spans = resolve(root, spec)
        except SpecError as exc:
            target.problems.append(str(exc))
            continue
        target.spans.extend(spans)
        for span in spans:
            try:
                target.breaks.extend(breaks_for(root, span))
            except SpecError as exc:
                target.problems.append(str(exc))
    return target


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


class Scratch:
    """`jobs` independent copies of the work tree in one temporary directory."""

    def __init__(self, root: Path, jobs: int) -> None:
        self.base = Path(tempfile.mkdtemp(prefix="zodyssey-drill-"))
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

    def __init__(self, work: Path, deadline: float | None) -> None:
        self.work = work
        self.deadline = deadline
        self.stopped = threading.Event()
        self._live: set[subprocess.Popen[bytes]] = set()
        self._lock = threading.Lock()

    def kill_all(self) -> None:
        self.stopped.set()
        with self._lock:
            live = list(self._live)
        for proc in live:
            _kill_group(proc)

    def run(self, copy: Path, nodeids: list[str], timeout: float) -> Outcome:
        if self.stopped.is_set():
            return Outcome(NOT_JUDGED, cause="interrupted before it ran", cut=True)
        if self.deadline is not None:
            left = self.deadline - time.monotonic()
            if left <= 0:
                return Outcome(NOT_JUDGED, cause="cut by the --budget before it ran", cut=True)
            timeout = min(timeout, left)
        junit = self.work / f"junit-{uuid.uuid4().hex}.xml"
        argv = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-x",
            "-p",
            "no:cacheprovider",
            f"--junitxml={junit}",
            "-o",
            "junit_logging=no",
            *nodeids,
        ]
        env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
        paths = [str(copy / "src")] if (copy / "src").is_dir() else []
        paths += [str(copy), *([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])]
        env["PYTHONPATH"] = os.pathsep.join(paths)
        # Bytecode is cached, but only in the scratch directory (never beside any
        # source, the user's tree included): the runs of one copy share it.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(self.work / "pycache")
        env[DRILL_ENV] = "1"
        if env.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
            argv[3:3] = ["-p", "zodyssey.claims.plugin"]
        started = time.monotonic()
        proc = subprocess.Popen(
            argv,
            cwd=copy,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        with self._lock:
            self._live.add(proc)
        try:
            out, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            proc.communicate()
            budget = self.deadline is not None and time.monotonic() >= self.deadline - 0.05
            why = (
                "cut by the --budget while it ran" if budget else f"timed out after {timeout:.0f} s"
            )
            return Outcome(NOT_JUDGED, cause=why, seconds=time.monotonic() - started, cut=True)
        finally:
            with self._lock:
                self._live.discard(proc)
        seconds = time.monotonic() - started
        if self.stopped.is_set():
            return Outcome(NOT_JUDGED, cause="interrupted", seconds=seconds, cut=True)
        try:
            return judge_run(
                proc.returncode, out.decode("utf-8", "replace"), junit, seconds, nodeids
            )
        finally:
            junit.unlink(missing_ok=True)


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
        name = ids.get(name, name)
        outcome, message = PASSED, ""
        for child in case:
            if child.tag in ("failure", "error"):
                outcome = "failed"
                message = (child.get("message") or "") + "\n" + (child.text or "")
            elif child.tag == "skipped" and outcome == PASSED:
                outcome, message = "skipped", child.get("message") or ""
        found.append((name, outcome, message))
    return found


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


def judge_run(code: int, output: str, junit: Path, seconds: float, nodeids: list[str]) -> Outcome:
    """killed / passed / not judged from pytest's exit code and its JUnit file."""
    cases = _cases(junit, nodeids)
    if code == 0:
        skipped = [name for name, outcome, _ in cases if outcome != PASSED]
        if not cases:
            return Outcome(NOT_JUDGED, cause="no linked test ran", seconds=seconds)
        if skipped:
            return Outcome(
                NOT_JUDGED,
                cause=f"linked tests did not run: {', '.join(skipped)} skipped",
                seconds=seconds,
            )
        return Outcome(PASSED, tests=[name for name, _, _ in cases], seconds=seconds)
    if code == 1:
        failed = [(name, msg) for name, outcome, msg in cases if outcome == "failed"]
        real = [name for name, msg in failed if not any(e in msg for e in _IMPORT_ERRORS)]
        if real:
            return Outcome(KILLED, tests=real, seconds=seconds)
        if failed:
            return Outcome(
                NOT_JUDGED, cause="import error: " + cause_of(failed[0][1]), seconds=seconds
            )
    what = {
        2: "the run was interrupted (a collection error)",
        3: "pytest internal error",
        4: "pytest usage error",
        5: "no test collected",
    }.get(code, f"pytest exit {code}")
    return Outcome(NOT_JUDGED, cause=f"{what}: {cause_of(output)}", seconds=seconds)


# --- the drill ---------------------------------------------------------------------------


@dataclass
class BreakResult:
    brk: Break
    outcome: Outcome


@dataclass
class ClaimResult:
    target: Target
    baseline: Outcome | None = None
    results: list[BreakResult] = field(default_factory=list)
    cached: bool = False

    @property
    def status(self) -> str:
        """drilled | survived | not-judged | not-drillable | bad-code."""
        if not self.target.specs:
            return "not-drillable"
        if self.target.problems:
            return "bad-code"
        if any(r.outcome.status == SURVIVED for r in self.results):
            return SURVIVED
        if self.results and all(r.outcome.status == KILLED for r in self.results):
            return "drilled"
        return NOT_JUDGED

    @property
    def complete(self) -> bool:
        """Every break killed or survived: what the cache may keep. A break not judged
        (an import error, a cut, a timeout) is judged again next time."""
        return bool(self.results) and all(
            r.outcome.status in (KILLED, SURVIVED) for r in self.results
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
) -> list[ClaimResult]:
    """Drill every target with breaks (others come back as they are) in `jobs` copies."""
    results = [ClaimResult(t) for t in targets]
    live = [r for r in results if r.target.breaks and not r.target.problems]
    for r in results:
        if r.target.specs and not r.target.problems and not r.target.breaks:
            r.target.problems.append("its code has nothing the drill can break")
    if not live:
        return results
    deadline = time.monotonic() + budget if budget is not None else None
    tally = _Tally(sum(len(r.target.breaks) for r in live), progress)
    jobs = max(1, min(jobs, tally.total))
    scratch = Scratch(root, jobs)
    runner = Runner(scratch.base, deadline)
    try:
        with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="drill") as pool:
            _baselines(pool, scratch, runner, live, timeout)
            pending = _submit_breaks(pool, scratch, runner, live, timeout, tally)
            tally.show()
            outcomes = _outcomes(pending, runner, tally)
            for future, (r, brk) in pending.items():
                r.results.append(BreakResult(brk, outcomes[future]))
    except BaseException:
        runner.kill_all()
        raise
    finally:
        scratch.remove()
    return results


def _baselines(
    pool: ThreadPoolExecutor,
    scratch: Scratch,
    runner: Runner,
    live: list[ClaimResult],
    timeout: float | None,
) -> None:
    """The linked tests of each claim on the unbroken copy (in parallel)."""
    futures = [pool.submit(_baseline, scratch, runner, r, timeout) for r in live if r.target.tests]
    for r in live:
        if not r.target.tests:
            r.baseline = Outcome(NOT_JUDGED, cause="the claim has no linked test")
    _wait_all(futures, runner)


def _submit_breaks(
    pool: ThreadPoolExecutor,
    scratch: Scratch,
    runner: Runner,
    live: list[ClaimResult],
    timeout: float | None,
    tally: _Tally,
) -> dict[Future[Outcome], tuple[ClaimResult, Break]]:
    """One run per break of each claim whose tests pass unbroken; the breaks of
    the others are not judged at once."""
    pending: dict[Future[Outcome], tuple[ClaimResult, Break]] = {}
    for r in live:
        assert r.baseline is not None
        if r.baseline.status != PASSED:
            why = f"its linked tests do not pass on the unbroken copy: {r.baseline.cause}"
            for brk in r.target.breaks:
                r.results.append(
                    BreakResult(brk, Outcome(NOT_JUDGED, cause=why, cut=r.baseline.cut))
                )
                tally.add(NOT_JUDGED)
            continue
        limit = timeout or max(60.0, 10 * r.baseline.seconds)
        for brk in r.target.breaks:
            future = pool.submit(_one_break, scratch, runner, brk, r.target.tests, limit)
            pending[future] = (r, brk)
    return pending


def _outcomes(
    pending: dict[Future[Outcome], tuple[ClaimResult, Break]], runner: Runner, tally: _Tally
) -> dict[Future[Outcome], Outcome]:
    outcomes: dict[Future[Outcome], Outcome] = {}
    remaining = set(pending)
    while remaining:
        finished, remaining = _wait_some(remaining, runner)
        for future in finished:
            outcome = future.result()
            outcomes[future] = outcome
            tally.add(outcome.status)
        tally.show()
    return outcomes


def _wait_some(
    futures: set[Future[Outcome]], runner: Runner
) -> tuple[set[Future[Outcome]], set[Future[Outcome]]]:
    # A timeout keeps the main thread where a signal (SIGINT) can reach it.
    finished, rest = wait(futures, timeout=0.5, return_when=FIRST_COMPLETED)
    return set(finished), set(rest)


def _wait_all(futures: list[Future[None]], runner: Runner) -> None:
    remaining = set(futures)
    while remaining:
        _, not_done = wait(remaining, timeout=0.5)
        remaining = set(not_done)
    for future in futures:
        future.result()


def _baseline(scratch: Scratch, runner: Runner, result: ClaimResult, timeout: float | None) -> None:
    with scratch.copy() as copy:
        result.baseline = runner.run(copy, result.target.tests, timeout or 900.0)


_MTIME_SHIFTS = itertools.count(7, 7)  # seconds; one value per break ever run here


def _one_break(
    scratch: Scratch, runner: Runner, brk: Break, tests: list[str], timeout: float
) -> Outcome:
    with scratch.copy() as copy:
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
            outcome = runner.run(copy, tests, timeout)
        finally:
            path.write_bytes(original)
            os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    if outcome.status == PASSED:
        return Outcome(SURVIVED, tests=outcome.tests, seconds=outcome.seconds)
    return outcome
