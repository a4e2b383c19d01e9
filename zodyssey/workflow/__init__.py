"""The guarded workflow zodyssey ships for each client: reviewer, planner, run command.

The files live beside this module as package data, in the form each client
installs extensions:

- `claude-plugin/`: a Claude Code plugin (`.claude-plugin/plugin.json`,
  `agents/momus.md`, `agents/planner.md`, `commands/zodyssey-run.md`,
  `hooks/hooks.json`), listed by this repository's `.claude-plugin/marketplace.json`;
- `gemini-extension/`: a Gemini CLI extension (`gemini-extension.json`,
  `agents/`, `commands/zodyssey-run.toml`, `GEMINI.md`);
- `codex/`: the `zodyssey-run` skill and the `AGENTS.md` section for Codex;
- `cursor/`: a reviewer subagent (`agents/momus.md`), an always-applied rule
  (`rules/zodyssey.mdc`) and the `/zodyssey-run` command for Cursor.

`zodyssey hook install --harness H` copies the harness's files into the
project (`project_files`), next to the hook wiring. They are part of the
installed gate: the gate protects their folders during a run
(`zodyssey/core/allowance.py`), and the wiring check of `zodyssey check`
(`findings`) fails when the reviewer's definition is missing, uncommitted or
differs from the shipped one, and warns when the planner, the run command or
the `AGENTS.md` section is missing or was changed.

Never imported by the hook: `hook install` and `zodyssey check` only.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

ASSETS = Path(__file__).resolve().parent
DEFAULT_REVIEWER = "momus"
# Every file we write into a project carries this text, so a later install can
# tell our file (updated in place) from the user's own (kept).
MARKER = "zodyssey hook install"
SECTION_BEGIN = "<!-- zodyssey:begin"
SECTION_END = "<!-- zodyssey:end -->"


@dataclass(frozen=True)
class ProjectFile:
    """One workflow file `hook install` writes into a project."""

    dest: str  # path in the project ("{reviewer}" is the reviewer's name)
    source: str  # path under ASSETS
    role: str  # "reviewer", "planner", "command", "rule" or "section" (merged into dest)


_CLAUDE = (
    ProjectFile(".claude/agents/{reviewer}.md", "claude-plugin/agents/momus.md", "reviewer"),
    ProjectFile(".claude/agents/planner.md", "claude-plugin/agents/planner.md", "planner"),
    ProjectFile(
        ".claude/commands/zodyssey-run.md", "claude-plugin/commands/zodyssey-run.md", "command"
    ),
)
_FILES: dict[str, tuple[ProjectFile, ...]] = {
    "claude-code": _CLAUDE,
    "zcode": _CLAUDE,
    "gemini": (
        ProjectFile(".gemini/agents/{reviewer}.md", "gemini-extension/agents/momus.md", "reviewer"),
        ProjectFile(".gemini/agents/planner.md", "gemini-extension/agents/planner.md", "planner"),
        ProjectFile(
            ".gemini/commands/zodyssey-run.toml",
            "gemini-extension/commands/zodyssey-run.toml",
            "command",
        ),
    ),
    "codex": (
        ProjectFile(
            ".agents/skills/zodyssey-run/SKILL.md", "codex/skills/zodyssey-run/SKILL.md", "command"
        ),
        ProjectFile("AGENTS.md", "codex/AGENTS-section.md", "section"),
    ),
    "cursor": (
        ProjectFile(".cursor/agents/{reviewer}.md", "cursor/agents/momus.md", "reviewer"),
        ProjectFile(".cursor/rules/zodyssey.mdc", "cursor/rules/zodyssey.mdc", "rule"),
        ProjectFile(
            ".cursor/commands/zodyssey-run.md", "cursor/commands/zodyssey-run.md", "command"
        ),
    ),
}

# Where each client's packaged form lives (for the messages of `hook install`).
PACKAGED = {
    "claude-code": "claude-plugin",
    "gemini": "gemini-extension",
}


def reviewer_name(root: Path) -> str:
    """The reviewer the gate expects here: `[tool.zodyssey.gate] reviewer_agent`,
    without a plugin namespace (the file is named by the bare agent)."""
    from zodyssey.config import load_config

    value = load_config(root).section("gate").get("reviewer_agent", DEFAULT_REVIEWER)
    name = value if isinstance(value, str) and value.strip() else DEFAULT_REVIEWER
    return name.strip().rsplit(":", 1)[-1]


def project_files(harness: str) -> tuple[ProjectFile, ...]:
    """The workflow files of `harness` (empty for a harness zodyssey ships none for)."""
    return _FILES.get(harness, ())


def expected(item: ProjectFile, reviewer: str) -> tuple[str, str]:
    """(the file's path in the project, the text zodyssey ships for it)."""
    text = (ASSETS / item.source).read_text(encoding="utf-8")
    if reviewer != DEFAULT_REVIEWER:
        text = text.replace(DEFAULT_REVIEWER, reviewer)
    return item.dest.format(reviewer=reviewer), text


def _section(text: str) -> str | None:
    """The zodyssey section of an instruction file (markers included), or None."""
    start = text.find(SECTION_BEGIN)
    end = text.find(SECTION_END, start)
    if start < 0 or end < 0:
        return None
    return text[start : end + len(SECTION_END)] + "\n"


def _merged(current: str | None, section: str) -> str:
    """`current` with the zodyssey section put in (replaced, or appended)."""
    if current is None or not current.strip():
        return section
    old = _section(current)
    if old is not None:
        return current.replace(old.rstrip("\n"), section.rstrip("\n"), 1)
    return current.rstrip("\n") + "\n\n" + section


def install(root: Path, harness: str, dry_run: bool = False) -> list[str]:
    """Write the workflow files of `harness` under `root`; one line per file.

    A file that exists and is not ours (no install marker) is kept, and the line
    says so; for the reviewer that is an error, since the gate would take its
    verdicts from a definition zodyssey never checked.
    """
    from zodyssey.core.atomic import write_atomic
    from zodyssey.errors import UsageError

    reviewer = reviewer_name(root)
    lines: list[str] = []
    for item in project_files(harness):
        rel, text = expected(item, reviewer)
        path = root / rel
        current = path.read_text(encoding="utf-8") if path.is_file() else None
        if item.role == "section":
            text = _merged(current, text)
        if current == text:
            lines.append(f"{rel}: unchanged ({item.role})")
            continue
        if current is not None and item.role != "section" and MARKER not in current:
            if item.role == "reviewer":
                raise UsageError(
                    f"{rel} exists and was not written by zodyssey: the gate would take "
                    "its verdicts from a reviewer zodyssey does not check; move it away "
                    "(or set [tool.zodyssey.gate] reviewer_agent to another name) and "
                    "install again"
                )
            lines.append(f"{rel}: kept your own file ({item.role}; not written by zodyssey)")
            continue
        if not dry_run:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, text)
        lines.append(f"{rel}: {'updated' if current is not None else 'added'} ({item.role})")
    return lines


