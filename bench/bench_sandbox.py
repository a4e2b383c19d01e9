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

`--snapshot N [N ...]` instead times the post-call effect check on generated,
committed repositories of N files (a few of them changed, one untracked):
one `git status` against the check's pre-tool plus post-tool work (two
snapshots and the comparison, `zodyssey/sandbox/effects.py`); the issue's
target is pre+post <= 1.5x one `git status` + 5 ms.
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


def bench_snapshot(sizes: list[int], rounds: int) -> int:
    from zodyssey.sandbox import effects

    for size in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp) / "big"
            for index in range(size):
                path = root / f"d{index % 100:02d}" / f"s{index // 100 % 100:02d}" / f"f{index}.txt"
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(f"{index}\n")
            env = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@x", "GIT_COMMITTER_NAME": "b"}
            env["GIT_COMMITTER_EMAIL"] = "b@x"
            import os

            env = {**os.environ, **env}
            subprocess.run(["git", "init", "-q", str(root)], check=True)
            subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
            subprocess.run(["git", "-C", str(root), "commit", "-qm", "i"], check=True, env=env)
            for index in range(5):
                (root / "d00" / "s00" / f"f{index * 100}.txt").write_text("changed\n")
            (root / "new.txt").write_text("new\n")
            status = ["git", "-C", str(root), "status", "--porcelain=v2", "-z"]
            subprocess.run(status, capture_output=True, check=True)  # warm the index
            plain: list[float] = []
            check: list[float] = []
            for _ in range(rounds):
                start = time.perf_counter()
                subprocess.run(status, capture_output=True, check=True)
                plain.append(time.perf_counter() - start)
                start = time.perf_counter()
                before = effects.snapshot(str(root))
                after = effects.snapshot(str(root), previous=before)
                effects.compare(str(root), before, after)
                check.append(time.perf_counter() - start)
            status_ms = statistics.median(plain) * 1000
            check_ms = statistics.median(check) * 1000
            target = 1.5 * status_ms + 5
            print(
                f"{size} files: git status {status_ms:.1f} ms, pre+post {check_ms:.1f} ms "
                f"({check_ms / status_ms:.2f}x; target <= {target:.1f} ms: "
                f"{'met' if check_ms <= target else 'NOT met'})"
            )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--snapshot", type=int, nargs="+", metavar="N")
    args = parser.parse_args()
    if args.snapshot:
        return bench_snapshot(args.snapshot, min(args.rounds, 10))
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
