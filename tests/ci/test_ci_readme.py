"""The README's set-up commands and what they depend on (issue 36).

The journey itself (both commands copied out of README.md, run in fresh
virtual environments in a fresh clone; docs/getting-started.md's blocks on a
scratch repository) is `nox -s journey`, which `.ci/run` runs. These tests keep
the pieces it stands on honest without building environments.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from scripts import journey

REPO = Path(__file__).resolve().parents[2]

# Installed in the test process and imported by the collection subprocess, this
# makes every module that only the `test` extra brings unimportable, as in an
# environment made with `pip install .` alone.
BLOCKER = textwrap.dedent(
    """
    import importlib.abc, sys

    BLOCKED = set(__BLOCKED__)

    class _Absent(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] in BLOCKED:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, _Absent())
    """
)


def test_only_extras_are_the_modules_the_test_extra_alone_brings() -> None:
    """The blocked set is derived from the installed metadata, not written by hand."""
    blocked = journey.test_only_modules()
    assert {"hypothesis", "in_toto_attestation", "yaml", "xdist"} <= blocked
    # What the plain install needs is never blocked.
    assert not {"pytest", "zodyssey", "jsonschema", "pydantic", "git"} & blocked


@pytest.mark.slow
def test_the_ledger_is_whole_without_the_test_extras(tmp_path: Path) -> None:
    """`pip install . && zodyssey check` collects every claim's tests: no claim problem.

    Fails on the old code: invariants/test_promise_claims.py imported hypothesis
    and test_promise_ci.py protobuf at load time (28 claim problems, exit 9)."""
    site = tmp_path / "site"
    site.mkdir()
    names = sorted(journey.test_only_modules())
    (site / "sitecustomize.py").write_text(BLOCKER.replace("__BLOCKED__", repr(names)))
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}
    env["PYTHONPATH"] = os.pathsep.join([str(site), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    # Entry-point plugins of the extras (xdist) are not installed in such an environment.
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    done = subprocess.run(
        [sys.executable, "-m", "zodyssey", "claims", "check", "--format", "json"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    report = json.loads(done.stdout)
    problems = [f"{f['rule']}: {f['message']}" for f in report["findings"]]
    assert done.returncode == 0, "\n".join(problems) + done.stderr
    assert problems == []


def test_both_readme_commands_are_found_verbatim() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    commands = journey.readme_commands(readme)
    assert set(commands) == {"check", "test"}
    for command in commands.values():
        assert command in readme
    assert commands["check"].endswith("zodyssey check")
    assert "--claims-strict" in commands["test"]


def test_ci_runs_the_readme_test_command_from_the_readme_and_the_journey() -> None:
    """.ci/run has no hand copy of the README's command to drift from it."""
    ci = (REPO / ".ci/run").read_text(encoding="utf-8")
    readme = journey.readme_commands((REPO / "README.md").read_text(encoding="utf-8"))
    assert readme["test"] not in ci
    assert "scripts/journey.py test-command" in ci
    assert "nox -s journey" in ci


def test_getting_started_blocks_expect_what_the_prose_says() -> None:
    steps = journey.getting_started_steps(
        (REPO / "docs/getting-started.md").read_text(encoding="utf-8")
    )
    expected = [step.expect for step in steps if step.expect is not None]
    # Pass, break (exit 9), undo (exit 0): the page's story.
    assert expected == [0, 9, 0]
    assert any("zodyssey init" in step.script for step in steps)
