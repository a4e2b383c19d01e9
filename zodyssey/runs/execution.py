"""Run one command with a timeout and capture what happened.

The command runs in its own session so a timeout kills the whole process
group (a shell's children included), not only the shell.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from zodyssey.core.store import now_iso

DEFAULT_TIMEOUT_S = 600.0


@dataclass
class Execution:
    started_at: str
    finished_at: str
    duration_s: float
    exit_code: int | None  # None when killed by a signal or timed out
    signal: int | None
    timed_out: bool
    stdout: bytes
    stderr: bytes

    @property
    def passed(self) -> bool:
        return self.exit_code == 0 and not self.timed_out


def execute(command: str | list[str], cwd: Path, timeout_s: float) -> Execution:
    """Run `command` (a shell string, or an argv list run without a shell)."""
    started_at = now_iso()
    start = time.monotonic()
    try:
        process = subprocess.Popen(
            command,
            shell=isinstance(command, str),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
    except OSError as exc:
        # The program could not start at all (argv form): record it as the shell would, 127.
        return Execution(
            started_at,
            now_iso(),
            time.monotonic() - start,
            127,
            None,
            False,
            b"",
            f"cannot start {command!r}: {exc.strerror}\n".encode(),
        )
    timed_out = False
    try:
        out, err = process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        timed_out = True
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
    duration = time.monotonic() - start
    code = process.returncode
    sig = -code if code is not None and code < 0 else None
    exit_code = None if timed_out or sig is not None else code
    return Execution(started_at, now_iso(), round(duration, 6), exit_code, sig, timed_out, out, err)
