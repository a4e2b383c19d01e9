"""Honest runs pass: what ordinary tools leave behind is not a violation (issue 33).

A real run whose criterion is `python -m pytest -q`, in a repository that does
not ignore bytecode or pytest's cache, driven the way an agent drives it: its
`zodyssey run verify` goes through the installed hook's pre-tool and
post-tool, with bytecode writing on (the machine's PYTHONDONTWRITEBYTECODE
hid this). On the old code pytest's `__pycache__/` and `.pytest_cache/` were
quarantined as violations, `run todo ... done` exited 11 and the audit failed.
Bytecode that the interpreter would not have written (a forged `.pyc` beside
its module) is still a violation. And every evidence record kind the product
writes validates against the shipped schema.
"""

from __future__ import annotations

import json
import marshal
import py_compile
import shlex
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.helpers import clean_env
from tests.helpers.real_runs import audit, evidence, rules
from tests.helpers.runs import Repo, make_repo
from zodyssey.core.store import RunStore
from zodyssey.gate.install import hook_command
from zodyssey.schemas import load_schema

PLAN = (
    "# Greeting\n## Todos\n- [ ] 1. Write g.py\n"
    "  - Files: [`g.py`]\n  - Acceptance criteria:\n"
    "    - `python -m pytest -q` exits 0\n"
)
BYTECODE = {"PYTHONDONTWRITEBYTECODE": ""}  # empty: Python writes bytecode


def _repo(tmp_path: Path, checks: str = "") -> Repo:
    repo = make_repo(tmp_path / "repo")
    repo.write("g.py", "def greet() -> str:\n    return 'hello'\n")
    repo.write(
        "tests/test_g.py", "from g import greet\n\n\ndef test_greet():\n    assert greet()\n"
    )
    repo.write("conftest.py", "")  # rootdir on sys.path
    if checks:
        repo.write("pyproject.toml", checks)
    repo.commit("product")
    source = tmp_path / "plan.md"
    source.write_text(PLAN)
    started = repo.run("start", "demo", "--plan", str(source))
    assert started.code == 0, started.text
    repo.approve("demo")
    return repo


def _hook(repo: Repo, event: str, command: str, call_id: str) -> subprocess.CompletedProcess[str]:
    body: dict[str, Any] = {
        "session_id": "s",
        "cwd": str(repo.root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": call_id,
    }
    if event == "post-tool":
        body["hook_event_name"] = "PostToolUse"
        body["tool_response"] = {"stdout": ""}
    return subprocess.run(
        shlex.split(hook_command(event, "codex")),
        input=json.dumps(body),
        capture_output=True,
        text=True,
        env=clean_env(CLAUDE_PROJECT_DIR=str(repo.root)),
        cwd=repo.root,
        timeout=120,
        check=False,
    )


def _agent(repo: Repo, command: str, call_id: str) -> subprocess.CompletedProcess[str]:
    """One shell call as the harness runs it: pre-tool, the command, post-tool."""
    pre = _hook(repo, "pre-tool", command, call_id)
    assert pre.returncode == 0, pre.stderr
    ran = subprocess.run(
        command,
        shell=True,
        cwd=repo.root,
        env=clean_env(**BYTECODE),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    post = _hook(repo, "post-tool", command, call_id)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    return post


@pytest.mark.parametrize("sandboxed", [False, True])
def test_pytest_by_products_in_a_repository_that_does_not_ignore_them_pass(
    tmp_path: Path, sandboxed: bool
) -> None:
    """Without a sandbox (a machine without Landlock: the criteria run as they are)
    pytest writes bytecode and its cache beside the product; inside the run's
    sandbox it writes what the grants allow. Either way the run passes."""
    repo = _repo(tmp_path)
    if not sandboxed:
        RunStore(repo.root, "demo").update(lambda st: st.update(sandbox={"landlock_abi": 0}))
    post = _agent(repo, "zodyssey run verify demo 1", "toolu_verify")
    assert post.returncode == 0, post.stderr
    if not sandboxed:
        assert list(repo.root.glob("**/__pycache__/*.pyc")), "pytest wrote no bytecode"
        assert (repo.root / ".pytest_cache").is_dir()
    assert not (repo.root / ".zcode" / "quarantine").exists()
    done = repo.run("todo", "demo", "1", "done")
    assert done.code == 0, done.text
    assert repo.run("phase", "demo", "done").code == 0
    _, payload = audit(repo)
    assert "effect-violation" not in rules(payload), payload["findings"]
    assert "schema-violation" not in rules(payload), payload["findings"]


def test_forged_bytecode_beside_a_module_is_still_a_violation(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    pre = _hook(repo, "pre-tool", "ls", "toolu_1")
    assert pre.returncode == 0, pre.stderr
    # what the call did: bytecode with g.py's header and other code
    written = py_compile.compile(str(repo.root / "g.py"))
    assert written is not None
    honest = Path(written)
    data = honest.read_bytes()
    evil = compile("def greet():\n    return 'pwned'\n", str(repo.root / "g.py"), "exec")
    honest.write_bytes(data[:16] + marshal.dumps(evil))
    post = _hook(repo, "post-tool", "ls", "toolu_1")
    assert post.returncode == 2, post.stderr
    assert "g.cpython" in post.stderr and "(quarantined)" in post.stderr, post.stderr
    assert not honest.exists()


def test_every_evidence_record_kind_the_product_writes_matches_the_schema(
    tmp_path: Path,
) -> None:
    checks = '[tool.zodyssey.checks]\nsmoke = { command = "true", on_failure = "block" }\n'
    repo = _repo(tmp_path, checks)
    # violation: the call wrote outside the plan
    assert _hook(repo, "pre-tool", "ls", "toolu_1").returncode == 0
    (repo.root / "README.md").write_text("out of scope\n")
    assert _hook(repo, "post-tool", "ls", "toolu_1").returncode == 2
    # criterion and check
    assert repo.run("verify", "demo", "1").code == 0
    # override: the open violation refuses `done`; the person forces it
    forced = repo.run("todo", "demo", "1", "done", "--force-done", "--reason", "seen")
    assert forced.code == 0, forced.text
    assert repo.run("phase", "demo", "done", "--force", "--reason", "seen").code == 0
    # window
    window = repo.run("window", "demo", "--label", "final", "--", "true")
    assert window.code == 0, window.text
    records = evidence(repo)
    schema = load_schema("runs-evidence-record.schema.json")
    for record in records:
        jsonschema.validate(record, schema)
    kinds = {r["kind"] for r in records}
    assert kinds == {"violation", "criterion", "check", "override", "window"}, kinds
    _, payload = audit(repo)
    assert "schema-violation" not in rules(payload), payload["findings"]


def test_run_start_says_which_by_products_the_ignore_rules_leave_unignored(
    tmp_path: Path,
) -> None:
    bare = make_repo(tmp_path / "bare")
    source = tmp_path / "plan.md"
    source.write_text(PLAN)
    started = bare.run("start", "demo", "--plan", str(source))
    assert started.code == 0, started.text
    assert "Add to .gitignore: __pycache__/ .pytest_cache/ .coverage" in started.out, started.out
    tidy = make_repo(tmp_path / "tidy")
    tidy.write(".gitignore", "__pycache__/\n.pytest_cache/\n.coverage*\n.*_cache/\n.hypothesis/\n")
    tidy.commit("ignore")
    started = tidy.run("start", "demo", "--plan", str(source))
    assert started.code == 0, started.text
    assert "Add to .gitignore" not in started.out, started.out
