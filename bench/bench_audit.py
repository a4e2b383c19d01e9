"""Benchmark: audit a run with 1,000 criterion records (target: under 1 s).

    python bench/bench_audit.py [--records N] [--repeat R]

Builds a run in a temporary directory the way `zodyssey run` writes it
(plan, state, hash-chained evidence with stored output), then times:
- baseline: reading and parsing every artifact (json) and hashing the chain,
  the least any audit must do;
- the audit in process (load + validate + checks + JSON and HTML reports);
- `zodyssey audit` as a process, against `python -c pass` as its baseline;
- a JavaScript-pipeline run of the same size in a git repository (its plan
  grammar, verify artifacts, summary cross-checks, final wave and the work-tree
  fingerprint, three git calls), against parsing its state and artifacts.
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


def build_js_run(root: Path, records: int) -> str:
    """A JS-pipeline run as its scripts write it, in a git repository."""
    from zodyssey.audit.js_worktree import fingerprint

    slug = "benchjs"
    todos = max(1, records // CRITERIA_PER_TODO)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "README.md").write_text("bench\n")
    for command in (
        ["add", "-A"],
        ["-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "b"],
    ):
        subprocess.run(["git", "-C", str(root), *command], check=True, capture_output=True)
    (root / "work.txt").write_text("done\n")
    tree, _ = fingerprint(root)
    lines = ["# Benchmark run", "", "## Todos", ""]
    for todo in range(1, todos + 1):
        lines += [f"- [ ] {todo}. Todo {todo}", f"  - Files: [`src/m{todo}.py`]"]
        lines += ["  - Acceptance criteria:"]
        lines += [
            f"    - `test {todo} -eq {n}{n}` exits 0" for n in range(1, CRITERIA_PER_TODO + 1)
        ]
    lines += ["", "## Final verification wave", "- [ ] F1. Plan compliance audit"]
    plan_text = "\n".join(lines) + "\n"
    zcode = root / ".zcode"
    verify_dir = zcode / "verify" / slug
    for sub in (zcode / "plans", zcode / "state", zcode / "reviews", verify_dir):
        sub.mkdir(parents=True, exist_ok=True)
    (zcode / "plans" / f"{slug}.md").write_text(plan_text)
    plan_sha = hashlib.sha256(plan_text.encode()).hexdigest()
    artifact = {
        "verdict": "OKAY",
        "blockers": [],
        "_provenance": {"slug": slug, "round": 1, "nonce": "n-1", "plan_sha256": plan_sha},
    }
    data = (json.dumps(artifact, indent=2) + "\n").encode()
    (zcode / "reviews" / f"{slug}-r1.json").write_bytes(data)
    history = []
    for todo in range(1, todos + 1):
        for n in range(1, CRITERIA_PER_TODO + 1):
            at = f"2026-03-01T10:{todo % 60:02d}:{n:02d}.000Z"
            command = f"test {todo} -eq {n}{n}"
            record = {
                "slug": slug,
                "todo_id": str(todo),
                "criterion_index": n,
                "criterion": command,
                "exit_code": 0,
                "passed": True,
                "status": "passed",
                "flaky": False,
                "flake_check": False,
                "executed": True,
                "output": None,
                "recorded_at": at,
            }
            (verify_dir / f"{todo}-{n}.json").write_text(json.dumps(record, indent=2))
            history.append(
                {
                    "todo_id": str(todo),
                    "criterion_index": n,
                    "passed": True,
                    "status": "passed",
                    "flaky": False,
                    "criterion": command,
                    "exit_code": 0,
                    "worktree": tree,
                    "at": at,
                    "artifact": str(verify_dir / f"{todo}-{n}.json"),
                }
            )
    results = {f"F{i}": {"passed": True} for i in range(1, 6)}
    (verify_dir / "final-wave.json").write_text(
        json.dumps(
            {"slug": slug, "at": "2026-03-01T11:00:00.000Z", "results": results, "all_pass": True}
        )
    )
    state = {
        "slug": slug,
        "title": "Benchmark run",
        "phase": "done",
        "started_at": "2026-03-01T09:58:00.000Z",
        "updated_at": "2026-03-01T11:00:00.000Z",
        "run_start_sha": "",
        "plan_path": str(zcode / "plans" / f"{slug}.md"),
        "todos": {str(t): {"status": "done", "attempts": 1} for t in range(1, todos + 1)},
        "review": {
            "round": 1,
            "max_rounds": 3,
            "verdict": "OKAY",
            "plan_sha256": plan_sha,
            "history": [
                {"round": 1, "at": "2026-03-01T09:59:00.000Z", "verdict": "OKAY", "blockers": []}
            ],
            "consumed_nonces": {
                "n-1": {
                    "artifact": "",
                    "round": 1,
                    "plan_sha256": plan_sha,
                    "sha256": hashlib.sha256(data).hexdigest(),
                }
            },
        },
        "verify": {
            "total": len(history),
            "passed": len(history),
            "failed": 0,
            "flaky": 0,
            "history": history,
        },
        "final": {"verdict": "pass", "at": "2026-03-01T11:00:00.000Z", "results": results},
        "checkpoints": [
            {"at": "2026-03-01T09:58:00.000Z", "phase": "plan", "note": "start"},
            {"at": "2026-03-01T11:00:00.000Z", "phase": "done", "note": "done"},
        ],
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
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        js_slug = build_js_run(root, args.records)
        js_state = root / ".zcode" / "state" / f"{js_slug}.json"

        def js_baseline() -> None:
            json.loads(js_state.read_text())
            for path in (root / ".zcode" / "verify" / js_slug).glob("*.json"):
                json.loads(path.read_text())

        def js_in_process() -> dict[str, Any]:
            from zodyssey.audit.checks import audit
            from zodyssey.audit.load import load_run
            from zodyssey.audit.report import build_report
            from zodyssey.formats import render

            report = build_report(audit(load_run(js_slug, str(root))))
            render(report, "json")
            render(report, "html")
            assert report.payload is not None
            return report.payload

        js_payload = js_in_process()
        assert js_payload["ok"], [f for f in js_payload["findings"] if f["severity"] != "note"][:3]
        js_base = best(js_baseline, args.repeat)
        js_s = best(js_in_process, args.repeat)
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
    print(
        f"JavaScript-pipeline run with {js_payload['counts']['evidence_records']} verify records:"
    )
    print(f"  baseline: parse state + verify artifacts   {js_base * 1000:8.1f} ms")
    print(
        f"  audit in process (json + html reports)     {js_s * 1000:8.1f} ms"
        f"   {js_s / js_base:6.1f}x baseline"
    )
    ok = audit_s < TARGET_SECONDS and cli_s < TARGET_SECONDS and js_s < TARGET_SECONDS
    print(f"  target < {TARGET_SECONDS:.1f} s: {'met' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
