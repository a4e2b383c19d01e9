"""The gate-wiring part of `zodyssey check`: a deleted, narrowed or hatched gate fails CI.

Every case starts from what users really do: a git repository set up with
`zodyssey init`, the hook wired with the real `zodyssey hook install`, all of it
committed; then one edit of the committed configuration, committed too, and
the real `zodyssey check` in a subprocess.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import git, run_zodyssey

HARNESSES = ("claude-code", "zcode", "codex", "gemini", "cursor")
FILES = {
    "claude-code": ".claude/settings.json",
    "zcode": ".claude/settings.json",
    "codex": ".codex/hooks.json",
    "gemini": ".gemini/settings.json",
    "cursor": ".cursor/hooks.json",
}


def env() -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "GITHUB_"))}
    out.pop("ZODYSSEY_UNGATE_BASH", None)
    out["NO_COLOR"] = "1"
    return out


def zodyssey(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_zodyssey(*args, cwd=repo, env={"NO_COLOR": "1"})


def wired(tmp_path: Path, *harnesses: str) -> Path:
    """`tmp_path/repo`: git init, `zodyssey init`, `hook install` per harness, committed.

    The real commands run once per harness list and environment in this worker's
    temporary directory; each test gets its own copy of that repository (what
    they write names no path of it), so its edits never reach another test.
    """
    environment = sorted((k, v) for k, v in os.environ.items() if not k.startswith("PYTEST_"))
    key = hashlib.sha256(repr((harnesses, environment)).encode()).hexdigest()[:16]
    template = tmp_path.parent / "wired-templates" / key
    if not template.is_dir():
        building = template.with_name(key + ".building")
        shutil.rmtree(building, ignore_errors=True)
        building.mkdir(parents=True)
        git(building, "init", "-q")
        assert zodyssey(building, "init").returncode == 0
        for harness in harnesses:
            done = zodyssey(
                building, "hook", "install", "--harness", harness, "--command", "zodyssey"
            )
            assert done.returncode == 0, done.stderr
        commit(building)
        building.rename(template)
    repo = tmp_path / "repo"
    shutil.copytree(template, repo, symlinks=True)
    return repo


def commit(repo: Path) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", "wiring")


def gate_part(repo: Path) -> tuple[int, dict[str, Any], str]:
    """Exit code of the whole check, the gate part's JSON report, and the text output."""
    as_json = zodyssey(repo, "check", "--format", "json")
    document = json.loads(as_json.stdout)
    text = zodyssey(repo, "check")
    assert text.returncode == as_json.returncode
    return as_json.returncode, document["gate"], text.stdout + text.stderr


def rules(part: dict[str, Any]) -> set[tuple[str, str | None, str | None]]:
    return {
        (f["rule"], f["file"], f["extra"].get("harness"))
        for f in part["report"]["findings"]
        if f["severity"] == "error"
    }


def edit_json(repo: Path, rel: str, change: Callable[[dict[str, Any]], None]) -> None:
    path = repo / rel
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    commit(repo)


def _pre_key(harness: str) -> str:
    return {"gemini": "BeforeTool", "cursor": "preToolUse"}.get(harness, "PreToolUse")


# ------------------------------------------------------------------ intact wiring


def test_every_harness_wired_by_hook_install_passes(tmp_path: Path) -> None:
    repo = wired(tmp_path, *HARNESSES)
    code, part, _ = gate_part(repo)
    assert code == 0, part
    assert part["exit_code"] == 0
    assert part["report"]["declared"] == list(HARNESSES)
    assert part["report"]["checked"] == FILES


def test_no_declared_harness_is_nothing_to_check(tmp_path: Path) -> None:
    repo = wired(tmp_path)
    code, part, text = gate_part(repo)
    assert code == 0 and part["exit_code"] == 0
    assert "gate wiring: no harness declared" in text


# ------------------------------------------------------------------ deleted gates


