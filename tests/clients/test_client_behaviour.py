"""What each real client does with a hook: failures, timeouts, rewrites, post-tool events, trust.

These pin the clients' own behaviour (docs/ADAPT.md, "What the real clients
do", says the same): a hook that cannot start, crashes, exits with another
code or outlives its timeout; whether a pre-tool hook can rewrite the call;
which fields the post-tool event carries; when Codex and Gemini CLI run a
project's hooks at all. The misbehaving hooks are `probe_hook.py`, wired in
the temporary home's user configuration; the gate's own command is used where
the question is what happens to the gate (a command that cannot start).
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest

from tests.clients.drivers import Client, Result, codex_hooks, run_client, trust_codex_hooks
from tests.clients.modelserver import Call, Script, turn
from tests.clients.scenarios import make_user_repo, start_run
from tests.helpers import commit, run_zodyssey

PROBE = Path(__file__).with_name("probe_hook.py")
MISSING_PYTHON = "/nonexistent/checkout/.venv/bin/python"
WRITE = "echo original > original.txt"


def probe(mode: str, *args: str) -> str:
    return shlex.join([sys.executable, str(PROBE), mode, *args])


def plain_session(
    client: Client, base: Path, hook: str, *, timeout: float = 30.0, calls: int = 1
) -> Result:
    """A repository without the gate; the probe as a user pre-tool hook; one shell write."""
    repo = make_user_repo(base, [])
    script = Script([turn(client.shell(WRITE))] * calls)
    return run_client(client, repo, base / "home", script, hooks=[("pre", hook, timeout)])


# -- a hook that fails


def break_interpreter(repo: Path, harness: str) -> None:
    """The committed wiring as a teammate's checkout sees it: the installer's venv is not there."""
    rel = {
        "claude-code": ".claude/settings.json",
        "gemini": ".gemini/settings.json",
        "codex": ".codex/hooks.json",
    }[harness]
    path = repo / rel
    text = path.read_text(encoding="utf-8")
    broken = text.replace('"zodyssey hook ', f'"{MISSING_PYTHON} -m zodyssey hook ')
    assert broken != text  # install wrote `zodyssey` from PATH (this venv is elsewhere)
    path.write_text(broken, encoding="utf-8")
    commit(repo, "the wiring of another machine")


@pytest.fixture(scope="module")
def cannot_start(client: Client, tmp_path_factory: pytest.TempPathFactory) -> Result:
    """Phase plan, then the gate's command names an interpreter that does not exist here."""
    base = tmp_path_factory.mktemp(f"nostart-{client.name}")
    repo = make_user_repo(base, [client.name])
    # The run starts while the wiring holds (`run start` refuses wiring that cannot
    # start); then the checkout changes under it, as on a teammate's machine.
    start_run(repo)
    break_interpreter(repo, client.name)
    script = Script(
        [turn(client.read(repo, "README.md")), turn(client.shell("sed -i s/hi/hello/ src/app.py"))]
    )
    return run_client(client, repo, base / "home", script)


def test_gate_command_that_cannot_start(cannot_start: Result) -> None:
    """Codex runs every call (the gate is open); Gemini CLI blocks every call; Claude Code
    runs every call, but its shell calls stay in the sandbox.

    Gemini CLI runs hooks through `bash -c` and reads a non-JSON stderr with an
    exit code other than 0 or 1 as a deny, so bash's own "No such file or
    directory" (exit 127) becomes the reason of a block, also for reads. Claude
    Code runs each Bash call through this machine's shell prefix
    (`.claude/settings.local.json`, written by `hook install`), which is no hook:
    a broken hook command leaves it working, so the write before review fails.
    """
    app = cannot_start.text("src/app.py")
    outputs = cannot_start.outputs()
    if cannot_start.client.name == "gemini":
        assert app == "GREETING = 'hi'\n", cannot_start.describe()
        assert len(cannot_start.pre_payloads()) == 2, cannot_start.describe()  # the recorder's
        assert outputs and all("Tool execution blocked" in o for o in outputs), outputs
        assert all("No such file or directory" in o for o in outputs), outputs
    elif cannot_start.client.name == "claude-code":
        assert app == "GREETING = 'hi'\n", cannot_start.describe()
        assert any("demo" in o for o in outputs), outputs  # README.md was read
        assert any("Permission denied" in o for o in outputs), outputs  # the kernel's refusal
    else:
        assert app == "GREETING = 'hello'\n", cannot_start.describe()
        assert any("demo" in o for o in outputs), outputs  # README.md was read
        assert not any("zodyssey" in o for o in outputs), outputs


