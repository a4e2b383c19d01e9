"""Benchmark of `zodyssey claims drill` on this repository (`python bench/bench_drill.py`).

Works on a scratch copy of this work tree (never on the tree itself):

- cold:    every claim that names code drilled from an empty cache;
- cached:  the same after one claim's code changed (a comment added inside its
           span): only that claim is drilled again. Target: cached <= 10% of cold;
- per break: one claim drilled with one job, its time divided by its runs (the
           unbroken run plus one per break), against one plain `pytest` run of the
           same tests in the same copy. Target: <= 1.5x.

Figures are ratios against baselines measured in the same run. `--claim ID` picks
the claim of the per-break figure (default: the first that names code);
`--quick` skips the cold/cached pair. The drills share a bytecode store of the
bench's own (`ZODYSSEY_DRILL_BYTECODE`), warmed by one untimed drill first, as
it is after any earlier drill on the machine; "cold" means an empty drill cache.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from zodyssey.claims.drill import make_copy  # noqa: E402
from zodyssey.claims.drill_bytecode import STORE_ENV  # noqa: E402

Claims = list[dict[str, Any]]


def drill(root: Path, *args: str) -> tuple[float, Claims]:
    """Seconds and the JSON report's claims of one `zodyssey claims drill` in `root`."""
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    env["PYTHONPATH"] = str(root)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as a developer's shell has it
    env["PYTHONPYCACHEPREFIX"] = str(root.parent / "pycache-cli")
    env[STORE_ENV] = str(root.parent / "bytecode-store")
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "zodyssey", "claims", "drill", "--json", *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - started
    if done.returncode not in (0, 4, 9):
        raise SystemExit(f"drill failed (exit {done.returncode}): {done.stderr[-2000:]}")
    claims: Claims = json.loads(done.stdout)["claims"]
    return seconds, claims


def plain_run(root: Path, tests: list[str], pycache: Path) -> float:
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    env["PYTHONPATH"] = str(root)
    # Bytecode cached as the drill's own runs have it (PYTHONDONTWRITEBYTECODE in
    # the caller's environment would make every plain run compile everything).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *tests],
        cwd=root,
        env=env,
        capture_output=True,
        check=False,
    )
    return time.perf_counter() - started


def touch_span(root: Path, spec: str) -> None:
    """A comment inside the first line of the spec's span: its content changes, not its code."""
    from zodyssey.claims.drill_breaks import resolve

    span = resolve(root, spec)[0]
    path = root / span.path
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    at = max(span.start - 1, 0)
    lines[at] = lines[at].rstrip("\n") + "  # bench: touched\n"
    path.write_text("".join(lines), encoding="utf-8")


def _named(claims: Claims) -> Claims:
    return [c for c in claims if c["code"]]


def cold_and_cached(root: Path, cache: str, jobs: int) -> tuple[bool, Claims]:
    """Every claim from an empty drill cache, then again with one claim's code changed."""
    cold, first = drill(root, "--cache", cache, "-j", str(jobs))
    named = _named(first)
    print(f"cold: {len(named)} claim(s) naming code drilled in {cold:.1f} s")
    touch_span(root, named[0]["code"][0])
    cached, again = drill(root, "--cache", cache, "-j", str(jobs))
    redrilled = [c["id"] for c in _named(again) if not c["cached"]]
    ratio = cached / cold
    print(
        f"cached (one claim's code changed, re-drilled: {', '.join(redrilled)}): "
        f"{cached:.1f} s = {ratio:.1%} of cold (target <= 10%)"
    )
    return ratio <= 0.10, first


def per_break(root: Path, pick: str, pycache: Path) -> bool:
    """One claim drilled with one job, per run, against one plain run of its tests."""
    whole, one = drill(root, pick, "--no-cache", "-j", "1")
    [row] = one
    runs = len(row["breaks"]) + 1
    # A plain run as a developer has it: bytecode cached (the first run warms it).
    plain = min(plain_run(root, row["tests"], pycache) for _ in range(3))
    each = whole / runs
    ratio = each / plain
    print(
        f"per break ({pick}, {runs - 1} break(s) + the unbroken run, one job): "
        f"{each:.2f} s against a plain run of its {len(row['tests'])} test(s) "
        f"{plain:.2f} s = {ratio:.2f}x (target <= 1.5x)"
    )
    return ratio <= 1.5


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="only the per-break figure")
    parser.add_argument("--claim", default=None, help="claim of the per-break figure")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-drill-") as tmp:
        root = Path(tmp) / "repo"
        make_copy(REPO, root)
        # Untimed: the claims (from the committed drill cache), then one claim
        # drilled to fill the bytecode store.
        pick: str = args.claim or _named(drill(root)[1])[0]["id"]
        drill(root, pick, "--no-cache", "-j", "2")
        ok = True
        if not args.quick:
            fast, _ = cold_and_cached(root, str(Path(tmp) / "cache.json"), args.jobs)
            ok &= fast
        ok &= per_break(root, pick, Path(tmp) / "pycache")
    print("bench_drill: " + ("ok" if ok else "TARGET MISSED"))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
