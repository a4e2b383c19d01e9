"""The drill's side of the warm pytest process (drill_warm.py): start, ask, stop.

One warm process serves one claim in one scratch copy: it collects the claim's
linked tests once and forks a child per break. Before it serves any break, a
child without a break must pass every linked test (else the copy's breaks of
that claim run in fresh processes). A break whose child answers anything but a
kill by a linked test, or that the child cannot apply soundly, is run again in a
fresh process (`drill._cold_break`), which decides: a warm process only ever
speeds up kills. A break that makes the tests hang is stopped at its time
limit and is not judged, as in a fresh process.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
import uuid
from contextlib import suppress
from pathlib import Path
from typing import Any

from zodyssey.claims.drill import (
    KILLED,
    NOT_JUDGED,
    PASSED,
    SURVIVED,
    Outcome,
    Runner,
    _kill_group,
    judge_cases,
)
from zodyssey.claims.drill_breaks import Break

_START_LIMIT = 900.0  # seconds for the collection of a warm process


class WarmFailed(Exception):
    """The warm process cannot serve (it did not start, collect or pass unbroken)."""


class WarmProcess:
    def __init__(
        self, runner: Runner, copy: Path, tests: list[str], limit: float, record: Path | None = None
    ) -> None:
        """Started, its tests collected and passing unbroken (`unbroken`); with
        `record`, what that unbroken run read is recorded there, as a fresh run of
        the claim's tests records it (drill_site/)."""
        self.runner = runner
        self.copy = copy
        self.tests = tests
        self.buffer = b""
        self.ids = 0
        argv = [sys.executable, "-m", "zodyssey.claims.drill_warm", "-q", "-x"]
        # A failure's report as Python prints a traceback: the exception's type is on
        # its last line (all `judge_cases` reads), and it costs half of pytest's
        # long report, which most of a drill's children, the killed breaks, make.
        argv += ["-p", "no:cacheprovider", "--tb=native"]
        if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
            argv += ["-p", "zodyssey.claims.plugin"]
        self.proc = subprocess.Popen(
            [*argv, *tests],
            cwd=copy,
            env=runner.env(copy, record),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        runner.track(self.proc)
        try:
            ready = self._read(time.monotonic() + min(limit, _START_LIMIT))
            if ready is None or "ready" not in ready:
                raise WarmFailed(f"the warm process did not collect: {ready}")
            unbroken = self.run(None, limit)
            if unbroken is None or unbroken.status != PASSED:
                raise WarmFailed("the linked tests do not pass in the warm process")
            self.unbroken: Outcome = unbroken
        except BaseException:
            self.close()
            raise

    def _read(self, deadline: float) -> dict[str, Any] | None:
        """The next protocol line; None at the deadline or when the process ended."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if self.runner.deadline is not None:
                left = min(left, self.runner.deadline - time.monotonic())
            if left <= 0 or self.runner.stopped.is_set():
                return None
            ready, _, _ = select.select([fd], [], [], min(left, 0.5))
            if ready:
                chunk = os.read(fd, 65536)
                if not chunk:
                    return None
                self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        message: dict[str, Any] = json.loads(line)
        return message

    def run(self, brk: Break | None, limit: float, original: bytes = b"") -> Outcome | None:
        """The linked tests in a child, with `brk` (already written into the copy,
        over `original`) given to it; None when the child could not apply it or did
        not answer."""
        self.ids += 1
        work = self.runner.work
        tag = uuid.uuid4().hex
        result, log, kept = (work / f"warm-{tag}{end}" for end in (".json", ".log", ".orig"))
        request: dict[str, Any] = {"id": self.ids, "result": str(result), "log": str(log)}
        if brk is not None:
            kept.write_bytes(original)
            request.update(path=brk.path, original=str(kept))
        started = time.monotonic()
        try:
            return self._ask(request, started, limit, result, log)
        finally:
            for path in (result, log, kept):
                path.unlink(missing_ok=True)

    def _ask(
        self, request: dict[str, Any], started: float, limit: float, result: Path, log: Path
    ) -> Outcome | None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write((json.dumps(request) + "\n").encode())
            self.proc.stdin.flush()
        except OSError:
            return None
        forked = self._read(started + limit)
        if forked is None or "pid" not in forked:
            return None
        done = self._read(started + limit)
        seconds = time.monotonic() - started
        if done is None:
            with suppress(ProcessLookupError):
                os.kill(int(forked["pid"]), signal.SIGKILL)
            if self._read(time.monotonic() + 10) is None:
                raise WarmFailed("the warm process stopped answering")
            if self.runner.stopped.is_set():
                return Outcome(NOT_JUDGED, cause="interrupted", seconds=seconds, cut=True)
            budget = (
                self.runner.deadline is not None and time.monotonic() >= self.runner.deadline - 0.05
            )
            why = "cut by the --budget while it ran" if budget else f"timed out after {limit:.0f} s"
            return Outcome(NOT_JUDGED, cause=why, seconds=seconds, cut=True)
        try:
            answer = json.loads(result.read_text())
        except (OSError, ValueError):
            return None
        if "unsupported" in answer:
            return None
        cases = [(str(n), str(o), str(m)) for n, o, m in answer["cases"]]
        failed = any(o == "failed" for _, o, _ in cases)
        output = log.read_text(errors="replace") if log.exists() else ""
        outcome = judge_cases(1 if failed else 0, output, cases, seconds)
        outcome.durations = {str(k): float(v) for k, v in answer.get("durations", {}).items()}
        return outcome

    def close(self) -> None:
        with suppress(OSError):
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        _kill_group(self.proc)
        with suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=10)
        self.runner.untrack(self.proc)


def warm_break(server: WarmProcess, brk: Break, original: bytes, limit: float) -> Outcome | None:
    """A break in the warm process: killed or timed out, else None (a fresh process decides)."""
    outcome = server.run(brk, limit, original)
    if outcome is None:
        return None
    if outcome.status == PASSED:
        outcome = Outcome(SURVIVED, tests=outcome.tests, seconds=outcome.seconds)
    if outcome.status == KILLED or (outcome.status == NOT_JUDGED and outcome.cut):
        return outcome
    return None


class WarmPool:
    """At most one warm process per scratch copy, for the claim it last served."""

    def __init__(self, runner: Runner) -> None:
        self.runner = runner
        self.servers: dict[Path, tuple[int, WarmProcess | None]] = {}

    def server(
        self, copy: Path, key: int, tests: list[str], limit: float, record: Path | None = None
    ) -> WarmProcess | None:
        """The warm process of claim `key` in `copy` (started when needed, recording
        its unbroken run in `record`); None when it cannot serve (the claim's breaks
        then run in fresh processes)."""
        held = self.servers.get(copy)
        if held is not None and held[0] == key:
            return held[1]
        self.drop(copy)
        try:
            server: WarmProcess | None = WarmProcess(self.runner, copy, tests, limit, record)
        except (WarmFailed, OSError, ValueError):
            server = None
        self.servers[copy] = (key, server)
        return server

    def run_break(
        self, copy: Path, server: WarmProcess, brk: Break, original: bytes, limit: float
    ) -> Outcome | None:
        """`warm_break`; when the process cannot serve it is dropped and None is
        returned (a fresh process decides)."""
        try:
            return warm_break(server, brk, original, limit)
        except WarmFailed:
            self.drop(copy)
            return None

    def drop(self, copy: Path) -> None:
        held = self.servers.pop(copy, None)
        if held is not None and held[1] is not None:
            held[1].close()

    def close_all(self) -> None:
        for copy in list(self.servers):
            self.drop(copy)
