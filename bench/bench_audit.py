"""Benchmark: audit a run with 1,000 criterion records (target: under 1 s).

    python bench/bench_audit.py [--records N] [--repeat R]

Builds a run in a temporary directory the way `zodyssey run` writes it
(plan, state, hash-chained evidence with stored output), then times:
- baseline: reading and parsing every artifact (json) and hashing the chain,
  the least any audit must do;
- the audit in process (load + validate + checks + JSON and HTML reports);
- `zodyssey audit` as a process, against `python -c pass` as its baseline.
Figures are printed as seconds and as ratios to the baselines measured here.
Exit status 1 when the in-process audit misses the target.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

TARGET_SECONDS = 1.0
CRITERIA_PER_TODO = 10


def build_run(root: Path, records: int) -> str:
    from zodyssey.runs.evidence import GENESIS_HASH, record_hash

    slug = "bench"
    todos = max(1, records // CRITERIA_PER_TODO)
    lines = ["# Benchmark run", "## Todos"]
    for todo in range(1, todos + 1):
        lines += [
            f"- [ ] {todo}. Todo {todo}",
            f"  - Files: [`src/m{todo}.py`]",
            "  - Acceptance criteria:",
        ]
        lines += [
            f"    - `test {todo} -eq {todo}` check {n}" for n in range(1, CRITERIA_PER_TODO + 1)
        ]
    plan_text = "\n".join(lines) + "\n"
    zcode = root / ".zcode"
    for sub in ("plans", "state", "reviews", f"verify/{slug}/output"):
        (zcode / sub).mkdir(parents=True, exist_ok=True)
    plan_file = zcode / "plans" / f"{slug}.md"
    plan_file.write_text(plan_text)
    plan_sha = hashlib.sha256(plan_text.encode()).hexdigest()
    output = b"ok\n"
    digest = hashlib.sha256(output).hexdigest()
    (zcode / "verify" / slug / "output" / digest).write_bytes(output)
    capture = {"sha256": digest, "size": len(output), "tail": "ok\n", "stored": True}
    chain: list[str] = []
    previous = GENESIS_HASH
    seq = 0
    for todo in range(1, todos + 1):
        for n in range(1, CRITERIA_PER_TODO + 1):
            seq += 1
            text = f"`test {todo} -eq {todo}` check {n}"
            record: dict[str, Any] = {
                "seq": seq,
                "kind": "criterion",
                "slug": slug,
                "todo": str(todo),
                "criterion_index": n,
                "criterion_text": text,
                "criterion_sha256": hashlib.sha256(text.encode()).hexdigest(),
                "command": f"test {todo} -eq {todo}",
                "cwd": str(root),
                "started_at": f"2026-03-01T10:{seq // 60 % 60:02d}:{seq % 60:02d}.000000Z",
                "finished_at": f"2026-03-01T10:{seq // 60 % 60:02d}:{seq % 60:02d}.500000Z",
                "duration_s": 0.5,
                "exit_code": 0,
                "signal": None,
                "timed_out": False,
                "timeout_s": 600.0,
                "stdout": capture,
                "stderr": capture,
                "head_before": "a" * 40,
                "head_after": "a" * 40,
                "tree_before": "b" * 64,
                "tree_after": "b" * 64,
                "plan_sha256": plan_sha,
                "passed": True,
                "prev": previous,
            }
            record["hash"] = record_hash(record)
            previous = record["hash"]
            chain.append(json.dumps(record, sort_keys=True))
    (zcode / "verify" / slug / "evidence.jsonl").write_text("\n".join(chain) + "\n")
    artifact = {
        "slug": slug,
        "round": 1,
        "verdict": "OKAY",
        "blockers": [],
        "source": "agent",
        "nonce": "n-1",
        "plan_sha256": plan_sha,
        "recorded_at": "2026-03-01T09:59:00Z",
    }
    artifact_bytes = (json.dumps(artifact, indent=2) + "\n").encode()
    artifact_file = zcode / "reviews" / f"{slug}-r1.json"
    artifact_file.write_bytes(artifact_bytes)
    artifact_sha = hashlib.sha256(artifact_bytes).hexdigest()
    state = {
        "slug": slug,
        "title": "Benchmark run",
        "phase": "done",
        "started_at": "2026-03-01T09:58:00.000000Z",
        "updated_at": "2026-03-01T11:00:00.000000Z",
        "run_start_sha": "a" * 40,
        "plan_path": str(plan_file),
        "created_by": "zodyssey bench",
        "review": {
            "round": 1,
            "max_rounds": 3,
            "verdict": "OKAY",
            "plan_sha256": plan_sha,
            "history": [
                {
                    "round": 1,
                    "at": "2026-03-01T09:59:00Z",
                    "verdict": "OKAY",
                    "blockers": [],
                    "source": "agent",
                    "nonce": "n-1",
                    "artifact": str(artifact_file),
                    "artifact_sha256": artifact_sha,
                    "plan_sha256": plan_sha,
                }
            ],
            "consumed_nonces": {
                "n-1": {
                    "round": 1,
                    "at": "2026-03-01T09:59:00Z",
                    "artifact": str(artifact_file),
                    "artifact_sha256": artifact_sha,
                }
            },
        },
        "todos": {str(t): {"status": "done", "attempts": 1} for t in range(1, todos + 1)},
        "gate_log": [],
        "phase_history": [],
        "windows": [],
        "evidence": {"count": seq, "head": previous},
    }
    (zcode / "state" / f"{slug}.json").write_text(json.dumps(state, indent=2))
    return slug


def best(action: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        slug = build_run(root, args.records)
        evidence = root / ".zcode" / "verify" / slug / "evidence.jsonl"
        state_file = root / ".zcode" / "state" / f"{slug}.json"

        def baseline() -> None:
            json.loads(state_file.read_text())
            for line in evidence.read_text().splitlines():
                hashlib.sha256(line.encode()).hexdigest()
                json.loads(line)

        def in_process() -> dict[str, Any]:
            from zodyssey.audit.checks import audit
            from zodyssey.audit.load import load_run
            from zodyssey.audit.report import build_report
            from zodyssey.formats import render

            report = build_report(audit(load_run(slug, str(root))))
            render(report, "json")
            render(report, "html")
            assert report.payload is not None
            return report.payload

        payload = in_process()  # warm imports (as a fresh process would pay them, below)
        assert payload["ok"], payload["findings"][:3]
        assert payload["counts"]["criteria_passed"] == args.records - args.records % 10
        base = best(baseline, args.repeat)
        audit_s = best(in_process, args.repeat)
        command = [
            sys.executable,
            "-m",
            "zodyssey",
            "audit",
            "--repo",
            str(root),
            slug,
            "--format",
            "json",
        ]
        python_s = best(
            lambda: subprocess.run([sys.executable, "-c", "pass"], check=True), args.repeat
        )
        cli_times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            done = subprocess.run(command, capture_output=True, check=False)
            cli_times.append(time.perf_counter() - start)
            assert done.returncode == 0, done.stderr
        cli_s = min(cli_times)
    print(
        f"audit of {payload['counts']['evidence_records']} criterion records "
        f"(best of {args.repeat}):"
    )
    print(f"  baseline: parse + hash every artifact      {base * 1000:8.1f} ms")
    print(
        f"  audit in process (json + html reports)     {audit_s * 1000:8.1f} ms"
        f"   {audit_s / base:6.1f}x baseline"
    )
    print(f"  python -c pass                             {python_s * 1000:8.1f} ms")
    print(
        f"  zodyssey audit --format json (process)     {cli_s * 1000:8.1f} ms"
        f"   {cli_s / python_s:6.1f}x python startup   median "
        f"{statistics.median(cli_times) * 1000:.1f} ms"
    )
    ok = audit_s < TARGET_SECONDS and cli_s < TARGET_SECONDS
    print(f"  target < {TARGET_SECONDS:.1f} s: {'met' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