@dataclass(frozen=True)
class Problem:
    """A finding of the workflow check, for zodyssey/gate/wiring.py."""

    rule: str
    message: str
    file: str


def findings(root: Path, harness: str) -> list[Problem]:
    """What is wrong with the installed workflow of a declared harness.

    The reviewer's definition (errors): `reviewer-missing`, `reviewer-altered`,
    `reviewer-not-committed`. The planner, run command and `AGENTS.md` section
    (warnings): `workflow-missing`, `workflow-altered`; a planner or command file
    that is the user's own (no install marker) is theirs and not judged.
    """
    items = project_files(harness)
    if not items:
        return []
    reviewer = reviewer_name(root)
    fix = f"`zodyssey hook install --harness {harness}` writes it again (commit it)"
    problems: list[Problem] = []
    for item in items:
        rel, text = expected(item, reviewer)
        path = root / rel
        current = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else None
        if item.role == "section" and current is not None:
            current = _section(current)
        if item.role == "reviewer":
            problems += _reviewer(rel, text, current, harness, fix)
        elif current is None:
            problems.append(
                Problem(
                    "workflow-missing",
                    f"harness {harness}: the zodyssey {item.role} is not installed; {fix}",
                    rel,
                )
            )
        elif current != text and MARKER in current:
            problems.append(
                Problem(
                    "workflow-altered",
                    f"harness {harness}: the zodyssey {item.role} differs from the one "
                    f"zodyssey ships; {fix}",
                    rel,
                )
            )
    return problems


def _reviewer(rel: str, text: str, current: str | None, harness: str, fix: str) -> list[Problem]:
    if current is None:
        return [
            Problem(
                "reviewer-missing",
                f"harness {harness}: the reviewer's definition is missing, so the agent the "
                f"gate takes verdicts from is whatever answers to that name; {fix}",
                rel,
            )
        ]
    if current != text:
        return [
            Problem(
                "reviewer-altered",
                f"harness {harness}: the reviewer's definition differs from the one zodyssey "
                f"ships, so its instructions are no longer the ones the gate relies on; {fix}",
                rel,
            )
        ]
    return []


_PERSON = "a person in their own terminal: `zodyssey run review SLUG --human OKAY|REJECT --by NAME`"


def install_note(harness: str) -> str:
    """What `hook install` says about the workflow it installed: how a run is driven
    and the two ways a plan is approved."""
    if harness == "zcode":
        return (
            "workflow: `/zodyssey-run <task>` drives a run (plan, lint, review, execute, "
            "verify); ZCode lets no hook rewrite the reviewer's dispatch, so the gate takes no "
            f"agent's verdict there: every plan is approved by {_PERSON} (the "
            f"`{DEFAULT_REVIEWER}` agent can review it first, as advice)."
        )
    if harness == "claude-code":
        return (
            "workflow: `/zodyssey-run <task>` drives a run (plan, lint, review, execute, "
            f"verify); a plan is approved by the reviewer agent ({DEFAULT_REVIEWER}, its "
            f"verdict taken from the client's report of its dispatch) or by {_PERSON}. "
            "The same workflow as a Claude Code plugin: `/plugin marketplace add "
            "zodyssey/zodyssey`, then `/plugin install zodyssey@zodyssey`."
        )
    if harness == "gemini":
        return (
            "workflow: `/zodyssey-run <task>` drives a run; a plan is approved by the "
            f"reviewer agent ({DEFAULT_REVIEWER}, invoke_agent) or by {_PERSON}. Gemini CLI "
            "loads project agents (.gemini/agents/) only after a person acknowledges them "
            "at the next interactive start; to have them for your user instead, install "
            f"the extension: `gemini extensions install {ASSETS / 'gemini-extension'} --consent`."
        )
    if harness == "codex":
        return (
            "workflow: `$zodyssey-run <task>` (the skill in .agents/skills/) drives a run; "
            f"Codex reports no subagent's answer, so every plan is approved by {_PERSON}."
        )
    if harness == "cursor":
        return (
            "workflow: `/zodyssey-run` (.cursor/commands/) drives a run, the rule "
            ".cursor/rules/zodyssey.mdc says how; Cursor reports no subagent's answer, so "
            f"every plan is approved by {_PERSON} (the `{DEFAULT_REVIEWER}` agent can "
            "review it first, as advice)."
        )
    return f"no workflow files for {harness}; every plan is approved by {_PERSON}."
