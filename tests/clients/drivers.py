"""Driving the real clients: one `Client` per harness, and `Session` runs one.

A session is a real git repository (made in a temp dir, the hook wired by
`zodyssey hook install` and committed, as a user does), a temporary home
folder holding the client's own configuration (auth pointed at our scripted
model server, telemetry and auto-update off, the recording hook), the model
server with its script, and the client in its non-interactive mode
(`claude -p`, `gemini -p`, `codex exec`) with a wall-clock timeout.

The recording hook (`record_hook.py`) is wired in the *user's* configuration
of the temporary home (`~/.claude/settings.json`, `~/.gemini/settings.json`,
`$CODEX_HOME/hooks.json`), beside the repository's own wiring and never in it:
the gate's entry stays exactly what `hook install` wrote and committed.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.clients.install import Pin, installed_bin, pins
from tests.clients.modelserver import Call, ModelServer, Script
from tests.clients.scenarios import SLUG, run_state  # noqa: F401  (re-exported)
from tests.helpers import git

RECORDER = Path(__file__).with_name("record_hook.py")
CLIENT_TIMEOUT = 120.0

APIS = {"claude-code": "anthropic", "gemini": "gemini", "codex": "responses"}


@dataclass
class Client:
    name: str  # the --harness value
    api: str
    pin: Pin

    @property
    def version(self) -> str:
        return self.pin.version

    @property
    def label(self) -> str:
        return f"{self.name}-{self.version}"

    def binary(self) -> Path:
        return installed_bin(self.pin)

    # -- the model's tool calls, in this client's tool names

    def read(self, repo: Path, rel: str) -> Call:
        if self.name == "claude-code":
            return Call("Read", {"file_path": str(repo / rel)})
        if self.name == "gemini":
            return Call("read_file", {"file_path": str(repo / rel)})
        return Call("exec_command", {"cmd": f"cat {rel}"})

    def edit(self, repo: Path, rel: str, old: str, new: str) -> Call:
        if self.name == "claude-code":
            return Call(
                "Edit", {"file_path": str(repo / rel), "old_string": old, "new_string": new}
            )
        if self.name == "gemini":
            return Call(
                "replace",
                {
                    "file_path": str(repo / rel),
                    "old_string": old,
                    "new_string": new,
                    "instruction": "change it",
                },
            )
        return Call("apply_patch", patch_update(rel, old, new))

    def write(self, repo: Path, rel: str, content: str) -> Call:
        if self.name == "claude-code":
            return Call("Write", {"file_path": str(repo / rel), "content": content})
        if self.name == "gemini":
            return Call("write_file", {"file_path": str(repo / rel), "content": content})
        return Call("apply_patch", patch_add(rel, content))

    def shell(self, command: str) -> Call:
        if self.name == "claude-code":
            return Call("Bash", {"command": command, "description": "run it"})
        if self.name == "gemini":
            return Call("run_shell_command", {"command": command, "description": "run it"})
        return Call("exec_command", {"cmd": command})

    # -- configuration and environment

    def env(self, home: Path, server: ModelServer) -> dict[str, str]:
        venv_bin = str(Path(sys.executable).parent)
        env = {
            "PATH": venv_bin + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "LANG": "C.UTF-8",
            "TERM": "dumb",
            "NO_COLOR": "1",
            "TMPDIR": str(home / "tmp"),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "XDG_DATA_HOME": str(home / ".local" / "share"),
            "XDG_STATE_HOME": str(home / ".local" / "state"),
            "GIT_CONFIG_NOSYSTEM": "1",
        }
        (home / "tmp").mkdir(parents=True, exist_ok=True)
        if self.name == "claude-code":
            env.update(
                ANTHROPIC_BASE_URL=server.url,
                ANTHROPIC_API_KEY="sk-zodyssey-test",
                IS_SANDBOX="1",  # --dangerously-skip-permissions refuses root otherwise
                DISABLE_AUTOUPDATER="1",
                DISABLE_TELEMETRY="1",
                DISABLE_ERROR_REPORTING="1",
                CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            )
        elif self.name == "gemini":
            env.update(
                GEMINI_API_KEY="zodyssey-test",
                GOOGLE_GEMINI_BASE_URL=server.url,
                GEMINI_CLI_NO_RELAUNCH="true",
                GEMINI_TELEMETRY_ENABLED="false",
            )
        else:
            env.update(CODEX_HOME=str(home / ".codex"), RUST_LOG="error")
        return env

    def argv(self, prompt: str, extra: Sequence[str] = ()) -> list[str]:
        binary = str(self.binary())
        if self.name == "claude-code":
            return [binary, "-p", prompt, "--dangerously-skip-permissions", *extra]
        if self.name == "gemini":
            return [binary, "-p", prompt, "--yolo", *extra]
        return [
            binary,
            "exec",
            "--dangerously-bypass-approvals-and-sandbox",
            "--skip-git-repo-check",
            *extra,
            prompt,
        ]

    def configure(
        self,
        home: Path,
        repo: Path,
        server: ModelServer,
        log: Path,
        *,
        trust: bool = True,
        trust_hooks: bool | None = None,
        record: bool = True,
        hooks: Sequence[UserHook] = (),
    ) -> None:
        """The client's user configuration in `home`: model server, no telemetry, user hooks.

        `trust` trusts the repository (Gemini's trusted folders, Codex's
        project trust); `trust_hooks` (Codex; default: as `trust`) trusts every
        hook Codex lists. The user hooks are the recorder (with `record`) and
        `hooks`, each `(event, command, timeout in seconds)`.
        """
        wanted = list(hooks)
        if record:
            wanted += [
                ("pre", f"{sys.executable} -S {RECORDER} {log} pre-tool", 30.0),
                ("post", f"{sys.executable} -S {RECORDER} {log} post-tool", 30.0),
            ]
        if self.name == "claude-code":
            if record:  # when a subagent starts and ends, and what Claude Code says then
                wanted += [
                    (event, f"{sys.executable} -S {RECORDER} {log} {event}", 30.0)
                    for event in ("SubagentStart", "SubagentStop")
                ]
            settings: dict[str, Any] = {"hooks": grouped(wanted, "PreToolUse", "PostToolUse", "*")}
            write_json(home / ".claude" / "settings.json", settings)
        elif self.name == "gemini":
            settings = {
                "security": {"auth": {"selectedType": "gemini-api-key"}},
                "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
                "privacy": {"usageStatisticsEnabled": False},
                "telemetry": {"enabled": False},
                "hooks": grouped(wanted, "BeforeTool", "AfterTool", ".*", scale=1000),
            }
            write_json(home / ".gemini" / "settings.json", settings)
            trusted = {str(repo.resolve()): "TRUST_FOLDER"} if trust else {}
            write_json(home / ".gemini" / "trustedFolders.json", trusted)
        else:
            codex_home = home / ".codex"
            lines = [
                'model = "gpt-5.5"',  # a model Codex knows: its apply_patch and exec_command tools
                'model_provider = "zodyssey"',
                "check_for_update_on_startup = false",
                "[analytics]",
                "enabled = false",
                "[model_providers.zodyssey]",
                'name = "zodyssey scripted model"',
                f'base_url = "{server.url}/v1"',
                'wire_api = "responses"',
                "request_max_retries = 0",
                "stream_max_retries = 0",
            ]
            if trust:
                lines += [
                    f"[projects.{json.dumps(str(repo.resolve()))}]",
                    'trust_level = "trusted"',
                ]
            codex_home.mkdir(parents=True, exist_ok=True)
            (codex_home / "config.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
            write_json(
                codex_home / "hooks.json",
                {"hooks": grouped(wanted, "PreToolUse", "PostToolUse", "*")},
            )
            if trust if trust_hooks is None else trust_hooks:
                trust_codex_hooks(self, home, repo)


UserHook = tuple[str, str, float]


def grouped(
    hooks: Sequence[UserHook], pre: str, post: str, matcher: str, *, scale: int = 1
) -> dict[str, Any]:
    """Claude-style `{event: [{matcher, hooks: [...]}]}`; timeouts in seconds times `scale`."""
    table: dict[str, Any] = {}
    for event, command, timeout in hooks:
        key = {"pre": pre, "post": post}.get(event, event)
        entry = {"type": "command", "command": command, "timeout": int(timeout * scale)}
        table.setdefault(key, []).append({"matcher": matcher, "hooks": [entry]})
    return table


def make_client(key: str) -> Client:
    """The client of a versions.toml table (`claude-code`, or `claude-code@2.1.197`)."""
    pin = pins()[key]
    return Client(pin.name, APIS[pin.name], pin)


def write_json(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2) + "\n", encoding="utf-8")


def patch_update(rel: str, old: str, new: str) -> str:
    return f"*** Begin Patch\n*** Update File: {rel}\n@@\n-{old}\n+{new}\n*** End Patch\n"


def patch_add(rel: str, content: str) -> str:
    body = "".join(f"+{line}\n" for line in content.splitlines())
    return f"*** Begin Patch\n*** Add File: {rel}\n{body}*** End Patch\n"


# -- Codex hook trust, the way its own interface records it


def codex_hooks(client: Client, home: Path, repo: Path) -> list[dict[str, Any]]:
    """Codex's inventory of the hooks it would run in `repo` (`hooks/list` of its app server)."""
    env = {**client.env(home, _NO_SERVER), "CODEX_HOME": str(home / ".codex")}
    proc = subprocess.Popen(
        [str(client.binary()), "app-server"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=repo,
        env=env,
    )
    assert proc.stdin is not None and proc.stdout is not None
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"clientInfo": {"name": "zodyssey-tests", "version": "1"}},
        },
        {"jsonrpc": "2.0", "method": "initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "hooks/list",
            "params": {"cwds": [str(repo.resolve())]},
        },
    ]
    try:
        for message in messages:
            proc.stdin.write((json.dumps(message) + "\n").encode())
        proc.stdin.flush()
        deadline = time.monotonic() + 30
        buffer = b""
        while time.monotonic() < deadline:
            ready, _, _ = select.select([proc.stdout], [], [], 1.0)
            if not ready:
                continue
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                break
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                try:
                    reply = json.loads(line)
                except ValueError:
                    continue
                if reply.get("id") == 2:
                    if "error" in reply:
                        raise AssertionError(f"codex hooks/list failed: {reply['error']}")
                    hooks: list[dict[str, Any]] = []
                    for entry in reply["result"]["data"]:
                        hooks.extend(entry.get("hooks") or [])
                    return hooks
        raise AssertionError("codex app-server gave no hooks/list answer within 30 s")
    finally:
        proc.stdin.close()
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def trust_codex_hooks(client: Client, home: Path, repo: Path) -> list[str]:
    """Trust every hook Codex lists as untrusted: `[hooks.state."KEY"] trusted_hash`.

    This is what Codex's own hook review writes to `$CODEX_HOME/config.toml`
    when a person answers "Trust all and continue".
    """
    hooks = codex_hooks(client, home, repo)
    lines = []
    keys = []
    for hook in hooks:
        if hook.get("trustStatus") != "trusted" and not hook.get("isManaged"):
            lines += [
                f"[hooks.state.{json.dumps(hook['key'])}]",
                f"trusted_hash = {json.dumps(hook['currentHash'])}",
            ]
            keys.append(hook["key"])
    if lines:
        config = home / ".codex" / "config.toml"
        config.write_text(
            config.read_text(encoding="utf-8") + "\n".join(lines) + "\n", encoding="utf-8"
        )
    return keys


