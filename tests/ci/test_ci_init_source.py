"""The install line `zodyssey init` writes is one CI can use, and init says where it came from.

zodyssey is installed into fresh virtual environments the ways a user would
before a release is on PyPI (a git URL at a tag, a checkout), `zodyssey init`
runs from there, and the written workflow's install line is then installed
for real into another fresh environment.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.helpers import GIT_IDENTITY, CheckoutRepos, fresh_venv, git, make_repo
from zodyssey import __version__
from zodyssey.commands.init import _https

WORKFLOW = ".github/workflows/zodyssey.yml"


def offline_env(bindir: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PYTEST_", "VIRTUAL_ENV", "GITHUB_", "PYTHON"))
    }
    env.update(GIT_IDENTITY)
    env.update(
        {
            "PATH": f"{bindir}{os.pathsep}{env['PATH']}",
            "VIRTUAL_ENV": str(bindir.parent),
            "PIP_NO_INDEX": "1",  # the dependencies are linked in; zodyssey is built here
            "PIP_NO_BUILD_ISOLATION": "0",  # pip's spelling of --no-build-isolation
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            "NO_COLOR": "1",
        }
    )
    return env


def pip(bindir: Path, env: dict[str, str], *args: str) -> None:
    done = subprocess.run(
        [str(bindir / "python"), "-m", "pip", "install", "-q", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def init_in(bindir: Path, env: dict[str, str], repo: Path) -> tuple[str, str]:
    """(the workflow's default install line, init's output) for a new repository."""
    make_repo(repo, commit=False)
    done = subprocess.run(
        [str(bindir / "zodyssey"), "init"], cwd=repo, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    workflow: Any = yaml.safe_load((repo / WORKFLOW).read_text(encoding="utf-8"))
    value = workflow["env"]["ZODYSSEY_INSTALL"]
    prefix, suffix = "${{ vars.ZODYSSEY_INSTALL || '", "' }}"
    assert value.startswith(prefix) and value.endswith(suffix), value
    return value[len(prefix) : -len(suffix)].replace("''", "'"), done.stdout


@pytest.mark.slow
def test_installed_from_a_git_tag_init_writes_that_url_and_it_installs(
    tmp_path: Path, checkout_repo: CheckoutRepos
) -> None:
    source = checkout_repo(tmp_path / "zodyssey")
    git(source, "tag", f"v{__version__}")
    commit = git(source, "rev-parse", "HEAD").strip()
    bindir = fresh_venv(tmp_path / "venv")
    env = offline_env(bindir)
    pip(bindir, env, f"git+{source.as_uri()}@v{__version__}")

    spec, out = init_in(bindir, env, tmp_path / "user")
    assert spec == f"git+{source.as_uri()}@{commit}"
    assert "a git URL: the repository this zodyssey was installed from" in out

    # The line works: a second fresh environment installs zodyssey from it.
    other = fresh_venv(tmp_path / "ci-venv")
    ci_env = offline_env(other)
    pip(other, ci_env, spec)
    version = subprocess.run(
        [str(other / "zodyssey"), "--version"], env=ci_env, capture_output=True, text=True
    )
    assert version.stdout.strip() == f"zodyssey {__version__}"


@pytest.mark.slow
def test_installed_from_a_checkout_init_writes_its_remote(
    tmp_path: Path, checkout_repo: CheckoutRepos
) -> None:
    source = checkout_repo(tmp_path / "zodyssey")
    git(source, "remote", "add", "origin", "git@github.com:someone/zodyssey.git")
    commit = git(source, "rev-parse", "HEAD").strip()
    bindir = fresh_venv(tmp_path / "venv")
    env = offline_env(bindir)
    pip(bindir, env, "--no-deps", str(source))
    spec, out = init_in(bindir, env, tmp_path / "user")
    assert spec == f"git+https://github.com/someone/zodyssey.git@{commit}"
    assert "the remote of the checkout zodyssey was installed from" in out
    assert "push that commit" in out

    # A checkout whose only remote is a path on this machine: CI cannot reach it.
    git(source, "remote", "set-url", "origin", str(tmp_path / "elsewhere.git"))
    spec, out = init_in(bindir, env, tmp_path / "user2")
    assert spec == f"zodyssey=={__version__}"
    assert "which CI cannot reach" in out


def test_remote_urls_become_anonymous_https() -> None:
    assert _https("git@github.com:o/r.git") == "https://github.com/o/r.git"
    assert _https("ssh://git@gitlab.com:2222/o/r.git") == "https://gitlab.com/o/r.git"
    assert _https("https://github.com/o/r") == "https://github.com/o/r"
