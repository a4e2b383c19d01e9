"""docs/gate.md's promise about Codex's trust records, through the real commands.

A repository wired for Codex by `zodyssey hook install`, a Codex home in a
temp dir with no trust records: `zodyssey run start` refuses (exit 11, no run
state), `zodyssey check` fails the gate part (exit 9); the command the
refusal prints, run by a person, trusts the hooks and the run starts; a hook
whose command changed since is refused again.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from invariants.conftest import clean_env

PLAN = """# Demo
## Todos
- [ ] 1. Edit
  - Files: [`src/app.py`]
  - Acceptance criteria:
    - `true`
"""


def _start(lab: Any, repo: Path, home: Path) -> subprocess.CompletedProcess[str]:
    plan = repo.parent / "plan.md"
    plan.write_text(PLAN, encoding="utf-8")
    env = clean_env(CODEX_HOME=str(home))
    return lab.zodyssey("run", "start", "demo", "--plan", str(plan), cwd=repo, env=env)


def _appended(stderr: str) -> str:
    text = stderr[stderr.index("cat >> ") :]
    return text[: text.index("\nEOF") + len("\nEOF")] + "\n"


@pytest.mark.claim("codex-trust-refuses")
def test_untrusted_codex_refuses_until_a_person_trusts_it(lab: Any) -> None:
    repo = lab.repo().resolve()
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("x = 1\n")
    (repo / ".gitignore").write_text(".zcode/\n")
    done = lab.zodyssey("hook", "install", "--harness", "codex", cwd=repo)
    assert done.returncode == 0, done.stderr
    lab.commit(repo, "wire the gate")
    home = lab.base / "codex-home"
    home.mkdir()
    refused = _start(lab, repo, home)
    assert refused.returncode == 11, refused.stderr
    assert f"{repo}/.codex/hooks.json:pre_tool_use:0:0 is not trusted" in refused.stderr
    assert not (repo / ".zcode" / "state" / "demo.json").exists()
    check = lab.zodyssey("check", "--format", "json", cwd=repo, env=clean_env(CODEX_HOME=str(home)))
    rules = {f["rule"] for f in json.loads(check.stdout)["gate"]["report"]["findings"]}
    assert check.returncode == 9 and "codex-untrusted" in rules
    subprocess.run(["sh", "-c", _appended(refused.stderr)], check=True)
    assert _start(lab, repo, home).returncode == 0
    hooks = repo / ".codex" / "hooks.json"
    wiring = json.loads(hooks.read_text(encoding="utf-8"))
    wiring["hooks"]["PreToolUse"][0]["hooks"][0]["command"] += " "  # runs the same, hashes anew
    hooks.write_text(json.dumps(wiring), encoding="utf-8")
    lab.commit(repo, "re-wired")
    again = _start(lab, repo, home)
    assert again.returncode == 11 and "changed since it was trusted" in again.stderr


@pytest.mark.claim("codex-home-missing-refuses")
def test_no_codex_home_refuses_unless_the_run_names_its_harnesses(lab: Any) -> None:
    repo = lab.repo().resolve()
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("x = 1\n")
    (repo / ".gitignore").write_text(".zcode/\n")
    for harness in ("codex", "claude-code"):
        done = lab.zodyssey("hook", "install", "--harness", harness, cwd=repo)
        assert done.returncode == 0, done.stderr
    lab.commit(repo, "wire the gate")
    home = lab.base / "never-started-codex"
    refused = _start(lab, repo, home)
    assert refused.returncode == 11 and f"no {home}" in refused.stderr, refused.stderr
    assert "cat >> " in refused.stderr and "trust_level" in refused.stderr
    env = clean_env(CODEX_HOME=str(home))
    check = lab.zodyssey("check", "--format", "json", cwd=repo, env=env)
    found = json.loads(check.stdout)["gate"]["report"]["findings"]
    assert [f["severity"] for f in found if f["rule"] == "codex-home-missing"] == ["warning"]
    plan = repo.parent / "plan.md"
    argv = ("run", "start", "demo", "--plan", str(plan), "--harness", "claude-code")
    assert lab.zodyssey(*argv, cwd=repo, env=env).returncode == 0
