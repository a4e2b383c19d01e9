"""Makes `tests.helpers` importable for every test below (see tests/helpers/__init__.py).

The repository is appended to sys.path, never put first: an installed or
PYTHONPATH copy of `zodyssey` keeps precedence over this working tree. Only
tests/ gets this; invariants/ stays self-contained.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.helpers import CheckoutRepos

ROOT = str(Path(__file__).resolve().parents[1])
if ROOT not in sys.path:
    sys.path.append(ROOT)

# The tests never read the developer's own Codex trust records (~/.codex/config.toml):
# without a Codex home the gate's Codex trust check has nothing to judge
# (zodyssey/gate/codex_trust.py). Tests of that check pass their own CODEX_HOME.
os.environ["CODEX_HOME"] = "/nonexistent/zodyssey-tests/codex-home"


# ------------------------------------------------------------ one wheel per session
# Building a wheel and installing it into a fresh virtualenv is the slow part of the
# tests that check what users install; they share one of each per test session.
# Under xdist every worker asks: the first builds under a file lock, the others wait
# and reuse it (issue 36: five tests each built their own, 636 s of worker time).


def _session_dir(factory: pytest.TempPathFactory) -> Path:
    """A directory every xdist worker of this session shares, and no other session."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session")
def zodyssey_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wheel of this checkout, built once per session (read it, never change it)."""
    from filelock import FileLock

    from tests.helpers import build_wheel

    shared = _session_dir(tmp_path_factory) / "shared-wheel"
    with FileLock(f"{shared}.lock"):
        built = sorted((shared / "dist").glob("zodyssey-*.whl"))
        if built:
            return built[0]
        shutil.rmtree(shared, ignore_errors=True)
        shared.mkdir()
        return build_wheel(shared)


@pytest.fixture(scope="session")
def checkout_repo(tmp_path_factory: pytest.TempPathFactory) -> CheckoutRepos:
    """See `CheckoutRepos`: the release, pre-commit and install-source tests start from
    the same commit of this checkout, copied and committed once per session."""
    from filelock import FileLock

    from tests.helpers import CheckoutRepos, copy_checkout, make_repo

    shared = _session_dir(tmp_path_factory) / "shared-checkout"
    with FileLock(f"{shared}.lock"):
        if not (shared / "ready").is_file():
            shutil.rmtree(shared, ignore_errors=True)
            shared.mkdir()
            make_repo(copy_checkout(shared / "repo"), commit=True)
            (shared / "ready").write_text("")
    return CheckoutRepos(shared / "repo")


@pytest.fixture(scope="session")
def wheel_venv(zodyssey_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """bin/ of a virtualenv with that wheel installed (its dependencies linked from this
    one, offline): the layout users have. Shared by the session: run it, never install
    into it."""
    from filelock import FileLock

    from tests.helpers import fresh_venv

    shared = _session_dir(tmp_path_factory) / "shared-wheel-venv"
    with FileLock(f"{shared}.lock"):
        if (shared / "ready").is_file():
            return shared / "venv" / "bin"
        shutil.rmtree(shared, ignore_errors=True)
        bindir = fresh_venv(shared / "venv")
        env = {
            "PIP_NO_INDEX": "1",
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            "PATH": os.environ["PATH"],
        }
        subprocess.run(
            [
                str(bindir / "python"),
                "-m",
                "pip",
                "install",
                "-q",
                "--no-deps",
                str(zodyssey_wheel),
            ],
            check=True,
            env=env,
            timeout=300,
        )
        (shared / "ready").write_text("")
        return bindir