def test_gemini_hook_that_cannot_start_blocks_without_a_run(gemini: Client, tmp_path: Path) -> None:
    """No run, no gate: a hook command that cannot start still blocks every Gemini call."""
    command = f"{MISSING_PYTHON} -S -P /nonexistent/checkout/hook_entry.py pre-tool"
    result = plain_session(gemini, tmp_path, command)
    assert result.text("original.txt") is None, result.describe()
    assert any("No such file or directory" in o for o in result.outputs()), result.describe()


@pytest.mark.parametrize(("mode", "gemini_blocks"), [("crash", False), ("exit3", True)])
def test_hook_that_exits_non_zero(
    client: Client, tmp_path: Path, mode: str, gemini_blocks: bool
) -> None:
    """Exit 1 (a crash) never blocks; exit 3 blocks in Gemini CLI only (its stderr is the reason).

    Claude Code and Codex block on exit 2 (or a deny document) and on nothing else.
    """
    result = plain_session(client, tmp_path, probe(mode))
    blocks = client.name == "gemini" and gemini_blocks
    assert (result.text("original.txt") is None) == blocks, result.describe()
    if blocks:
        assert any("the probe hook failed with exit 3" in o for o in result.outputs())


def test_hook_past_its_timeout_is_killed_and_the_call_runs(client: Client, tmp_path: Path) -> None:
    finished = tmp_path / "hook-finished"
    result = plain_session(client, tmp_path, probe("sleep", "15", str(finished)), timeout=2.0)
    assert result.text("original.txt") == "original\n", result.describe()
    assert not finished.exists(), "the client waited for the hook instead of killing it"


# -- a hook that rewrites the call


def test_pre_tool_hook_can_rewrite_the_shell_command(client: Client, tmp_path: Path) -> None:
    """All three run the command the hook put in the input instead of the model's.

    Claude Code and Codex take `hookSpecificOutput.updatedInput` (with
    `permissionDecision: allow`), Gemini CLI `hookSpecificOutput.tool_input`;
    only Gemini CLI tells the model its input was changed.
    """
    flavour = client.name.split("-")[0]
    result = plain_session(
        client, tmp_path, probe(f"rewrite-{flavour}", "echo rewritten > rewritten.txt")
    )
    assert result.text("original.txt") is None, result.describe()
    assert result.text("rewritten.txt") == "rewritten\n", result.describe()
    told = any("modified by a hook" in o for o in result.outputs())
    assert told == (client.name == "gemini"), result.outputs()


# -- the events and fields a client sends


@pytest.fixture(scope="module")
def recorded(client: Client, tmp_path_factory: pytest.TempPathFactory) -> Result:
    base = tmp_path_factory.mktemp(f"fields-{client.name}")
    repo = make_user_repo(base, [])
    script = Script([turn(client.read(repo, "README.md")), turn(client.shell(WRITE))])
    return run_client(client, repo, base / "home", script)


def test_post_tool_event_fields(recorded: Result) -> None:
    """Every call gets a post-tool event with the tool's response and the transcript path.

    Claude Code and Codex also send the call's `tool_use_id` (the same as the
    pre-tool event's); Gemini CLI sends no call id at all.
    """
    pre, post = recorded.pre_payloads(), recorded.post_payloads()
    assert len(pre) == len(post) == 2, recorded.describe()
    event = {"claude-code": "PostToolUse", "codex": "PostToolUse", "gemini": "AfterTool"}
    for before, after in zip(pre, post, strict=True):
        assert after["hook_event_name"] == event[recorded.client.name]
        assert "tool_response" in after, after
        assert Path(after["transcript_path"]).is_file(), after["transcript_path"]
        if recorded.client.name == "gemini":
            assert "tool_use_id" not in after and "tool_use_id" not in before
        else:
            assert after["tool_use_id"] == before["tool_use_id"]
        assert "agent_id" not in after and "agent_type" not in after  # the orchestrator's calls


def test_hook_environment_names_the_project(recorded: Result) -> None:
    """Claude Code sets CLAUDE_PROJECT_DIR; Gemini CLI sets GEMINI_PROJECT_DIR, GEMINI_CWD and
    CLAUDE_PROJECT_DIR (for compatibility); Codex sets no project variable (only the payload's
    `cwd` says where)."""
    envs = [r["env"] for r in recorded.hook_records if r["event"] == "pre-tool"]
    assert envs, recorded.describe()
    repo = str(recorded.repo)
    for env in envs:
        project = {k: v for k, v in env.items() if k != "CODEX_HOME"}
        expected = {
            "claude-code": {"CLAUDE_PROJECT_DIR": repo},
            "gemini": {"CLAUDE_PROJECT_DIR": repo, "GEMINI_PROJECT_DIR": repo, "GEMINI_CWD": repo},
            "codex": {},
        }[recorded.client.name]
        assert project == expected, env
    assert all(p["cwd"] == repo for p in recorded.pre_payloads())


