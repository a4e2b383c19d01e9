"""How long the first-run experience takes: `zodyssey init`, then `zodyssey check`.

Run: python bench/bench_ci.py [repeats]

Each figure is the median wall time of whole processes, printed with its ratio
to `python -c pass` measured side by side in the same run (the interpreter's
own start-up is the floor no command can go under).
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def wall(argv: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, capture_output=True, check=False)
    return time.perf_counter() - start


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    base: list[float] = []
    init: list[float] = []
    check: list[float] = []
    anchors: list[float] = []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as scratch:
            repo = Path(scratch)
            subprocess.run(["git", "init", "-q", str(repo)], check=True)
            base.append(wall([sys.executable, "-c", "pass"], repo))
            init.append(wall([sys.executable, "-m", "zodyssey", "init"], repo))
            anchors.append(wall([sys.executable, "-m", "zodyssey", "anchors", "check"], repo))
            check.append(wall([sys.executable, "-m", "zodyssey", "check"], repo))
            shutil.rmtree(repo / ".github", ignore_errors=True)
    floor = statistics.median(base)
    print(f"python -c pass        {floor * 1000:7.1f} ms   1.00x")
    for name, samples in (
        ("zodyssey init", init),
        ("zodyssey anchors check", anchors),
        ("zodyssey check", check),
    ):
        median = statistics.median(samples)
        print(f"{name:<21} {median * 1000:7.1f} ms  {median / floor:5.2f}x")


if __name__ == "__main__":
    main()
