"""The workflow `zodyssey init` writes, run step by step with zodyssey from a local wheel.

This is how a user installs zodyssey before it is on PyPI: the install setting
(`ZODYSSEY_INSTALL`) names a wheel. The test builds that wheel from this source
tree, makes a fresh virtual environment holding the wheel's dependencies but no
zodyssey, and runs every `run:` step of the generated `check` job in bash, as
the runner would, with the wheel as the install setting, in a project whose
tests import a package only its `test` extra installs: the file is used
unchanged (`ZODYSSEY_TEST_INSTALL` is `auto`). It then shows the claims step
doing its job: a claim whose only test is skipped passes the static
`zodyssey check` step and fails the claims step.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.helpers import fresh_venv
from zodyssey import __version__

REPO = Path(__file__).resolve().parents[2]
WORKFLOW = ".github/workflows/zodyssey.yml"
INSTALL_STEP = "Install the project, its test dependencies and zodyssey"
# Never linked into the fresh environment: zodyssey must come from the wheel.

README = """# demo

Locks are written atomically. <!-- claim: atomic-locks -->
"""

SKIPPED_TEST = """import pytest
import demohelper


@pytest.mark.claim("atomic-locks")
def test_atomic():
    pytest.skip("not on this machine")
"""

# A project with dependencies: its tests import `demohelper`, which only the
# project's `test` extra installs (from a local directory).
PYPROJECT = """[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "demo"
version = "1"

[project.optional-dependencies]
test = ["demohelper @ {helper}"]

[tool.hatch.metadata]
allow-direct-references = true

[tool.hatch.build.targets.wheel]
bypass-selection = true
"""

HELPER = """[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "demohelper"
version = "1"
"""


def run_steps(
    repo: Path, bindir: Path, env: dict[str, str], *, installed: bool = False
) -> dict[str, int]:
    """Every `run:` step of the check job, in order, each in `bash -e`: name -> exit code.

    `installed`: the install step ran already in this environment (it is the
    same on every pass), so it is left out; every other step runs."""
    workflow: Any = yaml.safe_load((repo / WORKFLOW).read_text(encoding="utf-8"))
    codes: dict[str, int] = {}
    for step in workflow["jobs"]["check"]["steps"]:
        if "run" not in step:
            continue  # `uses:` steps (checkout, setup-python, uploads) are GitHub's
        if installed and step["name"] == INSTALL_STEP:
            continue
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        codes[step["name"]] = done.returncode
        codes[step["name"] + ":out"] = len(done.stdout)  # keep the step's output size
        if done.returncode not in (0, 9):
            pytest.fail(
                f"step {step['name']!r} exit {done.returncode}:\n{done.stdout}{done.stderr}"
            )
    return {k: v for k, v in codes.items() if not k.endswith(":out")}


@pytest.mark.slow
def test_generated_workflow_runs_with_a_local_wheel(
    tmp_path: Path, zodyssey_wheel: Path, wheel_venv: Path
) -> None:
    wheel = zodyssey_wheel  # built once per session (tests/conftest.py)
    bindir = fresh_venv(tmp_path / "venv")
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PYTEST_", "VIRTUAL_ENV", "GITHUB_", "PIP_", "PYTHON"))
    }
    env.update(
        {
            "PATH": f"{bindir}{os.pathsep}{env['PATH']}",
            "VIRTUAL_ENV": str(bindir.parent),
            # zodyssey's dependencies are linked in; the project's build backend
            # (hatchling, editables) comes from the package index, as in CI.
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
            "NO_COLOR": "1",
        }
    )
    python = str(bindir / "python")
    no_zodyssey = subprocess.run(
        [python, "-c", "import zodyssey"], cwd=tmp_path, env=env, capture_output=True
    )
    assert no_zodyssey.returncode != 0, "the fresh environment must not see our source tree"

    # The repository: `zodyssey init` from the wheel writes the workflow under test (the
    # session's install of that wheel, tests/conftest.py; this environment stays without
    # zodyssey until the workflow's install step puts it there).
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    init_env = {**env, "PATH": f"{wheel_venv}{os.pathsep}{env['PATH']}"}
    init_env["VIRTUAL_ENV"] = str(wheel_venv.parent)
    init = subprocess.run(
        [str(wheel_venv / "zodyssey"), "init"],
        cwd=repo,
        env=init_env,
        capture_output=True,
        text=True,
    )
    assert init.returncode == 0, init.stderr

    # Installed from a local wheel CI cannot reach: init writes the release and says so.
    workflow: Any = yaml.safe_load((repo / WORKFLOW).read_text(encoding="utf-8"))
    pinned = f"zodyssey=={__version__}"
    assert workflow["env"]["ZODYSSEY_INSTALL"] == f"${{{{ vars.ZODYSSEY_INSTALL || '{pinned}' }}}}"
    assert "which CI cannot reach" in init.stdout and "ZODYSSEY_INSTALL" in init.stdout
    # What a repository variable ZODYSSEY_INSTALL gives the workflow's env; the
    # project install is the file's default.
    env["ZODYSSEY_INSTALL"] = str(wheel)
    env["ZODYSSEY_TEST_INSTALL"] = "auto"
    helper = tmp_path / "demohelper"
    (helper / "demohelper").mkdir(parents=True)
    (helper / "demohelper" / "__init__.py").write_text("ANSWER = 42\n", encoding="utf-8")
    (helper / "pyproject.toml").write_text(HELPER, encoding="utf-8")
    (repo / "pyproject.toml").write_text(PYPROJECT.format(helper=helper.as_uri()), encoding="utf-8")
    no_helper = subprocess.run([python, "-c", "import demohelper"], env=env, capture_output=True)
    assert no_helper.returncode != 0, "the project's test dependency must not be there yet"

    codes = run_steps(repo, bindir, env)
    assert codes[INSTALL_STEP] == 0
    where = subprocess.run(
        [python, "-c", "import zodyssey; print(zodyssey.__file__)"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert str(tmp_path / "venv") in where, f"zodyssey not from the wheel: {where}"
    assert set(codes.values()) == {0}, codes
    assert codes["Claims defended by passing tests"] == 0

    # A claim defended only by a skipped test: the static check is green, the
    # claims step is not.
    (repo / "README.md").write_text(README, encoding="utf-8")
    (repo / "tests").mkdir()
    (repo / "tests" / "test_demo.py").write_text(SKIPPED_TEST, encoding="utf-8")
    update = subprocess.run(
        [str(bindir / "zodyssey"), "claims", "update"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
    )
    assert update.returncode == 0, update.stderr
    codes = run_steps(repo, bindir, env, installed=True)
    assert INSTALL_STEP not in codes
    assert codes["zodyssey check"] == 0, codes
    assert codes["Claims defended by passing tests"] == 9, codes

    (repo / "tests" / "test_demo.py").write_text(
        SKIPPED_TEST.replace(
            'pytest.skip("not on this machine")', "assert demohelper.ANSWER == 42"
        ),
        encoding="utf-8",
    )
    codes = run_steps(repo, bindir, env, installed=True)
    assert set(codes.values()) == {0}, codes
