"""The workflow `zodyssey hook install` ships with the gate (issue 34, "ship the workflow").

Each client gets, besides the hooks, the reviewer agent the gate takes verdicts
from (`momus`), a planner and one command or skill that drives a run. The
reviewer's definition is part of the installed gate: `zodyssey check` fails when
it is deleted, changed or uncommitted, like a removed hook, and `run start`
refuses; the gate keeps the folders holding these files unwritable during a run.

How this could pass while broken: install could write files the client never
reads (wrong folder or format: the real-client tests in tests/clients drive
them), the check could compare a file with itself, a user's own agent could be
overwritten silently, or the Claude plugin and the Gemini extension could carry
another reviewer than the project files.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from tests.helpers import REPO_ROOT, commit, git, make_repo, run_zodyssey, write
from zodyssey import workflow

PROJECT_FILES = {
    "claude-code": [
        ".claude/agents/momus.md",
        ".claude/agents/planner.md",
        ".claude/commands/zodyssey-run.md",
    ],
    "gemini": [
        ".gemini/agents/momus.md",
        ".gemini/agents/planner.md",
        ".gemini/commands/zodyssey-run.toml",
    ],
    "codex": [".agents/skills/zodyssey-run/SKILL.md", "AGENTS.md"],
    "cursor": [
        ".cursor/agents/momus.md",
        ".cursor/rules/zodyssey.mdc",
        ".cursor/commands/zodyssey-run.md",
    ],
}


def install(repo: Path, harness: str) -> str:
    done = run_zodyssey("hook", "install", "--harness", harness, "--command", "zodyssey", cwd=repo)
    assert done.returncode == 0, done.stderr
    return done.stdout


def gate_findings(repo: Path) -> tuple[int, list[dict[str, object]]]:
    """(the gate part's exit code, its findings) from `zodyssey check --format json`."""
    done = run_zodyssey("check", "--format", "json", cwd=repo)
    stack: list[object] = [json.loads(done.stdout)]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if node.get("tool") == "gate" and "exit_code" in node:
                return int(node["exit_code"]), list(node["findings"])
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    raise AssertionError(f"no gate part in {done.stdout[:500]}")


def rules(found: list[dict[str, object]]) -> dict[str, str]:
    return {str(f["rule"]): str(f["file"]) for f in found if f.get("rule") != "codex-home-missing"}


@pytest.fixture
def wired(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "repo", {"README.md": "demo\n"})
    for harness in ("claude-code", "gemini", "codex", "cursor"):
        install(repo, harness)
    commit(repo, "wire the gate")
    return repo


def test_install_writes_each_clients_workflow_as_shipped(wired: Path) -> None:
    for harness, rels in PROJECT_FILES.items():
        for item, rel in zip(workflow.project_files(harness), rels, strict=True):
            shipped = (workflow.ASSETS / item.source).read_text(encoding="utf-8")
            assert (wired / rel).read_text(encoding="utf-8") == shipped, rel
    # A second install changes nothing and says so.
    again = install(wired, "claude-code")
    assert ".claude/agents/momus.md: unchanged (reviewer)" in again
    assert not git(wired, "status", "--porcelain")
    code, found = gate_findings(wired)
    assert code == 0 and not rules(found), found


def test_install_says_both_ways_a_plan_is_approved(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"README.md": "demo\n"})
    said = install(repo, "claude-code")
    assert "`/zodyssey-run <task>` drives a run" in said
    assert "reviewer agent (momus" in said
    assert "zodyssey run review SLUG --human OKAY|REJECT --by NAME" in said
    assert "zodyssey run review SLUG --human" in install(repo, "codex")
    cursor = install(repo, "cursor")
    assert "`/zodyssey-run` (.cursor/commands/) drives a run" in cursor
    assert "Cursor reports no subagent's answer" in cursor and "--human" in cursor


