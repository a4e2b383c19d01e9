"""The hook payloads the real clients sent, replayed against the installed hook command.

`tests/data/client_payloads/<client>-<version>/<scenario>.json` holds what
Claude Code, Gemini CLI and Codex CLI actually sent the hook in the client
sessions of tests/clients/ (recorded with `ZODYSSEY_RECORD_PAYLOADS=1 nox -s
clients`), the repository and home paths replaced by `$REPO` / `$HOME`. Each
pre-tool payload is fed, as a subprocess, to the command `zodyssey hook
install` wrote for that harness, in a repository built the same way and in the
same run phase, with the environment the client gave its hooks; the decision
must be the one the client session showed on disk. So the adapters stay tested
on the real shapes without npm.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.clients.install import pins
from tests.clients.scenarios import PAYLOADS, concrete, load_fixtures, make_user_repo, start_run
from tests.helpers import clean_env

FIXTURES = load_fixtures()
CONFIG = {
    "claude-code": (".claude/settings.json", "PreToolUse", "PostToolUse"),
    "codex": (".codex/hooks.json", "PreToolUse", "PostToolUse"),
    "gemini": (".gemini/settings.json", "BeforeTool", "AfterTool"),
    "cursor": (".cursor/hooks.json", "preToolUse", "postToolUse"),
}


def installed_command(repo: Path, harness: str, event: str) -> str:
    """The command `zodyssey hook install` wrote for `event` (pre-tool or post-tool)."""
    rel, pre, post = CONFIG[harness]
    config = json.loads((repo / rel).read_text(encoding="utf-8"))
    key = pre if event == "pre-tool" else post
    entries = config["hooks"][key]
    if harness == "cursor":  # a flat list of {command} per event
        entries = [{"hooks": entries}]
    commands = [
        hook["command"]
        for group in entries
        for hook in group["hooks"]
        if f"{event}" in hook["command"]
    ]
    assert len(commands) == 1, commands
    command: str = commands[0]
    return command


def run_installed(command: str, payload: Any, env: dict[str, str], cwd: Path) -> Any:
    return subprocess.run(
        ["sh", "-c", command],
        input=json.dumps(payload),
        env={**clean_env(), **env},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def assert_allowed(done: Any, payload: dict[str, Any]) -> None:
    """Exit 0 and silent, or (a shell call in a run) the call wrapped in the run's sandbox:
    an allow document whose `updatedInput` still holds the original command."""
    assert (done.returncode, done.stderr) == (0, ""), (done.returncode, done.stdout, done.stderr)
    if not done.stdout:
        return
    reply = json.loads(done.stdout)["hookSpecificOutput"]
    assert reply["permissionDecision"] == "allow", reply
    command = payload["tool_input"]["command"]
    assert "sandbox --run demo" in reply["updatedInput"]["command"], reply
    assert shlex.quote(command) in reply["updatedInput"]["command"], reply


_REPOS: dict[tuple[str, str], Path] = {}


def scenario_repo(tmp_path_factory: pytest.TempPathFactory, document: dict[str, Any]) -> Path:
    """One repository per fixture file (per worker): the payloads are only fed to the hook."""
    key = (document["label"], document["scenario"])
    if key not in _REPOS:
        base = tmp_path_factory.mktemp(f"{document['label']}-{document['scenario']}")
        repo = make_user_repo(base, [document["harness"]])
        if document["run"] is not None:
            start_run(repo, okay=document["run"] == "okay")
        _REPOS[key] = repo
    return _REPOS[key]


def _cases() -> list[Any]:
    cases = []
    for path, document in FIXTURES:
        for index, call in enumerate(document["calls"]):
            marks = []
            if call.get("xfail"):
                marks.append(pytest.mark.xfail(strict=True, reason=call["xfail"]))
            cases.append(
                pytest.param(
                    path,
                    index,
                    marks=marks,
                    id=f"{document['label']}/{document['scenario']}/{call['op']}",
                )
            )
    return cases


def test_every_pinned_client_has_recorded_payloads() -> None:
    """A version bump in tests/clients/versions.toml comes with payloads recorded from it."""
    labels = {document["label"] for _, document in FIXTURES}
    for pin in pins().values():
        name = pin.name
        assert f"{name}-{pin.version}" in labels, (
            f"no payloads under {PAYLOADS}/{name}-{pin.version}: run "
            "`ZODYSSEY_RECORD_PAYLOADS=1 nox -s clients` and commit them"
        )


@pytest.mark.parametrize(("path", "index"), _cases())
def test_recorded_pre_tool_payload_gets_its_decision(
    tmp_path_factory: pytest.TempPathFactory, path: Path, index: int
) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    call = document["calls"][index]
    repo = scenario_repo(tmp_path_factory, document)
    home = repo.parent / "home"
    payload = concrete(call["payload"], repo, home)
    command = installed_command(repo, document["harness"], "pre-tool")
    done = run_installed(command, payload, concrete(call["env"], repo, home), repo)
    if call["expect"] == "block":
        assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
        assert "zodyssey gate (run demo)" in done.stderr
    else:
        assert_allowed(done, payload)


@pytest.mark.parametrize(
    "path",
    [
        pytest.param(path, id=f"{document['label']}/{document['scenario']}")
        for path, document in FIXTURES
        if document["post"]
    ],
)
def test_recorded_post_tool_payloads_are_taken_silently(
    tmp_path_factory: pytest.TempPathFactory, path: Path
) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    repo = scenario_repo(tmp_path_factory, document)
    home = repo.parent / "home"
    command = installed_command(repo, document["harness"], "post-tool")
    for record in document["post"]:
        payload = concrete(record["payload"], repo, home)
        done = run_installed(command, payload, concrete(record["env"], repo, home), repo)
        assert (done.returncode, done.stdout, done.stderr) == (0, "", ""), payload
