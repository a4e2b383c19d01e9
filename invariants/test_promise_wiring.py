"""README promise: a gate deleted from the committed harness configuration fails CI.

Through the real commands: `zodyssey init`, `zodyssey hook install` (which
declares the harness), a commit, then the three ways a gate is deleted without
touching a test, each committed, each judged by the real `zodyssey check`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

SETTINGS = ".claude/settings.json"


def wired_repo(lab: Any) -> Path:
    repo: Path = lab.repo()
    assert lab.zodyssey("init", cwd=repo).returncode == 0
    done = lab.zodyssey("hook", "install", "--command", "zodyssey", cwd=repo)
    assert done.returncode == 0, done.stderr
    lab.commit(repo, "wire the gate")
    return repo


def gate_findings(lab: Any, repo: Path) -> tuple[int, list[dict[str, Any]]]:
    done = lab.zodyssey("check", "--format", "json", cwd=repo)
    part = json.loads(done.stdout)["gate"]
    return done.returncode, part["report"]["findings"]


def edit_settings(repo: Path, change: Any) -> None:
    path = repo / SETTINGS
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def _delete(data: dict[str, Any]) -> None:
    del data["hooks"]["PreToolUse"]


def _narrow(data: dict[str, Any]) -> None:
    data["hooks"]["PreToolUse"][0]["matcher"] = "Edit|Write|MultiEdit"


def _hatch(data: dict[str, Any]) -> None:
    data["env"] = {"ZODYSSEY_UNGATE_BASH": "1"}


@pytest.mark.claim("gate-wiring-checked")
def test_intact_wiring_passes(lab: Any) -> None:
    repo = wired_repo(lab)
    code, findings = gate_findings(lab, repo)
    assert code == 0, findings
    assert findings == []


@pytest.mark.claim("gate-wiring-checked")
@pytest.mark.parametrize(
    ("sabotage", "rule"),
    [(_delete, "hook-missing"), (_narrow, "matcher-narrowed"), (_hatch, "hatch-set")],
    ids=["entry-removed", "matcher-narrowed", "hatch-set"],
)
def test_deleted_gate_fails_the_check(lab: Any, sabotage: Any, rule: str) -> None:
    repo = wired_repo(lab)
    edit_settings(repo, sabotage)
    lab.commit(repo, "quietly ungate")
    code, findings = gate_findings(lab, repo)
    assert code == 9, findings
    found = [f for f in findings if f["rule"] == rule]
    assert found and found[0]["file"] == SETTINGS, findings
    text = lab.zodyssey("check", cwd=repo)
    assert text.returncode == 9
    assert SETTINGS in text.stdout and rule in text.stdout
    if rule != "hatch-set":
        assert "claude-code" in found[0]["message"]
    if rule == "matcher-narrowed":
        assert "Bash" in found[0]["message"] and "mcp__" in found[0]["message"]


def _hook_words(repo: Path) -> list[str]:
    words: list[str] = []
    for rel in (SETTINGS, ".codex/hooks.json"):
        data = json.loads((repo / rel).read_text(encoding="utf-8"))
        for key in ("PreToolUse", "PostToolUse"):
            for group in data["hooks"][key]:
                words += [w for h in group["hooks"] for w in h["command"].split()]
    return words


@pytest.mark.claim("wiring-names-no-machine-path")
def test_a_teammates_clone_runs_the_committed_wiring_or_fails_the_check(lab: Any) -> None:
    import os
    import subprocess
    import sys

    repo: Path = lab.repo("mine")
    assert lab.zodyssey("init", cwd=repo).returncode == 0
    for harness in ("claude-code", "codex"):  # this venv lives outside the project
        done = lab.zodyssey("hook", "install", "--harness", harness, cwd=repo)
        assert done.returncode == 0, done.stderr
    lab.commit(repo, "wire the gate")
    assert not [w for w in _hook_words(repo) if w.startswith("/") or sys.prefix in w]
    clone = lab.base / "elsewhere" / "theirs"
    clone.parent.mkdir()
    subprocess.run(["git", "clone", "-q", str(repo), str(clone)], check=True)
    scripts = os.path.dirname(sys.executable)
    env = {k: v for k, v in os.environ.items() if not k.endswith("_PROJECT_DIR")}
    # The teammate's machine has never run Codex: this machine's Codex records
    # (~/.codex, from whatever ran here) are not theirs.
    env["CODEX_HOME"] = str(lab.base / "teammate-codex-home")
    installed = {**env, "PATH": scripts + os.pathsep + "/usr/bin:/bin"}
    assert lab.zodyssey("check", cwd=clone, env=installed).returncode == 0
    bare = lab.zodyssey(
        "check", "--format", "json", cwd=clone, env={**env, "PATH": "/usr/bin:/bin"}
    )
    assert bare.returncode == 9, bare.stdout
    findings = json.loads(bare.stdout)["gate"]["report"]["findings"]
    named = {
        (f["extra"]["harness"], f["file"]) for f in findings if f["rule"] == "hook-not-holding"
    }
    assert named == {("claude-code", SETTINGS), ("codex", ".codex/hooks.json")}