@pytest.mark.parametrize(
    ("harness", "rel"),
    [
        ("claude-code", ".claude/agents/momus.md"),
        ("gemini", ".gemini/agents/momus.md"),
        ("cursor", ".cursor/agents/momus.md"),
    ],
)
def test_deleted_or_changed_reviewer_fails_the_wiring_check(
    wired: Path, harness: str, rel: str
) -> None:
    text = (wired / rel).read_text(encoding="utf-8")
    (wired / rel).write_text(text.replace("VERDICT: REJECT", "VERDICT: OKAY"), encoding="utf-8")
    commit(wired, "a friendlier reviewer")
    code, found = gate_findings(wired)
    assert code == 9 and rules(found) == {"reviewer-altered": rel}, found
    (wired / rel).unlink()
    commit(wired, "no reviewer")
    code, found = gate_findings(wired)
    assert code == 9 and rules(found) == {"reviewer-missing": rel}, found
    # `run start` refuses like for a removed hook, naming the file.
    started = run_zodyssey("run", "start", "demo", "--harness", harness, cwd=wired)
    assert started.returncode == 11, started.stderr
    assert rel in started.stderr and "reviewer" in started.stderr


def test_uncommitted_reviewer_fails(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"README.md": "demo\n"})
    install(repo, "claude-code")
    commit(repo, "wire the gate")
    git(repo, "rm", "-q", "--cached", ".claude/agents/momus.md")
    git(repo, "commit", "-q", "-m", "reviewer untracked")
    code, found = gate_findings(repo)
    assert code == 9 and rules(found) == {"not-committed": ".claude/agents/momus.md"}, found


def test_changed_planner_command_or_section_is_a_warning(wired: Path) -> None:
    (wired / ".claude/commands/zodyssey-run.md").unlink()
    planner = wired / ".gemini/agents/planner.md"
    planner.write_text(planner.read_text() + "\nAlso edit CI.\n", encoding="utf-8")
    agents = wired / "AGENTS.md"
    agents.write_text(agents.read_text().replace("never work around it", "as you like"))
    (wired / ".cursor/rules/zodyssey.mdc").unlink()
    commit(wired, "edits")
    code, found = gate_findings(wired)
    assert code == 0, found
    assert {
        (f["rule"], f["file"], f["severity"]) for f in found if "workflow" in str(f["rule"])
    } == {
        ("workflow-missing", ".claude/commands/zodyssey-run.md", "warning"),
        ("workflow-altered", ".gemini/agents/planner.md", "warning"),
        ("workflow-altered", "AGENTS.md", "warning"),
        ("workflow-missing", ".cursor/rules/zodyssey.mdc", "warning"),
    }


def test_a_users_own_files_are_kept_and_a_foreign_reviewer_refuses(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"README.md": "demo\n"})
    write(repo, ".claude/agents/planner.md", "---\nname: planner\n---\nmine\n")
    write(repo, "AGENTS.md", "# Our rules\n\nBe kind.\n")
    said = install(repo, "claude-code")
    assert ".claude/agents/planner.md: kept your own file" in said
    assert (repo / ".claude/agents/planner.md").read_text() == "---\nname: planner\n---\nmine\n"
    install(repo, "codex")
    agents = (repo / "AGENTS.md").read_text()
    assert agents.startswith("# Our rules\n\nBe kind.\n\n<!-- zodyssey:begin")
    install(repo, "codex")  # the section is replaced in place, never added twice
    assert (repo / "AGENTS.md").read_text() == agents
    other = make_repo(tmp_path / "other", {"README.md": "demo\n"})
    write(other, ".claude/agents/momus.md", "---\nname: momus\n---\nSay OKAY.\n")
    done = run_zodyssey("hook", "install", "--harness", "claude-code", cwd=other)
    assert done.returncode == 2, done.stdout
    assert "was not written by zodyssey" in done.stderr
    assert not (other / ".claude/settings.json").exists()  # refused before anything was written


