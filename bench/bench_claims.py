"""Benchmark of the claims machinery: `python bench/bench_claims.py`.

Figures are ratios against a baseline measured in the same run:
1. plugin overhead in a session that does not use claims (the plugin loads in
   every pytest session of every environment with zodyssey installed):
   the same suite with the plugin disabled (`-p no:zodyssey_claims`) is the baseline;
2. strict mode on a suite where every test defends a claim, against the same
   session without `--claims-strict`;
3. `zodyssey claims check` (parse + collect + compare) against a bare
   `pytest --collect-only -q` of the same suite;
4. marker parsing throughput on a large document set.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TESTS = 600
CLAIMS = 200
REPEAT = 3


def build(root: Path, linked: bool) -> None:
    (root / "tests").mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\ntestpaths = ["tests"]\n')
    if linked:
        doc = "\n\n".join(
            f"Promise number {i} holds. <!-- claim: promise-{i} -->" for i in range(CLAIMS)
        )
        (root / "README.md").write_text("# bench\n\n" + doc + "\n")
    lines = ["import pytest", ""]
    for i in range(TESTS):
        if linked:
            lines.append(f'@pytest.mark.claim("promise-{i % CLAIMS}")')
        lines += [f"def test_{i}():", "    assert True", ""]
    (root / "tests" / "test_bench.py").write_text("\n".join(lines))


def timed(argv: list[str], cwd: Path) -> float:
    samples = []
    for _ in range(REPEAT):
        start = time.perf_counter()
        subprocess.run(argv, cwd=cwd, capture_output=True, check=False)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> int:
    py = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    with tempfile.TemporaryDirectory() as tmp:
        plain, linked = Path(tmp) / "plain", Path(tmp) / "linked"
        build(plain, linked=False)
        build(linked, linked=True)
        subprocess.run(
            [sys.executable, "-m", "zodyssey", "claims", "update"],
            cwd=linked,
            capture_output=True,
            check=True,
        )

        base = timed([*py, "-p", "no:zodyssey_claims"], plain)
        loaded = timed(py, plain)
        print(
            f"1. unrelated suite ({TESTS} tests): plugin off {base:.3f}s, on {loaded:.3f}s, ratio {loaded / base:.3f}"
        )

        normal = timed(py, linked)
        strict = timed([*py, "--claims-strict"], linked)
        print(
            f"2. linked suite ({TESTS} tests, {CLAIMS} claims): plain {normal:.3f}s, "
            f"--claims-strict {strict:.3f}s, ratio {strict / normal:.3f}"
        )

        collect = timed([*py, "--collect-only"], linked)
        check = timed([sys.executable, "-m", "zodyssey", "claims", "check"], linked)
        print(
            f"3. claims check {check:.3f}s vs bare collect-only {collect:.3f}s, ratio {check / collect:.3f}"
        )

    from zodyssey.claims.markers import parse_document

    docs = [
        "\n\n".join(
            f"- Item {d}-{i} says something long enough to matter. <!-- claim: c-{d}-{i} -->"
            for i in range(50)
        )
        for d in range(400)
    ]
    start = time.perf_counter()
    found = sum(len(parse_document(text, f"d{n}.md").claims) for n, text in enumerate(docs))
    took = time.perf_counter() - start
    start = time.perf_counter()
    for text in docs[:200]:
        parse_document(text, "x.md")
    half = time.perf_counter() - start
    print(
        f"4. parsed {len(docs)} documents, {found} claims in {took:.3f}s; doubling ratio {took / half:.2f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