class _NoServer:
    url = "http://127.0.0.1:9"


_NO_SERVER: Any = _NoServer()


# -- a session


@dataclass
class Result:
    client: Client
    repo: Path
    home: Path
    server: ModelServer
    proc: subprocess.CompletedProcess[str]
    seconds: float
    log: Path
    hook_records: list[dict[str, Any]] = field(default_factory=list)

    def status(self) -> str:
        """`git status --porcelain` of the repository (.zcode/ is ignored)."""
        return git(self.repo, "status", "--porcelain", "--untracked-files=all")

    def text(self, rel: str) -> str | None:
        path = self.repo / rel
        return path.read_text(encoding="utf-8") if path.exists() else None

    def outputs(self) -> list[str]:
        return self.server.tool_outputs()

    def pre_payloads(self) -> list[dict[str, Any]]:
        return [r["payload"] for r in self.hook_records if r["event"] == "pre-tool"]

    def post_payloads(self) -> list[dict[str, Any]]:
        return [r["payload"] for r in self.hook_records if r["event"] == "post-tool"]

    def describe(self) -> str:
        return (
            f"{self.client.label} exit {self.proc.returncode} after {self.seconds:.1f}s; "
            f"requests {len(self.server.requests)}; tool outputs {self.outputs()!r}; "
            f"stderr tail {self.proc.stderr[-1500:]!r}"
        )


