"""split_run: a child that fails, dies or sends nothing has its part redone in the parent."""

from __future__ import annotations

import os

import pytest

from zodyssey.anchors.parallel import split_run


def _where(part: int, parts: int, parent: int) -> tuple[int, int, bool]:
    return part, parts, os.getpid() == parent


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_children_compute_their_parts() -> None:
    parent = os.getpid()
    results = split_run(lambda part, parts: _where(part, parts, parent), 3)
    assert results == [(0, 3, True), (1, 3, False), (2, 3, False)]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_failed_child_has_its_part_redone_here() -> None:
    parent = os.getpid()

    def work(part: int, parts: int) -> tuple[int, int, bool]:
        if os.getpid() != parent and part == 1:
            raise RuntimeError("this child fails")
        if os.getpid() != parent and part == 2:
            os._exit(0)  # leaves with status 0 and sends nothing
        if os.getpid() != parent and part == 3:
            return lambda: None  # type: ignore[return-value]  # cannot be pickled
        return _where(part, parts, parent)

    results = split_run(work, 5)
    assert results == [(0, 5, True), (1, 5, True), (2, 5, True), (3, 5, True), (4, 5, False)]


def test_one_part_runs_here_unsplit() -> None:
    parent = os.getpid()
    assert split_run(lambda part, parts: _where(part, parts, parent), 1) == [(0, 1, True)]
    assert split_run(lambda part, parts: _where(part, parts, parent), 0) == [(0, 1, True)]
