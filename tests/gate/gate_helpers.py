"""Helpers for the gate tests: real git repositories holding a run in the reference shape."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]

PLAN = """# Add a healthz endpoint
<!-- Files: [`secret/hidden.py`] must not grant anything -->
## Todos
- [ ] 1. Add the route
  - Files: [`src/server.py`, `tests/test_server.py`, `pkg/`]
  - Acceptance criteria:
    - `pytest -q tests/test_server.py` exits 0
- [ ] 2. Document it
  - Files: [`docs/api.md`]
  - Acceptance criteria:
    - `grep -q healthz docs/api.md`
## Must NOT have
Files: [`prose/granted.py`]
"""


class RunRepo:
    """A temporary git repository with one run (`demo`) under .zcode/."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.slug = "demo"

    @property
    def state_path(self) -> Path:
        return self.root / ".zcode" / "state" / f"{self.slug}.json"

    @property
    def plan_path(self) -> Path:
        return self.root / ".zcode" / "plans" / f"{self.slug}.md"

    def state(self) -> dict[str, Any]:
        value: dict[str, Any] = json.loads(self.state_path.read_text())
        return value

    def write_state(self, state: dict[str, Any]) -> None:
        self.state_path.write_text(json.dumps(state, indent=2))

    def set(self, **changes: Any) -> None:
        state = self.state()
        for key, value in changes.items():
            if key in ("verdict", "plan_sha256", "round", "max_rounds"):
                state["review"][key] = value
            else:
                state[key] = value
        self.write_state(state)

    def payload(self, tool_name: str, tool_input: dict[str, Any], **extra: Any) -> dict[str, Any]:
        body = {
            "session_id": "sess-1",
            "transcript_path": "/dev/null",
            "cwd": str(self.root),
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": tool_name,
            "tool_input": tool_input,
            "tool_use_id": "toolu_1",
        }
        body.update(extra)
        return body


def make_run_repo(
    base: Path,
    *,
    phase: str = "execute",
    verdict: str | None = "OKAY",
    plan: str = PLAN,
    bind_plan: bool = True,
) -> RunRepo:
    root = base / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for rel in ("src/server.py", "tests/test_server.py", "docs/api.md", "README.md"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x\n")
    repo = RunRepo(root)
    repo.plan_path.parent.mkdir(parents=True)
    repo.plan_path.write_text(plan)
    (root / ".zcode" / "state").mkdir(parents=True)
    state = {
        "slug": "demo",
        "title": "Add a healthz endpoint",
        "phase": phase,
        "started_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-01T00:00:00Z",
        "run_start_sha": "",
        "plan_path": str(repo.plan_path),
        "review": {
            "round": 1,
            "max_rounds": 3,
            "verdict": verdict,
            "plan_sha256": hashlib.sha256(plan.encode()).hexdigest() if bind_plan else None,
            "history": [],
            "blockers": [],
            "consumed_nonces": {},
        },
        "todos": {
            "1": {"status": "in_flight", "attempts": 1},
            "2": {"status": "pending", "attempts": 0},
        },
        "file_locks": {},
        "active_todos": {},
    }
    repo.write_state(state)
    return repo


def hook_env(project: Path | None, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k
        not in (
            "CLAUDE_PROJECT_DIR",
            "ZCODE_PROJECT_DIR",
            "ZODYSSEY_UNGATE_BASH",
            "ZODYSSEY_PARALLEL_CAP",
        )
    }
    env["PYTHONPATH"] = str(REPO)
    if project is not None:
        env["CLAUDE_PROJECT_DIR"] = str(project)
    env.update(extra)
    return env


def run_hook(
    payload: Any,
    project: Path | None,
    *args: str,
    event: str = "pre-tool",
    cwd: Path | None = None,
    **env: str,
) -> subprocess.CompletedProcess[str]:
    stdin = payload if isinstance(payload, str) else json.dumps(payload)
    return subprocess.run(
        [sys.executable, "-m", "zodyssey", "hook", event, *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=hook_env(project, **env),
        cwd=str(cwd) if cwd else None,
        check=False,
        timeout=60,
    )