def test_transcript_names_each_call(recorded: Result) -> None:
    """The transcript the hook is pointed at holds each call (what an audit can cross-check)."""
    for payload in recorded.post_payloads():
        transcript = Path(payload["transcript_path"]).read_text(encoding="utf-8")
        if recorded.client.name == "gemini":
            assert "README.md" in transcript and "original.txt" in transcript
        else:
            assert payload["tool_use_id"] in transcript


def test_shell_call_tool_name_and_input(recorded: Result) -> None:
    """The shell call as the hook sees it: Codex 0.171.0 sends its `exec_command {cmd}` as
    `Bash {command}`, the same name and key as Claude Code's Bash."""
    shells = [p for p in recorded.pre_payloads() if WRITE in json.dumps(p)]
    name = {"claude-code": "Bash", "codex": "Bash", "gemini": "run_shell_command"}
    assert [p["tool_name"] for p in shells] == [name[recorded.client.name]]
    assert shells[0]["tool_input"]["command"] == WRITE
    if recorded.client.name == "codex":
        assert shells[0]["tool_input"] == {"command": WRITE}


# -- when a project's hooks run at all


def gated_plan_repo(client: Client, base: Path) -> Path:
    repo = make_user_repo(base, [client.name])
    start_run(repo)
    return repo


@pytest.mark.parametrize(
    ("trust", "trust_hooks"),
    [(False, False), (True, False), (False, True)],
    ids=["nothing-trusted", "project-only", "hooks-only"],
)
def test_codex_runs_no_project_hook_without_both_trusts(
    codex: Client, tmp_path: Path, trust: bool, trust_hooks: bool
) -> None:
    """Codex skips the repository's hooks silently unless the project AND each hook are trusted."""
    client = codex
    repo = gated_plan_repo(client, tmp_path)
    script = Script([turn(client.shell("sed -i s/hi/hello/ src/app.py"))])
    result = run_client(
        client, repo, tmp_path / "home", script, trust=trust, trust_hooks=trust_hooks
    )
    assert result.text("src/app.py") == "GREETING = 'hello'\n", result.describe()
    assert not any("zodyssey" in o for o in result.outputs())


# The zodyssey of an interpreter elsewhere (a rebuilt venv): its command differs from
# the `zodyssey` from PATH that `hook install` writes for Codex.
ZODYSSEY_ELSEWHERE = Path(sys.executable).parent / "zodyssey"


def test_codex_hook_trust_is_keyed_by_path_and_command(codex: Client, tmp_path: Path) -> None:
    """Trust is `[hooks.state."<abs>/.codex/hooks.json:pre_tool_use:0:0"] trusted_hash`, the
    hash of the hook's command: a changed command (a rebuilt venv) is untrusted again."""
    client = codex
    repo = gated_plan_repo(client, tmp_path)
    home = tmp_path / "home"
    server_free = Script([turn(client.shell("sed -i s/hi/hello/ src/app.py"))])

    def retrust_then_move(home: Path, _server: object) -> None:
        keys = trust_codex_hooks(client, home, repo)
        assert f"{repo}/.codex/hooks.json:pre_tool_use:0:0" in keys, keys
        config = (home / ".codex" / "config.toml").read_text(encoding="utf-8")
        assert 'trusted_hash = "sha256:' in config
        # The same wiring, written by an interpreter elsewhere: a new command, a new hash.
        other = run_zodyssey(
            *("hook", "install", "--harness", "codex", "--command", str(ZODYSSEY_ELSEWHERE)),
            cwd=repo,
        )
        assert other.returncode == 0, other.stderr
        listed = {h["key"]: h["trustStatus"] for h in codex_hooks(client, home, repo)}
        assert listed[f"{repo}/.codex/hooks.json:pre_tool_use:0:0"] == "modified", listed

    result = run_client(
        client, repo, home, server_free, trust=True, trust_hooks=False, before=retrust_then_move
    )
    assert result.text("src/app.py") == "GREETING = 'hello'\n", result.describe()


def test_gemini_headless_refuses_an_untrusted_folder(gemini: Client, tmp_path: Path) -> None:
    """Gemini CLI 0.61.0 has folder trust on by default; `gemini -p` in an untrusted folder
    exits 55 before any model request (interactive sessions there load no project hooks)."""
    repo = gated_plan_repo(gemini, tmp_path)
    script = Script([turn(gemini.shell("sed -i s/hi/hello/ src/app.py"))])
    result = run_client(gemini, repo, tmp_path / "home", script, trust=False, check=False)
    assert result.proc.returncode == 55, result.describe()
    assert "not running in a trusted directory" in result.proc.stderr
    assert not result.server.requests
    assert result.text("src/app.py") == "GREETING = 'hi'\n"


