"""`zodyssey claims check --results`: one strict verdict over CI shards.

Each shard is a real pytest subprocess writing `--claims-json`; shards split the
suite the two ways CI does: by deselecting the other shards' tests (as
pytest-split does) and by giving each job its own paths.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

README = """# demo

The gate blocks writes before review. <!-- claim: gate-blocks -->

- Zero citations fail the check. <!-- claim: zero-fails -->
- Locks are written atomically. <!-- claim: atomic-locks -->
"""

TESTS = {
    "tests/test_one.py": """
import pytest

@pytest.mark.claim("gate-blocks")
def test_gate():
    pass
""",
    "tests/test_two.py": """
import pytest

@pytest.mark.claim("zero-fails")
def test_zero():
    pass

@pytest.mark.claim("gate-blocks")
def test_gate_again():
    pass
""",
    "tests/test_three.py": """
import pytest

@pytest.mark.claim("atomic-locks")
def test_atomic():
    pass
""",
}

# As pytest-split does it: every shard collects everything, deselects the rest.
SHARD_K = {
    1: "test_gate and not again",
    2: "test_zero or test_gate_again",
    3: "test_atomic",
}


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTEST_ADDOPTS", None)
    env["NO_COLOR"] = "1"
    return env


def run(root: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *argv],
        cwd=root,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )


def check(root: Path, *files: Path | str, fmt: str = "text") -> subprocess.CompletedProcess[str]:
    return run(root, "zodyssey", "claims", "check", "--format", fmt, "--results", *map(str, files))


def make_repo(root: Path, tests: dict[str, str] | None = None) -> Path:
    (root / "tests").mkdir(parents=True)
    (root / "README.md").write_text(README, encoding="utf-8")
    (root / "pytest.ini").write_text("[pytest]\ntestpaths = tests\n", encoding="utf-8")
    for name, text in (tests or TESTS).items():
        (root / name).write_text(text, encoding="utf-8")
    done = run(root, "zodyssey", "claims", "update")
    assert done.returncode == 0, done.stderr
    return root


def shard(root: Path, number: int, *select: str) -> Path:
    out = root / f"claims-shard-{number}.json"
    done = run(root, "pytest", "-p", "no:cacheprovider", f"--claims-json={out}", *select)
    assert out.is_file(), done.stdout + done.stderr
    return out


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_repo(tmp_path_factory.mktemp("shards"))


@pytest.fixture(scope="module")
def k_shards(repo: Path) -> dict[int, Path]:
    return {n: shard(repo, n, "-k", expr) for n, expr in SHARD_K.items()}


@pytest.mark.slow
def test_all_shards_pass(repo: Path, k_shards: dict[int, Path]) -> None:
    done = check(repo, *k_shards.values())
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 result file(s)" in done.stdout


@pytest.mark.slow
def test_one_shard_alone_is_not_a_pass(repo: Path, k_shards: dict[int, Path]) -> None:
    # Each shard passes its own tests, so each job is green; its file alone must not be.
    done = check(repo, k_shards[1])
    assert done.returncode == 9


@pytest.mark.slow
def test_missing_shard_names_the_tests_that_never_ran(
    repo: Path, k_shards: dict[int, Path]
) -> None:
    done = check(repo, k_shards[1], k_shards[3])
    assert done.returncode == 9, done.stdout
    assert "never-ran" in done.stdout
    assert (
        "never ran in any shard: tests/test_two.py::test_gate_again, tests/test_two.py::test_zero"
        in (done.stdout)
    )
    # gate-blocks is covered by shard 1, yet its second locked test never ran: still a failure.
    data = json.loads(check(repo, k_shards[1], k_shards[3], fmt="json").stdout)
    assert data["never_ran"] == [
        "tests/test_two.py::test_gate_again",
        "tests/test_two.py::test_zero",
    ]
    rules = {(f["rule"], f["extra"].get("test")) for f in data["findings"]}
    assert ("never-ran", "tests/test_two.py::test_gate_again") in rules


@pytest.mark.slow
def test_missing_path_shard_names_the_tests(repo: Path, tmp_path: Path) -> None:
    # Shards by path: the missing shard's tests appear in no file at all.
    one = shard(repo, 11, "tests/test_one.py")
    two = shard(repo, 12, "tests/test_two.py")
    three = shard(repo, 13, "tests/test_three.py")
    assert check(repo, one, two, three).returncode == 0
    done = check(repo, one, two)
    assert done.returncode == 9
    assert "tests/test_three.py::test_atomic" in done.stdout
    assert "none of the 2 result file(s)" in done.stdout


@pytest.mark.slow
def test_failure_in_any_shard_fails(tmp_path: Path) -> None:
    tests = dict(TESTS)
    tests["tests/test_three.py"] = tests["tests/test_three.py"].replace("pass", "assert False")
    root = make_repo(tmp_path / "repo", tests)
    files = [shard(root, n, "-k", expr) for n, expr in SHARD_K.items()]
    # The failing test also "passes" nowhere else; and a second copy of shard 3
    # from a re-run that passed must not hide the failure.
    rerun = tmp_path / "rerun.json"
    document = json.loads(files[2].read_text(encoding="utf-8"))
    for test in document["tests"]:
        if test["outcome"] == "failed":
            test["outcome"] = "passed"
    rerun.write_text(json.dumps(document), encoding="utf-8")
    done = check(root, *files, rerun)
    assert done.returncode == 9
    assert "test-failed" in done.stdout and "tests/test_three.py::test_atomic" in done.stdout


@pytest.mark.slow
def test_skipped_everywhere_fails(tmp_path: Path) -> None:
    tests = dict(TESTS)
    tests["tests/test_three.py"] = tests["tests/test_three.py"].replace(
        "pass", "pytest.skip('no disk')"
    )
    root = make_repo(tmp_path / "repo", tests)
    files = [shard(root, n, "-k", expr) for n, expr in SHARD_K.items()]
    done = check(root, *files)
    assert done.returncode == 9
    assert "not-passed" in done.stdout and "(skipped)" in done.stdout


@pytest.mark.slow
def test_shard_under_xdist_counts(repo: Path, k_shards: dict[int, Path]) -> None:
    pytest.importorskip("xdist")
    out = repo / "claims-xdist.json"
    done = run(
        repo,
        "pytest",
        "-p",
        "no:cacheprovider",
        "-n",
        "2",
        f"--claims-json={out}",
        "-k",
        SHARD_K[2],
    )
    assert out.is_file(), done.stdout + done.stderr
    assert check(repo, k_shards[1], out, k_shards[3]).returncode == 0


def test_bad_results_files_are_exit_2(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text(README, encoding="utf-8")
    cases = {
        "absent.json": None,
        "garbage.json": "{not json",
        "other.json": json.dumps({"claims": []}),
        "badtest.json": json.dumps({"kind": "zodyssey-claims-results", "tests": [{"nodeid": 3}]}),
    }
    for name, text in cases.items():
        if text is not None:
            (tmp_path / name).write_text(text, encoding="utf-8")
        done = check(tmp_path, tmp_path / name)
        assert done.returncode == 2, (name, done.stdout, done.stderr)
        assert done.stderr.count("\n") == 1 and name in done.stderr, done.stderr
        assert "Traceback" not in done.stderr


def test_results_need_at_least_one_file(tmp_path: Path) -> None:
    done = run(tmp_path, "zodyssey", "claims", "check", "--results")
    assert done.returncode == 2


@pytest.mark.slow
def test_shard_that_cannot_import_its_tests_names_them(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    (root / "tests" / "test_three.py").write_text("import no_such_module\n", encoding="utf-8")
    files = [shard(root, n, "--continue-on-collection-errors", "-k", e) for n, e in SHARD_K.items()]
    done = check(root, *files)
    assert done.returncode == 9
    assert "collection-error" in done.stdout and "tests/test_three.py" in done.stdout
    assert "never ran in any shard: tests/test_three.py::test_atomic" in done.stdout
