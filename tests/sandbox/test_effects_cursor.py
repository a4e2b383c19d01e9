"""The post-call effect check on Cursor's after-hooks, from payload fixtures
(tests/data/cursor/after-hooks.json: `postToolUse`, which `zodyssey hook
install --harness cursor` wires, and `afterShellExecution`, Cursor's shell
after-event), through the installed hook command with `--harness cursor`.

Between the pre-tool and the after event the test does what a misjudged call
would do (an out-of-scope product edit, a new file); the after event must
restore, quarantine, record and tell the agent.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import REPO_ROOT, clean_env, git
from tests.helpers.gate import RunRepo, make_run_repo
from zodyssey.core.paths import evidence_path
from zodyssey.gate.install import hook_command
from zodyssey.runs import evidence as chain

FIXTURES = json.loads((REPO_ROOT / "tests/data/cursor/after-hooks.json").read_text())["calls"]


def _repo(tmp_path: Path) -> RunRepo:
    repo = make_run_repo(tmp_path)  # execute, OKAY: src/server.py, docs/api.md, ... in scope
    git(repo.root, "add", "-A", "--", ".", ":(exclude).zcode")
    git(repo.root, "commit", "-q", "-m", "initial")
    return repo


def _cursor(repo: RunRepo, event: str, body: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    text = json.dumps(body).replace("$REPO", str(repo.root))
    return subprocess.run(
        shlex.split(hook_command(event, "cursor")),
        input=text,
        capture_output=True,
        text=True,
        env=clean_env(),
        cwd="/",
        timeout=60,
        check=False,
    )


def _violations(repo: RunRepo) -> list[dict[str, Any]]:
    records = chain.read_evidence(evidence_path(repo.root, "demo")).records
    return [r for r in records if r.get("kind") == chain.VIOLATION]


@pytest.mark.parametrize("fixture", FIXTURES, ids=[f["name"] for f in FIXTURES])
def test_a_cursor_after_hook_restores_and_records(tmp_path: Path, fixture: dict[str, Any]) -> None:
    repo = _repo(tmp_path)
    assert _cursor(repo, "pre-tool", fixture["pre"]).returncode == 0
    (repo.root / "README.md").write_text("pwned\n")  # out of the plan's scope
    (repo.root / "src" / "server.py").write_text("in scope\n")  # allowed after OKAY
    (repo.root / "stray.py").write_text("new\n")
    done = _cursor(repo, "post-tool", fixture["post"])
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "README.md (restored)" in done.stderr and "stray.py (quarantined)" in done.stderr
    assert (repo.root / "README.md").read_text() == "x\n"
    assert (repo.root / "src" / "server.py").read_text() == "in scope\n"
    assert not (repo.root / "stray.py").exists()
    [record] = _violations(repo)
    assert {c["path"] for c in record["changes"]} == {"README.md", "stray.py"}
    assert (record["tool_use_id"] or None) == fixture["post"].get("tool_use_id")


@pytest.mark.parametrize("fixture", FIXTURES, ids=[f["name"] for f in FIXTURES])
def test_a_cursor_call_that_changed_only_its_scope_is_clean(
    tmp_path: Path, fixture: dict[str, Any]
) -> None:
    repo = _repo(tmp_path)
    assert _cursor(repo, "pre-tool", fixture["pre"]).returncode == 0
    (repo.root / "docs" / "api.md").write_text("documented\n")
    done = _cursor(repo, "post-tool", fixture["post"])
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert _violations(repo) == []
