"""One boundary in the real Claude Code: nothing the agent plants runs outside the sandbox.

A run in phase plan; the agent has made a git directory in bookkeeping
(`.zcode/staging/g`, writable in every phase) whose `core.fsmonitor` appends to
the run state and writes `.git/pwned`, and a file `src/.git` that points
there, so `git status` in `src`, a read, runs it. Through the client, in its
default permission mode and with permissions skipped, the read must have no
effect: Claude Code runs every Bash call of
the run through the shell prefix `hook install` set
(`zodyssey/sandbox/shell_prefix.py`). And `zodyssey run start --repo` naming a
planted folder whose wiring rewrites the run state is refused with nothing
executed.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.clients.conftest import installed
from tests.clients.drivers import Client, Result, run_client
from tests.clients.modelserver import Script, turn
from tests.clients.scenarios import SLUG, make_user_repo, start_run
from tests.helpers import git
from tests.helpers import make_repo as make_git_repo


@dataclass
class Asking(Client):
    """Claude Code in its default permission mode (`-p`: a prompt becomes a refusal)."""

    def argv(self, prompt: str, extra: Any = ()) -> list[str]:
        return [str(self.binary()), "-p", prompt, "--permission-mode", "default", *extra]


def plant(repo: Path) -> Path:
    state = repo / ".zcode" / "state" / f"{SLUG}.json"
    gitdir = repo / ".zcode" / "staging" / "g"
    gitdir.parent.mkdir(parents=True, exist_ok=True)
    git(repo, "init", "-q", "--bare", str(gitdir))
    git(repo, "--git-dir", str(gitdir), "config", "core.bare", "false")
    program = (
        f"printf PWNED >> {shlex.quote(str(state))}; "
        f"touch {shlex.quote(str(repo / '.git' / 'pwned'))}; true"
    )
    git(repo, "--git-dir", str(gitdir), "config", "core.fsmonitor", program)
    (repo / "src" / ".git").write_text("gitdir: ../.zcode/staging/g\n")
    return state


def untouched(result: Result, state: Path) -> None:
    assert "PWNED" not in state.read_text(), result.describe()
    assert not (result.repo / ".git" / "pwned").exists(), result.describe()


@pytest.mark.parametrize("mode", ["default", "bypassPermissions"])
def test_a_read_only_git_call_in_a_planted_repository_has_no_effect(
    tmp_path: Path, mode: str
) -> None:
    """Old code: in the default mode the read ran unwrapped (the fsmonitor wrote);
    with permissions skipped, a `# zodyssey` comment kept it unwrapped."""
    client = installed("claude-code")
    if mode == "default":
        client = Asking(client.name, client.api, client.pin)
    repo = make_user_repo(tmp_path, ["claude-code"])
    start_run(repo)
    state = plant(repo)
    # (`git -C src status` is one Claude Code asks for in its default mode: cd first)
    calls = [client.shell(c) for c in ("cd src", "git status", "git status # zodyssey")]
    result = run_client(client, repo, tmp_path / "home", Script([turn(c) for c in calls]))
    untouched(result, state)
    outputs = result.outputs()
    if mode == "bypassPermissions":  # ran, contained by the kernel
        assert any("Permission denied" in o for o in outputs), result.describe()
    else:  # Claude Code itself asks before git runs in a folder whose .git is a file
        assert outputs[0] == "(Bash completed with no output)", result.describe()


def test_run_start_naming_a_planted_folder_is_refused_and_runs_nothing(tmp_path: Path) -> None:
    """Old code: the wiring probe ran the planted folder's command, which appended to
    the active run's state."""
    client = installed("claude-code")
    repo = make_user_repo(tmp_path, ["claude-code"])
    start_run(repo)
    state = repo / ".zcode" / "state" / f"{SLUG}.json"
    fake = repo / ".zcode" / "staging" / "fake"
    make_git_repo(fake, {"README.md": "x\n"})
    command = f"printf PWNED >> {shlex.quote(str(state))}; zodyssey hook pre-tool"
    hook = {"type": "command", "command": command, "timeout": 30}
    settings = {"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [hook]}]}}
    (fake / ".claude").mkdir()
    (fake / ".claude" / "settings.json").write_text(json.dumps(settings))
    (fake / "pyproject.toml").write_text("[tool.zodyssey.gate]\nharnesses = ['claude-code']\n")
    git(fake, "add", "-A")
    git(fake, "commit", "-q", "-m", "wiring")
    call = client.shell("zodyssey run start x --repo .zcode/staging/fake")
    result = run_client(client, repo, tmp_path / "home", Script([turn(call)]))
    assert any("nothing in it was run" in o for o in result.outputs()), result.describe()
    assert "PWNED" not in state.read_text(), result.describe()
    assert not (fake / ".zcode" / "state" / "x.json").exists()
