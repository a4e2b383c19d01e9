"""Benchmark: symbol citations against line citations of the same code (`python bench/bench_symbols.py`).

Builds a repository of 1,000 source files (Python, Go, TypeScript and Rust in
turn), ten definitions each, and documents citing every definition once:

- symbols:   10,000 symbol citations (`pkg/mod_7.py::Class7.method_3`);
- lines:     the same 10,000 definitions cited by their line spans
             (`pkg/mod_7.py:12-14`), the baseline, in a copy of the same files;
- symbols2x: 2,000 files and 20,000 symbol citations.

Each is pinned with `check-anchors --update`, then `check-anchors` is timed
as a whole process (best of `--repeat`, the three alternating, so machine
load cancels out). Targets: symbols within 3x lines; symbols2x within 2.1x
symbols. Exit 1 when a target is missed. `--quick`: a tenth of the sizes.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFINITIONS = 10  # per file
PER_DOC = 100  # citations per document


def _python(i: int) -> tuple[str, list[tuple[str, int, int]]]:
    lines = [f'"""Module {i}."""', "", ""]
    spans = []
    lines.append(f"class Class{i}:")
    for j in range(DEFINITIONS - 1):
        start = len(lines) + 1
        lines += [f"    def method_{j}(self, value):", f"        return value * {j} + {i}", ""]
        spans.append((f"Class{i}.method_{j}", start, start + 1))
    spans.append((f"Class{i}", 4, len(lines) - 1))
    return "\n".join(lines) + "\n", spans


def _go(i: int) -> tuple[str, list[tuple[str, int, int]]]:
    lines = ["package pkg", "", f"type Store{i} struct {{", "\tn int", "}", ""]
    spans = [(f"Store{i}", 3, 5)]
    for j in range(DEFINITIONS - 1):
        start = len(lines) + 1
        lines += [f"func (s *Store{i}) Get{j}() int {{", f"\treturn s.n + {j * i}", "}", ""]
        spans.append((f"Store{i}.Get{j}", start, start + 2))
    return "\n".join(lines) + "\n", spans


def _typescript(i: int) -> tuple[str, list[tuple[str, int, int]]]:
    lines = [f"export class Widget{i} {{"]
    spans = []
    for j in range(DEFINITIONS - 1):
        start = len(lines) + 1
        lines += [f"  render{j}(): number {{", f"    return {j} + {i};", "  }"]
        spans.append((f"Widget{i}.render{j}", start, start + 2))
    lines.append("}")
    spans.append((f"Widget{i}", 1, len(lines)))
    return "\n".join(lines) + "\n", spans


def _rust(i: int) -> tuple[str, list[tuple[str, int, int]]]:
    lines = [f"pub struct Thing{i} {{", "    n: u32,", "}", "", f"impl Thing{i} {{"]
    spans = [(f"Thing{i}", 1, 3)]
    for j in range(DEFINITIONS - 1):
        start = len(lines) + 1
        lines += [f"    pub fn get_{j}(&self) -> u32 {{", f"        self.n + {j}", "    }"]
        spans.append((f"Thing{i}::get_{j}", start, start + 2))
    lines.append("}")
    return "\n".join(lines) + "\n", spans


LANGUAGES = (("py", _python), ("go", _go), ("ts", _typescript), ("rs", _rust))


def build(root: Path, files: int, *, symbols: bool) -> int:
    """Write the repository; return how many citations its documents hold."""
    citations: list[str] = []
    for i in range(files):
        ext, make = LANGUAGES[i % len(LANGUAGES)]
        text, spans = make(i)
        rel = f"pkg{i % 20}/mod_{i}.{ext}"
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        for symbol, start, end in spans:
            citations.append(f"{rel}::{symbol}" if symbols else f"{rel}:{start}-{end}")
    docs = root / "docs"
    docs.mkdir(parents=True)
    for n in range(0, len(citations), PER_DOC):
        body = [f"# Part {n // PER_DOC}", ""]
        body += [f"- the code at `{c}` does its part." for c in citations[n : n + PER_DOC]]
        (docs / f"part_{n // PER_DOC}.md").write_text("\n".join(body) + "\n")
    (root / "pyproject.toml").write_text('[tool.zodyssey]\ndocuments = ["docs/**/*.md"]\n')
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "fixture"], cwd=root, check=True)
    return len(citations)


def _check(root: Path, *args: str) -> float:
    began = time.perf_counter()
    proc = subprocess.run(
        ["check-anchors", "--root", str(root), *args], capture_output=True, text=True
    )
    took = time.perf_counter() - began
    if proc.returncode != 0:
        raise SystemExit(f"check-anchors {' '.join(args)} failed in {root}:\n{proc.stdout[-2000:]}")
    return took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the sizes")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", action="store_true", help="keep the generated repositories")
    args, _ = parser.parse_known_args()  # nox passes every bench the same arguments
    files = 100 if args.quick else 1000
    base = Path(tempfile.mkdtemp(prefix="zodyssey-bench-symbols-"))
    try:
        cases = {
            "lines": (base / "lines", files, False),
            "symbols": (base / "symbols", files, True),
            "symbols2x": (base / "symbols2x", 2 * files, True),
        }
        counts = {}
        for name, (root, n, symbolic) in cases.items():
            counts[name] = build(root, n, symbols=symbolic)
            _check(root, "--update")
        best = {name: float("inf") for name in cases}
        for _ in range(args.repeat):
            for name, (root, _n, _s) in cases.items():
                best[name] = min(best[name], _check(root))
        for name in cases:
            print(f"{name:10} {counts[name]:6} citations  {best[name]:.2f} s")
        versus_lines = best["symbols"] / best["lines"]
        scaling = best["symbols2x"] / best["symbols"]
        print(f"symbols / lines     {versus_lines:.2f}x  (target <= 3)")
        print(f"symbols2x / symbols {scaling:.2f}x  (target <= 2.1)")
        return 0 if versus_lines <= 3 and scaling <= 2.1 else 1
    finally:
        if args.keep:
            print(f"kept {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
