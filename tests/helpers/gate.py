"""Gate helpers, two levels.

The policy as a pure function: `ctx(root, ...)` builds the RunContext,
`call(tool, tool_input, root)` (and `write`, `bash`, `dispatch`) the ToolCall,
`blocked(decision, rule)` asserts a refusal; `policy_root(tmp_path)` is the
repository they judge (the `root` fixture of tests/gate/conftest.py).

The real hook process: `make_run_repo(base)` is a git repository holding run
`demo` in the reference shape, `payload(tool, tool_input, cwd=...)` the hook's
stdin, `run_hook(payload, project, ...)` runs `zodyssey hook <event>`.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.helpers import REPO_ROOT, clean_env, make_repo, plan
from zodyssey.gate.context import DEFAULT_SETTINGS, GateSettings, RunContext, plan_view
from zodyssey.gate.harness import get_harness
from zodyssey.gate.paths import Layout
from zodyssey.gate.policy import Decision
from zodyssey.gate.toolcall import ToolCall, build_call

REPO = REPO_ROOT

PLAN = plan(
    "Add a healthz endpoint",
    [
        (
            "Add the route",
            ["src/server.py", "tests/test_server.py", "pkg/"],
            ["`pytest -q tests/test_server.py` exits 0"],
        ),
        ("Document it", ["docs/api.md"], ["`grep -q healthz docs/api.md`"]),
    ],
    preamble="<!-- Files: [`secret/hidden.py`] must not grant anything -->",
    epilogue="## Must NOT have\nFiles: [`prose/granted.py`]",
)


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
        return payload(tool_name, tool_input, **{"cwd": str(self.root), **extra})


def make_run_repo(
    base: Path,
    *,
    phase: str = "execute",
    verdict: str | None = "OKAY",
    plan: str = PLAN,
    bind_plan: bool = True,
) -> RunRepo:
    root = make_repo(base / "repo", commit=False)
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
    env = clean_env(PYTHONPATH=str(REPO))
    if project is not None:
        env["CLAUDE_PROJECT_DIR"] = str(project)
    env.update(extra)
    return env


def with_importtime(argv: list[str], stdin: str, env: dict[str, str]) -> tuple[int, str, set[str]]:
    """Run `argv` (an interpreter first) under `-X importtime`: (exit code, stderr
    without the importtime lines, the name of every module it imported)."""
    result = subprocess.run(
        [argv[0], "-X", "importtime", *argv[1:]],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=60,
    )
    lines = result.stderr.splitlines()
    timed = [line for line in lines if line.startswith("import time:") and "|" in line]
    names = {line.rsplit("|", 1)[1].strip() for line in timed}
    rest = "\n".join(line for line in lines if not line.startswith("import time:"))
    return result.returncode, rest, names


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


def payload(
    tool_name: str, tool_input: dict[str, Any], *, cwd: Path, **extra: Any
) -> dict[str, Any]:
    """What Claude Code sends a PreToolUse hook; `extra` overrides or adds fields."""
    body: dict[str, Any] = {
        "session_id": "sess-1",
        "transcript_path": "/dev/null",
        "cwd": str(cwd),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": tool_name,
        "tool_input": tool_input,
        "tool_use_id": "toolu_1",
    }
    body.update(extra)
    return body


# -- the policy as a pure function

NOW = 1_800_000_000.0  # a fixed clock: 2027-01-15
ISO_NOW = "2027-01-15T08:00:00Z"


def iso(seconds_ago: float) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(NOW - seconds_ago, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def policy_root(tmp_path: Path) -> Path:
    """The repository the policy-level tests judge (no git needed: the policy reads files)."""
    base = tmp_path / "repo"
    for rel in ("src/server.py", "tests/test_server.py", ".zcode/notepads/demo/notes.md"):
        (base / rel).parent.mkdir(parents=True, exist_ok=True)
        (base / rel).write_text("x\n")
    (base / ".zcode" / "state").mkdir(parents=True)
    (base / ".zcode" / "plans").mkdir(parents=True)
    return base.resolve()


def ctx(
    root: Path,
    *,
    phase: str = "execute",
    verdict: str | None = "OKAY",
    plan: str | None = PLAN,
    bound: str | None = "match",
    locks: dict[str, Any] | None = None,
    inflight: list[dict[str, Any]] | None = None,
    todos: dict[str, Any] | None = None,
    settings: GateSettings = DEFAULT_SETTINGS,
    ungated: bool = False,
    cap: int = 4,
    plan_file: str | None = None,
    active: dict[str, Any] | None = None,
    review_round: int = 2,
) -> RunContext:
    layout = Layout(str(root))
    plan_file = plan_file or str(root / ".zcode" / "plans" / "demo.md")
    text = plan.encode() if plan is not None else None
    sha = hashlib.sha256(text).hexdigest() if (text is not None and bound == "match") else bound
    state = {
        "slug": "demo",
        "phase": phase,
        "plan_path": plan_file,
        "review": {"round": review_round, "max_rounds": 3, "verdict": verdict, "plan_sha256": sha},
        "todos": todos or {"1": {"status": "in_flight"}},
        "file_locks": locks or {},
        "active_todos": active or {},
    }
    return RunContext(
        layout,
        "demo",
        state,
        plan=plan_view(plan_file, text, str(root)),
        inflight=inflight or [],
        settings=settings,
        now=NOW,
        home=str(root.parent / "home"),
        ungated=ungated,
        cap=cap,
    )


def call(
    tool: str, tool_input: Any, root: Path, *, harness: str = "claude-code", **extra: Any
) -> ToolCall:
    """A tool call as `harness` sends it (Claude Code by default); `extra` adds payload fields."""
    payload = {"cwd": str(root), "session_id": "s1", "tool_use_id": "t1", **extra}
    return build_call(
        harness, tool, tool_input, payload, shell_keys=get_harness(harness).shell_keys
    )


def write(root: Path, path: str, **extra: Any) -> ToolCall:
    return call("Write", {"file_path": path, "content": "x"}, root, **extra)


def bash(root: Path, command: str, **extra: Any) -> ToolCall:
    return call("Bash", {"command": command}, root, **extra)


def blocked(decision: Decision, rule: str) -> None:
    assert not decision.allow, decision
    assert decision.rule == rule, decision


def dispatch(root: Path, agent: str, prompt: str = "do the thing") -> ToolCall:
    return call("Task", {"subagent_type": agent, "prompt": prompt, "description": "d"}, root)
