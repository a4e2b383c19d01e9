"""Issue 21 item 3: the committed wiring names no machine path.

`zodyssey hook install` used to write the installing venv's interpreter by its
absolute path when the venv lived outside the project: the committed file then
only started on the installer's machine, and a harness that cannot start its
hook runs the tool call. Now the committed command is either relative to the
harness's project variable (interpreter and package inside the project) or
the `zodyssey` found on each machine's PATH; a teammate's checkout where
neither starts fails `zodyssey check` (exit 9, harness and file named), and
passes once it does.

How this could pass while broken: a scan that looked only at the interpreter
would miss an absolute script path; so every word of every committed hook
command is checked, and the whole text of every committed file is searched
for this machine's directories. A clone that still saw this checkout's files
would pass for the wrong reason; so the clone is made with `git clone` into
another directory and the original is moved away.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import REPO_ROOT, clean_env, git, run_zodyssey
from zodyssey.gate.harness import adapters
from zodyssey.gate.wiring import _commands  # every "command" string of a hooks config

HARNESSES = [a.name for a in adapters()]
VENV_BIN = str(Path(sys.executable).parent)
# PATH without this venv: no `zodyssey` to find (the teammate has none installed)
BARE_PATH = "/usr/bin:/bin"


def _env(path: str) -> dict[str, str]:
    return {"PATH": path, "NO_COLOR": "1"}


def _commit(repo: Path) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", "wiring")


def _committed(repo: Path) -> dict[str, str]:
    files = git(repo, "ls-files").split()
    return {rel: (repo / rel).read_text(encoding="utf-8") for rel in files}


def _machine_paths(repo: Path, committed: dict[str, str]) -> list[str]:
    """Every absolute path in a committed hook command, and every committed file naming
    a directory of this machine (the venv, the interpreter, the checkout, home)."""
    found = []
    for rel, text in committed.items():
        if rel.endswith(".json"):
            for command in _commands(json.loads(text)):
                found += [f"{rel}: {w}" for w in shlex.split(command) if w.startswith(("/", "~"))]
        for place in (sys.prefix, sys.executable, str(repo), str(REPO_ROOT), str(Path.home())):
            if place in text:
                found.append(f"{rel}: names {place}")
    return found


def _gate(repo: Path, path: str) -> tuple[int, dict[str, Any], str]:
    done = run_zodyssey("check", "--format", "json", cwd=repo, env=_env(path))
    return done.returncode, json.loads(done.stdout)["gate"]["report"], done.stdout + done.stderr


def _not_holding(report: dict[str, Any]) -> set[tuple[str, str]]:
    return {
        (f["extra"].get("harness"), f["file"])
        for f in report["findings"]
        if f["rule"] == "hook-not-holding"
    }


@pytest.fixture
def installed(tmp_path: Path) -> Path:
    """Every harness wired by `hook install` from this venv, which is outside the project."""
    repo = tmp_path / "mine"
    repo.mkdir()
    git(repo, "init", "-q")
    assert run_zodyssey("init", cwd=repo).returncode == 0
    for harness in HARNESSES:
        done = run_zodyssey("hook", "install", "--harness", harness, cwd=repo)
        assert done.returncode == 0, done.stderr
        assert "PATH" in done.stdout, done.stdout  # it says what the command depends on
    _commit(repo)
    return repo


def test_committed_wiring_names_no_machine_path(installed: Path) -> None:
    committed = _committed(installed)
    assert {".claude/settings.json", ".codex/hooks.json", ".gemini/settings.json"} <= set(committed)
    assert _machine_paths(installed, committed) == []


def test_a_teammates_clone_holds_where_zodyssey_is_installed(
    installed: Path, tmp_path: Path
) -> None:
    clone = tmp_path / "elsewhere" / "theirs"
    clone.parent.mkdir()
    git(tmp_path, "clone", "-q", str(installed), str(clone))
    shutil.move(str(installed), str(tmp_path / "gone"))  # nothing of the original is left
    code, report, text = _gate(clone, VENV_BIN + os.pathsep + BARE_PATH)
    assert code == 0, text
    assert report["declared"] == HARNESSES

    code, report, text = _gate(clone, BARE_PATH)
    assert code == 9, text
    wanted = {(a.name, a.config_files[0]) for a in adapters()}
    assert _not_holding(report) == wanted, report
    assert "does not start" in text and "harness codex" in text and ".codex/hooks.json" in text


def _project_with_its_own_venv(base: Path) -> Path:
    """A project holding its interpreter (.venv/bin/python) and zodyssey (src/zodyssey)."""
    repo = base / "mine"
    (repo / ".venv" / "bin").mkdir(parents=True)
    (repo / ".venv" / "bin" / "python").symlink_to(os.path.realpath(sys.executable))
    shutil.copytree(
        REPO_ROOT / "zodyssey",
        repo / "src" / "zodyssey",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    git(repo, "init", "-q")
    assert run_zodyssey("init", cwd=repo).returncode == 0
    return repo


def _install_from_inside(repo: Path, harness: str) -> None:
    """`hook install` as the project's own interpreter running its own zodyssey."""
    script = (
        "import sys; from pathlib import Path; "
        f"sys.executable = {str(repo / '.venv' / 'bin' / 'python')!r}; "
        "from zodyssey.gate.install import install; "
        "from zodyssey.gate.wiring import declare_harness; "
        "from zodyssey import workflow; "
        f"install(Path({str(repo)!r}), {harness!r}); "
        # what `hook install` writes beside the hooks (the reviewer the wiring check requires)
        f"workflow.install(Path({str(repo)!r}), {harness!r}); "
        f"declare_harness(Path({str(repo)!r}), {harness!r})"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=repo,
        env=clean_env(PYTHONPATH=str(repo / "src")),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_a_venv_inside_the_project_is_written_relative_to_the_project_variable(
    tmp_path: Path,
) -> None:
    repo = _project_with_its_own_venv(tmp_path)
    for harness in ("claude-code", "gemini", "codex"):
        _install_from_inside(repo, harness)
    git(repo, "add", ".claude", ".gemini", ".codex")
    git(repo, "commit", "-q", "-m", "wiring")
    claude = json.loads((repo / ".claude" / "settings.json").read_text(encoding="utf-8"))
    (command,) = {c for c in _commands(claude) if "pre-tool" in c}
    assert command == (
        '"$CLAUDE_PROJECT_DIR"/.venv/bin/python -S -P '
        '"$CLAUDE_PROJECT_DIR"/src/zodyssey/gate/hook_entry.py pre-tool'
    )
    gemini = json.loads((repo / ".gemini" / "settings.json").read_text(encoding="utf-8"))
    assert any(c.startswith('"$GEMINI_PROJECT_DIR"/.venv/') for c in _commands(gemini))
    codex = json.loads((repo / ".codex" / "hooks.json").read_text(encoding="utf-8"))
    # Codex sets no project variable: the PATH form
    assert {c for c in _commands(codex)} == {
        "zodyssey hook pre-tool --harness codex",
        "zodyssey hook post-tool --harness codex",
    }
    committed = {rel: text for rel, text in _committed(repo).items() if not rel.startswith("src/")}
    assert _machine_paths(repo, committed) == []


def test_a_clone_without_the_projects_venv_fails_naming_harness_and_file(
    tmp_path: Path,
) -> None:
    repo = _project_with_its_own_venv(tmp_path)
    _install_from_inside(repo, "claude-code")
    git(repo, "add", "-A", ":!.venv")
    git(repo, "commit", "-q", "-m", "wiring")
    clone = tmp_path / "elsewhere" / "theirs"
    clone.parent.mkdir()
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    code, report, text = _gate(clone, VENV_BIN + os.pathsep + BARE_PATH)
    assert code == 9, text
    assert _not_holding(report) == {("claude-code", ".claude/settings.json")}, report
    assert "does not start" in text
    # The teammate makes the project's venv: the same committed command now holds.
    (clone / ".venv" / "bin").mkdir(parents=True)
    (clone / ".venv" / "bin" / "python").symlink_to(os.path.realpath(sys.executable))
    code, report, text = _gate(clone, VENV_BIN + os.pathsep + BARE_PATH)
    assert code == 0, text


def test_the_advice_for_a_teammate_without_zodyssey_is_followed_and_holds(
    installed: Path, tmp_path: Path
) -> None:
    """Issue 36: the advice said to run `hook install` again, which writes the same
    `zodyssey hook ...` line; what fixes it is zodyssey on the client's PATH.
    Fails on the old code (the advice named `hook install` only)."""
    clone = tmp_path / "theirs"
    git(tmp_path, "clone", "-q", str(installed), str(clone))
    code, report, text = _gate(clone, BARE_PATH)
    assert code == 9, text
    advice = [f["message"] for f in report["findings"] if f["rule"] == "hook-not-holding"]
    assert advice and all("install zodyssey where the client runs" in a for a in advice)
    assert all("would write this same command" in a for a in advice)
    # Following it: a zodyssey on the PATH the client gives its hooks (this venv's bin,
    # as `python -m pip install zodyssey` there would make it). No file changes.
    before = _committed(clone)
    code, report, text = _gate(clone, VENV_BIN + os.pathsep + BARE_PATH)
    assert code == 0, text
    assert _committed(clone) == before
