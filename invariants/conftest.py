"""Shared fixtures of the invariants suite: real git repositories, real processes.

Every helper runs the REAL command (`python -m zodyssey ...`) in a subprocess of
this interpreter, so the suite judges whatever `zodyssey` package is first on
`PYTHONPATH`: the working tree normally, a sabotaged copy in the deletion drill.
Run state is written in the reference layout (`.zcode/state/<slug>.json`, plan
at `.zcode/plans/<slug>.md`), the very files the gate reads during a run.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

# Set in the sub-session of the deletion drill so the drill does not recurse.
DRILL_ENV = "ZODYSSEY_INVARIANTS_DRILL"

_SCRUBBED = {
    "CLAUDE_PROJECT_DIR",
    "ZCODE_PROJECT_DIR",
    "GITHUB_STEP_SUMMARY",
    "ZODYSSEY_UNGATE_BASH",
    "ZODYSSEY_PARALLEL_CAP",
    "PYTEST_ADDOPTS",
}

PLAN = """\
# Demo change
## Todos
- [ ] 1. Add the module
  - Files: [`src/app.py`, `lib/`]
  - Acceptance criteria:
    - `test -f src/app.py`
"""


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _SCRUBBED}
    env["NO_COLOR"] = "1"
    env.update(extra)
    return env


@dataclass
class Outcome:
    """What the hook process did with one tool call, read the Claude Code way."""

    code: int
    stdout: str
    stderr: str

    @property
    def blocked(self) -> bool:
        # Claude Code blocks on exit 2, or on exit 0 with a deny decision on stdout.
        if self.code == 2:
            return True
        return self.code == 0 and '"deny"' in self.stdout

    @property
    def allowed(self) -> bool:
        return self.code == 0 and not self.blocked


class Lab:
    """Builds repositories and runs the real commands against them."""

    outcome_type: type[Outcome] = Outcome

    def __init__(self, base: Path) -> None:
        self.base = base

    def repo(self, name: str = "repo", *, git: bool = True) -> Path:
        path = self.base / name
        path.mkdir(parents=True, exist_ok=True)
        if git:
            subprocess.run(["git", "init", "-q", str(path)], check=True)
            subprocess.run(
                ["git", "-C", str(path), "config", "user.email", "t@example.invalid"], check=True
            )
            subprocess.run(["git", "-C", str(path), "config", "user.name", "Tester"], check=True)
        return path

    def commit(self, repo: Path, message: str = "change") -> None:
        subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
        subprocess.run(["git", "-C", str(repo), "commit", "-q", "-m", message], check=True)

    def zodyssey(
        self, *args: str, cwd: Path, stdin: str | None = None, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "zodyssey", *args],
            cwd=cwd,
            input=stdin,
            capture_output=True,
            text=True,
            env=env or clean_env(),
            timeout=180,
        )

    def hook(self, repo: Path, payload: dict[str, Any] | str, event: str = "pre-tool") -> Outcome:
        """The hook as Claude Code runs it (`event`: pre-tool, or post-tool after a call)."""
        stdin = payload if isinstance(payload, str) else json.dumps(payload)
        done = self.zodyssey(
            "hook", event, cwd=repo, stdin=stdin, env=clean_env(CLAUDE_PROJECT_DIR=str(repo))
        )
        return Outcome(done.returncode, done.stdout, done.stderr)

    def installed_hook(self, repo: Path, payload: dict[str, Any]) -> tuple[Outcome, set[str]]:
        """The command `zodyssey hook install` writes, run under `-X importtime`:
        what it decided, and the name of every module it imported."""
        from zodyssey.gate.install import hook_command

        argv = shlex.split(hook_command("pre-tool", "claude-code"))
        done = subprocess.run(
            [argv[0], "-X", "importtime", *argv[1:]],
            cwd=repo,
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            env=clean_env(CLAUDE_PROJECT_DIR=str(repo)),
            timeout=180,
        )
        lines = done.stderr.splitlines()
        timed = [line for line in lines if line.startswith("import time:")]
        rest = "\n".join(line for line in lines if not line.startswith("import time:"))
        names = {line.rsplit("|", 1)[1].strip() for line in timed if "|" in line}
        return Outcome(done.returncode, done.stdout, rest), names

    @staticmethod
    def bash(repo: Path, command: str) -> dict[str, Any]:
        return {
            "session_id": "s1",
            "cwd": str(repo),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
        }

    @staticmethod
    def write(repo: Path, path: str, content: str = "x = 1\n") -> dict[str, Any]:
        target = path if os.path.isabs(path) else str(repo / path)
        return {
            "session_id": "s1",
            "cwd": str(repo),
            "hook_event_name": "PreToolUse",
            "tool_name": "Write",
            "tool_input": {"file_path": target, "content": content},
        }

    @staticmethod
    def edit(repo: Path, path: str) -> dict[str, Any]:
        return {
            "session_id": "s1",
            "cwd": str(repo),
            "hook_event_name": "PreToolUse",
            "tool_name": "Edit",
            "tool_input": {"file_path": str(repo / path), "old_string": "a", "new_string": "b"},
        }

    def start_run(
        self,
        repo: Path,
        *,
        slug: str = "demo",
        verdict: str | None = None,
        phase: str | None = None,
        plan: str = PLAN,
    ) -> Path:
        """Write an active run's state and plan as the trusted writers leave them.

        With verdict OKAY the plan's sha256 is bound, as `zodyssey run review` does."""
        plan_path = repo / ".zcode" / "plans" / f"{slug}.md"
        plan_path.parent.mkdir(parents=True, exist_ok=True)
        plan_path.write_text(plan, encoding="utf-8")
        for directory in ("src", "lib"):
            (repo / directory).mkdir(exist_ok=True)
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        okay = verdict == "OKAY"
        state: dict[str, Any] = {
            "slug": slug,
            "title": "Demo change",
            "phase": phase or ("execute" if okay else "plan"),
            "started_at": now,
            "updated_at": now,
            "run_start_sha": "",
            "plan_path": str(plan_path.resolve()),
            "review": {
                "round": 1 if verdict else 0,
                "max_rounds": 3,
                "verdict": verdict,
                "plan_sha256": hashlib.sha256(plan.encode("utf-8")).hexdigest() if okay else None,
                "history": [],
                "blockers": [],
                "consumed_nonces": {},
            },
            "todos": {"1": {"status": "in_flight" if okay else "pending", "attempts": 0}},
            "file_locks": {},
            "active_todos": {},
        }
        state_path = repo / ".zcode" / "state" / f"{slug}.json"
        state_path.parent.mkdir(parents=True, exist_ok=True)
        state_path.write_text(json.dumps(state, indent=2) + "\n", encoding="utf-8")
        return state_path


@pytest.fixture
def lab(tmp_path: Path) -> Lab:
    return Lab(tmp_path)


@pytest.fixture
def corpus() -> list[dict[str, Any]]:
    """The published shell-classification corpus (a floor, not the whole space)."""
    path = Path(__file__).resolve().parent / "data" / "bash-corpus.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]
