"""docs/gate.md's promise for the hook's fast answer without a run
(`hook-norun-as-strict`), through the real processes: the installed command
and the full hook agree on every layout of tests/gate/test_gate_norun.py where
a run is reachable (and both block), and a call without a run is answered
without importing `os` or the hook."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gate.test_gate_norun import (
    test_every_reachable_run_still_blocks_and_both_agree as _reachable_runs_block,
)
from tests.gate.test_gate_norun import (
    test_without_a_run_the_fast_answer_is_taken as _fast_answer_taken,
)


@pytest.mark.claim("hook-norun-as-strict")
def test_the_fast_no_run_answer_is_as_strict_as_the_full_hook(tmp_path: Path) -> None:
    (tmp_path / "reach").mkdir()
    (tmp_path / "plain").mkdir()
    _reachable_runs_block(tmp_path / "reach")
    _fast_answer_taken(tmp_path / "plain")