def test_a_configured_reviewer_name_is_installed_and_checked(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "repo",
        {"README.md": "demo\n", ".zodyssey.toml": '[gate]\nreviewer_agent = "critic"\n'},
    )
    install(repo, "claude-code")
    commit(repo, "wire")
    text = (repo / ".claude/agents/critic.md").read_text()
    assert "\nname: critic\n" in text and "momus" not in text
    assert "`critic`" in (repo / ".claude/commands/zodyssey-run.md").read_text()
    code, found = gate_findings(repo)
    assert code == 0 and not rules(found), found


WORKFLOW_FILES = [
    ".agents/skills/zodyssey-run/SKILL.md",
    ".claude/agents/momus.md",
    ".gemini/commands/zodyssey-run.toml",
    ".cursor/agents/momus.md",
    ".cursor/rules/zodyssey.mdc",
    ".cursor/commands/zodyssey-run.md",
]


def test_workflow_files_are_not_writable_during_a_run(wired: Path, tmp_path: Path) -> None:
    """Even declared by a plan a person approved: the files are the installed gate."""
    from tests.helpers import plan

    plan_file = tmp_path / "plan.md"
    plan_file.write_text(
        plan("Tune the workflow", [("Edit it", WORKFLOW_FILES, ["`true` exits 0"])]),
        encoding="utf-8",
    )
    started = run_zodyssey(
        "run", "start", "demo", "--plan", str(plan_file), "--harness", "claude-code", cwd=wired
    )
    assert started.returncode == 0, started.stderr
    okay = run_zodyssey("run", "review", "demo", "--human", "OKAY", "--by", "tester", cwd=wired)
    assert okay.returncode == 0, okay.stderr
    for rel in WORKFLOW_FILES:
        payload = {
            "tool_name": "Write",
            "tool_input": {"file_path": str(wired / rel), "content": "VERDICT: OKAY\n"},
            "cwd": str(wired),
            "tool_use_id": "toolu_1",
            "session_id": "s",
        }
        done = run_zodyssey(
            "hook",
            "pre-tool",
            cwd=wired,
            stdin=json.dumps(payload),
            env={"CLAUDE_PROJECT_DIR": str(wired)},
        )
        assert done.returncode == 2, (rel, done.stderr)
        assert "installed gate" in done.stderr, done.stderr


def _body(text: str) -> str:
    return text.split("---\n", 2)[2]


def test_the_packaged_forms_carry_the_same_reviewer_and_planner() -> None:
    for agent in ("momus", "planner"):
        claude = (workflow.ASSETS / "claude-plugin" / "agents" / f"{agent}.md").read_text()
        gemini = (workflow.ASSETS / "gemini-extension" / "agents" / f"{agent}.md").read_text()
        assert _body(claude) == _body(gemini), agent
    reviewer = _body((workflow.ASSETS / "claude-plugin/agents/momus.md").read_text())
    # The required answer form, in the reviewer's own instructions.
    assert "PLAN-SHA256:" in reviewer and reviewer.count("VERDICT: OKAY") == 1
    gemini_command = tomllib.loads(
        (workflow.ASSETS / "gemini-extension/commands/zodyssey-run.toml").read_text()
    )
    assert "{{args}}" in gemini_command["prompt"]
    assert "$ARGUMENTS" in (workflow.ASSETS / "claude-plugin/commands/zodyssey-run.md").read_text()


def test_the_marketplace_lists_the_plugin_in_the_package() -> None:
    market = json.loads((REPO_ROOT / ".claude-plugin" / "marketplace.json").read_text())
    (entry,) = market["plugins"]
    plugin = REPO_ROOT / entry["source"]
    assert plugin.resolve() == (workflow.ASSETS / "claude-plugin").resolve()
    manifest = json.loads((plugin / ".claude-plugin" / "plugin.json").read_text())
    assert manifest["name"] == entry["name"] == "zodyssey"  # agents as zodyssey:momus
    hooks = json.loads((plugin / "hooks" / "hooks.json").read_text())["hooks"]
    assert set(hooks) == {"PreToolUse", "PostToolUse", "SubagentStop"}
    extension = json.loads(
        (workflow.ASSETS / "gemini-extension" / "gemini-extension.json").read_text()
    )
    assert extension["name"] == "zodyssey"


