"""Forked workers give exactly the serial result (order, problems, pins)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.helpers.anchors import SOURCE, make_repo, write
from zodyssey.anchors import check, discover
from zodyssey.anchors.lock import read_lock
from zodyssey.config import load_config


def outcome(root: Path) -> tuple[object, ...]:
    config = load_config(root)
    found = discover.discover(root, config)
    result = check.Checker(root, config, found, read_lock(root / config.lock)).run()
    return (
        found.citations,
        found.documents,
        [(p.kind, p.key, p.sites, p.detail, p.moved_to) for p in result.problems],
        result.pins,
        result.spans,
        result.stale,
    )


def test_parallel_equals_serial(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {f"pkg/m{i}.py": SOURCE for i in range(12)}
    docs = {
        f"docs/d{d}.md": "".join(
            f"m{(d + i) % 12}.py:{i + 1}-{i + 3},{i + 5} then :{i + 7} [x](../pkg/m{i}.py#L{i + 2})\n"
            for i in range(10)
        )
        + "broken nowhere.py:3 and m1.py:99\n"
        for d in range(9)
    }
    root = make_repo(tmp_path / "r", {**files, **docs})
    write(root, "anchors/anchors.lock.json", '{"citations": {"pkg/m0.py:1-3": "000000000000"}}')
    monkeypatch.setenv("ZODYSSEY_JOBS", "1")
    serial = outcome(root)
    monkeypatch.setenv("ZODYSSEY_JOBS", "3")
    monkeypatch.setattr(discover, "PARALLEL_MIN_DOCUMENTS", 2)
    monkeypatch.setattr(check, "PARALLEL_MIN_GROUPS", 2)
    parallel = outcome(root)
    assert parallel == serial
    assert len(serial[0]) > 300  # type: ignore[arg-type]
    assert serial[2]  # problems exist, so they crossed the pipe too


def test_no_second_process_without_an_idle_core(monkeypatch: pytest.MonkeyPatch) -> None:
    """A forked worker costs CPU and pays only on a core nobody else uses."""
    from zodyssey.anchors import parallel

    monkeypatch.delenv("ZODYSSEY_JOBS", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1}, raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (3.5, 3.0, 2.0))
    assert parallel.worker_count() == 1
    monkeypatch.setattr(os, "getloadavg", lambda: (1.0, 1.0, 1.0))
    assert parallel.worker_count() == 1  # the other core is busy on average
    monkeypatch.setattr(os, "getloadavg", lambda: (0.4, 1.0, 1.0))
    assert parallel.worker_count() == 2
    monkeypatch.setenv("ZODYSSEY_JOBS", "3")
    assert parallel.worker_count() == 3
