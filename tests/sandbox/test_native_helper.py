"""The native sandbox helper (zodyssey/sandbox/native.py, helper.c): real
compiles, a real kernel ruleset, real writes.

The helper is tested on its own: its fallback (the Python runner that follows
it on the command line) is replaced by a script that only says "fallback", so
a test knows whether the helper itself applied the grants or handed over.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import clean_env
from tests.helpers.gate import RunRepo
from tests.sandbox.test_sandbox_runner import ABI, committed_repo, needs_landlock, tree
from zodyssey.gate.install import entry_script
from zodyssey.sandbox import native
from zodyssey.sandbox.runner import EXIT_SANDBOX

needs_cc = pytest.mark.skipif(
    not (shutil.which("cc") or shutil.which("gcc")), reason="no C compiler here"
)
FALLBACK = 99


def test_the_recorded_source_hash_is_the_sources() -> None:
    """A changed helper.c is never compiled unless SOURCE_SHA256 says it."""
    digest = hashlib.sha256(Path(native.SOURCE).read_bytes()).hexdigest()
    assert digest == native.SOURCE_SHA256
    assert native.source_ok()


def runner_argv(repo: RunRepo, script: str, python: str = sys.executable) -> list[str]:
    return [
        *(python, "-S", "-P", str(entry_script()), "sandbox", "--run", "demo"),
        *("--repo", str(repo.root), "--", "bash", "-c", script),
    ]


def run(argv: list[str], repo: RunRepo, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv,
        cwd=repo.root,
        capture_output=True,
        text=True,
        env=clean_env(**env),
        timeout=120,
        check=False,
    )


def fake_runner(tmp_path: Path) -> str:
    """An executable standing where the Python runner is: it says it ran."""
    path = tmp_path / "fallback-runner"
    path.write_text(f"#!/bin/sh\necho fallback\nexit {FALLBACK}\n")
    path.chmod(0o755)
    return str(path)


def primed(tmp_path: Path, **kwargs: object) -> tuple[RunRepo, str]:
    """A run whose Python runner has run once: grants left, helper built."""
    repo = committed_repo(tmp_path, **kwargs)
    done = run(runner_argv(repo, "true"), repo)
    assert done.returncode == 0, done.stderr
    helper = native.available(str(repo.root))
    assert helper is not None, "the runner built no helper"
    assert (repo.root / ".zcode" / "state" / "demo.grants").is_file()
    return repo, helper


@pytest.mark.claim("sandbox-native-helper")
@needs_landlock
@needs_cc
def test_the_helper_applies_the_grants_itself_and_the_kernel_denies(tmp_path: Path) -> None:
    repo, helper = primed(tmp_path, phase="plan", verdict=None)
    before = tree(repo.root)
    script = (
        "echo pwned > README.md; echo pwned > .zcode/state/demo.json; "
        "echo note >> .zcode/notepads/n.md && echo note-ok; echo $ZODYSSEY_SANDBOX"
    )
    argv = [helper, *runner_argv(repo, script, python=fake_runner(tmp_path))]
    done = run(argv, repo)
    assert "fallback" not in done.stdout, "the helper handed over instead of applying"
    assert "README.md: Permission denied" in done.stderr
    assert ".zcode/state/demo.json: Permission denied" in done.stderr
    assert "note-ok" in done.stdout and "demo" in done.stdout
    after = tree(repo.root)
    assert {k for k in set(before) | set(after) if before.get(k) != after.get(k)} == set()


@needs_landlock
@needs_cc
def test_after_okay_the_helper_lets_declared_files_be_written(tmp_path: Path) -> None:
    repo, helper = primed(tmp_path)
    argv = [helper, *runner_argv(repo, "echo done > src/server.py; echo p > README.md", "/x")]
    done = run(argv, repo)
    assert "README.md: Permission denied" in done.stderr, done.stderr
    assert (repo.root / "src" / "server.py").read_text() == "done\n"


@pytest.mark.claim("sandbox-native-helper")
@needs_landlock
@needs_cc
@pytest.mark.parametrize("change", ["state", "plan", "grant-inode", "config", "env", "abi"])
def test_stale_grants_hand_over_to_the_python_runner(tmp_path: Path, change: str) -> None:
    repo, helper = primed(tmp_path)
    grants = repo.root / ".zcode" / "state" / "demo.grants"
    env: dict[str, str] = {}
    if change == "state":
        repo.set(phase="blocked")
    elif change == "plan":
        repo.plan_path.write_text(repo.plan_path.read_text() + "\n")
    elif change == "grant-inode":
        staging = repo.root / ".zcode" / "staging"
        shutil.rmtree(staging)
        staging.mkdir()
    elif change == "config":
        (repo.root / ".zodyssey.toml").write_text("")
    elif change == "env":
        env["TMPDIR"] = str(tmp_path)
    else:  # grants recorded for another Landlock ABI than the kernel's
        text = grants.read_text().replace(f"\nabi {ABI}\n", f"\nabi {ABI + 1}\n")
        grants.write_text(text)
    done = run([helper, *runner_argv(repo, "echo ran", fake_runner(tmp_path))], repo, **env)
    assert done.returncode == FALLBACK and done.stdout == "fallback\n", done.stderr


@needs_landlock
@needs_cc
def test_the_real_runner_behind_the_helper_recomputes_stale_grants(tmp_path: Path) -> None:
    repo, helper = primed(tmp_path)
    repo.set(phase="blocked")  # no product grant any more
    done = run([helper, *runner_argv(repo, "echo pwned > src/server.py")], repo)
    assert "src/server.py: Permission denied" in done.stderr, done.stderr
    assert (repo.root / "src" / "server.py").read_text() == "x\n"
    text = (repo.root / ".zcode" / "state" / "demo.grants").read_text()
    assert str(repo.root / "src") not in text  # rewritten from the blocked state


@pytest.mark.claim("sandbox-native-helper")
@needs_landlock
@needs_cc
def test_grants_the_kernel_refuses_fail_closed(tmp_path: Path) -> None:
    """Valid, current grants that Landlock refuses (a right it does not know):
    exit 125, the command never runs, no hand-over."""
    repo, helper = primed(tmp_path)
    grants = repo.root / ".zcode" / "state" / "demo.grants"
    lines = grants.read_text().splitlines()
    lines = [f"handled {1 << 40}" if x.startswith("handled ") else x for x in lines]
    grants.write_text("\n".join(lines) + "\n")
    done = run([helper, *runner_argv(repo, "echo ran", fake_runner(tmp_path))], repo)
    assert done.returncode == EXIT_SANDBOX, done.stdout + done.stderr
    assert "ran" not in done.stdout and "fallback" not in done.stdout
    assert "cannot sandbox" in done.stderr


@needs_landlock
@needs_cc
def test_the_helper_reports_the_kernels_abi(tmp_path: Path) -> None:
    repo, helper = primed(tmp_path)
    done = subprocess.run([helper, "--abi"], capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stdout == f"{ABI}\n"
    assert f"\nabi {ABI}\n" in (repo.root / ".zcode" / "state" / "demo.grants").read_text()


@pytest.mark.claim("sandbox-native-helper")
@needs_landlock
def test_without_a_compiler_the_python_runner_sandboxes_alone(tmp_path: Path) -> None:
    """The compiler hidden (PATH without cc/gcc, no $CC): no helper is built,
    the gate's wrapped command has no helper in front, and the kernel still
    denies through the Python runner."""
    from zodyssey.sandbox.wrap import wrapped

    repo = committed_repo(tmp_path, phase="plan", verdict=None)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("bash", "git", "sh"):
        found = shutil.which(tool)
        assert found is not None
        (bin_dir / tool).symlink_to(found)
    env = {"PATH": str(bin_dir), "CC": ""}
    done = run(runner_argv(repo, "echo pwned > README.md"), repo, **env)
    assert "README.md: Permission denied" in done.stderr, done.stderr
    assert native.available(str(repo.root)) is None
    assert not any(
        p.name.startswith("sandbox-helper") for p in (repo.root / ".zcode/state").iterdir()
    )
    assert wrapped("ls", "demo", str(repo.root)).startswith(f"'{sys.executable}'")


@needs_landlock
@needs_cc
def test_the_gate_wraps_with_the_helper_once_it_is_built(tmp_path: Path) -> None:
    from zodyssey.sandbox.wrap import is_wrapped, wrapped

    repo, helper = primed(tmp_path)
    command = wrapped("echo hi", "demo", str(repo.root))
    assert command.startswith(f"'{helper}' '{sys.executable}'") and is_wrapped(
        command, "demo", str(repo.root)
    )
    done = subprocess.run(
        ["bash", "-c", command], cwd=repo.root, capture_output=True, text=True, check=False
    )
    assert done.stdout == "hi\n", done.stderr
    assert os.access(helper, os.X_OK)
