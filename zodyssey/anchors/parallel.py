"""Split a large job over the machine's cores with fork (results come back pickled).

The file index and configuration are built once in the parent; forked
children inherit them, so only results cross a pipe. Small jobs, platforms
without fork, and `ZODYSSEY_JOBS=1` run serially; a child that fails has its
share redone in the parent, so the result never depends on the split.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def worker_count() -> int:
    """`ZODYSSEY_JOBS`, else one process plus one per core idle on average.

    A second process costs CPU (the fork, the pickled results, rebuilding them:
    about a sixth more in all) and pays only in wall time, which it saves only
    when a core is free for it: with the last minute's load average at or above
    cores - 1, the work stays in one process.
    """
    configured = os.environ.get("ZODYSSEY_JOBS", "")
    if configured.isdigit() and int(configured) > 0:
        return int(configured)
    try:
        cores = max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        cores = max(1, os.cpu_count() or 1)
    return min(cores, 1 + idle_cores(cores - 1))


def idle_cores(others: int) -> int:
    """How many of `others` cores were idle on average over the last minute (rounded up);
    all of them when the load average cannot be read."""
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        return others
    return max(0, min(others, math.ceil(others - load)))


def split_run(work: Callable[[int, int], T], parts: int) -> list[T]:
    """[work(0, parts), ..., work(parts - 1, parts)]; part 0 runs here, the rest in children."""
    if parts <= 1 or not hasattr(os, "fork"):
        return [work(0, 1)] if parts <= 1 else [work(i, parts) for i in range(parts)]
    children = [_fork(work, part, parts) for part in range(1, parts)]
    try:
        results: list[T] = [work(0, parts)]
    except BaseException:
        for pid, read_end in children:
            os.close(read_end)
            os.waitpid(pid, 0)
        raise
    for part, (pid, read_end) in enumerate(children, start=1):
        results.append(_collect(work, part, parts, pid, read_end))
    return results


def _fork(work: Callable[[int, int], T], part: int, parts: int) -> tuple[int, int]:
    """Start a child computing work(part, parts); (its pid, the end of its result pipe)."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: compute, send, leave without running any parent cleanup
        import pickle  # here, not at the top: a run in one process never needs it

        os.close(read_end)
        status = 0
        try:
            payload = pickle.dumps(work(part, parts), protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(write_end, "wb") as pipe:
                pipe.write(payload)
        except BaseException:  # any failure: the parent redoes this part
            status = 1
        os._exit(status)
    os.close(write_end)
    return pid, read_end


def _collect(work: Callable[[int, int], T], part: int, parts: int, pid: int, read_end: int) -> T:
    """A child's result; a failed child's part, or a truncated result, is recomputed here."""
    import pickle

    with os.fdopen(read_end, "rb") as pipe:
        payload = pipe.read()
    _, status = os.waitpid(pid, 0)
    if status != 0 or not payload:
        return work(part, parts)  # the child failed: redo its part here
    try:
        value: T = pickle.loads(payload)
    except Exception:
        value = work(part, parts)  # a truncated result: recompute it here
    return value
