"""`zodyssey run` helpers: a repository wrapped with the run CLI, its state and reviews."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.helpers import git, plan, run_zodyssey, write
from tests.helpers import make_repo as _make_repo
from zodyssey.core.store import RunStore

PLAN = plan(
    "Add a greeting",
    [
        (
            "Write the greeting",
            ["greeting.txt"],
            ["`test -f greeting.txt` exits 0", "`grep -q hello greeting.txt`"],
        ),
        ("Document it", ["docs/greeting.md"], ["`grep -q greeting docs/greeting.md`"]),
    ],
    final=["Plan compliance audit"],
)


@dataclass
class Result:
    code: int
    out: str
    err: str

    @property
    def text(self) -> str:
        return self.out + self.err


@dataclass
class Repo:
    root: Path

    def write(self, rel: str, text: str) -> Path:
        return write(self.root, rel, text)

    def git(self, *args: str) -> str:
        return git(self.root, *args)

    def commit(self, message: str = "change") -> None:
        self.git("add", "-A", "--", ".", ":(exclude).zcode")
        self.git("commit", "-q", "-m", message)

    def run(self, *args: str, stdin: str | None = None) -> Result:
        done = run_zodyssey("run", *args, cwd=self.root, stdin=stdin)
        return Result(done.returncode, done.stdout, done.stderr)

    def state(self, slug: str = "demo") -> dict[str, Any]:
        return RunStore(self.root, slug).read()

    def hook(self, event: str, body: dict[str, Any], harness: str = "claude-code") -> Result:
        """`zodyssey hook EVENT --harness H` with `body` on stdin, as the harness runs it."""
        done = run_zodyssey(
            "hook",
            event,
            "--harness",
            harness,
            cwd=self.root,
            env={"CLAUDE_PROJECT_DIR": str(self.root)},
            stdin=json.dumps(body),
        )
        return Result(done.returncode, done.stdout, done.stderr)

    def dispatch_reviewer(self, tool_use_id: str = "toolu_review_1", **extra: Any) -> Result:
        """The orchestrator dispatches the reviewer: Claude Code's PreToolUse of `Agent`.

        The call goes into the session's transcript as Claude Code writes it
        (the audit cross-checks a verdict against it)."""
        body = reviewer_payload(self.root, tool_use_id, **extra)
        line = {
            "type": "assistant",
            "sessionId": body["session_id"],
            "message": {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": tool_use_id,
                        "name": body["tool_name"],
                        "input": body["tool_input"],
                    }
                ],
            },
        }
        with open(transcript_of(self.root), "a", encoding="utf-8") as handle:
            handle.write(json.dumps(line) + "\n")
        return self.hook("pre-tool", body)

    def report_reviewer(
        self, answer: Any, tool_use_id: str = "toolu_review_1", **extra: Any
    ) -> Result:
        """The harness reports the reviewer's final answer: PostToolUse of that `Agent` call."""
        body = reviewer_payload(self.root, tool_use_id, **extra)
        body["hook_event_name"] = "PostToolUse"
        if isinstance(answer, str):
            answer = {"content": [{"type": "text", "text": answer}], "status": "completed"}
        body["tool_response"] = answer
        return self.hook("post-tool", body)

    def plan_digest(self, slug: str = "demo") -> str:
        """What the shipped reviewer's `sha256sum` prints for the run's plan now (the one
        plan there is when run `slug` has none)."""
        plans = self.root / ".zcode" / "plans"
        path = plans / f"{slug}.md"
        if not path.is_file():
            (path,) = plans.glob("*.md")
        return hashlib.sha256(path.read_bytes()).hexdigest()

    def answer(self, verdict: str, slug: str = "demo") -> str:
        """The reviewer's answer in the shipped form: the digest of the plan it read
        (the plan on disk now), then the verdict."""
        return f"I read the plan.\n\nPLAN-SHA256: {self.plan_digest(slug)}\nVERDICT: {verdict}\n"

    def review_by_reviewer(self, verdict: str, tool_use_id: str = "toolu_review_1") -> Result:
        """A whole review round as the real reviewer gives it, through the real hooks."""
        dispatched = self.dispatch_reviewer(tool_use_id)
        assert dispatched.code == 0, dispatched.text
        return self.report_reviewer(self.answer(verdict) + "BLOCKERS:\n- none\n", tool_use_id)

    def approve(self, slug: str = "demo") -> Result:
        assert slug == "demo", "the reviewer helpers drive run demo"
        result = self.review_by_reviewer("OKAY")
        state = self.state(slug)
        assert state["review"]["verdict"] == "OKAY", (result.text, state["review"])
        return result


def transcript_of(root: Path) -> Path:
    """The harness's session transcript (outside the repository, as Claude Code keeps it)."""
    return root.parent / f"{root.name}-transcript.jsonl"


def reviewer_payload(root: Path, tool_use_id: str, **extra: Any) -> dict[str, Any]:
    """Claude Code's hook payload for an `Agent` call dispatching the reviewer (momus)."""
    body: dict[str, Any] = {
        "session_id": "sess-orchestrator",
        "transcript_path": str(transcript_of(root)),
        "cwd": str(root),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Agent",
        "tool_input": {
            "subagent_type": "momus",
            "description": "review the plan",
            "prompt": "Review the plan in .zcode/plans/demo.md and answer with one VERDICT line.",
        },
        "tool_use_id": tool_use_id,
    }
    body.update(extra)
    return body


def make_repo(root: Path) -> Repo:
    """A repository with one committed README, wrapped for `zodyssey run`."""
    return Repo(_make_repo(root, {"README.md": "demo\n"}))
