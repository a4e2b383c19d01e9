"""The installed command skips `site` (`python -S -P .../hook_entry.py`) and
still decides as the hook does, in the layout it knows and in one it does not.

How this could pass while broken: the command could fail to import the parser
and block every parsed command (so an allowed, parsed write is asserted to be
allowed), or `site` could run every time (so the fast layout is asserted to
import no `site`), or a layout the shortcut does not know could fail instead
of falling back (so a venv whose packages come only from a `.pth` file is
played through too).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.gate import RunRepo, hook_env, make_run_repo, with_importtime
from zodyssey.gate.install import entry_script, hook_command

PRINT_COMMAND = (
    "from zodyssey.gate.install import hook_command; print(hook_command('pre-tool', 'claude-code'))"
)
ALLOWED_WRITE = "echo x > src/server.py"  # parsed (a redirection), in scope
BLOCKED_WRITE = "echo x > README.md"  # parsed, out of scope


def _hook(argv: list[str], repo: RunRepo, command: str) -> tuple[int, str, set[str]]:
    env = hook_env(repo.root)
    env.pop("PYTHONPATH", None)  # the command must find everything on its own
    return with_importtime(argv, json.dumps(repo.payload("Bash", {"command": command})), env)


def test_the_installed_command_skips_site_and_decides(tmp_path: Path) -> None:
    argv = shlex.split(hook_command("pre-tool", "claude-code"))
    assert argv[1:3] == ["-S", "-P"], argv
    repo = make_run_repo(tmp_path)
    code, reason, names = _hook(argv, repo, ALLOWED_WRITE)
    assert (code, reason) == (0, "")
    assert "site" not in names and "sitecustomize" not in names, sorted(names)
    code, reason, _ = _hook(argv, repo, BLOCKED_WRITE)
    assert code == 2 and "README.md" in reason, reason


def test_a_layout_it_does_not_know_runs_site(tmp_path: Path) -> None:
    # A venv with nothing installed in it: zodyssey's dependencies reach it only
    # through a .pth file, which only `site` reads.
    venv = tmp_path / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120
    )
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    ours = subprocess.run(
        [
            sys.executable,
            "-c",
            "import tree_sitter, os; print(os.path.dirname(os.path.dirname(tree_sitter.__file__)))",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(purelib, "borrowed.pth").write_text(ours + "\n")
    argv = [str(python), "-S", "-P", str(entry_script()), "pre-tool"]
    repo = make_run_repo(tmp_path / "work")
    code, reason, names = _hook(argv, repo, ALLOWED_WRITE)
    assert (code, reason) == (0, ""), reason
    assert "site" in names  # the shortcut found no parser and ran site.main()
    code, reason, _ = _hook(argv, repo, BLOCKED_WRITE)
    assert code == 2 and "README.md" in reason, reason


@pytest.mark.slow
def test_the_command_a_wheel_install_writes_skips_site(tmp_path: Path, wheel_venv: Path) -> None:
    # The layout users have: zodyssey and its dependencies in one site-packages
    # (the session's shared wheel install, tests/conftest.py).
    bindir = wheel_venv
    env = {"PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PATH": os.environ["PATH"]}
    line = subprocess.run(
        [str(bindir / "python"), "-c", PRINT_COMMAND],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=tmp_path,
    ).stdout.strip()
    argv = shlex.split(line)
    assert argv[:3] == [str(bindir / "python"), "-S", "-P"], argv
    assert "site-packages" in argv[3], argv  # the installed copy, not this checkout
    repo = make_run_repo(tmp_path / "work")
    code, reason, names = _hook(argv, repo, ALLOWED_WRITE)
    assert (code, reason) == (0, ""), reason
    assert "site" not in names, sorted(names)
    code, reason, _ = _hook(argv, repo, BLOCKED_WRITE)
    assert code == 2 and "README.md" in reason, reason