def run_client(
    client: Client,
    repo: Path,
    home: Path,
    script: Script,
    *,
    prompt: str = "Carry out the task.",
    trust: bool = True,
    trust_hooks: bool | None = None,
    hooks: Sequence[UserHook] = (),
    before: Callable[[Path, ModelServer], None] | None = None,
    timeout: float = CLIENT_TIMEOUT,
    max_requests: int = 60,
    extra_args: Sequence[str] = (),
    env: dict[str, str] | None = None,
    check: bool = True,
) -> Result:
    """Run `client` once in `repo` against a fresh model server playing `script`."""
    home.mkdir(parents=True, exist_ok=True)
    log = home / "hooks.jsonl"
    server = ModelServer(
        client.api, script, max_requests=max_requests, time_limit=timeout + 30
    ).start()
    try:
        client.configure(home, repo, server, log, trust=trust, trust_hooks=trust_hooks, hooks=hooks)
        if before is not None:
            before(home, server)
        argv = client.argv(prompt, extra_args)
        started = time.monotonic()
        try:
            proc = subprocess.run(
                argv,
                cwd=repo,
                env={**client.env(home, server), **(env or {})},
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise AssertionError(
                f"{client.label} did not finish within {timeout:.0f}s; "
                f"requests {len(server.requests)}; stderr {exc.stderr!r}"
            ) from exc
        seconds = time.monotonic() - started
    finally:
        server.stop()
    records = []
    if log.exists():
        records = [
            json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line
        ]
    result = Result(client, repo, home, server, proc, seconds, log, records)
    if check:
        assert proc.returncode == 0, result.describe()
    assert server.overflow == 0, f"the model server's request bound was hit: {result.describe()}"
    assert not server.timed_out, f"the model server's time limit was hit: {result.describe()}"
    return result
