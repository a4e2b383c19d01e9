"""The shipped matrix templates (GitHub matrix, GitLab `parallel:`), run as written.

The shard scripts call pytest-split's `--splits N --group K`; the test repository
carries a small conftest plugin with the same two options (it deselects the
other groups' tests, which is what pytest-split does), so the scripts run
unchanged: every shard, then the verdict job, then the verdict job with one
shard's results missing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.ci.test_ci_manifests import assert_parses, zodyssey_commands

REPO = Path(__file__).resolve().parents[2]
GITHUB = REPO / "ci" / "github" / "zodyssey-shards.yml"
GITLAB = REPO / "ci" / "gitlab" / "zodyssey-shards.gitlab-ci.yml"

README = """# demo

The gate blocks writes before review. <!-- claim: gate-blocks -->

- Zero citations fail the check. <!-- claim: zero-fails -->
- Locks are written atomically. <!-- claim: atomic-locks -->
"""

TESTS = """import pytest


@pytest.mark.claim("gate-blocks")
def test_gate():
    pass


@pytest.mark.claim("zero-fails")
def test_zero():
    pass


@pytest.mark.claim("atomic-locks")
def test_atomic():
    pass


@pytest.mark.claim("gate-blocks")
def test_gate_again():
    pass


def test_plain():
    pass
"""

# pytest-split's two options, splitting by position (it splits by durations).
FAKE_SPLIT = """
def pytest_addoption(parser):
    parser.addoption("--splits", type=int, default=None)
    parser.addoption("--group", type=int, default=None)


def pytest_collection_modifyitems(config, items):
    splits, group = config.getoption("splits"), config.getoption("group")
    if not splits:
        return
    keep = [item for i, item in enumerate(items) if i % splits == group - 1]
    dropped = [item for item in items if item not in keep]
    config.hook.pytest_deselected(items=dropped)
    items[:] = keep
"""


def load(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def make_repo(root: Path) -> Path:
    (root / "tests").mkdir(parents=True)
    (root / "README.md").write_text(README, encoding="utf-8")
    (root / "tests" / "test_demo.py").write_text(TESTS, encoding="utf-8")
    (root / "conftest.py").write_text(FAKE_SPLIT, encoding="utf-8")
    (root / "pytest.ini").write_text("[pytest]\ntestpaths = tests\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "zodyssey", "claims", "update"],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return root


def shell_env(tmp: Path, extra: dict[str, str]) -> dict[str, str]:
    bindir = tmp / "bin"
    if not bindir.exists():
        bindir.mkdir()
        (bindir / "python").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
        (bindir / "zodyssey").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m zodyssey "$@"\n')
        for stub in bindir.iterdir():
            stub.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "GITHUB_"))}
    env.update({"PATH": f"{bindir}{os.pathsep}{env['PATH']}", "NO_COLOR": "1", **extra})
    return env


def bash(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def step(job: dict[str, Any], name: str) -> dict[str, Any]:
    return next(s for s in job["steps"] if s.get("name") == name)


def test_github_matrix_template_is_consistent() -> None:
    workflow = load(GITHUB)
    tests, claims = workflow["jobs"]["tests"], workflow["jobs"]["claims"]
    shards = tests["strategy"]["matrix"]["shard"]
    assert int(workflow["env"]["SHARDS"]) == len(shards)
    assert tests["strategy"]["fail-fast"] is False
    assert claims["needs"] == "tests" and "cancelled()" in claims["if"]
    upload = next(
        s for s in tests["steps"] if s.get("uses", "").startswith("actions/upload-artifact")
    )
    download = next(
        s for s in claims["steps"] if s.get("uses", "").startswith("actions/download-artifact")
    )
    assert upload["with"]["name"] == "claims-shard-${{ matrix.shard }}"
    assert download["with"]["pattern"] == "claims-shard-*"
    assert download["with"]["merge-multiple"] is True
    assert upload["with"]["if-no-files-found"] == "error"
    scripts = [s["run"] for job in (tests, claims) for s in job["steps"] if "run" in s]
    for script in scripts:
        assert "${{" not in script, script
    commands = [c for script in scripts for c in zodyssey_commands(script)]
    assert commands and all("--results" in c for c in commands)
    for argv in commands:
        assert_parses(argv)


def test_gitlab_parallel_template_is_consistent() -> None:
    template = load(GITLAB)
    tests, claims = template["zodyssey-tests"], template["zodyssey-claims"]
    assert isinstance(tests["parallel"], int) and tests["parallel"] >= 2
    assert tests["artifacts"]["when"] == "always"
    assert claims["when"] == "always" and claims["stage"] == ".post"
    assert claims["needs"][0]["job"] == "zodyssey-tests"
    commands = [c for line in claims["script"] for c in zodyssey_commands(line)]
    assert commands and all("--results" in c for c in commands)
    for argv in commands:
        assert_parses(argv)


@pytest.mark.slow
def test_github_matrix_runs_as_written(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    workflow = load(GITHUB)
    tests, claims = workflow["jobs"]["tests"], workflow["jobs"]["claims"]
    run_tests = step(tests, "Tests of this shard")["run"]
    verdict = step(claims, "One claims verdict over every shard")["run"]
    base = {"SHARDS": workflow["env"]["SHARDS"], "GITHUB_STEP_SUMMARY": str(tmp_path / "s.md")}
    for shard in tests["strategy"]["matrix"]["shard"]:
        done = bash(run_tests, repo, shell_env(tmp_path, {**base, "SHARD": str(shard)}))
        assert done.returncode == 0, done.stdout + done.stderr
        # download-artifact with merge-multiple: every file in one directory.
        (repo / "claims-results").mkdir(exist_ok=True)
        shutil.move(repo / f"claims-shard-{shard}.json", repo / "claims-results")
    env = shell_env(tmp_path, base)
    ok = bash(verdict, repo, env)
    assert ok.returncode == 0, ok.stdout + ok.stderr

    (repo / "claims-results" / "claims-shard-2.json").unlink()
    missing = bash(verdict, repo, env)
    assert missing.returncode == 9
    assert "never ran" in missing.stdout and "tests/test_demo.py::test_zero" in missing.stdout

    shutil.rmtree(repo / "claims-results")
    (repo / "claims-results").mkdir()
    nothing = bash(verdict, repo, env)
    assert nothing.returncode == 2, nothing.stdout + nothing.stderr


@pytest.mark.slow
def test_gitlab_parallel_runs_as_written(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    template = load(GITLAB)
    tests, claims = template["zodyssey-tests"], template["zodyssey-claims"]
    total = tests["parallel"]
    for index in range(1, total + 1):
        env = shell_env(tmp_path, {"CI_NODE_TOTAL": str(total), "CI_NODE_INDEX": str(index)})
        for line in tests["script"]:
            done = bash(line, repo, env)
            assert done.returncode == 0, done.stdout + done.stderr
    env = shell_env(tmp_path, {})
    for line in claims["script"]:
        assert bash(line, repo, env).returncode == 0
    (repo / "claims-shard-1.json").unlink()
    missing = bash(claims["script"][-1], repo, env)
    assert missing.returncode == 9
    assert "tests/test_demo.py::test_gate" in missing.stdout
