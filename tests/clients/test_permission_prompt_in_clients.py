"""What a person is asked to permit after OKAY, in Claude Code's default permission mode.

Issue 34: after OKAY each write-capable shell call in Claude Code's default mode
becomes a permission request, and the person should see the command the agent
wrote (`sed -i ...`), not the interpreter line that wraps it in the run's
sandbox. `claude -p --output-format json` (no `--dangerously-skip-permissions`)
answers a permission request with a denial and lists the call exactly as it
would have been shown (`permission_denials[].tool_input`), which is what this
test reads. The wrapping form is gate-boundary's (issue 33); this test records
what lands: the request shows the command as the agent wrote it.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.clients.drivers import Client
from tests.clients.modelserver import Call, ModelServer, Script, turn
from tests.clients.scenarios import make_user_repo, start_run

ORIGINAL = "sed -i 's/hi/hello/' src/app.py"


def asked(claude: Client, base: Path) -> dict[str, object]:
    """The permission request Claude Code made for ORIGINAL after a person's OKAY."""
    repo = make_user_repo(base, [claude.name])
    start_run(repo, okay=True)
    home = base / "home"
    home.mkdir()
    script = Script([turn(Call("Bash", {"command": ORIGINAL, "description": "edit the app"}))])
    server = ModelServer(claude.api, script, max_requests=20, time_limit=150).start()
    try:
        claude.configure(home, repo, server, home / "hooks.jsonl")
        done = subprocess.run(
            [str(claude.binary()), "-p", "go", "--output-format", "json"],
            cwd=repo,
            env=claude.env(home, server),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    finally:
        server.stop()
    assert done.returncode == 0, done.stderr[-1500:]
    denials = json.loads(done.stdout)["permission_denials"]
    assert len(denials) == 1, denials
    # Nothing ran: the request was denied, the file is as it was.
    assert (repo / "src/app.py").read_text() == "GREETING = 'hi'\n"
    request: dict[str, object] = denials[0]["tool_input"]
    return request


def test_the_request_carries_the_original_command_intact(claude: Client, tmp_path: Path) -> None:
    command = str(asked(claude, tmp_path)["command"])
    assert "sed -i" in command and "src/app.py" in command, command


def test_the_request_shows_the_original_command(claude: Client, tmp_path: Path) -> None:
    assert asked(claude, tmp_path)["command"] == ORIGINAL
