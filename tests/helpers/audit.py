"""Crafted run artifacts for the audit tests: one honest run per source, then break it.

`OursRun` writes what `zodyssey run` writes (state per `zodyssey/runs/models.py`,
evidence through the real chain writer `zodyssey.runs.evidence.append_record`).
`JsRun` writes what the JavaScript pipeline's scripts write (record-verify.mjs,
record-momus-artifact.mjs, record-review.mjs, consult.mjs).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

from tests.helpers import REPO_ROOT, plan, run_zodyssey
from zodyssey.core.paths import evidence_path
from zodyssey.runs.evidence import append_record, capture_output

PLAN = plan(
    "Add a greeting",
    [
        (
            "Write the greeting",
            ["greeting.txt"],
            ["`test -f greeting.txt` exits 0", "`grep -q hello greeting.txt`"],
        ),
        ("Document it", ["README.md"], ["`grep -q greeting README.md`"]),
    ],
)

CRITERIA = {
    ("1", 1): "`test -f greeting.txt` exits 0",
    ("1", 2): "`grep -q hello greeting.txt`",
    ("2", 1): "`grep -q greeting README.md`",
}


def sha(data: str | bytes) -> str:
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return hashlib.sha256(raw).hexdigest()


def ts(minute: int, second: int = 0) -> str:
    return f"2026-03-01T10:{minute:02d}:{second:02d}.000000Z"


def audit_cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # From the repository root (not `root`, which may be missing on purpose).
    return run_zodyssey("audit", "--repo", str(root), *args, cwd=REPO_ROOT)


def rules_of(payload: dict[str, Any], severity: str | None = None) -> set[str]:
    return {f["rule"] for f in payload["findings"] if severity is None or f["severity"] == severity}


def audit_json(root: Path, slug: str, *args: str) -> tuple[int, dict[str, Any]]:
    result = audit_cli(root, slug, "--format", "json", *args)
    assert result.returncode in (0, 1, 4), result.stderr
    assert "Traceback" not in result.stderr
    return result.returncode, json.loads(result.stdout)


@dataclass
class _RunFiles:
    """A run's plan and state files under `root/.zcode`, in either pipeline's layout."""

    root: Path
    slug: str = "greet"
    plan: str = PLAN
    state: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        (self.root / ".zcode" / "plans").mkdir(parents=True, exist_ok=True)
        (self.root / ".zcode" / "state").mkdir(parents=True, exist_ok=True)
        self.plan_file.write_text(self.plan, encoding="utf-8")

    @property
    def plan_file(self) -> Path:
        return self.root / ".zcode" / "plans" / f"{self.slug}.md"

    @property
    def state_file(self) -> Path:
        return self.root / ".zcode" / "state" / f"{self.slug}.json"

    def write(self) -> Self:
        self.state_file.write_text(json.dumps(self.state, indent=2) + "\n", encoding="utf-8")
        return self


@dataclass
class OursRun(_RunFiles):
    def __post_init__(self) -> None:
        super().__post_init__()
        self.state = {
            "slug": self.slug,
            "title": "Add a greeting",
            "phase": "plan",
            "started_at": ts(0),
            "updated_at": ts(0),
            "run_start_sha": "",
            "plan_path": str(self.plan_file),
            "review": {
                "round": 0,
                "max_rounds": 3,
                "verdict": None,
                "plan_sha256": None,
                "history": [],
                "blockers": [],
                "consumed_nonces": {},
            },
            "todos": {
                "1": {"status": "pending", "attempts": 0},
                "2": {"status": "pending", "attempts": 0},
            },
            "gate_log": [],
            "phase_history": [],
            "windows": [],
            "evidence": {"count": 0, "head": "0" * 64},
            "created_by": "zodyssey 0.1.0",
        }

    @property
    def evidence_file(self) -> Path:
        return evidence_path(self.root, self.slug)

    @property
    def plan_sha(self) -> str:
        return sha(self.plan_file.read_bytes())

    def review(
        self,
        verdict: str = "OKAY",
        nonce: str = "nonce-1",
        minute: int = 1,
        human: str | None = None,
    ) -> None:
        review = self.state["review"]
        number = review["round"] + 1
        artifact = self.root / ".zcode" / "reviews" / f"{self.slug}-r{number}.json"
        artifact.parent.mkdir(parents=True, exist_ok=True)
        body = {
            "slug": self.slug,
            "round": number,
            "verdict": verdict,
            "blockers": [],
            "source": "human" if human else "agent",
            "by": human,
            "nonce": None if human else nonce,
            "plan_sha256": self.plan_sha,
            "recorded_at": ts(minute),
        }
        data = (json.dumps(body, indent=2) + "\n").encode()
        artifact.write_bytes(data)
        review["round"] = number
        review["verdict"] = verdict
        if verdict == "OKAY":
            review["plan_sha256"] = self.plan_sha
        review["history"].append(
            {
                "round": number,
                "at": ts(minute),
                "verdict": verdict,
                "blockers": [],
                "source": "human" if human else "agent",
                "by": human,
                "nonce": None if human else nonce,
                "artifact": str(artifact),
                "artifact_sha256": sha(data),
                "plan_sha256": self.plan_sha,
            }
        )
        if not human:
            review["consumed_nonces"][nonce] = {
                "round": number,
                "at": ts(minute),
                "artifact": str(artifact),
                "artifact_sha256": sha(data),
            }
        if verdict == "OKAY":
            self.phase("execute", minute)

    def phase(self, target: str, minute: int) -> None:
        self.state["phase_history"].append(
            {"from": self.state["phase"], "to": target, "at": ts(minute)}
        )
        self.state["phase"] = target

    def _append(self, record: dict[str, Any]) -> dict[str, Any]:
        done = append_record(self.root, self.slug, record)
        self.state["evidence"] = {
            "count": done["seq"],
            "head": done["hash"],
            "path": str(self.evidence_file),
        }
        return done

    def criterion(
        self,
        todo: str,
        index: int,
        exit_code: int = 0,
        minute: int = 5,
        text: str | None = None,
        plan_sha: str | None = None,
        stdout: bytes = b"ok\n",
        duration: float = 0.25,
    ) -> dict[str, Any]:
        text = CRITERIA[(todo, index)] if text is None else text
        return self._append(
            {
                "kind": "criterion",
                "slug": self.slug,
                "todo": todo,
                "criterion_index": index,
                "criterion_text": text,
                "criterion_sha256": sha(text),
                "command": text.split("`")[1] if "`" in text else text,
                "cwd": str(self.root),
                "started_at": ts(minute),
                "finished_at": ts(minute, 1),
                "duration_s": duration,
                "exit_code": exit_code,
                "signal": None,
                "timed_out": False,
                "timeout_s": 600.0,
                "stdout": capture_output(self.root, self.slug, stdout),
                "stderr": capture_output(self.root, self.slug, b""),
                "head_before": None,
                "head_after": None,
                "tree_before": None,
                "tree_after": None,
                "plan_sha256": self.plan_sha if plan_sha is None else plan_sha,
                "passed": exit_code == 0,
            }
        )

    def window(
        self, label: str = "external audit", violation: bool | None = False, minute: int = 20
    ) -> None:
        done = self._append(
            {
                "kind": "window",
                "slug": self.slug,
                "label": label,
                "argv": ["true"],
                "command": "true",
                "cwd": str(self.root),
                "started_at": ts(minute),
                "finished_at": ts(minute, 30),
                "duration_s": 30.0,
                "exit_code": 0,
                "timed_out": False,
                "plan_sha256": self.plan_sha,
                "passed": violation is False,
                "readOnlyViolation": violation,
                "changed_paths": ["greeting.txt"] if violation else [],
            }
        )
        self.state["windows"].append(
            {
                "label": label,
                "at": ts(minute, 30),
                "readOnlyViolation": violation,
                "exit_code": 0,
                "seq": done["seq"],
            }
        )

    def done(self, todo: str, forced_reason: str | None = None, minute: int = 10) -> None:
        entry: dict[str, Any] = {"status": "done", "attempts": 1, "updated_at": ts(minute)}
        if forced_reason is not None:
            entry.update(forced=True, forced_reason=forced_reason, forced_at=ts(minute))
            self._append(
                {
                    "kind": "override",
                    "slug": self.slug,
                    "subject": f"todo {todo} done",
                    "reason": forced_reason,
                    "by": "zodyssey run todo",
                    "started_at": ts(minute),
                    "finished_at": ts(minute),
                    "duration_s": 0.0,
                    "passed": False,
                }
            )
        self.state["todos"][todo] = entry

    def honest(self) -> OursRun:
        """Reviewed, every criterion executed and passing, todos done, a clean window."""
        self.review("OKAY")
        self.criterion("1", 1, minute=5)
        self.criterion("1", 2, minute=6)
        self.done("1", minute=7)
        self.criterion("2", 1, minute=8)
        self.done("2", minute=9)
        self.phase("done", 15)
        self.window()
        self.phase("audited", 25)
        return self.write()


@dataclass
class JsRun(_RunFiles):
    artifacts: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        super().__post_init__()
        self.state = {
            "slug": self.slug,
            "title": "Add a greeting",
            "phase": "plan",
            "started_at": "2026-03-01T10:00:00.000Z",
            "updated_at": "2026-03-01T10:30:00.000Z",
            "run_start_sha": "",
            "plan_path": str(self.plan_file),
            "review": {"round": 0, "max_rounds": 3, "verdict": None, "history": [], "blockers": []},
            "todos": {},
            "file_locks": {},
            "active_todos": {},
        }

    def review(self, verdict: str = "OKAY", nonce: str = "n-1") -> None:
        review = self.state["review"]
        number = review["round"] + 1
        path = self.root / ".zcode" / "reviews" / f"{self.slug}-r{number}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        body = {
            "verdict": verdict,
            "blockers": [],
            "_provenance": {
                "slug": self.slug,
                "round": number,
                "nonce": nonce,
                "momus_session": None,
                "recorded_at": "2026-03-01T10:01:00.000Z",
            },
        }
        data = (json.dumps(body, indent=2) + "\n").encode()
        path.write_bytes(data)
        plan_sha = sha(self.plan_file.read_bytes())
        review.setdefault("consumed_nonces", {})[nonce] = {
            "artifact": str(path),
            "sha256": sha(data),
            "round": number,
            "at": "2026-03-01T10:01:00.000Z",
            "plan_sha256": plan_sha,
        }
        review.update(round=number, verdict=verdict, momus_artifact=str(path))
        if verdict == "OKAY":
            review["plan_sha256"] = plan_sha
            self.state["phase"] = "execute"
        review["history"].append(
            {"round": number, "at": "2026-03-01T10:01:00.000Z", "verdict": verdict, "blockers": []}
        )

    def verify(
        self,
        todo: str,
        index: int,
        exit_code: int = 0,
        executed: bool = True,
        command: str | None = None,
        minute: int = 5,
    ) -> None:
        text = CRITERIA[(todo, index)]
        command = text.split("`")[1] if command is None else command
        at = f"2026-03-01T10:{minute:02d}:00.000Z"
        passed = exit_code == 0
        folder = self.root / ".zcode" / "verify" / self.slug
        folder.mkdir(parents=True, exist_ok=True)
        artifact = {
            "slug": self.slug,
            "todo_id": todo,
            "criterion_index": index,
            "criterion": command,
            "exit_code": exit_code,
            "passed": passed,
            "status": "passed" if passed else "failed",
            "flaky": False,
            "flake_check": False,
            "executed": executed,
            "output": "out\n",
            "recorded_at": at,
        }
        (folder / f"{todo}-{index}.json").write_text(json.dumps(artifact, indent=2))
        verify = self.state.setdefault(
            "verify", {"total": 0, "passed": 0, "failed": 0, "flaky": 0, "history": []}
        )
        verify["history"] = [
            h
            for h in verify["history"]
            if not (h["todo_id"] == todo and h["criterion_index"] == index)
        ]
        verify["history"].append(
            {
                "todo_id": todo,
                "criterion_index": index,
                "passed": passed,
                "status": "passed" if passed else "failed",
                "flaky": False,
                "criterion": command,
                "exit_code": exit_code,
                "worktree": None,
                "at": at,
                "artifact": str(folder / f"{todo}-{index}.json"),
            }
        )
        verify["total"] = len(verify["history"])
        verify["passed"] = sum(1 for h in verify["history"] if h["passed"])
        verify["failed"] = verify["total"] - verify["passed"]

    def done(self, todo: str, forced: bool = False) -> None:
        entry: dict[str, Any] = {"status": "done", "attempts": 1, "verified": not forced}
        if forced:
            entry.update(forced=True, forced_reason="no verify evidence")
        self.state["todos"][todo] = entry

    def consult(self, violation: Any = False, present: bool = True) -> None:
        entry: dict[str, Any] = {
            "round": 1,
            "at": "2026-03-01T10:20:00.000Z",
            "verdict": "ACCEPT",
            "summary": "fine",
            "gaps": [],
            "advisories": [],
        }
        if present:
            entry["readOnlyViolation"] = violation
        self.state.setdefault("consult", {"rounds": 0, "verdict": None, "history": []})
        self.state["consult"]["history"].append(entry)
        self.state["consult"]["rounds"] += 1

    def final_wave(self, passed: bool = True, waived: list[str] | None = None) -> None:
        """What record-final-wave.mjs writes: `state.final` and `final-wave.json`."""
        at = "2026-03-01T10:15:00.000Z"
        results = {
            name: (
                {"passed": True, "skipped": True} if name in (waived or []) else {"passed": passed}
            )
            for name in ("F1", "F2", "F3", "F4", "F5")
        }
        folder = self.root / ".zcode" / "verify" / self.slug
        folder.mkdir(parents=True, exist_ok=True)
        artifact = folder / "final-wave.json"
        artifact.write_text(
            json.dumps({"slug": self.slug, "at": at, "results": results, "all_pass": passed})
        )
        self.state["final"] = {
            "verdict": "pass" if passed else "fail",
            "at": at,
            "results": results,
            "artifact": str(artifact),
        }
        if waived:
            self.state["final"].update(waived=waived, waived_reason="no reviewer")

    def honest(self) -> JsRun:
        self.review("OKAY")
        self.verify("1", 1, minute=5)
        self.verify("1", 2, minute=6)
        self.done("1")
        self.verify("2", 1, minute=8)
        self.done("2")
        self.final_wave()
        self.state["phase"] = "done"
        self.consult(False)
        return self.write()


def audit_inproc(root: Path, target: str, strict: bool = False) -> dict[str, Any]:
    """The JSON payload, computed in this process (fast; the CLI tests cover the process)."""
    from zodyssey.audit.checks import audit
    from zodyssey.audit.load import load_run
    from zodyssey.audit.report import build_report

    report = build_report(audit(load_run(target, str(root)), strict=strict))
    assert report.payload is not None
    return report.payload


def finding(payload: dict[str, Any], rule: str) -> dict[str, Any]:
    for item in payload["findings"]:
        if item["rule"] == rule:
            return item
    raise AssertionError(f"no {rule} finding in {[f['rule'] for f in payload['findings']]}")
