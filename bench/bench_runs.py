"""Benchmark of the runs part: evidence-chain reading and verification.

Prints figures as ratios against a baseline measured in the same run:
- reading + verifying a 1,000-record chain vs only json-parsing its lines
  (the audit's budget: 1,000 criteria records in under 1 s);
- appending one record (locked, atomic) vs writing the same bytes atomically.

Run: python bench/bench_runs.py
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from zodyssey.core import paths
from zodyssey.core.atomic import write_atomic
from zodyssey.runs import evidence as chain

RECORDS = 1000


def best_of(fn: Callable[[], object], rounds: int = 7) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def record(n: int) -> dict[str, object]:
    return {
        "kind": "criterion",
        "slug": "bench",
        "todo": str(n % 50),
        "criterion_index": n % 5 + 1,
        "criterion_text": f"`pytest -q tests/test_{n}.py` exits 0",
        "criterion_sha256": "a" * 64,
        "command": f"pytest -q tests/test_{n}.py",
        "cwd": "/repo",
        "started_at": "2026-01-01T00:00:00.000000Z",
        "finished_at": "2026-01-01T00:00:01.000000Z",
        "duration_s": 1.25,
        "exit_code": 0,
        "signal": None,
        "timed_out": False,
        "stdout": {"sha256": "b" * 64, "size": 2048, "tail": "x" * 2048, "stored": True},
        "stderr": {"sha256": "c" * 64, "size": 0, "tail": "", "stored": True},
        "head_before": "d" * 40,
        "head_after": "d" * 40,
        "tree_before": "e" * 64,
        "tree_after": "e" * 64,
        "plan_sha256": "f" * 64,
        "passed": True,
    }


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        start = time.perf_counter()
        for n in range(50):
            chain.append_record(root, "bench", record(n))
        append_50 = time.perf_counter() - start
        path = paths.evidence_path(root, "bench")
        path.write_text(
            chain.dump_records(chain.link_records(record(n) for n in range(RECORDS))),
            encoding="utf-8",
        )
        text = path.read_text(encoding="utf-8")

        def parse_only() -> object:
            return [json.loads(line) for line in text.splitlines()]

        def read_and_verify() -> object:
            result = chain.read_evidence(path)
            problems = chain.verify_chain(result.records, lines=result.lines)
            assert not problems
            return problems

        baseline = best_of(parse_only)
        verified = best_of(read_and_verify)
        data = path.read_bytes()
        plain = root / "plain.jsonl"
        append_baseline = best_of(lambda: write_atomic(plain, data), rounds=20)
        append_one = best_of(lambda: chain.append_record(root, "bench", record(0)), rounds=20)
    print(
        f"chain of {RECORDS} records ({len(text) / 1e6:.2f} MB); 50 appends took {append_50:.2f} s"
    )
    print(
        f"read+verify: {verified * 1000:.1f} ms; json-parse baseline {baseline * 1000:.1f} ms; "
        f"ratio {verified / baseline:.2f}x"
    )
    print(
        f"append one record: {append_one * 1000:.2f} ms; atomic write of the same file "
        f"{append_baseline * 1000:.2f} ms; ratio {append_one / append_baseline:.2f}x"
    )


if __name__ == "__main__":
    main()
