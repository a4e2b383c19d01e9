"""Benchmark: the moved search against the JavaScript checker (`python bench/bench_moved.py`).

One fixture, both checkers, one run: a 200,000-line source file cited by 32
ranges of 32 different lengths, pinned by each checker's own `--update`,
then one line inserted at the top, so every citation is broken. The
JavaScript checker only reports drift; ours must also find where each span
went (`moved`). Target: ours at most 2x the JavaScript checker's wall time
and 3x its peak memory (best of `--repeat` alternating runs, same machine,
same moment, so machine load cancels out).

`--js PATH` names the JavaScript checker (default: the copy in
$ZODYSSEY_JS_CHECKER); without it (or without `node`) the benchmark says so
and exits 0 without measuring.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_JS = os.environ.get("ZODYSSEY_JS_CHECKER", "")
LINES = 200_000
RANGES = 32


def build(root: Path) -> None:
    """The fixture: a big TypeScript file (repeated one-liners among unique lines), one doc."""
    (root / "src").mkdir(parents=True)
    (root / "docs").mkdir()
    (root / "scripts").mkdir()
    lines = []
    for i in range(LINES):
        kind = i % 7
        if kind == 0:
            lines.append("}")
        elif kind == 1:
            lines.append("  return null;")
        else:
            lines.append(f"  const v{i} = compute(a{i % 91}, b{i % 13});")
    (root / "src" / "big.ts").write_text("\n".join(lines) + "\n")
    doc = ["# Big file"]
    start = 100
    for n in range(RANGES):
        length = n + 2  # 32 distinct range lengths
        doc.append(f"Part {n} is src/big.ts:{start}-{start + length - 1}.")
        start += (LINES - 1000) // RANGES
    (root / "docs" / "big.md").write_text("\n".join(doc) + "\n")
    (root / "pyproject.toml").write_text('[tool.zodyssey]\ndocuments = ["docs/**/*.md"]\n')


def insert_line(root: Path) -> None:
    path = root / "src" / "big.ts"
    path.write_text("// one inserted line\n" + path.read_text())


def timed(command: list[str], cwd: Path) -> tuple[float, int, str]:
    """Wall seconds, exit code and the output's tail of one run."""
    env = dict(os.environ, NO_COLOR="1")
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # users run with the bytecode cache
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    return seconds, done.returncode, done.stdout[-400:] + done.stderr[-400:]


def _peak(command: list[str], cwd: Path) -> int:
    """Peak RSS (KB) of one run of `command`, measured in a fresh helper process."""
    helper = (
        "import resource, subprocess, sys, os\n"
        "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    out = subprocess.run(
        [sys.executable, "-c", helper, *command], cwd=cwd, env=env, capture_output=True, text=True
    )
    return int(out.stdout.strip() or 0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--js", default=DEFAULT_JS, help="path of check-anchors.mjs")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    js = Path(args.js)
    if not js.is_file() or shutil.which("node") is None:
        print(f"bench_moved: skipped: no JavaScript checker at {js} (or no node); pass --js PATH")
        return 0
    base = Path(tempfile.mkdtemp(prefix="bench-moved-"))
    try:
        root = base / "repo"
        build(root)
        ours = [sys.executable, "-m", "zodyssey", "anchors", "check", "--root", str(root)]
        theirs = ["node", str(js), "--root", str(root)]
        for command in ([*ours, "--update"], [*theirs, "--update"]):
            _, code, output = timed(command, root)
            if code != 0:
                raise SystemExit(f"pinning failed ({' '.join(command)}):\n{output}")
        insert_line(root)
        # Warm-up (bytecode cache, file cache), then alternate so load hits both alike.
        _, code, output = timed(ours, root)
        if code != 9 or "32 moved" not in output:
            raise SystemExit(f"expected 32 moved citations, got (exit {code}):\n{output}")
        timed(theirs, root)
        mine: list[float] = []
        js_times: list[float] = []
        for _ in range(args.repeat):
            mine.append(timed(ours, root)[0])
            js_times.append(timed(theirs, root)[0])
        ours_kb = _peak(ours, root)
        js_kb = _peak(theirs, root)
        ours_js = _peak([*ours, "--lock", "scripts/anchors.lock.json"], root)
        best, js_best = min(mine), min(js_times)
        print(f"fixture: {LINES} lines, {RANGES} ranges of {RANGES} lengths, 1 line inserted")
        print(f"ours (our lock)   {best:6.3f} s  {ours_kb / 1024:7.1f} MB  (32 moved)")
        print(f"JavaScript        {js_best:6.3f} s  {js_kb / 1024:7.1f} MB  (32 drift)")
        print(f"ours, JS lock     {'':8}  {ours_js / 1024:7.1f} MB")
        time_ratio, memory_ratio = best / js_best, ours_kb / max(js_kb, 1)
        print(f"time ratio        {time_ratio:6.2f} x  (target <= 2)")
        print(f"memory ratio      {memory_ratio:6.2f} x  (target <= 3)")
        print(f"load average      {os.getloadavg()[0]:.2f} on {os.cpu_count()} cpus")
        ok = time_ratio <= 2 and memory_ratio <= 3
        print("targets met" if ok else "TARGETS MISSED")
        return 0 if ok else 1
    finally:
        if args.keep:
            print(f"kept {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