@pytest.mark.parametrize("harness", HARNESSES)
def test_deleted_hook_entry_fails_naming_file_and_harness(tmp_path: Path, harness: str) -> None:
    repo = wired(tmp_path, harness)
    rel = FILES[harness]

    def drop(data: dict[str, Any]) -> None:
        if harness == "cursor":  # every event that announces a tool call
            for event in ("beforeShellExecution", "beforeMCPExecution", "preToolUse"):
                del data["hooks"][event]
        else:
            del data["hooks"][_pre_key(harness)]

    edit_json(repo, rel, drop)
    code, part, text = gate_part(repo)
    assert code == 9 and part["exit_code"] == 9
    assert ("hook-missing", rel, harness) in rules(part), rules(part)
    assert rel in text and harness in text


@pytest.mark.parametrize("harness", HARNESSES)
def test_deleted_config_file_fails(tmp_path: Path, harness: str) -> None:
    repo = wired(tmp_path, harness)
    (repo / FILES[harness]).unlink()
    commit(repo)
    code, part, _ = gate_part(repo)
    assert code == 9
    assert ("missing-config", FILES[harness], harness) in rules(part)


def test_uncommitted_config_fails(tmp_path: Path) -> None:
    repo = wired(tmp_path, "claude-code")
    git(repo, "rm", "-q", "--cached", FILES["claude-code"])
    git(repo, "commit", "-q", "-m", "untrack")
    code, part, _ = gate_part(repo)
    assert code == 9
    assert ("not-committed", FILES["claude-code"], "claude-code") in rules(part)


@pytest.mark.parametrize(
    ("harness", "matcher", "skipping"),
    [
        ("claude-code", "Edit|Write|MultiEdit", ("Bash", "mcp__filesystem__write_file")),
        ("claude-code", "Bash", ("Edit", "mcp__github__create_or_update_file")),
        ("zcode", "Edit|Write|Bash", ("mcp__filesystem__write_file",)),
        ("codex", "apply_patch|Bash", ("mcp__fs__write_file",)),
        ("gemini", "write_file|replace", ("run_shell_command", "mcp__fs__write_file")),
        ("gemini", "run_shell_command", ("write_file",)),
    ],
)
def test_narrowed_matcher_fails_naming_what_skips(
    tmp_path: Path, harness: str, matcher: str, skipping: tuple[str, ...]
) -> None:
    repo = wired(tmp_path, harness)

    def narrow(data: dict[str, Any]) -> None:
        for group in data["hooks"][_pre_key(harness)]:
            group["matcher"] = matcher

    edit_json(repo, FILES[harness], narrow)
    code, part, text = gate_part(repo)
    assert code == 9
    assert ("matcher-narrowed", FILES[harness], harness) in rules(part)
    for tool in skipping:
        assert tool in text, (tool, text)


@pytest.mark.parametrize("matcher", ["*", "", ".*", None])
def test_match_all_matchers_pass(tmp_path: Path, matcher: str | None) -> None:
    repo = wired(tmp_path, "claude-code")

    def widen(data: dict[str, Any]) -> None:
        group = data["hooks"]["PreToolUse"][0]
        if matcher is None:
            group.pop("matcher")
        else:
            group["matcher"] = matcher

    edit_json(repo, FILES["claude-code"], widen)
    code, part, _ = gate_part(repo)
    assert code == 0, rules(part)


def test_matcher_split_over_two_groups_still_covers(tmp_path: Path) -> None:
    repo = wired(tmp_path, "claude-code")

    def split(data: dict[str, Any]) -> None:
        group = data["hooks"]["PreToolUse"][0]
        group["matcher"] = "Bash"
        data["hooks"]["PreToolUse"].append({**group, "matcher": ".*"})

    edit_json(repo, FILES["claude-code"], split)
    assert gate_part(repo)[0] == 0


@pytest.mark.parametrize("event", ["beforeShellExecution", "beforeMCPExecution", "preToolUse"])
def test_cursor_event_dropped_fails(tmp_path: Path, event: str) -> None:
    repo = wired(tmp_path, "cursor")

    def drop(data: dict[str, Any]) -> None:
        del data["hooks"][event]

    edit_json(repo, FILES["cursor"], drop)
    code, part, text = gate_part(repo)
    assert code == 9
    assert ("event-missing", FILES["cursor"], "cursor") in rules(part)
    assert event in text


def test_disable_all_hooks_fails(tmp_path: Path) -> None:
    repo = wired(tmp_path, "claude-code")
    edit_json(repo, FILES["claude-code"], lambda d: d.update({"disableAllHooks": True}))
    code, part, _ = gate_part(repo)
    assert code == 9
    assert ("hooks-disabled", FILES["claude-code"], "claude-code") in rules(part)