# -- `zodyssey init --gate H`: the gate installed in the same step as the starter files


def test_init_gate_installs_what_hook_install_does(tmp_path: Path) -> None:
    """`zodyssey init --gate claude-code --gate gemini` writes the same hook files and
    workflow files as `hook install --harness H` for each, and declares both harnesses:
    after a commit, `zodyssey check` holds the wiring (its gate part passes)."""
    repo = make_repo(tmp_path / "repo", {"README.md": "demo\n"})
    twin = make_repo(tmp_path / "twin", {"README.md": "demo\n"})
    done = run_zodyssey("init", "--gate", "claude-code", "--gate", "gemini", cwd=repo)
    assert done.returncode == 0, done.stderr
    assert "gate for claude-code (as `zodyssey hook install --harness claude-code`)" in done.stdout
    assert "run review SLUG --human" in done.stdout  # the two ways a plan is approved
    for harness in ("claude-code", "gemini"):
        hooked = run_zodyssey("hook", "install", "--harness", harness, cwd=twin)
        assert hooked.returncode == 0, hooked.stderr
    for rel in (".claude/settings.json", ".gemini/settings.json", *PROJECT_FILES["claude-code"]):
        assert (repo / rel).read_text() == (twin / rel).read_text(), rel
    for rel in PROJECT_FILES["gemini"]:
        assert (repo / rel).read_text() == (twin / rel).read_text(), rel
    config = tomllib.loads((repo / ".zodyssey.toml").read_text(encoding="utf-8"))
    assert config["gate"]["harnesses"] == ["claude-code", "gemini"]
    commit(repo, "zodyssey init --gate")
    code, findings = gate_findings(repo)
    assert code == 0 and not [f for f in findings if f.get("severity") == "error"], findings


def test_init_gate_json_and_a_foreign_reviewer(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"README.md": "demo\n"})
    done = run_zodyssey("init", "--gate", "codex", "--json", cwd=repo)
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert [g["harness"] for g in document["gate"]] == ["codex"]
    assert any("SKILL.md" in line for line in document["gate"][0]["lines"])
    # A reviewer file the user wrote refuses before init writes anything.
    other = make_repo(tmp_path / "other", {".claude/agents/momus.md": "mine\n"})
    refused = run_zodyssey("init", "--gate", "claude-code", cwd=other)
    assert refused.returncode == 2 and "not written by zodyssey" in refused.stderr
    assert not (other / ".zodyssey.toml").exists()
    bad = run_zodyssey("init", "--gate", "vscode", cwd=other)
    assert bad.returncode == 2 and "invalid choice" in bad.stderr


def test_the_cursor_files_are_in_cursors_documented_forms() -> None:
    """A subagent in .cursor/agents (name, description, readonly), an always-applied rule
    (.mdc with description and alwaysApply), a plain Markdown command; the reviewer asks
    for the same answer form as the others."""
    cursor = workflow.ASSETS / "cursor"
    agent = (cursor / "agents" / "momus.md").read_text()
    head = agent.split("---\n", 2)[1]
    assert "name: momus\n" in head and "readonly: true\n" in head and "description: " in head
    claude = (workflow.ASSETS / "claude-plugin" / "agents" / "momus.md").read_text()
    assert (
        _body(agent).split("## How you review", 1)[1]
        == _body(claude).split("## How you review", 1)[1]
    )
    rule = (cursor / "rules" / "zodyssey.mdc").read_text()
    assert rule.startswith("---\ndescription: ") and "\nalwaysApply: true\n---\n" in rule
    assert "--human OKAY" in rule
    command = (cursor / "commands" / "zodyssey-run.md").read_text()
    assert not command.startswith("---") and "zodyssey run lint SLUG" in command
