"""Benchmark of `zodyssey claims drill` (`python bench/bench_drill.py`).

Works on scratch copies (never on this work tree), every figure a ratio against
a baseline measured in the same run:

- cold:    every claim of this repository that names code drilled from an empty
           cache, against the same drill by the code of `--before REV` (default
           `main`: check out the commit before operator mutants to compare with
           "today's" drill, e.g. `--before 9b3ff20`). Target: <= 3x;
- cached:  the same again after one claim's code changed (a comment added in its
           span): only that claim is drilled. Target: <= 10% of cold;
- warm:    one claim drilled with a warm pytest process forking a child per
           break, against `--fresh` (a fresh process per break): reported;
- mutmut:  the fixture `calc` of the tests (invariants/test_deletion_drill.py),
           the claim `add-checked` (`calc/ops.py::add`), against mutmut (from
           PyPI, `--mutmut PATH` names its executable; a bench-only tool, never a
           dependency) restricted to the same function: with exact tests, every
           mutant killed (at least mutmut's share); with a weakened test
           (`is not None`), a survivor found (as mutmut finds one); time
           <= 1/3 of mutmut's.

The drills share a bytecode store of the bench's own (`ZODYSSEY_DRILL_BYTECODE`),
warmed by one untimed drill first, as it is after any earlier drill on the
machine; "cold" means an empty drill cache. Note the load (`uptime`) with the
figures: on a shared machine every figure moves with it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
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


def drill(root: Path, *args: str) -> tuple[float, Claims, int]:
    """Seconds, the JSON report's claims and the exit code of one drill in `root`
    (by the zodyssey of `root` itself)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    env["PYTHONPATH"] = str(root)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as a developer's shell has it
    env["PYTHONPYCACHEPREFIX"] = str(root.parent / "pycache-cli")
    env[STORE_ENV] = str(root.parent.parent / "bytecode-store")
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
    return seconds, claims, done.returncode


def git(root: Path, *args: str) -> None:
    ident = ["-c", "user.email=bench@example.invalid", "-c", "user.name=bench"]
    subprocess.run(["git", *ident, *args], cwd=root, check=True, capture_output=True)


def checkout(rev: str, dest: Path) -> None:
    """The tracked files of `rev` of this repository at `dest`, as a repository."""
    dest.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", rev], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    git(dest, "init", "-q")
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", rev)


def work_tree(dest: Path) -> None:
    make_copy(REPO, dest)
    git(dest, "init", "-q")
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", "work tree")


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


def _breaks(claims: Claims) -> int:
    return sum(len(c["breaks"]) for c in _named(claims))


def cold_and_cached(tmp: Path, before: str, jobs: int) -> bool:
    now, then = tmp / "now" / "repo", tmp / "before" / "repo"
    work_tree(now)
    checkout(before, then)
    drill(now, "bash-gate", "--no-cache", "-j", "2")  # untimed: the bytecode store
    cold_then, old, _ = drill(then, "--cache", str(tmp / "before.json"), "-j", str(jobs))
    cold_now, new, code = drill(now, "--cache", str(tmp / "now.json"), "-j", str(jobs))
    ratio = cold_now / cold_then
    print(
        f"cold: {len(_named(new))} claim(s), {_breaks(new)} breaks in {cold_now:.1f} s (exit {code}) "
        f"against {_breaks(old)} breaks in {cold_then:.1f} s by {before} = {ratio:.2f}x "
        "(target <= 3x)"
    )
    touch_span(now, _named(new)[0]["code"][0])
    cached, again, _ = drill(now, "--cache", str(tmp / "now.json"), "-j", str(jobs))
    redrilled = [c["id"] for c in _named(again) if not c["cached"]]
    share = cached / cold_now
    print(
        f"cached (one claim's code changed, re-drilled: {', '.join(redrilled)}): "
        f"{cached:.1f} s = {share:.1%} of cold (target <= 10%)"
    )
    return ratio <= 3 and share <= 0.10


def warm_against_fresh(tmp: Path, pick: str) -> None:
    root = tmp / "now" / "repo"
    if not root.exists():
        work_tree(root)
    warm, claims, _ = drill(root, pick, "--no-cache", "-j", "1")
    fresh, _, _ = drill(root, pick, "--no-cache", "-j", "1", "--fresh")
    runs = len(claims[0]["breaks"]) + 1
    print(
        f"warm process ({pick}, {runs - 1} breaks, one job): {warm:.1f} s against a fresh "
        f"process per break {fresh:.1f} s = {warm / fresh:.2f}x"
    )