def test_gemini_timeout_in_seconds_by_mistake_fails(tmp_path: Path) -> None:
    repo = wired(tmp_path, "gemini")

    def shorten(data: dict[str, Any]) -> None:
        data["hooks"]["BeforeTool"][0]["hooks"][0]["timeout"] = 30

    edit_json(repo, FILES["gemini"], shorten)
    code, part, _ = gate_part(repo)
    assert code == 9
    assert ("timeout-too-short", FILES["gemini"], "gemini") in rules(part)


def test_codex_config_toml_counts(tmp_path: Path) -> None:
    repo = wired(tmp_path, "codex")
    (repo / ".codex/hooks.json").unlink()
    (repo / ".codex/config.toml").write_text(
        '[[hooks.PreToolUse]]\nmatcher = "*"\n\n[[hooks.PreToolUse.hooks]]\n'
        'type = "command"\ncommand = "zodyssey hook pre-tool --harness codex"\ntimeout = 30\n',
        encoding="utf-8",
    )
    commit(repo)
    code, part, _ = gate_part(repo)
    assert code == 0, rules(part)
    assert part["report"]["checked"] == {"codex": ".codex/config.toml"}


# ------------------------------------------------------------------ the hatch


def test_hatch_in_settings_env_fails(tmp_path: Path) -> None:
    repo = wired(tmp_path, "claude-code")
    edit_json(
        repo, FILES["claude-code"], lambda d: d.update({"env": {"ZODYSSEY_UNGATE_BASH": "1"}})
    )
    code, part, text = gate_part(repo)
    assert code == 9
    assert ("hatch-set", FILES["claude-code"], "claude-code") in rules(part)
    assert "env.ZODYSSEY_UNGATE_BASH" in text and "harness claude-code" in text


def test_hatch_in_hook_command_fails(tmp_path: Path) -> None:
    repo = wired(tmp_path, "gemini")

    def hatch(data: dict[str, Any]) -> None:
        entry = data["hooks"]["BeforeTool"][0]["hooks"][0]
        entry["command"] = "ZODYSSEY_UNGATE_BASH=1 " + entry["command"]

    edit_json(repo, FILES["gemini"], hatch)
    code, part, _ = gate_part(repo)
    assert code == 9
    assert ("hatch-set", FILES["gemini"], "gemini") in rules(part)


@pytest.mark.parametrize(
    ("rel", "text"),
    [
        (".env", "ZODYSSEY_UNGATE_BASH=1\n"),
        (".envrc", "export ZODYSSEY_UNGATE_BASH='1'\n"),
        (".claude/settings.local.json", '{"env": {"ZODYSSEY_UNGATE_BASH": "1"}}\n'),
    ],
)
def test_hatch_in_other_committed_files_fails(tmp_path: Path, rel: str, text: str) -> None:
    repo = wired(tmp_path, "claude-code")
    (repo / rel).parent.mkdir(exist_ok=True)
    (repo / rel).write_text(text, encoding="utf-8")
    git(repo, "add", "-f", rel)  # (hook install keeps settings.local.json out of commits)
    commit(repo)
    code, part, _ = gate_part(repo)
    assert code == 9
    assert ("hatch-set", rel, None) in rules(part)


def test_hatch_off_or_commented_or_uncommitted_passes(tmp_path: Path) -> None:
    repo = wired(tmp_path, "claude-code")
    edit_json(
        repo, FILES["claude-code"], lambda d: d.update({"env": {"ZODYSSEY_UNGATE_BASH": "0"}})
    )
    (repo / ".envrc").write_text("# ZODYSSEY_UNGATE_BASH=1 when stuck, never committed\n")
    commit(repo)
    (repo / ".env").write_text("ZODYSSEY_UNGATE_BASH=1\n")  # untracked: not in any checkout
    assert gate_part(repo)[0] == 0


# ------------------------------------------------------------------ declaration


