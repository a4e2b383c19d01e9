"""Benchmark: whole-process latency of one gate decision against `python -c pass`.

Run: `python bench/bench_gate.py [--rounds N]` (`nox -s bench` runs it in a
clean virtualenv). Everything runs under THIS interpreter (`sys.executable`),
side by side in one run, interleaved round by round so that machine noise hits
every series alike, and is reported as medians and ratios:

  baseline     python -c pass                                 (same interpreter)
  floor        python -S -P -c pass: start-up without `site`, what the installed
               command starts from (it skips `site`; see hook_entry.py)
  nosite       python -S -c pass
  no-run       the installed hook command, Bash call, repository without a run
                                                        target <= 1.3x nosite
  run-read     ... active run (review OKAY), `git status`          target <= 1.3x
  run-read-parsed  ... a read that needs the parser, `git log --oneline | head -5`
  run-write    ... active run (review OKAY), in-scope `echo x > src/app.py`
                   (a parsed write: tree-sitter, plan, state lock)   target <= 3x
                   and with --js, <= 0.5x js-no-run
  run-blocked  ... active run, out-of-scope write (blocked, exit 2)
  site-*       the installed command without -S (the form written before it; `site`
               runs at start-up as for `python -c pass`)
  module-*     the same through `python -m zodyssey.gate pre-tool`
  cli-*        the same through `python -m zodyssey hook pre-tool` (the CLI)
  against-*    with --against DIR: an older copy of the package (DIR/zodyssey)
               through `python -P DIR/zodyssey/gate/hook_entry.py`, same payloads
  js-no-run    with --js DIR: the JavaScript pipeline's hook (node
               DIR/skills/odyssey/hooks/pre-tool.mjs) doing nothing, no run
  worst        issue 16's worst payloads (1.2 MB MCP strings and paths, a path
               over 4,095 characters, a 1,000-deep tool_input without a project
               variable, 100,000 strings): each blocks in under 1 s

"The installed hook command" is exactly what `zodyssey hook install` writes
(`PYTHON -S -P .../zodyssey/gate/hook_entry.py pre-tool`). Targets (issue 28):
no-run <= 1.3x `python -S -c pass`, run-read <= 1.3x `python -c pass`, run-write
<= 3x `python -c pass` and <= 0.5x the JavaScript hook doing nothing (with --js);
a ratio is against the series named after it. The package is byte-compiled first
(an installed wheel ships .pyc files; with PYTHONDONTWRITEBYTECODE set nothing
else would cache them).

The ratios depend on the interpreter: a site-packages whose .pth files import
modules at start-up (`re`, `typing`, ...) makes `python -c pass` slower and the
hook's own imports free, flattering the ratio. The first line says how many
modules `python -c pass` has loaded (a clean venv of CPython 3.11: about 35)
and which of the hook's costly imports are among them. The script ends with
the `python -X importtime` top entries of the no-run and run-read hooks.
"""

from __future__ import annotations

import argparse
import compileall
import hashlib
import json
import os
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


WORST_LIMIT_S = 1.0  # issue 16: every worst payload answered in under a second


