"""`zodyssey hook install`: idempotent merge that keeps the user's hooks."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import make_repo, run_zodyssey
from tests.helpers.gate import REPO, hook_env


def install(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_zodyssey(
        "hook", "install", "--project", str(project), *args, cwd=REPO, env=hook_env(None)
    )


def test_claude_install_merges_and_is_idempotent(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    user_hook = {"matcher": "Bash", "hooks": [{"type": "command", "command": "my-linter"}]}
    settings.write_text(json.dumps({"model": "opus", "hooks": {"PreToolUse": [user_hook]}}))
    first = install(tmp_path)
    assert first.returncode == 0
    assert "added PreToolUse" in first.stdout and "added PostToolUse" in first.stdout
    data = json.loads(settings.read_text())
    assert data["model"] == "opus"
    assert data["hooks"]["PreToolUse"][0] == user_hook
    ours = data["hooks"]["PreToolUse"][1]
    # this venv is outside the project: `zodyssey` from PATH, no path of this machine
    assert ours["hooks"][0]["command"] == "zodyssey hook pre-tool"
    assert ours["hooks"][0]["timeout"] == 30
    before = settings.read_text()
    second = install(tmp_path)
    assert second.returncode == 0 and "added" not in second.stdout and "unchanged" in second.stdout
    assert settings.read_text() == before


def test_install_updates_a_stale_entry(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    old = {
        "matcher": "Bash",
        "hooks": [{"type": "command", "command": "zodyssey hook pre-tool", "timeout": 5}],
    }
    settings.write_text(json.dumps({"hooks": {"PreToolUse": [old]}}))
    result = install(tmp_path)
    assert "updated PreToolUse" in result.stdout
    groups = json.loads(settings.read_text())["hooks"]["PreToolUse"]
    assert len(groups) == 1 and groups[0]["hooks"][0]["timeout"] == 30


def test_other_harnesses(tmp_path: Path) -> None:
    assert install(tmp_path, "--harness", "gemini").returncode == 0
    gemini = json.loads((tmp_path / ".gemini" / "settings.json").read_text())
    entry = gemini["hooks"]["BeforeTool"][0]["hooks"][0]
    assert entry["timeout"] == 30000 and entry["command"].endswith("--harness gemini")
    assert install(tmp_path, "--harness", "cursor").returncode == 0
    cursor = json.loads((tmp_path / ".cursor" / "hooks.json").read_text())
    assert cursor["version"] == 1
    assert cursor["hooks"]["beforeShellExecution"][0]["command"].endswith("--harness cursor")
    assert install(tmp_path, "--harness", "codex").returncode == 0
    codex = json.loads((tmp_path / ".codex" / "hooks.json").read_text())
    assert codex["hooks"]["PreToolUse"][0]["hooks"][0]["command"].endswith("--harness codex")


def test_broken_settings_is_one_clear_error(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text("{ nope")
    result = install(tmp_path)
    assert result.returncode == 2
    assert "not valid JSON" in result.stderr and "Traceback" not in result.stderr
    assert settings.read_text() == "{ nope"


def test_claude_command_survives_moving_the_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An interpreter and hook script inside the project are written relative to
    $CLAUDE_PROJECT_DIR, and the command still starts the gate after the project moves."""
    import shutil
    import subprocess

    from zodyssey.gate import install as installer

    project = tmp_path / "checkout"
    (project / ".venv" / "bin").mkdir(parents=True)
    link = project / ".venv" / "bin" / "python"
    link.symlink_to(sys.executable)
    package = project / "src" / "zodyssey"
    shutil.copytree(REPO / "zodyssey", package, ignore=shutil.ignore_patterns("__pycache__"))
    # the interpreter and package this project holds (the same `sys` install reads)
    real_entry = installer.entry_script
    monkeypatch.setattr(sys, "executable", str(link))
    monkeypatch.setattr(installer, "entry_script", lambda: package / "gate" / "hook_entry.py")
    command = installer.hook_command("pre-tool", "claude-code", project=project)
    monkeypatch.setattr(installer, "entry_script", real_entry)
    half = installer.hook_command("pre-tool", "claude-code", project=project)
    monkeypatch.undo()
    assert command == (
        '"$CLAUDE_PROJECT_DIR"/.venv/bin/python -S -P '
        '"$CLAUDE_PROJECT_DIR"/src/zodyssey/gate/hook_entry.py pre-tool'
    ), command
    # Half inside is not enough: the script outside would name this machine's path.
    assert half == "zodyssey hook pre-tool"
    moved = tmp_path / "moved"
    shutil.move(str(project), str(moved))
    make_repo(moved, commit=False)
    done = subprocess.run(
        ["sh", "-c", command],
        input='{"tool_name": "Bash", "tool_input": {"command": "ls"}}',
        capture_output=True,
        text=True,
        # the stand-in interpreter is not a virtualenv: point it at the project's package
        env={
            "CLAUDE_PROJECT_DIR": str(moved),
            "PATH": "/usr/bin:/bin",
            "PYTHONPATH": str(moved / "src"),
        },
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, ""), done


def test_install_says_what_the_command_depends_on(tmp_path: Path) -> None:
    done = run_zodyssey("hook", "install", "--project", str(tmp_path), cwd=REPO)
    assert done.returncode == 0, done.stderr
    assert "found on the PATH" in done.stdout and "names no path of this machine" in done.stdout
    assert "hook-not-holding" in done.stdout
