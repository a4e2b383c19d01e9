"""Benchmark: what the write sandbox adds to one shell command of a run.

Run: `python bench/bench_sandbox.py [--rounds N]` (`nox -s bench` runs it).
In one generated repository with an active run (review OKAY, Landlock ABI
recorded), interleaved round by round, medians of wall time:

  bash         bash -c true                                  the command itself
  wrapped      the command the gate writes in its place:
               PYTHON -S -P .../hook_entry.py sandbox --run bench --repo R -- bash -c true
  floor        PYTHON -S -P -c pass                          interpreter start-up alone
  hook-read    the installed pre-tool hook, `ls` (not wrapped: default mode)
  hook-wrap    the same with permission_mode bypassPermissions (reply with updatedInput)

and prints `wrapped - bash` in ms (the issue's target: <= 5 ms) and the ratios.
The package is byte-compiled first (with PYTHONDONTWRITEBYTECODE set nothing
else would cache it).
"""

from __future__ import annotations

import argparse
import compileall
import hashlib
import json
import shlex
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
  - Files: [`src/app.py`]
  - Acceptance criteria:
    - `true`
"""


def make_repo(base: Path) -> Path:
    root = base / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("x = 1\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    plan = root / ".zcode" / "plans" / "bench.md"
    plan.parent.mkdir(parents=True)
    plan.write_text(PLAN)
    state = {
        "slug": "bench",
        "phase": "execute",
        "plan_path": str(plan),
        "review": {"verdict": "OKAY", "plan_sha256": hashlib.sha256(PLAN.encode()).hexdigest()},
        "todos": {"1": {"status": "in_flight"}},
        "sandbox": {"landlock_abi": 7},
    }
    (root / ".zcode" / "state").mkdir(parents=True)
    (root / ".zcode" / "state" / "bench.json").write_text(json.dumps(state))
    return root


def once(argv: list[str], stdin: bytes = b"") -> float:
    start = time.perf_counter()
    subprocess.run(argv, input=stdin, capture_output=True, check=False)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    from zodyssey.gate.install import entry_script, hook_command
    from zodyssey.sandbox.landlock import abi_version

    abi = abi_version()
    if abi < 1:
        print("Landlock is not available here: nothing to measure (the gate does not wrap)")
        return 1
    compileall.compile_dir(str(REPO / "zodyssey"), quiet=1)
    with tempfile.TemporaryDirectory() as tmp:
        root = make_repo(Path(tmp))
        py = sys.executable
        hook = shlex.split(hook_command("pre-tool", "claude-code"))

        def payload(mode: str) -> bytes:
            body = {
                "tool_name": "Bash",
                "tool_input": {"command": "ls"},
                "cwd": str(root),
                "session_id": "s",
                "permission_mode": mode,
            }
            return json.dumps(body).encode()

        series: dict[str, tuple[list[str], bytes]] = {
            "bash": (["bash", "-c", "true"], b""),
            "wrapped": (
                [
                    *(py, "-S", "-P", str(entry_script()), "sandbox", "--run", "bench"),
                    *("--repo", str(root), "--", "bash", "-c", "true"),
                ],
                b"",
            ),
            "floor": ([py, "-S", "-P", "-c", "pass"], b""),
            "hook-read": (hook, payload("default")),
            "hook-wrap": (hook, payload("bypassPermissions")),
        }
        times: dict[str, list[float]] = {name: [] for name in series}
        for _ in range(3):
            for argv, stdin in series.values():
                once(argv, stdin)
        for _ in range(args.rounds):
            for name, (argv, stdin) in series.items():
                times[name].append(once(argv, stdin))
    med = {name: statistics.median(values) * 1000 for name, values in times.items()}
    print(f"Landlock ABI {abi}, {args.rounds} interleaved rounds, medians (ms):")
    for name, value in med.items():
        print(f"  {name:10s} {value:8.2f}")
    added = med["wrapped"] - med["bash"]
    print(
        f"sandbox start-up over the command: {added:.2f} ms (target <= 5 ms: "
        f"{'met' if added <= 5 else 'NOT met'}); {added / med['floor']:.2f}x the interpreter's "
        "own start-up"
    )
    print(f"hook with the wrap reply: {med['hook-wrap'] / med['hook-read']:.2f}x the plain read")
    return 0


if __name__ == "__main__":
    sys.exit(main())
