"""Past runs stay protected (issue 33, root cause 6): once no run is active, the
gate still refuses a call that names a finished run's record (state, evidence,
reviews, the evidence anchor in git) and stays out of the way of everything
else. A real run ended through `zodyssey run phase`, the installed hook command
as a process; on the old code every call below was allowed.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import clean_env
from tests.helpers.real_runs import plan_of, started
from tests.helpers.runs import Repo
from zodyssey.gate.install import hook_command

BLOCKED = [
    ("Bash", {"command": "rm -rf .zcode/verify"}),
    ("Bash", {"command": "echo '{}' > .zcode/state/demo.json"}),
    ("Bash", {"command": "rm -rf .zcode"}),
    ("Bash", {"command": "rm -rf .git/refs/zodyssey .git/logs/refs/zodyssey"}),
    ("Write", {"file_path": ".zcode/verify/demo/evidence.jsonl", "content": ""}),
    ("Edit", {"file_path": ".zcode/state/demo.json", "old_string": "done", "new_string": "x"}),
]
ALLOWED = [
    ("Bash", {"command": "echo hello > README.md"}),
    ("Bash", {"command": "ls .zcode/verify"}),
    ("Write", {"file_path": "src/new.py", "content": "x = 1\n"}),
    ("Read", {"file_path": ".zcode/state/demo.json"}),
]


def _ended(tmp_path: Path) -> Repo:
    repo = started(tmp_path, plan_of("    - `true` exits 0\n"))
    ended = repo.run("phase", "demo", "abandoned", "--reason", "stopped")
    assert ended.code == 0, ended.text
    assert list((repo.root / ".git" / "refs" / "zodyssey").rglob("*")), "no anchor"
    return repo


def _pre(repo: Repo, tool: str, tool_input: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    body = dict(tool_input)
    if "file_path" in body:
        body["file_path"] = str(repo.root / body["file_path"])
    payload = {
        "session_id": "s",
        "cwd": str(repo.root),
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": body,
        "tool_use_id": "toolu_1",
    }
    return subprocess.run(
        shlex.split(hook_command("pre-tool", "claude-code")),
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=clean_env(CLAUDE_PROJECT_DIR=str(repo.root)),
        cwd=repo.root,
        timeout=60,
        check=False,
    )


@pytest.fixture(scope="module")
def ended(tmp_path_factory: pytest.TempPathFactory) -> Repo:
    return _ended(tmp_path_factory.mktemp("past"))


@pytest.mark.parametrize(("tool", "tool_input"), BLOCKED)
def test_a_call_naming_a_finished_runs_record_is_blocked(
    ended: Repo, tool: str, tool_input: dict[str, Any]
) -> None:
    done = _pre(ended, tool, tool_input)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "record of finished runs" in done.stderr, done.stderr


@pytest.mark.parametrize(("tool", "tool_input"), ALLOWED)
def test_everything_else_passes_silently(
    ended: Repo, tool: str, tool_input: dict[str, Any]
) -> None:
    done = _pre(ended, tool, tool_input)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
