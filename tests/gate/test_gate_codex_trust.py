"""Codex runs no hook it does not trust: `zodyssey check` and `run start` read its records.

Codex keeps two trust records in `$CODEX_HOME/config.toml` (project trust,
and per hook `[hooks.state."<abs config path>:<event>:<group>:<handler>"]
trusted_hash`); without them `codex exec` skips the gate silently. These
tests write a real Codex home in a temp dir, wire the hook with the real
`zodyssey hook install`, and run the real commands. The hashes below were
reported by Codex CLI 0.171.0 itself (`codex app-server`, `hooks/list`,
`currentHash`); tests/clients/test_codex_trust_in_clients.py checks the same
formula against the installed CLI on every hook `hook install` writes.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.helpers import commit, make_repo, plan, run_zodyssey
from zodyssey.gate.codex_trust import hook_digest, our_hooks

SLUG = "demo"
PLAN = plan("Change it", [("Edit", ["src/app.py"], ["`true`"])])

# (event label, matcher, handler) -> Codex 0.171.0's currentHash for it.
CODEX_SAID = [
    (
        "pre_tool_use",
        "*",
        {"type": "command", "command": "echo hi", "timeout": 30},
        "sha256:6e4e918f0015bc3f3fac7864fd00f035ac12d2ba415b6dcdc80415135dbf4c44",
    ),
    (
        "pre_tool_use",
        "*",
        {"type": "command", "command": "echo hi", "timeout": 31},
        "sha256:5db530154ea077ee4371e6372c07cbecdbf5d180926670c0cc7b3b50409ae54d",
    ),
    (
        "pre_tool_use",
        "Bash",
        {"type": "command", "command": "echo hi", "timeout": 30},
        "sha256:65f88c378f287741bd683c759c7306a773bbb410594d61f7a39b723f8ab8eb45",
    ),
    (
        "pre_tool_use",
        None,
        {"type": "command", "command": "echo hi"},
        "sha256:c2ab198fe0750494126041254c4d031ad06f4b267edca02168d8a6745e4141c5",
    ),
    (
        "pre_tool_use",
        "*",
        {"type": "command", "command": "echo hi", "timeout": 30, "statusMessage": "x"},
        "sha256:b98caa77ee6359ad79b3a765038ff21fadaebc9870abb75a25ba8ad24f8f1f02",
    ),
    (
        "post_tool_use",
        "*",
        {"type": "command", "command": "echo hi", "timeout": 30},
        "sha256:6bfe3fb169803b3059910d484112957dac2220475304ab41a4ab45d6f692f358",
    ),
    (
        "pre_tool_use",
        None,
        {"type": "command", "command": "echo hö"},
        "sha256:566506e4ff0db1e19d4730dfbedaf613729511a435afdbf4e3c4e2c112f4cd6f",
    ),
]


@pytest.mark.parametrize(("event", "matcher", "handler", "said"), CODEX_SAID)
def test_hook_digest_is_what_codex_reports(
    event: str, matcher: str | None, handler: dict[str, object], said: str
) -> None:
    assert hook_digest(event, matcher, handler) == said


def wired(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "repo", {"src/app.py": "x = 1\n", ".gitignore": ".zcode/\n"})
    done = run_zodyssey("hook", "install", "--harness", "codex", cwd=repo)
    assert done.returncode == 0, done.stderr
    commit(repo, "wire the gate")
    return repo.resolve()


def codex_home(tmp_path: Path, text: str = "") -> Path:
    home = tmp_path / "codex-home"
    home.mkdir(exist_ok=True)
    (home / "config.toml").write_text(text, encoding="utf-8")
    return home


def start(repo: Path, home: Path) -> subprocess.CompletedProcess[str]:
    plan_file = repo.parent / "plan.md"
    plan_file.write_text(PLAN, encoding="utf-8")
    return run_zodyssey(
        "run", "start", SLUG, "--plan", str(plan_file), cwd=repo, env={"CODEX_HOME": str(home)}
    )


def check(repo: Path, home: Path) -> tuple[int, list[dict[str, object]]]:
    done = run_zodyssey("check", "--format", "json", cwd=repo, env={"CODEX_HOME": str(home)})
    findings = json.loads(done.stdout)["gate"]["report"]["findings"]
    return done.returncode, [f for f in findings if f["rule"] == "codex-untrusted"]


def trust_block(stderr: str) -> str:
    """The `cat >> CONFIG <<'EOF' ... EOF` command the refusal prints."""
    start_at = stderr.index("cat >> ")
    end_at = stderr.index("\nEOF", start_at) + len("\nEOF")
    return stderr[start_at:end_at] + "\n"


def started(repo: Path) -> bool:
    return (repo / ".zcode" / "state" / f"{SLUG}.json").exists()


@pytest.mark.claim("codex-trust-refuses")
def test_untrusted_codex_refuses_the_run_and_fails_the_check(tmp_path: Path) -> None:
    repo = wired(tmp_path)
    home = codex_home(tmp_path)
    done = start(repo, home)
    assert done.returncode == 11, (done.stdout, done.stderr)
    assert not started(repo)
    assert f"the project {repo} is not trusted" in done.stderr
    assert f"{repo}/.codex/hooks.json:pre_tool_use:0:0 is not trusted" in done.stderr
    code, findings = check(repo, home)
    assert code == 9 and findings and findings[0]["file"] == ".codex/hooks.json"


@pytest.mark.claim("codex-trust-refuses")
def test_the_printed_command_trusts_the_gate(tmp_path: Path) -> None:
    """Run what the refusal prints, as a person would: the run then starts, the check passes."""
    repo = wired(tmp_path)
    home = codex_home(tmp_path, 'model = "gpt-5.5"\n')
    done = start(repo, home)
    assert done.returncode == 11
    subprocess.run(["sh", "-c", trust_block(done.stderr)], check=True)
    config = (home / "config.toml").read_text(encoding="utf-8")
    assert config.startswith('model = "gpt-5.5"\n')  # appended, nothing else touched
    _code, findings = check(repo, home)  # the whole check also judges citations
    assert not findings, findings
    done = start(repo, home)
    assert done.returncode == 0, done.stderr
    assert started(repo)


@pytest.mark.claim("codex-trust-refuses")
def test_a_changed_command_is_untrusted_again(tmp_path: Path) -> None:
    """Trusted once, then re-installed with another interpreter: Codex would skip it."""
    repo = wired(tmp_path)
    home = codex_home(tmp_path)
    subprocess.run(["sh", "-c", trust_block(start(repo, home).stderr)], check=True)
    hooks = repo / ".codex" / "hooks.json"
    value = json.loads(hooks.read_text(encoding="utf-8"))
    entry = value["hooks"]["PreToolUse"][0]["hooks"][0]
    entry["command"] += " "  # still starts, hashes anew
    hooks.write_text(json.dumps(value), encoding="utf-8")
    commit(repo, "re-wired")
    done = start(repo, home)
    assert done.returncode == 11, done.stderr
    assert "pre_tool_use:0:0 changed since it was trusted" in done.stderr
    assert "post_tool_use" not in done.stderr  # that one is still trusted
    (record,) = [r for r in our_hooks(hooks, value) if ":pre_tool_use:" in r.key]
    assert f'set trusted_hash = "{record.digest}"' in done.stderr


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        ("[features]\nhooks = false\n", "[features] hooks = false"),
        ("[features]\ncodex_hooks = false\n", "[features] codex_hooks = false"),
    ],
)
def test_hooks_switched_off_in_codex_refuse(tmp_path: Path, extra: str, said: str) -> None:
    repo = wired(tmp_path)
    home = codex_home(tmp_path)
    subprocess.run(["sh", "-c", trust_block(start(repo, home).stderr)], check=True)
    config = home / "config.toml"
    config.write_text(extra + config.read_text(encoding="utf-8"), encoding="utf-8")
    done = start(repo, home)
    assert done.returncode == 11 and said in done.stderr, done.stderr


def test_a_hook_switched_off_in_its_state_refuses(tmp_path: Path) -> None:
    repo = wired(tmp_path)
    home = codex_home(tmp_path)
    subprocess.run(["sh", "-c", trust_block(start(repo, home).stderr)], check=True)
    config = home / "config.toml"
    text = config.read_text(encoding="utf-8")
    key = f'[hooks.state."{repo}/.codex/hooks.json:pre_tool_use:0:0"]\n'
    config.write_text(text.replace(key, key + "enabled = false\n"), encoding="utf-8")
    done = start(repo, home)
    assert done.returncode == 11 and "switched off (enabled = false)" in done.stderr


@pytest.mark.parametrize(
    "projects",
    [
        '[projects."{parent}"]\ntrust_level = "trusted"\n',  # a parent folder does not count
        '[projects."{repo}/"]\ntrust_level = "trusted"\n',  # nor a trailing slash
        '[projects."{repo}"]\ntrust_level = "untrusted"\n',
    ],
)
def test_project_trust_is_codex_s_exact_record(tmp_path: Path, projects: str) -> None:
    repo = wired(tmp_path)
    home = codex_home(tmp_path, projects.format(repo=repo, parent=repo.parent))
    done = start(repo, home)
    assert done.returncode == 11 and f"the project {repo} is not trusted" in done.stderr
    if "untrusted" in projects:  # a table that exists is edited, not appended twice
        assert f'set trust_level = "trusted" under [projects."{repo}"]' in done.stderr


def test_an_unreadable_codex_config_refuses(tmp_path: Path) -> None:
    repo = wired(tmp_path)
    home = codex_home(tmp_path, "this is = = not toml\n")
    done = start(repo, home)
    assert done.returncode == 11 and "cannot be read" in done.stderr
    assert "Traceback" not in done.stderr


def test_no_codex_home_refuses_the_run_and_says_what_to_write(tmp_path: Path) -> None:
    """Codex never started here: a Codex started later would make its home without trust
    records and run no hook. `run start` refuses (exit 11) printing the records for a new
    config.toml; the check only warns (a CI runner runs no Codex). Writing what it
    printed, the run starts: the records are the ones the home-present check accepts."""
    repo = wired(tmp_path)
    home = tmp_path / "no-such-codex-home"
    done = start(repo, home)
    assert done.returncode == 11, done.stderr
    assert not started(repo)
    assert f"no {home}" in done.stderr and "--harness" in done.stderr, done.stderr
    check_done = run_zodyssey("check", "--format", "json", cwd=repo, env={"CODEX_HOME": str(home)})
    findings = json.loads(check_done.stdout)["gate"]["report"]["findings"]
    missing = [f for f in findings if f["rule"] == "codex-home-missing"]
    assert missing and missing[0]["severity"] == "warning", findings
    assert not [f for f in findings if f["severity"] == "error"], findings
    script = done.stderr[done.stderr.index("mkdir -p ") :]
    script = script[: script.index("\nEOF") + len("\nEOF")] + "\n"
    subprocess.run(["sh", "-c", script], check=True)
    assert (home / "config.toml").is_file()
    _code, untrusted = check(repo, home)
    assert not untrusted, untrusted
    again = start(repo, home)
    assert again.returncode == 0, again.stderr


def test_a_run_that_names_its_harnesses_skips_codex(tmp_path: Path) -> None:
    """The person says the run uses Claude Code only: no Codex home is needed."""
    repo = wired(tmp_path)
    done = run_zodyssey("hook", "install", "--harness", "claude-code", cwd=repo)
    assert done.returncode == 0, done.stderr
    commit(repo, "wire claude code too")
    plan_file = repo.parent / "plan.md"
    plan_file.write_text(PLAN, encoding="utf-8")
    env = {"CODEX_HOME": str(tmp_path / "no-such-codex-home")}
    argv = ["run", "start", SLUG, "--plan", str(plan_file), "--harness", "claude-code"]
    started_run = run_zodyssey(*argv, cwd=repo, env=env)
    assert started_run.returncode == 0, started_run.stderr
    assert started(repo)
    bad = run_zodyssey("run", "start", "other", "--harness", "nope", cwd=repo, env=env)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr, bad.stderr