def calc_repo(dest: Path, weak: bool, for_mutmut: bool = False) -> None:
    from invariants.test_deletion_drill import CONSTS, OPS, PYPROJECT, README, TEST_CONSTS, TEST_OPS

    tests = TEST_OPS
    if weak:  # the weakened test
        tests = tests.replace(
            "assert add(2, 3) == 5\n    assert add(0, 0) == 0", "assert add(2, 3) is not None"
        )
    files = {
        "README.md": README,
        "pyproject.toml": PYPROJECT.replace(
            "[tool.pytest.ini_options]\n",
            # mutmut's environment has no zodyssey: the claims plugin's marker declared.
            (
                '[tool.pytest.ini_options]\nmarkers = ["claim: a linked claim"]\n'
                if for_mutmut
                else "[tool.pytest.ini_options]\n"
            ),
        )
        + ('\n[tool.mutmut]\nsource_paths = ["calc/"]\n' if for_mutmut else ""),
        "calc/__init__.py": "",
        "calc/ops.py": OPS,
        "calc/consts.py": CONSTS,
        "tests/test_ops.py": tests,
        "tests/test_consts.py": TEST_CONSTS,
    }
    dest.mkdir(parents=True)
    for rel, text in files.items():
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        (dest / rel).write_text(text, encoding="utf-8")
    git(dest, "init", "-q")
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", "calc")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    subprocess.run(
        [sys.executable, "-m", "zodyssey", "claims", "update"], cwd=dest, env=env, check=True,
        capture_output=True,
    )  # fmt: skip


def ours(root: Path) -> tuple[float, int, int]:
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    env["PYTHONPATH"] = str(REPO)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env[STORE_ENV] = str(root.parent / "bytecode-store")
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "zodyssey", "claims", "drill", "add-checked", "--no-cache", "--json"],
        cwd=root, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    seconds = time.perf_counter() - started
    [claim] = json.loads(done.stdout)["claims"]
    counts = claim["mutants"]
    return seconds, counts["killed"], counts["tried"]


def theirs(root: Path, mutmut: str) -> tuple[float, int, int]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS", "PYTHONPATH")}
    started = time.perf_counter()
    subprocess.run(
        [mutmut, "run", "calc.ops.x_add*"], cwd=root, env=env, capture_output=True, check=False
    )
    seconds = time.perf_counter() - started
    done = subprocess.run(
        [mutmut, "results", "--all", "true"], cwd=root, env=env, capture_output=True, text=True,
        check=False,
    )  # fmt: skip
    rows = [line.strip() for line in done.stdout.splitlines() if "x_add__mutmut_" in line]
    killed = sum(1 for r in rows if r.endswith(": killed"))
    return seconds, killed, len(rows)


def against_mutmut(tmp: Path, mutmut: str) -> bool:
    ok = True
    for weak in (False, True):
        label = "weakened test" if weak else "exact tests"
        mine, yours = tmp / f"ours-{weak}" / "calc", tmp / f"mutmut-{weak}" / "calc"
        calc_repo(mine, weak)
        calc_repo(yours, weak, for_mutmut=True)
        ours(mine)  # untimed: the bytecode store
        our_s, our_k, our_n = ours(mine)
        their_s, their_k, their_n = theirs(yours, mutmut)
        print(
            f"calc add-checked, {label}: ours {our_k}/{our_n} killed in {our_s:.1f} s; "
            f"mutmut {their_k}/{their_n} killed in {their_s:.1f} s = {our_s / their_s:.2f}x "
            "its time (target <= 1/3)"
        )
        if weak:
            ok &= (our_k < our_n) >= (their_k < their_n)  # a weakness mutmut sees, we see
        else:
            ok &= our_n > 0 and our_k / our_n >= (their_k / their_n if their_n else 0)
            ok &= our_s <= their_s / 3
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--before", default="main", help="the drill to compare the cold drill with")
    parser.add_argument("--claim", default="evidence-chain", help="claim of the warm figure")
    parser.add_argument("--mutmut", default=shutil.which("mutmut"), help="mutmut's executable")
    parser.add_argument("--skip", nargs="*", default=[], choices=["cold", "warm", "mutmut"])
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    print(f"load: {os.getloadavg()[0]:.1f} {os.getloadavg()[1]:.1f} {os.getloadavg()[2]:.1f}")
    ok = True
    with tempfile.TemporaryDirectory(prefix="bench-drill-") as name:
        tmp = Path(name)
        if "cold" not in args.skip:
            ok &= cold_and_cached(tmp, args.before, args.jobs)
        if "warm" not in args.skip:
            warm_against_fresh(tmp, args.claim)
        if "mutmut" not in args.skip:
            if not args.mutmut:
                print("mutmut: not installed (pip install mutmut, or --mutmut PATH)")
                ok = False
            else:
                ok &= against_mutmut(tmp, args.mutmut)
    print(f"load: {os.getloadavg()[0]:.1f} {os.getloadavg()[1]:.1f} {os.getloadavg()[2]:.1f}")
    print("bench_drill: " + ("ok" if ok else "TARGET MISSED"))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