def test_gemini_trust_workspace_variable_runs_the_project_hooks(
    gemini: Client, tmp_path: Path
) -> None:
    """GEMINI_CLI_TRUST_WORKSPACE=true trusts the folder for the session, project hooks
    included: the gate blocks."""
    repo = gated_plan_repo(gemini, tmp_path)
    script = Script([turn(gemini.shell("sed -i s/hi/hello/ src/app.py"))])
    result = run_client(
        gemini,
        repo,
        tmp_path / "home",
        script,
        trust=False,
        env={"GEMINI_CLI_TRUST_WORKSPACE": "true"},
    )
    assert result.text("src/app.py") == "GREETING = 'hi'\n", result.describe()
    assert any("zodyssey gate (run demo)" in o for o in result.outputs()), result.describe()


def test_gemini_skip_trust_flag_runs_without_the_project_hooks(
    gemini: Client, tmp_path: Path
) -> None:
    """`gemini -p --skip-trust` in an untrusted folder runs the session, but the flag takes
    effect after the project's hooks were judged untrusted: no gate, the write lands."""
    repo = gated_plan_repo(gemini, tmp_path)
    script = Script([turn(gemini.shell("sed -i s/hi/hello/ src/app.py"))])
    result = run_client(
        gemini, repo, tmp_path / "home", script, trust=False, extra_args=["--skip-trust"]
    )
    assert result.text("src/app.py") == "GREETING = 'hello'\n", result.describe()
    assert not any("zodyssey" in o for o in result.outputs()), result.describe()


# -- a user's own configuration switching every hook off


def test_user_settings_can_switch_the_project_hooks_off(client: Client, tmp_path: Path) -> None:
    """Outside the repository, in the user's own files, one key turns every hook off:
    Claude Code `disableAllHooks: true` in ~/.claude/settings.json, Codex `[features]
    hooks = false` in ~/.codex/config.toml, Gemini CLI `hooksConfig.enabled: false` in
    ~/.gemini/settings.json. The committed wiring is untouched and the write lands;
    except in Claude Code, whose shell prefix (this machine's `.claude/settings.local.json`,
    no hook) keeps the shell call of the Landlocked run in the sandbox: the write before
    review fails there, and removing its `env` entry is what switches that off."""
    repo = gated_plan_repo(client, tmp_path)

    def switch_off(home: Path, _server: object) -> None:
        if client.name == "claude-code":
            path = home / ".claude" / "settings.json"
            settings = json.loads(path.read_text(encoding="utf-8"))
            path.write_text(json.dumps({**settings, "disableAllHooks": True}), encoding="utf-8")
        elif client.name == "gemini":
            path = home / ".gemini" / "settings.json"
            settings = json.loads(path.read_text(encoding="utf-8"))
            settings["hooksConfig"] = {"enabled": False}
            path.write_text(json.dumps(settings), encoding="utf-8")
        else:
            path = home / ".codex" / "config.toml"
            path.write_text(path.read_text(encoding="utf-8") + "[features]\nhooks = false\n")

    script = Script([turn(client.shell("sed -i s/hi/hello/ src/app.py"))])
    result = run_client(client, repo, tmp_path / "home", script, before=switch_off)
    if client.name == "claude-code":
        assert result.text("src/app.py") == "GREETING = 'hi'\n", result.describe()
        assert any("Permission denied" in o for o in result.outputs()), result.describe()
        return
    assert result.text("src/app.py") == "GREETING = 'hello'\n", result.describe()
    assert not any("zodyssey" in o for o in result.outputs())


def test_codex_workdir_reaches_the_hook_as_cwd(codex: Client, tmp_path: Path) -> None:
    """`exec_command {cmd, workdir}`: the hook gets `Bash {command}` with the payload's `cwd`
    set to the workdir (the key itself is dropped), and the command runs there."""
    repo = make_user_repo(tmp_path, [])
    call = Call("exec_command", {"cmd": "echo x > w.txt", "workdir": "src"})
    result = run_client(codex, repo, tmp_path / "home", Script([turn(call)]))
    (payload,) = result.pre_payloads()
    assert payload["tool_input"] == {"command": "echo x > w.txt"}, payload
    assert payload["cwd"] == str(repo / "src"), payload
    assert result.text("src/w.txt") == "x\n" and result.text("w.txt") is None
