"""What every `zodyssey run` command needs: the run's store, its plan, its gate log."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from zodyssey.core.exits import Exit
from zodyssey.core.files import read_regular
from zodyssey.core.paths import plan_location
from zodyssey.core.plan import Plan, parse_plan, plan_sha256
from zodyssey.core.store import RunStore, StateError, now_iso
from zodyssey.core.vocabulary import PHASES
from zodyssey.errors import ZodysseyError

# Fields the commands read as objects or lists: a state file edited by hand (or
# by an agent) into another shape is an unreadable state (exit 2), not a crash.
_OBJECT_FIELDS = ("review", "todos", "verify", "acceptance", "evidence", "file_locks")
_LIST_FIELDS = ("gate_log", "windows", "phase_history")


def check_state_shape(state: dict[str, Any], path: Path | str) -> dict[str, Any]:
    """`state` when the fields the commands rely on have their documented types."""
    phase = state.get("phase")
    if phase is not None and phase not in PHASES:
        raise StateError(f"{path}: `phase` is {phase!r}, not one of {', '.join(PHASES)}")
    for names, kind, word in ((_OBJECT_FIELDS, dict, "object"), (_LIST_FIELDS, list, "list")):
        for name in names:
            value = state.get(name)
            if value is not None and not isinstance(value, kind):
                raise StateError(f"{path}: `{name}` must be a JSON {word}")
    todos = state.get("todos") or {}
    for todo_id, todo in todos.items():
        if not isinstance(todo, dict):
            raise StateError(f"{path}: todo {todo_id!r} must be a JSON object")
    return state


@dataclass(frozen=True)
class LoadedPlan:
    path: Path
    text: str
    sha256: str
    plan: Plan


def gate_entry(
    state: dict[str, Any],
    command: str,
    decision: str,
    *,
    by: str | None = None,
    subject: str | None = None,
    reason: str | None = None,
    override_reason: str | None = None,
) -> dict[str, Any]:
    """Append one decision to the run-level gate log (inside a store mutation)."""
    entry = {
        "at": now_iso(),
        "command": command,
        "phase": state.get("phase"),
        "decision": decision,
        "by": by or f"zodyssey run {command}",
        "subject": subject,
        "reason": reason,
        "override_reason": override_reason,
    }
    log = state.get("gate_log")
    if not isinstance(log, list):
        log = state["gate_log"] = []
    log.append(entry)
    return entry


class RunRefused(ZodysseyError):
    """A step the run state does not allow; already written to the gate log."""


@dataclass
class RunContext:
    root: Path
    store: RunStore

    @classmethod
    def open(cls, repo: str | None, slug: str) -> RunContext:
        root = Path(repo or ".").resolve()
        if not root.is_dir():
            raise ZodysseyError(f"--repo {repo}: not a directory", Exit.USAGE)
        return cls(root, RunStore(root, slug))

    @property
    def slug(self) -> str:
        return self.store.slug

    def state(self) -> dict[str, Any]:
        try:
            state = self.store.read()
        except RecursionError as exc:
            raise StateError(f"{self.store.path} is not valid JSON (nested too deeply)") from exc
        return check_state_shape(state, self.store.path)

    def load_plan(self, state: dict[str, Any]) -> LoadedPlan:
        raw = state.get("plan_path")
        try:
            path = Path(plan_location(state, str(self.root), self.slug))
        except ValueError as exc:
            raise StateError(f"{self.store.path}: {exc}") from exc
        resolved = path.resolve()
        if not resolved.is_relative_to(self.root):
            shown = raw if isinstance(raw, str) and raw else path
            raise StateError(f"the plan {shown} lies outside the repository {self.root}")
        try:
            data = read_regular(resolved, "the plan")
        except OSError as exc:
            raise StateError(f"cannot read the plan {resolved}: {exc.strerror}") from exc
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise StateError(f"the plan {resolved} is not UTF-8 text") from exc
        return LoadedPlan(resolved, text, plan_sha256(data), parse_plan(text))

    def log(self, command: str, decision: str, **details: Any) -> None:
        self.store.update(lambda state: gate_entry(state, command, decision, **details))

    def refuse(
        self, command: str, message: str, exit_code: int, *, subject: str | None = None
    ) -> NoReturn:
        """Record the refusal in the gate log (when the run exists), then raise it."""
        if self.store.exists():
            # An unreadable state cannot take the entry; the refusal still stands.
            with contextlib.suppress(StateError):
                self.log(command, "refuse", subject=subject, reason=message)
        raise RunRefused(message, exit_code)
