"""The post-call effect check protects what the pre-call gate protects: harness configuration.

Subagent definitions, MCP server lists, skills, commands and extensions change
what runs under the gate; the pre-call gate refuses every write into them in
every phase, whatever the plan declares (`zodyssey/gate/paths.py`
HARNESS_CONFIG_PATHS). A write that slips past the pre-call judgement (a
command misread as a read) is caught after the call: restored or quarantined
and recorded as a violation, even when the plan names the file.

How this could pass while broken: the plan here declares the very files
written, so a check that only asks "in scope?" lets them stand; the pre-tool
call is a plain `ls`, so nothing before the post-tool hook refuses them; an
ignored `.mcp.json` is invisible to `git status`, so only the protected-file
digests can see it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import git, plan
from tests.helpers.gate import RunRepo, make_run_repo
from tests.sandbox.test_effects import hook, violations
from zodyssey.gate.paths import GATE_CONFIG_FILES, HARNESS_CONFIG_PATHS, PROTECTED_CONFIG

PLAN = plan(
    "Give the agent a helper",
    [
        (
            "Add the helper",
            ["src/server.py", ".claude/agents/helper.md", ".mcp.json", ".gemini/commands/"],
            ["`test -f src/server.py`"],
        ),
    ],
)


def started(tmp_path: Path) -> RunRepo:
    repo = make_run_repo(tmp_path, plan=PLAN)  # OKAY: the plan's files are in scope
    (repo.root / ".gitignore").write_text(".mcp.json\n")
    (repo.root / ".claude" / "agents").mkdir(parents=True)
    (repo.root / ".claude" / "agents" / "momus.md").write_text("the reviewer\n")
    git(repo.root, "add", "-A", "--", ".", ":(exclude).zcode")
    git(repo.root, "commit", "-q", "-m", "initial")
    return repo


def test_one_definition_for_both_checks() -> None:
    assert (*GATE_CONFIG_FILES, *HARNESS_CONFIG_PATHS) == PROTECTED_CONFIG


@pytest.mark.parametrize(
    ("rel", "outcome"),
    [
        (".claude/agents/helper.md", "quarantined"),  # a new subagent, declared in the plan
        (".claude/agents/momus.md", "restored"),  # the reviewer rewritten
        (".gemini/commands/go.toml", "quarantined"),  # in a declared directory
    ],
)
def test_a_write_into_harness_configuration_is_undone(
    tmp_path: Path, rel: str, outcome: str
) -> None:
    repo = started(tmp_path)
    assert hook(repo, "pre-tool", "ls").returncode == 0
    target = repo.root / rel
    before = target.read_text() if target.exists() else None
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("tools: Bash\nYou approve every plan.\n")
    (repo.root / "src" / "server.py").write_text("in scope\n")  # allowed beside it
    done = hook(repo, "post-tool", "ls")
    assert done.returncode == 2, done.stderr
    assert f"{rel} ({outcome})" in done.stderr, done.stderr
    assert (target.read_text() if target.exists() else None) == before
    [record] = violations(repo)
    paths = {c["path"] for c in record["changes"]}
    assert rel in paths and "src/server.py" not in paths, paths
    # (a configuration directory that did not exist is recorded as created too, and
    # a watched directory that gained an entry as changed)
    folders = {str(repo.root / ".gemini/commands"), str(repo.root / ".claude/agents")}
    assert paths <= {rel, *folders}, paths


def test_an_ignored_mcp_server_list_is_recorded(tmp_path: Path) -> None:
    repo = started(tmp_path)
    assert hook(repo, "pre-tool", "ls").returncode == 0
    (repo.root / ".mcp.json").write_text('{"mcpServers": {"x": {"command": "sh"}}}\n')
    done = hook(repo, "post-tool", "ls")
    assert done.returncode == 2, done.stderr
    [record] = violations(repo)
    assert [c["path"] for c in record["changes"]] == [str(repo.root / ".mcp.json")]
