"""`zodyssey run start` and a gate the client would not run (issue 21 items 3 and 4).

The client tests in test_client_behaviour.py show what happens then: with the
hook's interpreter missing, Claude Code and Codex run every call; Codex runs no
hook of an untrusted project or hook. `run start` refuses to activate a run
that the gate would not hold (exit 11, saying how to fix it); the companion
tests hold that a gate that does hold still starts.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.clients.drivers import Client, trust_codex_hooks, write_json
from tests.clients.scenarios import PLAN, SLUG, make_user_repo
from tests.helpers import commit, run_zodyssey

MISSING_PYTHON = "/nonexistent/checkout/.venv/bin/python"
CONFIG = {
    "claude-code": ".claude/settings.json",
    "gemini": ".gemini/settings.json",
    "codex": ".codex/hooks.json",
}


def start(repo: Path, home: Path) -> subprocess.CompletedProcess[str]:
    plan_file = repo.parent / "plan.md"
    plan_file.write_text(PLAN, encoding="utf-8")
    env = {"HOME": str(home), "CODEX_HOME": str(home / ".codex")}
    return run_zodyssey("run", "start", SLUG, "--plan", str(plan_file), cwd=repo, env=env)


@pytest.mark.parametrize("harness", sorted(CONFIG))
def test_run_start_refuses_a_hook_command_that_cannot_start(tmp_path: Path, harness: str) -> None:
    repo = make_user_repo(tmp_path, [harness])
    path = repo / CONFIG[harness]
    text = path.read_text(encoding="utf-8")
    broken = text.replace('"zodyssey hook ', f'"{MISSING_PYTHON} -m zodyssey hook ')
    assert broken != text  # install wrote `zodyssey` from PATH (this venv is elsewhere)
    path.write_text(broken, encoding="utf-8")
    commit(repo, "the wiring of another machine")
    done = start(repo, tmp_path / "home")
    assert done.returncode == 11, (done.returncode, done.stdout, done.stderr)
    assert harness in done.stderr and CONFIG[harness] in done.stderr
    assert not (repo / ".zcode" / "state" / f"{SLUG}.json").exists()


def test_run_start_refuses_untrusted_codex_and_says_how_to_trust(tmp_path: Path) -> None:
    repo = make_user_repo(tmp_path, ["codex"])
    home = tmp_path / "home"
    write_json(home / ".codex" / "probe.json", {})  # a CODEX_HOME without any trust record
    done = start(repo, home)
    assert done.returncode == 11, (done.returncode, done.stdout, done.stderr)
    assert "trust" in done.stderr and str(repo / ".codex" / "hooks.json") in done.stderr
    assert not (repo / ".zcode" / "state" / f"{SLUG}.json").exists()


def test_run_start_accepts_a_codex_gate_that_is_trusted(codex: Client, tmp_path: Path) -> None:
    """Project and hooks trusted the way Codex records it: the run starts."""
    repo = make_user_repo(tmp_path, ["codex"])
    home = tmp_path / "home"
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True)
    (codex_home / "config.toml").write_text(
        f'[projects."{repo}"]\ntrust_level = "trusted"\n', encoding="utf-8"
    )
    assert trust_codex_hooks(codex, home, repo)
    done = start(repo, home)
    assert done.returncode == 0, (done.returncode, done.stdout, done.stderr)


@pytest.mark.parametrize("harness", ["claude-code", "gemini"])
def test_run_start_accepts_a_hook_command_that_starts(tmp_path: Path, harness: str) -> None:
    """(Codex needs its trust as well: the test above.)"""
    repo = make_user_repo(tmp_path, [harness])
    done = start(repo, tmp_path / "home")
    assert done.returncode == 0, (done.returncode, done.stdout, done.stderr)
