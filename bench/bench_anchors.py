"""Benchmark of the citation lock checker (`python bench/bench_anchors.py`).

Builds synthetic repositories (source files, documents with citations in
mixed dialects), pins them with `check-anchors --update`, then times
`check-anchors` as a whole process:

- small:  20,000 source files, 400 documents, 40,000 citations
- large:  twice that (the ratio large/small shows the scaling: target <= 2.2)
- tiny:   a few hundred citations, against `python -c pass` in the same run

Targets (2-core machines): large under 3 s; ratio <= 2.2; tiny within about
1.5x the JavaScript checker's 0.29 s. Pass `--quick` for a tenth of the size.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LINES_PER_FILE = 40


def build_repo(root: Path, files: int, docs: int, citations: int) -> int:
    """Write a synthetic repository; return how many citation numbers the docs hold."""
    paths: list[str] = []
    for i in range(files):
        rel = f"pkg{i % 50}/sub{(i // 50) % 20}/mod_{i}.py"
        paths.append(rel)
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        body = [f"# module {i}"]
        body += [
            f"def function_{i}_{j}(value):  return value * {j} + {i}"
            for j in range(1, LINES_PER_FILE)
        ]
        target.write_text("\n".join(body) + "\n")
    (root / "docs").mkdir(exist_ok=True)
    per_doc = citations // docs
    written = 0
    k = 0
    for d in range(docs):
        lines = [f"# Document {d}", ""]
        count = 0
        while count < per_doc:
            i = (k * 7919) % files
            rel = paths[i]
            line = 2 + (k % (LINES_PER_FILE - 6))
            style = k % 6
            if style == 0:  # full path form in a code span
                lines.append(f"The helper `{rel}:{line}` computes the value.")
                count += 1
            elif style == 1:  # suffix form with a range and a chain
                short = "/".join(rel.split("/")[-2:])
                lines.append(f"See {short}:{line}-{line + 2},{line + 4} for the loop.")
                count += 2
            elif style == 2:  # basename form plus a bare continuation on the same line
                base = rel.rsplit("/", 1)[-1]
                lines.append(f"- {base}:{line} sets it up and :{line + 3} tears it down")
                count += 2
            elif style == 3:  # Markdown link with a GitHub line fragment
                lines.append(f"Read [the code](../{rel}#L{line}-L{line + 1}) first.")
                count += 1
            elif style == 4:  # slash chain
                lines.append(f"Both {rel}:{line}/:{line + 1} agree.")
                count += 2
            else:
                lines.append("Prose without any citation, to keep the documents realistic.")
            if k % 10 == 9:
                lines.append("")
            k += 1
        written += count
        (root / "docs" / f"doc_{d}.md").write_text("\n".join(lines) + "\n")
    (root / "pyproject.toml").write_text('[tool.zodyssey]\ndocuments = ["docs/**/*.md"]\n')
    return written


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


LAST_CPU = [0.0]


def run_checker(root: Path, *extra: str) -> tuple[float, int, str]:
    cpu = _children_cpu()
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "zodyssey", "anchors", "check", "--root", str(root), *extra],
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - started
    LAST_CPU[0] = _children_cpu() - cpu  # CPU of the checker and its workers
    return seconds, proc.returncode, proc.stdout[-300:] + proc.stderr[-300:]


def best_of(root: Path, repeat: int) -> tuple[float, float]:
    """Best wall time and the CPU time of that run (workers included)."""
    runs = []
    for _ in range(repeat):
        seconds, code, output = run_checker(root)
        if code != 0:
            raise SystemExit(f"check failed on the synthetic repo (exit {code}):\n{output}")
        runs.append((seconds, LAST_CPU[0]))
    return min(runs)


def python_baseline(repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        times.append(time.perf_counter() - started)
    return min(times)


def measure(label: str, files: int, docs: int, citations: int, repeat: int, base: Path) -> float:
    root = base / label
    root.mkdir()
    written = build_repo(root, files, docs, citations)
    seconds, code, output = run_checker(root, "--update")
    if code != 0:
        raise SystemExit(f"--update failed on the synthetic repo (exit {code}):\n{output}")
    best, cpu = best_of(root, repeat)
    print(
        f"{label:>6}: {files:>6} files {docs:>4} docs {written:>6} citations  "
        f"check {best:6.3f} s wall {cpu:6.3f} s cpu  (update {seconds:.3f} s)"
    )
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the sizes")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", action="store_true", help="keep the generated repositories")
    args = parser.parse_args()
    scale = 10 if args.quick else 1
    base = Path(tempfile.mkdtemp(prefix="bench-anchors-"))
    try:
        baseline = python_baseline(5)
        tiny = measure("tiny", 60, 4, 300, max(args.repeat, 5), base)
        small = measure("small", 20000 // scale, 400 // scale, 40000 // scale, args.repeat, base)
        large = measure("large", 40000 // scale, 800 // scale, 80000 // scale, args.repeat, base)
        ratio = large / small
        print()
        print(f"python -c pass        {baseline:6.3f} s")
        print(
            f"tiny / python         {tiny / baseline:6.2f} x   (tiny {tiny:.3f} s; JS checker 0.29 s, target <= {0.29 * 1.5:.3f} s)"
        )
        print(f"large / small         {ratio:6.2f} x   (target <= 2.2; JS checker 3.64)")
        print(f"large                 {large:6.3f} s   (target < 3 s; JS checker 30.6 s)")
        print(f"cpus                  {os.cpu_count()}, load average {os.getloadavg()[0]:.2f}")
        ok = ratio <= 2.2 and (args.quick or large < 3.0)
        print("targets met" if ok else "TARGETS MISSED")
        return 0 if ok else 1
    finally:
        if args.keep:
            print(f"kept {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