def worst_payloads(run: Path) -> dict[str, tuple[bytes, bool]]:
    """The red team's worst payloads (issue 16): (stdin, with the project variable)."""

    def body(tool: str, tool_input: object) -> bytes:
        return json.dumps(
            {
                "session_id": "bench",
                "cwd": str(run),
                "hook_event_name": "PreToolUse",
                "tool_name": tool,
                "tool_input": tool_input,
                "tool_use_id": "toolu_worst",
            }
        ).encode()

    mb = 1_200_000
    traversal = f"{run}/a:b/../" + ("z" * 200 + "/../") * 21 + ".zcode//state/bench.json"
    deep = b'{"a": ' * 1000 + b'"src/app.py"' + b"}" * 1000
    return {
        "mcp-content-1.2MB": (
            body("mcp__fs__write_file", {"path": "src/app.py", "content": "a/" * (mb // 2)}),
            True,
        ),
        "mcp-path-1.2MB": (body("mcp__fs__write_file", {"path": "/a" * (mb // 2)}), True),
        "edit-path-1.2MB": (body("Write", {"file_path": "/a" * (mb // 2), "content": "x"}), True),
        "traversal-4.2k": (body("mcp__fs__write_file", {"path": traversal}), True),
        "deep-1000-no-env": (body("mcp__x__do", "DEEP").replace(b'"DEEP"', deep), False),
        "strings-100k": (body("mcp__x__do", {"items": ["src/x"] * 100_000}), True),
    }


def bench_worst(py: str, hook: list[str], run: Path, env: dict[str, str]) -> bool:
    """Each worst payload through the installed hook: blocked (exit 2), under the limit."""
    ok = True
    print(f"worst payloads (issue 16), limit {WORST_LIMIT_S:.1f} s each, must block (exit 2):")
    for name, (stdin, with_env) in worst_payloads(run).items():
        e = {**env, "CLAUDE_PROJECT_DIR": str(run)} if with_env else env
        start = time.perf_counter()
        done = subprocess.run(hook, input=stdin, env=e, cwd=run, capture_output=True, check=False)
        took = time.perf_counter() - start
        good = done.returncode == 2 and took < WORST_LIMIT_S
        ok = ok and good
        print(
            f"  {name:<18} {took * 1000:>8.1f} ms  exit {done.returncode}  "
            f"{'met' if good else 'OVER'}"
        )
    return ok


def once(argv: list[str], stdin: bytes, env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds user+system) of one whole process."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env
    )
    assert proc.stdin is not None
    proc.stdin.write(stdin)
    proc.stdin.close()
    _, _, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = 0  # reaped by wait4 above
    return wall, usage.ru_utime + usage.ru_stime


def importtime_rows(
    argv: list[str], stdin: bytes, env: dict[str, str]
) -> dict[str, tuple[int, int]]:
    result = subprocess.run(
        [argv[0], "-X", "importtime", *argv[1:]],
        input=stdin,
        env=env,
        capture_output=True,
        check=False,
    )
    rows: dict[str, tuple[int, int]] = {}
    for line in result.stderr.decode().splitlines():
        if not line.startswith("import time:"):
            continue
        fields = [p.strip() for p in line[len("import time:") :].split("|")]
        if len(fields) == 3 and fields[0].isdigit() and fields[1].isdigit():
            rows[fields[2]] = (int(fields[1]), int(fields[0]))
    return rows


PRELOAD_PROBES = ("re", "enum", "typing", "json", "collections", "functools", "contextlib")


def site_note(py: str, env: dict[str, str]) -> str:
    """How many modules `python -c pass` holds, and which costly ones among them."""
    probe = (
        "import sys; print(len(sys.modules)); "
        f"print(' '.join(m for m in {PRELOAD_PROBES!r} if m in sys.modules))"
    )
    out = subprocess.run(
        [py, "-c", probe], env=env, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    count, preloaded = out[0], (out[1] if len(out) > 1 else "")
    verdict = (
        f"site PRELOADS {preloaded} (ratios below are flattered)"
        if preloaded
        else "site preloads none of " + ", ".join(PRELOAD_PROBES)
    )
    return f"`python -c pass` holds {count} modules; {verdict}"


def installed_command(py: str) -> list[str]:
    """The pre-tool argv `zodyssey hook install` writes, for this interpreter."""
    code = (
        "from zodyssey.gate.install import hook_command; "
        "print(hook_command('pre-tool', 'claude-code'))"
    )
    line = subprocess.run(
        [py, "-c", code],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    return shlex.split(line)


def print_importtime(title: str, py: str, series: tuple[list[str], bytes, dict[str, str]]) -> None:
    argv, stdin, env = series
    # What the hook imports on top of interpreter start-up (site, .pth files).
    baseline_rows = importtime_rows([py, "-c", "pass"], b"", env)
    rows = importtime_rows(argv, stdin, env)
    extra = [(cum, own, name) for name, (cum, own) in rows.items() if name not in baseline_rows]
    total_own = sum(own for _, own, _ in extra)
    print(
        f"\nimporttime of {title} beyond `python -c pass`: {len(extra)} modules, "
        f"{total_own} us self in total"
    )
    print("top 12 by cumulative us (cumulative, self, module):")
    for cumulative, own, name in sorted(extra, reverse=True)[:12]:
        print(f"  {cumulative:>7} {own:>7}  {name}")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument(
        "--against",
        type=Path,
        metavar="DIR",
        help="also time an older copy of the package, DIR/zodyssey (for example "
        "`git archive REV zodyssey | tar -x -C DIR`), through its own "
        "`python -P DIR/zodyssey/gate/hook_entry.py`, in the same rounds",
    )
    parser.add_argument(
        "--js",
        type=Path,
        metavar="DIR",
        default=os.environ.get("ZODYSSEY_JS_CHECKOUT") or None,
        help="the JavaScript pipeline's checkout (default: $ZODYSSEY_JS_CHECKOUT): also time "
        "its pre-tool hook doing nothing, in the same rounds",
    )
    args = parser.parse_args()
    js_hook: list[str] = []
    if args.js is not None:
        script = Path(args.js).resolve() / "skills" / "odyssey" / "hooks" / "pre-tool.mjs"
        if not script.is_file():
            print(f"--js: no {script}", file=sys.stderr)
            return 2
        js_hook = ["node", str(script)]
    compileall.compile_dir(str(REPO / "zodyssey"), quiet=1)
    against: list[str] = []
    if args.against is not None:
        entry = args.against.resolve() / "zodyssey" / "gate" / "hook_entry.py"
        if not entry.is_file():
            print(f"--against: no {entry}", file=sys.stderr)
            return 2
        compileall.compile_dir(str(args.against / "zodyssey"), quiet=1)
        against = [sys.executable, "-P", str(entry), "pre-tool"]
    py = sys.executable
    hook = installed_command(py)
    if not hook or hook[0] != py:
        print(f"unexpected installed command {hook}", file=sys.stderr)
        return 1
    module = [py, "-m", "zodyssey.gate", "pre-tool"]
    cli = [py, "-m", "zodyssey", "hook", "pre-tool"]
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
        no_run_env = {**env, "CLAUDE_PROJECT_DIR": str(no_run)}
        run_env = {**env, "CLAUDE_PROJECT_DIR": str(run)}
        read = payload(run, "git status")
        write = payload(run, "echo x > src/app.py")
        with_site = [arg for arg in hook if arg != "-S"]  # the form installed before -S
        series = {
            "baseline": ([py, "-c", "pass"], b"", env),
            "floor": ([py, "-S", "-P", "-c", "pass"], b"", env),
            "nosite": ([py, "-S", "-c", "pass"], b"", env),
            "no-run": (hook, payload(no_run, "git status"), no_run_env),
            "run-read": (hook, read, run_env),
            "run-read-parsed": (hook, payload(run, "git log --oneline | head -5"), run_env),
            "run-write": (hook, write, run_env),
            "run-blocked": (hook, payload(run, "echo x > src/other.py"), run_env),
            "site-no-run": (with_site, payload(no_run, "git status"), no_run_env),
            "site-read": (with_site, read, run_env),
            "site-write": (with_site, write, run_env),
            "module-no-run": (module, payload(no_run, "git status"), no_run_env),
            "module-read": (module, read, run_env),
            "cli-no-run": (cli, payload(no_run, "git status"), no_run_env),
            "cli-read": (cli, read, run_env),
        }
        if against:
            old = {**env, "PYTHONPATH": str(args.against.resolve())}
            series["against-no-run"] = (
                against,
                payload(no_run, "git status"),
                {**old, "CLAUDE_PROJECT_DIR": str(no_run)},
            )
            series["against-read"] = (against, read, {**old, "CLAUDE_PROJECT_DIR": str(run)})
            series["against-write"] = (against, write, {**old, "CLAUDE_PROJECT_DIR": str(run)})
        if js_hook:
            series["js-no-run"] = (js_hook, payload(no_run, "git status"), no_run_env)
        expected_exit = {"run-blocked": 2}
        # sanity: the decisions are the expected ones
        for name, (argv, stdin, e) in series.items():
            code = subprocess.run(
                argv, input=stdin, env=e, capture_output=True, check=False
            ).returncode
            if code != expected_exit.get(name, 0):
                print(
                    f"{name}: exit {code}, expected {expected_exit.get(name, 0)}", file=sys.stderr
                )
                return 1
        for argv, stdin, e in series.values():  # warm caches
            once(argv, stdin, e)
        wall: dict[str, list[float]] = {name: [] for name in series}
        cpu: dict[str, list[float]] = {name: [] for name in series}
        for _ in range(args.rounds):
            for name, (argv, stdin, e) in series.items():
                w, c = once(argv, stdin, e)
                wall[name].append(w)
                cpu[name].append(c)
        wall_ms = {name: statistics.median(v) * 1000 for name, v in wall.items()}
        cpu_ms = {name: statistics.median(v) * 1000 for name, v in cpu.items()}
        # series -> [(at most this ratio, against this series)]
        targets: dict[str, list[tuple[float, str]]] = {
            "no-run": [(1.3, "nosite")],
            "run-read": [(1.3, "baseline")],
            "run-write": [(3.0, "baseline")],
        }
        if js_hook:
            targets["run-write"].append((0.5, "js-no-run"))
        missed = 0
        print(f"python {sys.version.split()[0]} {py}  rounds={args.rounds}  cpus={os.cpu_count()}")
        print(f"note: {site_note(py, env)}")
        print(f"installed command: {shlex.join(hook)}")
        print(
            f"{'series':<14} {'wall ms':>8} {'ratio':>6} {'cpu ms':>8} {'ratio':>6}  target (wall)"
        )
        for name in series:
            w_ratio = wall_ms[name] / wall_ms["baseline"]
            c_ratio = cpu_ms[name] / cpu_ms["baseline"]
            verdicts = []
            for limit, against_name in targets.get(name, []):
                ratio = wall_ms[name] / wall_ms[against_name]
                met = ratio <= limit
                missed += not met
                verdicts.append(
                    f"{ratio:.3f}x {against_name} <= {limit}x {'met' if met else 'OVER'}"
                )
            verdict = "; ".join(verdicts)
            print(
                f"{name:<14} {wall_ms[name]:>8.2f} {w_ratio:>6.3f} {cpu_ms[name]:>8.2f}"
                f" {c_ratio:>6.3f}  {verdict}"
            )
        print(f"targets: {'all met' if not missed else f'{missed} OVER'}")
        worst_ok = bench_worst(py, hook, run, env)
        print_importtime("no-run", py, series["no-run"])
        print_importtime("run-read", py, series["run-read"])
        print_importtime("run-write", py, series["run-write"])
    return 0 if worst_ok else 1


if __name__ == "__main__":
    sys.exit(main())
