"""Benchmark: whole-process latency of one gate decision against `python -c pass`.

Run: `python bench/bench_gate.py [--rounds N]`. Everything is measured side by
side in this one run, interleaved round by round so that machine noise hits
every series alike, and reported as medians and ratios:

  baseline     python -c pass                               (same interpreter)
  no-run       python -m zodyssey hook pre-tool, Bash call, repository without a run
  run-read     ... active run (review OKAY), `git status`        target <= 1.3x
  run-write    ... active run (review OKAY), in-scope `echo x > src/app.py`
  run-blocked  ... active run, out-of-scope write (blocked, exit 2)

Targets from the issue: no-run <= 1.15x, run-read <= 1.3x. The package is
byte-compiled first (an installed wheel ships .pyc files; with
PYTHONDONTWRITEBYTECODE set nothing else would cache them). The script ends
with the `python -X importtime` top entries of the run-read hook.
"""

from __future__ import annotations

import argparse
import compileall
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

PLAN = """# Bench plan
## Todos
- [ ] 1. Change the app
  - Files: [`src/app.py`, `tests/test_app.py`]
  - Acceptance criteria:
    - `pytest -q` exits 0
"""


def make_repo(base: Path, with_run: bool) -> Path:
    root = base / ("with-run" if with_run else "no-run")
    (root / "src").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "src" / "app.py").write_text("x = 1\n")
    if with_run:
        plans = root / ".zcode" / "plans"
        plans.mkdir(parents=True)
        plan = plans / "bench.md"
        plan.write_text(PLAN)
        state = {
            "slug": "bench",
            "title": "bench",
            "phase": "execute",
            "plan_path": str(plan),
            "review": {
                "round": 1,
                "max_rounds": 3,
                "verdict": "OKAY",
                "plan_sha256": hashlib.sha256(PLAN.encode()).hexdigest(),
                "history": [],
                "blockers": [],
                "consumed_nonces": {},
            },
            "todos": {"1": {"status": "in_flight", "attempts": 1}},
            "file_locks": {},
            "active_todos": {},
        }
        (root / ".zcode" / "state").mkdir(parents=True)
        (root / ".zcode" / "state" / "bench.json").write_text(json.dumps(state))
    return root


def payload(root: Path, command: str) -> bytes:
    return json.dumps(
        {
            "session_id": "bench",
            "transcript_path": "/dev/null",
            "cwd": str(root),
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command, "description": "bench"},
            "tool_use_id": "toolu_bench",
        }
    ).encode()


def once(argv: list[str], stdin: bytes, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(
        argv,
        input=stdin,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=60)
    args = parser.parse_args()
    compileall.compile_dir(str(REPO / "zodyssey"), quiet=1)
    py = sys.executable
    hook = [py, "-m", "zodyssey", "hook", "pre-tool"]
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        no_run = make_repo(base, with_run=False)
        run = make_repo(base, with_run=True)
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("CLAUDE_PROJECT_DIR", "ZCODE_PROJECT_DIR")
        }
        env["PYTHONPATH"] = str(REPO)
        series = {
            "baseline": ([py, "-c", "pass"], b"", env),
            "no-run": (
                hook,
                payload(no_run, "git status"),
                {**env, "CLAUDE_PROJECT_DIR": str(no_run)},
            ),
            "run-read": (hook, payload(run, "git status"), {**env, "CLAUDE_PROJECT_DIR": str(run)}),
            "run-write": (
                hook,
                payload(run, "echo x > src/app.py"),
                {**env, "CLAUDE_PROJECT_DIR": str(run)},
            ),
            "run-blocked": (
                hook,
                payload(run, "echo x > src/other.py"),
                {**env, "CLAUDE_PROJECT_DIR": str(run)},
            ),
        }
        # sanity: the decisions are the expected ones
        for name, expected in (
            ("no-run", 0),
            ("run-read", 0),
            ("run-write", 0),
            ("run-blocked", 2),
        ):
            argv, stdin, e = series[name]
            code = subprocess.run(
                argv, input=stdin, env=e, capture_output=True, check=False
            ).returncode
            if code != expected:
                print(f"{name}: exit {code}, expected {expected}", file=sys.stderr)
                return 1
        for argv, stdin, e in series.values():  # warm caches
            once(argv, stdin, e)
        samples: dict[str, list[float]] = {name: [] for name in series}
        for _ in range(args.rounds):
            for name, (argv, stdin, e) in series.items():
                samples[name].append(once(argv, stdin, e))
        medians = {name: statistics.median(values) * 1000 for name, values in samples.items()}
        base_ms = medians["baseline"]
        targets = {"no-run": 1.15, "run-read": 1.3}
        print(f"python {sys.version.split()[0]} {py}  rounds={args.rounds}")
        print(f"{'series':<12} {'median ms':>10} {'ratio':>7}  target")
        for name, value in medians.items():
            target = targets.get(name)
            verdict = (
                ""
                if target is None
                else f"<= {target}x  {'ok' if value / base_ms <= target else 'OVER'}"
            )
            print(f"{name:<12} {value:>10.2f} {value / base_ms:>7.3f}  {verdict}")
        argv, stdin, e = series["run-read"]
        result = subprocess.run(
            [py, "-X", "importtime", *argv[1:]],
            input=stdin,
            env=e,
            capture_output=True,
            check=False,
        )
        rows = []
        for line in result.stderr.decode().splitlines():
            if not line.startswith("import time:") or "|" not in line:
                continue
            fields = [p.strip() for p in line[len("import time:") :].split("|")]
            if len(fields) == 3 and fields[0].isdigit() and fields[1].isdigit():
                rows.append((int(fields[1]), int(fields[0]), fields[2]))
        print("\nimporttime of run-read (top 12 by cumulative us; self us):")
        for cumulative, self_us, name in sorted(rows, reverse=True)[:12]:
            print(f"  {cumulative:>7} {self_us:>7}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
