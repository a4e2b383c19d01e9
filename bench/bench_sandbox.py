"""Benchmark: what the write sandbox adds to one shell command of a run.

Run: `python bench/bench_sandbox.py [--rounds N]` (`nox -s bench` runs it).
In one generated repository with an active run (review OKAY, Landlock ABI
recorded), interleaved round by round, medians of wall time:

  bash         bash -c true                                  the command itself
  wrapped      the command the gate writes in its place:
               PYTHON -S -P .../hook_entry.py sandbox --run bench --repo R -- bash -c true
  native       HELPER + the wrapped command: the native helper applies the
               grants the runner left and execs (zodyssey/sandbox/native.py)
  exec         true                                          one exec of a small binary
  floor        PYTHON -S -P -c pass                          interpreter start-up alone
  lean         PYTHON -S -I -c 'import os, _ctypes; exec bash'  the least a Python wrapper costs
  hook-read    the installed pre-tool hook, `ls` (not wrapped: default mode)
  hook-wrap    the same with permission_mode bypassPermissions (reply with updatedInput)

and prints `wrapped - bash` in ms (the issue's target: <= 5 ms) and the ratios.

`--snapshot N [N ...]` instead times the effect check on generated, committed
repositories of N files (a few of them changed, one untracked): one plain
`git status` against what the check does for every call that could write,
pre-tool and post-tool (`zodyssey/sandbox/effects.py`), wall and CPU time (CPU
is what a loaded machine does not distort); the issue's target is pre+post
<= 1.5x one `git status` + 5 ms, printed with the allowance.
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
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LEAN = "import os, _ctypes; os.execvp('bash', ['bash', '-c', 'true'])"
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
    _with_run(root, abi=7)
    return root


def once(argv: list[str], stdin: bytes = b"") -> float:
    start = time.perf_counter()
    subprocess.run(argv, input=stdin, capture_output=True, check=False)
    return time.perf_counter() - start


def _generated(root: Path, size: int) -> None:
    """A committed repository of `size` files (100 per directory), 5 of them
    changed and one untracked file: the work tree of a run in progress."""
    import os

    for index in range(size):
        path = root / f"d{index % 100:02d}" / f"s{index // 100 % 100:02d}" / f"f{index}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{index}\n")
    env = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@x", "GIT_COMMITTER_NAME": "b"}
    env = {**os.environ, **env, "GIT_COMMITTER_EMAIL": "b@x"}
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    # no background `git gc --auto` writing into .git while it is timed or removed
    subprocess.run(["git", "-C", str(root), "config", "gc.auto", "0"], check=True)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(root), "commit", "-qm", "i"], check=True, env=env)
    for index in range(5):
        (root / "d00" / "s00" / f"f{index * 100}.txt").write_text("changed\n")
    (root / "new.txt").write_text("new\n")


def _cpu_and_wall(work: Callable[[], object]) -> tuple[float, float]:
    """(CPU seconds of this process and its children, wall seconds) of `work()`."""
    import resource

    def cpu() -> float:
        own = resource.getrusage(resource.RUSAGE_SELF)
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime

    start_cpu, start = cpu(), time.perf_counter()
    work()
    return cpu() - start_cpu, time.perf_counter() - start


def _time_snapshot(root: Path, size: int, rounds: int) -> None:
    from zodyssey.core.store import update_json
    from zodyssey.sandbox import effects
    from zodyssey.sandbox.violations import effects_file

    status = ["git", "-C", str(root), "status", "--porcelain=v2", "-z"]
    subprocess.run(status, capture_output=True, check=True)  # warm the user's index
    effects.snapshot(str(root))  # the check's own index and its untracked cache, built
    last = effects.snapshot(str(root))  # what the previous call's post-tool left

    def plain() -> None:
        subprocess.run(status, capture_output=True, check=True)

    def pre() -> None:  # pre-tool: a snapshot compared with the last (kept only on a change)
        now = effects.snapshot(str(root), previous=last, refresh=False)  # as pre_tool takes it
        effects.compare(str(root), last, now)

    def post() -> None:  # post-tool: a snapshot compared with the call's "before", kept
        after = effects.snapshot(str(root), previous=last)
        effects.compare(str(root), last, after)
        update_json(effects_file(str(root), "bench"), lambda value: value.update(last=after), dict)

    def pair() -> None:
        pre()
        post()

    series = {"git status": plain, "pre": pre, "post": post, "pre+post": pair}
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in series}
    for _ in range(rounds):
        for name, work in series.items():
            times[name].append(_cpu_and_wall(work))
    med = {
        name: (
            statistics.median(c for c, _ in values) * 1000,
            statistics.median(w for _, w in values) * 1000,
        )
        for name, values in times.items()
    }
    base_cpu, base_wall = med["git status"]
    print(
        f"{size} files, {rounds} interleaved rounds, medians (wall, CPU of this process and git):"
    )
    for name, (cpu_ms, wall_ms) in med.items():
        print(
            f"  {name:10s} wall {wall_ms:8.1f} ms ({wall_ms / base_wall:.2f}x)  "
            f"cpu {cpu_ms:8.1f} ms ({cpu_ms / base_cpu:.2f}x)"
        )
    pair_cpu, pair_wall = med["pre+post"]
    for what, base, value in (("wall", base_wall, pair_wall), ("cpu", base_cpu, pair_cpu)):
        target = 1.5 * base + 5
        verdict = "met" if value <= target else "NOT met"
        print(
            f"  target ({what}): pre+post {value:.1f} ms <= 1.5 x {base:.1f} ms + 5 ms "
            f"= {target:.1f} ms: {verdict} ({(value - 5) / base:.2f}x git status after "
            "the 5 ms allowance)"
        )


def bench_snapshot(sizes: list[int], rounds: int) -> int:
    """Per size: one plain `git status` (the user's index, warm), and the check
    as the hook does it for every call that could write: pre-tool (a snapshot
    compared with the last one) and post-tool (a snapshot compared with the
    call's "before"), each alone and as the pair. Wall and CPU medians,
    interleaved round by round, in one generated tree per size."""
    for size in sizes:
        with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
            root = Path(tmp) / "big"
            _generated(root, size)
            _time_snapshot(root, size, rounds)
    return 0


def _with_run(root: Path, abi: int | None = None) -> None:
    """Run `bench` (execute, OKAY, Landlock recorded: `abi`, else this kernel's) in
    the tree `root`."""
    from zodyssey.sandbox.landlock import abi_version

    plan = root / ".zcode" / "plans" / "bench.md"
    plan.parent.mkdir(parents=True)
    plan.write_text(PLAN)
    state = {
        "slug": "bench",
        "phase": "execute",
        "plan_path": str(plan),
        "review": {"verdict": "OKAY", "plan_sha256": hashlib.sha256(PLAN.encode()).hexdigest()},
        "todos": {"1": {"status": "in_flight"}},
        "sandbox": {"landlock_abi": abi_version() if abi is None else abi},
    }
    (root / ".zcode" / "state").mkdir(parents=True)
    (root / ".zcode" / "state" / "bench.json").write_text(json.dumps(state))


def bench_call(sizes: list[int], rounds: int) -> int:
    """One allowed Claude Code shell call end to end, as the harness runs it with the
    shell prefix: the pre-tool hook process, `git status` through the prefix (in the
    run's sandbox), the post-tool hook process; against one plain `git status`."""
    for size in sizes:
        with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
            root = Path(tmp) / "big"
            _generated(root, size)
            _with_run(root)
            _time_call(root, Path(tmp) / "cwd", size, rounds)
    return 0


def _time_call(root: Path, cwd_file: Path, size: int, rounds: int) -> None:
    import os

    from zodyssey.gate.install import hook_command
    from zodyssey.sandbox.shell_prefix import install

    program = install(str(root))
    hook_env = {**os.environ, "CLAUDE_PROJECT_DIR": str(root), "CLAUDE_CODE_SHELL_PREFIX": program}
    bash_env = {**os.environ, "CLAUDE_CODE_EXECPATH": "/opt/claude", "SHELL": "/bin/bash"}
    bash_env.pop("CLAUDE_PROJECT_DIR", None)
    body = {
        "session_id": "s",
        "cwd": str(root),
        "permission_mode": "default",
        "tool_name": "Bash",
        "tool_input": {"command": "git status"},
        "tool_use_id": "t",
    }
    pre = json.dumps({**body, "hook_event_name": "PreToolUse"}).encode()
    post = json.dumps({**body, "hook_event_name": "PostToolUse", "tool_response": {}}).encode()
    script = "true && eval 'git status' < /dev/null && pwd -P >| " + shlex.quote(str(cwd_file))

    def run(argv: list[str], env: dict[str, str], stdin: bytes = b"") -> None:
        subprocess.run(argv, input=stdin, env=env, cwd=root, capture_output=True, check=False)

    def plain() -> None:
        run(["git", "status"], bash_env)

    def call() -> None:
        run(shlex.split(hook_command("pre-tool", "claude-code")), hook_env, pre)
        run([program, script], bash_env)
        run(shlex.split(hook_command("post-tool", "claude-code")), hook_env, post)

    try:
        call()  # the check's index, the helper's grants: built once
        times: dict[str, list[tuple[float, float]]] = {"git status": [], "call": []}
        for _ in range(rounds):
            times["git status"].append(_cpu_and_wall(plain))
            times["call"].append(_cpu_and_wall(call))
    finally:
        Path(program).unlink()
    med = {
        name: (
            statistics.median(c for c, _ in values) * 1000,
            statistics.median(w for _, w in values) * 1000,
        )
        for name, values in times.items()
    }
    (base_cpu, base_wall), (cpu, wall) = med["git status"], med["call"]
    verdict = "met" if wall <= 2 * base_wall else "NOT met"
    print(
        f"{size} files, {rounds} rounds: git status wall {base_wall:.1f} ms cpu {base_cpu:.1f} "
        f"ms; one allowed shell call end to end wall {wall:.1f} ms ({wall / base_wall:.2f}x) "
        f"cpu {cpu:.1f} ms ({cpu / base_cpu:.2f}x); target <= 2x (wall): {verdict}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--snapshot", type=int, nargs="+", metavar="N")
    parser.add_argument("--call", type=int, nargs="+", metavar="N")
    args = parser.parse_args()
    if args.call:
        return bench_call(args.call, min(args.rounds, 10))
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
            "exec": (["true"], b""),  # one exec of a tiny binary: the helper's own floor
            "wrapped": (
                [
                    *(py, "-S", "-P", str(entry_script()), "sandbox", "--run", "bench"),
                    *("--repo", str(root), "--", "bash", "-c", "true"),
                ],
                b"",
            ),
            "floor": ([py, "-S", "-P", "-c", "pass"], b""),
            # the least any Python wrapper can cost: isolated start-up, the one
            # module Landlock's calls need, exec (no grants computed, no syscalls)
            "lean": ([py, "-S", "-I", "-c", LEAN], b""),
            "hook-read": (hook, payload("default")),
            "hook-wrap": (hook, payload("bypassPermissions")),
        }
        # the native helper (zodyssey/sandbox/native.py): built and given the
        # grants by one run of the Python runner, as on a run's first command
        from zodyssey.sandbox import native

        subprocess.run(series["wrapped"][0], capture_output=True, check=False)
        helper = native.available(str(root))
        if helper is not None:
            series["native"] = ([helper, *series["wrapped"][0]], b"")
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
    lean = med["lean"] - med["bash"]
    print(
        f"a minimal Python entry (-S -I, _ctypes, exec) over the command: {lean:.2f} ms "
        f"({lean / med['floor']:.2f}x the interpreter's start-up)"
    )
    added = med["wrapped"] - med["bash"]
    print(
        f"sandbox start-up over the command: {added:.2f} ms (target <= 5 ms: "
        f"{'met' if added <= 5 else 'NOT met'}); {added / med['floor']:.2f}x the interpreter's "
        "own start-up"
    )
    if "native" in med:
        fast = med["native"] - med["bash"]
        print(
            f"native helper start-up over the command: {fast:.2f} ms (target <= 5 ms: "
            f"{'met' if fast <= 5 else 'NOT met'}); {fast / med['floor']:.2f}x the "
            f"interpreter's start-up, {fast / med['exec']:.2f}x one exec of `true`"
        )
    else:
        print("native helper: not built (no C compiler): the Python runner's figure stands")
    print(f"hook with the wrap reply: {med['hook-wrap'] / med['hook-read']:.2f}x the plain read")
    return 0


if __name__ == "__main__":
    sys.exit(main())
