"""50 simultaneous dispatch attempts (real processes) against cap 4 admit exactly 4."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable

from tests.helpers.gate import RunRepo, hook_env


def test_fifty_dispatches_against_cap_four(run_repo: Callable[..., RunRepo]) -> None:
    repo = run_repo()
    env = hook_env(repo.root, ZODYSSEY_PARALLEL_CAP="4")
    processes = []
    for i in range(50):
        payload = repo.payload(
            "Task",
            {"subagent_type": "general-purpose", "prompt": f"todo {i}"},
            tool_use_id=f"toolu_{i}",
        )
        proc = subprocess.Popen(
            [sys.executable, "-m", "zodyssey", "hook", "pre-tool"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        processes.append((proc, json.dumps(payload).encode()))
    # write every payload only once all processes exist, so they race for real
    for proc, data in processes:
        assert proc.stdin is not None
        proc.stdin.write(data)
        proc.stdin.close()
    codes = []
    for proc, _ in processes:
        proc.wait(timeout=120)
        assert proc.stderr is not None
        err = proc.stderr.read().decode()
        codes.append(proc.returncode)
        assert "Traceback" not in err
        if proc.returncode == 2:
            assert "in flight" in err
        proc.stdout.close() if proc.stdout else None
        proc.stderr.close()
    assert codes.count(0) == 4
    assert codes.count(2) == 46
    ledger = json.loads((repo.root / ".zcode" / "state" / "demo.inflight.json").read_text())
    assert len(ledger) == 4
    assert len({entry["id"] for entry in ledger}) == 4
