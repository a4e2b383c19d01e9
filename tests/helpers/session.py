"""Play an agent session the way Claude Code runs it: every tool call through the
real hook process, started with the very command `zodyssey hook install` writes
(`PYTHON -S -P .../zodyssey/gate/hook_entry.py pre-tool`), and only the calls
it allows carried out.

Bash calls that pass the gate run in a real `bash`; Write/Edit calls that pass
write the file; a Task call that passes is a subagent whose final answer the
harness reports to the post-tool hook (the reviewer's answer is its verdict). Nothing is mocked: the run commands the agent calls are
the real `zodyssey run ...` console script.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.helpers import make_repo, plan
from tests.helpers.gate import payload as hook_payload
from zodyssey.gate.install import hook_command

BIN = Path(sys.executable).parent  # the venv: `zodyssey` console script and `python`
ZODYSSEY = BIN / "zodyssey"


@dataclass
class Outcome:
    allowed: bool
    reason: str  # the hook's stderr when it blocked
    code: int | None = None  # exit code of the command, when it ran
    out: str = ""


class Session:
    """One agent session in `cwd`, gated for the project dir `project`."""

    def __init__(
        self, project: Path, cwd: Path | None = None, session_id: str = "sess-e2e"
    ) -> None:
        self.project = project
        self.cwd = cwd or project
        self.session_id = session_id
        self.calls = 0
        self.env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("ZODYSSEY_UNGATE_BASH", "ZODYSSEY_PARALLEL_CAP", "PYTHONPATH")
        }
        self.env["PATH"] = f"{BIN}{os.pathsep}{self.env.get('PATH', '')}"
        self.env["CLAUDE_PROJECT_DIR"] = str(project)
        self.env["PYTHONDONTWRITEBYTECODE"] = "1"

    def hook(
        self,
        tool_name: str,
        tool_input: dict[str, Any],
        event: str = "pre-tool",
        answer: str = "done",
    ) -> Outcome:
        self.calls += 1
        payload = hook_payload(
            tool_name,
            tool_input,
            cwd=self.cwd,
            session_id=self.session_id,
            transcript_path=str(self.project / ".transcript.jsonl"),
            hook_event_name="PreToolUse" if event == "pre-tool" else "PostToolUse",
            tool_use_id=f"toolu_{self.calls:04d}",
        )
        if event == "post-tool":
            payload["tool_use_id"] = tool_input.pop("_tool_use_id")
            payload["tool_response"] = {"content": [{"type": "text", "text": answer}]}
        done = subprocess.run(
            shlex.split(hook_command(event, "claude-code")),
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            cwd=self.cwd,
            env=self.env,
            timeout=60,
        )
        assert done.returncode in (0, 2), (done.returncode, done.stderr)
        assert "Traceback" not in done.stderr, done.stderr
        return Outcome(done.returncode == 0, done.stderr)

    def bash(self, command: str) -> Outcome:
        outcome = self.hook("Bash", {"command": command, "description": "agent shell"})
        if not outcome.allowed:
            return outcome
        done = subprocess.run(
            ["bash", "-c", command],
            capture_output=True,
            text=True,
            cwd=self.cwd,
            env=self.env,
            timeout=300,
        )
        return Outcome(True, "", done.returncode, done.stdout + done.stderr)

    def write(self, path: str, content: str) -> Outcome:
        target = Path(path) if os.path.isabs(path) else self.cwd / path
        outcome = self.hook("Write", {"file_path": str(target), "content": content})
        if outcome.allowed:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content, encoding="utf-8")
        return outcome

    def dispatch(
        self, agent: str, prompt: str = "review the plan", answer: str = "done"
    ) -> Outcome:
        """A Task call; when it passes, the subagent ran and answered `answer`."""
        tool_input = {"subagent_type": agent, "prompt": prompt, "description": "dispatch"}
        outcome = self.hook("Task", tool_input)
        if outcome.allowed:  # the subagent ran; the harness reports it back
            tool_use_id = f"toolu_{self.calls:04d}"
            self.hook(
                "Task", {**tool_input, "_tool_use_id": tool_use_id}, "post-tool", answer=answer
            )
        return outcome

    def review(self, verdict: str) -> Outcome:
        """The reviewer dispatched; its answer carries the verdict."""
        plans = sorted((self.project / ".zcode" / "plans").glob("*.md"))
        named = ""
        if len(plans) == 1:  # the shipped reviewer names the digest of the plan it read
            import hashlib

            named = f"PLAN-SHA256: {hashlib.sha256(plans[0].read_bytes()).hexdigest()}\n"
        return self.dispatch("momus", answer=f"Read the plan.\n{named}VERDICT: {verdict}\n")


def make_project(root: Path) -> Path:
    """A committed project: `greet()` returns 'hi', its test expects 'hello'."""
    return make_repo(
        root,
        {
            "src/app.py": "def greet():\n    return 'hi'\n",
            "tests/test_app.py": "import sys\nsys.path.insert(0, 'src')\nfrom app import greet\n\n\n"
            "def test_greet():\n    assert greet() == 'hello'\n",
            "README.md": "demo\n",
        },
    )


TEST_COMMAND = "python -m pytest -q -p no:cacheprovider tests/test_app.py"
PLAN = plan(
    "Say hello",
    [("Make greet say hello", ["src/app.py"], [f"`{TEST_COMMAND}` exits 0"])],
    final=["Plan compliance audit"],
)