def test_hook_install_declares_once_and_keeps_the_file(tmp_path: Path) -> None:
    repo = wired(tmp_path, "claude-code")
    before = (repo / ".zodyssey.toml").read_text(encoding="utf-8")
    again = zodyssey(repo, "hook", "install", "--harness", "claude-code", "--command", "zodyssey")
    assert "already declared" in again.stdout
    assert (repo / ".zodyssey.toml").read_text(encoding="utf-8") == before
    assert before.rstrip().endswith('[gate]\nharnesses = ["claude-code"]')
    dry = zodyssey(repo, "hook", "install", "--harness", "codex", "--dry-run")
    assert dry.returncode == 0
    assert (repo / ".zodyssey.toml").read_text(encoding="utf-8") == before


def test_declaration_goes_into_pyproject_table(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    pyproject = (
        '[project]\nname = "x"\n\n[tool.zodyssey]\ndocuments = ["docs/**/*.md"]\n\n'
        '[tool.zodyssey.gate]\nread_only = ["make lint"]\n\n[tool.other]\nkey = 1\n'
    )
    (repo / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    for harness in ("cursor", "gemini"):
        done = zodyssey(repo, "hook", "install", "--harness", harness, "--command", "zodyssey")
        assert done.returncode == 0, done.stderr
    import tomllib

    data = tomllib.loads((repo / "pyproject.toml").read_text(encoding="utf-8"))
    assert data["tool"]["zodyssey"]["gate"] == {
        "harnesses": ["cursor", "gemini"],
        "read_only": ["make lint"],
    }
    assert data["tool"]["other"] == {"key": 1}
    assert not (repo / ".zodyssey.toml").exists()


def test_bad_declaration_is_exit_2_one_line(tmp_path: Path) -> None:
    repo = wired(tmp_path)
    config = repo / ".zodyssey.toml"
    config.write_text(config.read_text() + '\n[gate]\nharnesses = "claude-code, codex" \n')
    config.write_text(config.read_text().replace('"claude-code, codex"', "3"))
    commit(repo)
    done = zodyssey(repo, "check")
    assert done.returncode == 2
    assert "harnesses" in done.stderr and "Traceback" not in done.stderr


def test_unknown_harness_and_unreadable_config(tmp_path: Path) -> None:
    repo = wired(tmp_path, "claude-code")
    config = repo / ".zodyssey.toml"
    config.write_text(config.read_text().replace('["claude-code"]', '["claude-code", "vim"]'))
    commit(repo)
    code, part, _ = gate_part(repo)
    assert code == 9 and ("unknown-harness", ".zodyssey.toml", "vim") in rules(part)
    (repo / FILES["claude-code"]).write_text("{broken", encoding="utf-8")
    commit(repo)
    code, part, _ = gate_part(repo)
    assert code == 2
    assert ("unreadable-config", FILES["claude-code"], "claude-code") in rules(part)


def test_undeclared_wiring_is_a_warning(tmp_path: Path) -> None:
    repo = wired(tmp_path)
    done = zodyssey(repo, "hook", "install", "--harness", "gemini", "--command", "zodyssey")
    assert done.returncode == 0
    config = repo / ".zodyssey.toml"
    config.write_text(config.read_text().replace('harnesses = ["gemini"]', "harnesses = []"))
    commit(repo)
    code, _, text = gate_part(repo)
    assert code == 0
    assert "undeclared" in text and ".gemini/settings.json" in text


# ------------------------------------------------------------------ the hot path


@pytest.mark.parametrize("entry", ["cli", "script"])
def test_the_hook_never_imports_the_wiring_check(tmp_path: Path, entry: str) -> None:
    repo = wired(tmp_path, "claude-code")
    from zodyssey.gate.install import hook_command

    installed = shlex.split(hook_command("pre-tool", "claude-code"))  # python -S -P script
    argv = (
        [sys.executable, "-X", "importtime", "-m", "zodyssey", "hook", "pre-tool"]
        if entry == "cli"
        else [installed[0], "-X", "importtime", *installed[1:]]
    )
    payload = json.dumps({"tool_name": "Bash", "tool_input": {"command": "ls"}, "cwd": str(repo)})
    done = subprocess.run(
        argv,
        input=payload,
        cwd=repo,
        env={**env(), "CLAUDE_PROJECT_DIR": str(repo)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    imported = done.stderr
    # The probe sees the hook's own imports (the script's no-run path answers from
    # zodyssey.gate.norun without importing zodyssey.gate.hook).
    assert "zodyssey.gate.hook" in imported or "zodyssey.gate.norun" in imported
    assert "zodyssey.gate.wiring" not in imported


def test_init_declares_a_harness_already_wired(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    for harness in ("zcode", "cursor"):
        done = zodyssey(repo, "hook", "install", "--harness", harness, "--command", "zodyssey")
        assert done.returncode == 0
    (repo / ".zodyssey.toml").unlink()  # as if the hook had been wired by hand
    init = zodyssey(repo, "init")
    assert init.returncode == 0, init.stderr
    assert "declared" in init.stdout
    commit(repo)
    code, part, _ = gate_part(repo)
    assert code == 0, rules(part)
    assert sorted(part["report"]["declared"]) == ["cursor", "zcode"]
    # Deleting the wiring now fails the check.
    (repo / FILES["cursor"]).unlink()
    commit(repo)
    assert gate_part(repo)[0] == 9


def test_init_never_edits_pyproject_but_says_what_to_declare(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    pyproject = '[project]\nname = "x"\n\n[tool.zodyssey]\ndocuments = ["docs/**/*.md"]\n'
    (repo / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    assert zodyssey(repo, "hook", "install", "--command", "zodyssey").returncode == 0
    wired = (repo / "pyproject.toml").read_text(encoding="utf-8")
    (repo / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    init = zodyssey(repo, "init")
    assert init.returncode == 0
    assert (repo / "pyproject.toml").read_text(encoding="utf-8") == pyproject
    assert 'harnesses = ["claude-code"]' in init.stdout and "[tool.zodyssey.gate]" in init.stdout
    assert "[tool.zodyssey.gate]" in wired  # hook install itself does declare it there


# -- the wired command is run: it must start and block (issue 21, item 3)


def set_pre_command(repo: Path, command: str) -> None:
    def put(data: dict[str, Any]) -> None:
        for group in data["hooks"]["PreToolUse"]:
            for entry in group["hooks"]:
                if "pre-tool" in entry["command"]:
                    entry["command"] = command

    edit_json(repo, ".claude/settings.json", put)
    commit(repo)


@pytest.mark.parametrize(
    ("command", "said"),
    [
        (
            "/nonexistent/venv/bin/python -S -P /nonexistent/zodyssey/gate/hook_entry.py pre-tool",
            "does not start",
        ),
        ('"$CLAUDE_PROJECT_DIR"/.venv/bin/zodyssey hook pre-tool', "does not start"),
        ("true zodyssey hook pre-tool", "did not block"),
        ("exit 1; zodyssey hook pre-tool", "failed with exit 1"),
    ],
)
def test_a_wired_command_that_would_not_hold_fails(tmp_path: Path, command: str, said: str) -> None:
    """A command naming another machine's interpreter used to pass: the harness then ran
    every call. Judged by running it, not by reading it."""
    repo = wired(tmp_path, "claude-code")
    set_pre_command(repo, command)
    code, part, text = gate_part(repo)
    assert code == 9, text
    assert ("hook-not-holding", ".claude/settings.json", "claude-code") in rules(part), part
    assert said in text, text


def test_the_installed_command_holds(tmp_path: Path) -> None:
    repo = wired(tmp_path, "claude-code", "gemini", "cursor", "codex")
    code, part, text = gate_part(repo)
    assert code == 0, text
    assert not [f for f in part["report"]["findings"] if f["rule"] == "hook-not-holding"]


def test_run_start_refuses_when_the_gate_would_not_hold(tmp_path: Path) -> None:
    repo = wired(tmp_path, "claude-code")
    set_pre_command(repo, "/nonexistent/python -S -P /x/zodyssey/gate/hook_entry.py pre-tool")
    done = zodyssey(repo, "run", "start", "demo")
    assert done.returncode == 11, done.stdout + done.stderr
    assert "zodyssey hook install --harness claude-code" in done.stderr, done.stderr
    assert ".claude/settings.json" in done.stderr
    assert not (repo / ".zcode" / "state" / "demo.json").exists()
    set_pre_command(repo, "zodyssey hook pre-tool")
    again = zodyssey(repo, "run", "start", "demo")
    assert again.returncode == 0, again.stdout + again.stderr
