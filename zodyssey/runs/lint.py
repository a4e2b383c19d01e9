"""Plan lint: can this plan be executed and verified without a person in the loop?"""

from __future__ import annotations

import re
from dataclasses import dataclass

from zodyssey.core.plan import Criterion, Plan, Todo
from zodyssey.runs.criteria import parse_criterion

# A criterion that hands verification to a person cannot be executed, so it cannot be evidence.
_DELEGATES = re.compile(
    r"\b(?:the\s+)?(?:user|human|person|someone|operator|stakeholder|reviewer|customer|qa team)s?"
    r"\s+(?:will\s+|should\s+|must\s+|can\s+)?(?:manually\s+)?"
    r"(?:verif|confirm|check|test|review|approv|inspect|validat|look|sign)"
    r"|\bmanual(?:ly)?\s+(?:verif|check|test|inspect|review|qa|confirm)"
    r"|\bby\s+hand\b"
    r"|\bvisual(?:ly)?\s+(?:inspect|check|verif|confirm)"
    r"|\bask\s+(?:the\s+)?(?:user|human|owner)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class LintProblem:
    todo: str  # todo id, "-" for plan-wide problems
    line: int  # plan line (0 when plan-wide)
    message: str
    criterion_index: int | None = None

    def render(self) -> str:
        where = f"line {self.line}: " if self.line else ""
        subject = "plan" if self.todo == "-" else f"todo {self.todo}"
        return f"{where}{subject}: {self.message}"


def _normalize(command: str) -> str:
    return " ".join(command.split())


def lint_plan(plan: Plan, test_command: str | None) -> list[LintProblem]:
    problems: list[LintProblem] = [
        LintProblem("-", line, message) for line, message in plan.problems
    ]
    work = [todo for todo in plan.todos if not todo.final]
    if not work:
        problems.append(
            LintProblem("-", 0, "declares no todos: add `- [ ] 1. title` rows under `## Todos`")
        )
    for todo in plan.todos:
        problems += _todo_problems(todo)
        problems += [p for c in todo.criteria if (p := _criterion_problem(todo, c)) is not None]
        problems += _test_command_problem(todo, test_command)
    return problems


def _todo_problems(todo: Todo) -> list[LintProblem]:
    """A todo's own rows: its Files entries and whether it has criteria at all."""
    problems = []
    if not todo.final and not todo.files:
        problems.append(
            LintProblem(todo.id, todo.line, "no `Files: [...]` declared (nothing is in scope)")
        )
    for path in todo.files:
        if any(ch.isspace() for ch in path) or len(path) > 300:
            problems.append(
                LintProblem(todo.id, todo.line, f"Files entry is not a clean path: {path[:80]!r}")
            )
    if not todo.final and not todo.criteria:
        problems.append(
            LintProblem(
                todo.id, todo.line, "no acceptance criteria: verify would have nothing to run"
            )
        )
    return problems


def _criterion_problem(todo: Todo, criterion: Criterion) -> LintProblem | None:
    """Why `criterion` cannot run as written (the first reason), None when it can."""
    if _DELEGATES.search(criterion.text):
        message = f"delegates to a person: {criterion.text[:80]!r}"
    elif not criterion.command:
        message = (
            f"has no executable command (put the command in backticks): {criterion.text[:80]!r}"
        )
    elif (spec := parse_criterion(criterion.text)).problem is not None:
        message = f"cannot be judged as written: {spec.problem}"
    else:
        return None
    return LintProblem(
        todo.id, criterion.line, f"criterion {criterion.index} {message}", criterion.index
    )


def _test_command_problem(todo: Todo, test_command: str | None) -> list[LintProblem]:
    """A work todo with criteria, none running the configured test command."""
    if not test_command or todo.final or not todo.criteria:
        return []
    wanted = _normalize(test_command)
    ran = [s.command for c in todo.criteria for s in parse_criterion(c.text).steps]
    if any(wanted in _normalize(command) for command in ran):
        return []
    return [
        LintProblem(
            todo.id, todo.line, f"no criterion runs the configured test command `{test_command}`"
        )
    ]
