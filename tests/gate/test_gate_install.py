"""`zodyssey hook install`: idempotent merge that keeps the user's hooks."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

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
    assert ours["hooks"][0]["command"].endswith("/zodyssey/gate/hook_entry.py pre-tool")
    assert " -S -P " in ours["hooks"][0]["command"]
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


def test_claude_command_survives_moving_the_checkout(tmp_path: Path) -> None:
    """An interpreter inside the project is written relative to $CLAUDE_PROJECT_DIR,
    and the command still starts the gate after the project directory moves."""
    import shutil
    import subprocess

    from zodyssey.gate.install import hook_command

    project = tmp_path / "checkout"
    (project / ".venv" / "bin").mkdir(parents=True)
    link = project / ".venv" / "bin" / "python"
    link.symlink_to(sys.executable)
    real = sys.executable  # the same `sys` module zodyssey.gate.install reads
    sys.executable = str(link)
    try:
        command = hook_command("pre-tool", "claude-code", project=project)
    finally:
        sys.executable = real
    assert command.startswith('"$CLAUDE_PROJECT_DIR"/.venv/bin/python -S -P '), command
    moved = tmp_path / "moved"
    shutil.move(str(project), str(moved))
    make_repo(moved, commit=False)
    done = subprocess.run(
        ["sh", "-c", command],
        input='{"tool_name": "Bash", "tool_input": {"command": "ls"}}',
        capture_output=True,
        text=True,
        # the stand-in interpreter is not a virtualenv: point it at this checkout
        env={
            "CLAUDE_PROJECT_DIR": str(moved),
            "PATH": "/usr/bin:/bin",
            "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
        },
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, ""), done


def test_install_says_what_the_command_depends_on(tmp_path: Path) -> None:

    done = run_zodyssey("hook", "install", "--project", str(tmp_path), cwd=REPO)
    assert done.returncode == 0, done.stderr
    assert "lets tool calls through" in done.stdout and "re-run" in done.stdout
