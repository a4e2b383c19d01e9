"""The docs we own say what the code does: snippets load, commands run, tables agree."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from markdown_it import MarkdownIt

from tests.helpers import REPO_ROOT, make_repo, run_zodyssey
from zodyssey.cli import EPILOG
from zodyssey.core.exits import codes

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
HARNESS_HEADINGS = {
    "Claude Code": "claude-code",
    "ZCode": "zcode",
    "Codex CLI": "codex",
    "Gemini CLI": "gemini",
    "Cursor": "cursor",
}


def fences(path: Path) -> list[tuple[str, str, str]]:
    """(info, content, the `##` heading above it) for every fenced block of a document."""
    tokens = MarkdownIt("commonmark").parse(path.read_text(encoding="utf-8"))
    heading = ""
    found: list[tuple[str, str, str]] = []
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and token.tag == "h2":
            heading = tokens[index + 1].content
        elif token.type == "fence":
            found.append((token.info.strip(), token.content, heading))
    return found


def hook_commands(value: object) -> list[tuple[str, dict[str, object]]]:
    """Every `command` string in a parsed hooks config, with the object holding it."""
    found: list[tuple[str, dict[str, object]]] = []
    if isinstance(value, dict):
        command = value.get("command")
        if isinstance(command, str):
            found.append((command, value))
        for child in value.values():
            found += hook_commands(child)
    elif isinstance(value, list):
        for child in value:
            found += hook_commands(child)
    return found


def adapt_snippets() -> list[tuple[str, object, str]]:
    """(harness, parsed config, language) for every JSON/TOML block of ADAPT.md."""
    parsed: list[tuple[str, object, str]] = []
    for info, content, heading in fences(DOCS / "ADAPT.md"):
        if info not in {"json", "toml"}:
            continue
        data = json.loads(content) if info == "json" else tomllib.loads(content)
        parsed.append((HARNESS_HEADINGS[heading], data, info))
    return parsed


# ---------------------------------------------------------------- ADAPT.md


def test_every_adapt_snippet_loads() -> None:
    blocks = [f for f in fences(DOCS / "ADAPT.md") if f[0] in {"json", "toml"}]
    assert len(blocks) >= 6
    for info, content, heading in blocks:
        try:
            json.loads(content) if info == "json" else tomllib.loads(content)
        except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
            pytest.fail(f"ADAPT.md, {heading}: the {info} snippet does not load: {exc}")


def test_every_harness_has_a_snippet_naming_it() -> None:
    snippets = adapt_snippets()
    assert {harness for harness, _, _ in snippets} == set(HARNESS_HEADINGS.values())
    for harness, data, _ in snippets:
        commands = [c for c, _ in hook_commands(data) if "pre-tool" in c]
        assert commands, f"{harness}: no pre-tool command"
        # Claude Code is the default harness, so its command may leave it out.
        expected = [["zodyssey", "hook", "pre-tool", "--harness", harness]]
        if harness == "claude-code":
            expected.append(["zodyssey", "hook", "pre-tool"])
        for command in commands:
            assert shlex.split(command) in expected, command


def test_timeouts_use_each_harness_unit() -> None:
    for harness, data, _ in adapt_snippets():
        for _, holder in hook_commands(data):
            timeout = holder.get("timeout")
            if timeout is None:
                continue
            assert isinstance(timeout, int)
            if harness == "gemini":
                assert timeout >= 1000, "Gemini counts milliseconds"
            else:
                assert 1 <= timeout <= 600, f"{harness} counts seconds"


def test_claude_snippet_has_the_documented_shape() -> None:
    (claude,) = [d for h, d, _ in adapt_snippets() if h == "claude-code"]
    assert isinstance(claude, dict)
    entry = claude["hooks"]["PreToolUse"][0]
    assert entry["matcher"] == "*", "every tool, MCP ones included, must reach the gate"
    assert entry["hooks"][0]["type"] == "command"
    post = claude["hooks"]["PostToolUse"][0]["hooks"][0]["command"]
    assert shlex.split(post) == ["zodyssey", "hook", "post-tool"]
    (cursor,) = [d for h, d, _ in adapt_snippets() if h == "cursor"]
    assert isinstance(cursor, dict) and cursor["version"] == 1


@pytest.mark.parametrize("harness", sorted(HARNESS_HEADINGS.values()))
def test_snippet_commands_run_against_the_real_hook(tmp_path: Path, harness: str) -> None:
    """Each documented command, run as written, answers an allow outside a run."""
    make_repo(tmp_path, commit=False)
    env = {"CLAUDE_PROJECT_DIR": str(tmp_path)}
    payload = json.dumps(
        {"cwd": str(tmp_path), "tool_name": "Bash", "tool_input": {"command": "ls"}}
    )
    commands = {c for h, d, _ in adapt_snippets() if h == harness for c, _ in hook_commands(d)}
    for command in commands:
        argv = shlex.split(command)
        assert argv[0] == "zodyssey"
        done = run_zodyssey(*argv[1:], stdin=payload, cwd=tmp_path, env=env, timeout=60)
        assert done.returncode == 0, (command, done.stderr)
        assert done.stdout == "", (command, done.stdout)


# ---------------------------------------------------------------- ci.md


def test_exit_code_table_matches_the_code() -> None:
    text = (DOCS / "ci.md").read_text(encoding="utf-8")
    documented = {int(m.group(1)) for m in re.finditer(r"^\| (\d+) \|", text, re.MULTILINE)}
    constants = set(codes().values())
    assert documented == constants
    in_help = {int(m.group(1)) for m in re.finditer(r"^  (\d+) ", EPILOG, re.MULTILINE)}
    assert documented == in_help


def test_ci_guide_yaml_snippets_load() -> None:
    blocks = [content for info, content, _ in fences(DOCS / "ci.md") if info == "yaml"]
    assert len(blocks) >= 3
    for content in blocks:
        assert isinstance(yaml.safe_load(content), dict)


def test_ci_guide_names_the_files_we_ship() -> None:
    text = (DOCS / "ci.md").read_text(encoding="utf-8")
    for rel in (
        "ci/github/zodyssey.yml",
        "action.yml",
        ".pre-commit-hooks.yaml",
        "ci/gitlab/zodyssey.gitlab-ci.yml",
        "ci/noxfile_example.py",
    ):
        assert f"`{rel}`" in text and (REPO / rel).is_file(), rel
    workflow = (REPO / "ci/github/zodyssey.yml").read_text(encoding="utf-8")
    gitlab = (REPO / "ci/gitlab/zodyssey.gitlab-ci.yml").read_text(encoding="utf-8")
    for report in re.findall(r"`(?:GitHub: )?(zodyssey-reports/[\w.]+)`", text):
        assert report in workflow, report
    for report in re.findall(r"`(zodyssey-(?:check|audit)\.junit\.xml)`", text):
        assert report in gitlab, report


# ---------------------------------------------------------------- getting-started.md


@pytest.mark.slow
def test_getting_started_runs_as_written(tmp_path: Path) -> None:
    """Paste every shell block into one shell, pip install aside: 0, then 9, then 0."""
    blocks = [c for info, c, _ in fences(DOCS / "getting-started.md") if info == "sh"]
    script_lines = ["set -u"]
    for block in blocks:
        for line in block.splitlines():
            if "pip install" in line:
                continue  # this interpreter already has zodyssey
            script_lines.append(line)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for name, argv in (("zodyssey", []), ("check-anchors", ["anchors", "check"])):
        shim = bindir / name
        shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m zodyssey {" ".join(argv)} "$@"\n')
        shim.chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    env.pop("GITHUB_STEP_SUMMARY", None)
    done = subprocess.run(
        ["bash", "-c", "\n".join(script_lines)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    exits = re.findall(r"^exit (\d+)$", done.stdout, re.MULTILINE)
    assert exits == ["0", "9", "0"], done.stdout + done.stderr
    assert "docs/zodyssey.md" in done.stdout


BLOCK_SHAPES = {
    # harness: (key, value) the last stdout line must carry when the gate blocks
    "zcode": ("decision", "block"),
    "gemini": ("decision", "deny"),
    "cursor": ("permission", "deny"),
}


@pytest.mark.parametrize("harness", sorted(HARNESS_HEADINGS.values()))
def test_blocks_look_as_adapt_says(tmp_path: Path, harness: str) -> None:
    """Inside a run, before review, `tee src/app.py` is blocked in each harness's own words."""
    make_repo(tmp_path, commit=False)
    plan = tmp_path / ".zcode/plans/demo.md"
    plan.parent.mkdir(parents=True)
    plan.write_text("# Demo\n## Todos\n- [ ] 1. Add\n  - Files: [`src/app.py`]\n", encoding="utf-8")
    state = {
        "slug": "demo",
        "phase": "plan",
        "started_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-01T00:00:00Z",
        "run_start_sha": "",
        "plan_path": str(plan),
        "review": {"round": 0, "max_rounds": 3, "verdict": None, "history": [], "blockers": []},
        "todos": {"1": {"status": "pending", "attempts": 0}},
        "file_locks": {},
        "active_todos": {},
    }
    (tmp_path / ".zcode/state").mkdir(parents=True)
    (tmp_path / ".zcode/state/demo.json").write_text(json.dumps(state), encoding="utf-8")
    env = {"CLAUDE_PROJECT_DIR": str(tmp_path)}
    payload = {
        "cwd": str(tmp_path),
        "tool_name": "Bash",
        "tool_input": {"command": "tee src/app.py"},
    }
    done = run_zodyssey(
        "hook", "pre-tool", "--harness", harness, stdin=json.dumps(payload), cwd=tmp_path, env=env
    )
    assert done.returncode == 2, (harness, done.stdout, done.stderr)
    if harness in BLOCK_SHAPES:
        key, value = BLOCK_SHAPES[harness]
        answer = json.loads(done.stdout.strip().splitlines()[-1])
        assert answer[key] == value, answer
        if harness == "zcode":
            assert answer["reason"].startswith("ZODYSSEY_BLOCK gate:")
        if harness == "cursor":
            assert answer["user_message"] and answer["agent_message"]
    else:
        assert done.stderr.strip(), "Claude Code and Codex read the reason on stderr"
    # ADAPT.md names each shape: keep the page and the hook in step.
    adapt = (DOCS / "ADAPT.md").read_text(encoding="utf-8")
    if harness in BLOCK_SHAPES:
        key, value = BLOCK_SHAPES[harness]
        assert f'{{"{key}":"{value}"' in adapt, harness


@pytest.mark.parametrize("harness", sorted(HARNESS_HEADINGS.values()))
def test_snippets_are_what_hook_install_writes(tmp_path: Path, harness: str) -> None:
    done = run_zodyssey(
        *("hook", "install", "--harness", harness),
        *("--project", str(tmp_path), "--command", "zodyssey"),
        cwd=REPO_ROOT,
    )
    assert done.returncode == 0, done.stderr
    declared = tmp_path / ".zodyssey.toml"  # install declares the harness (gate wiring)
    assert tomllib.loads(declared.read_text(encoding="utf-8"))["gate"]["harnesses"] == [harness]
    from zodyssey.workflow import project_files

    # Besides the hook configuration, install writes the shipped workflow (reviewer,
    # planner, run command: ADAPT.md "Your first guarded run") and, for Claude Code,
    # the machine-local shell prefix setting (never committed, so not a snippet).
    workflow = {tmp_path / item.dest.format(reviewer="momus") for item in project_files(harness)}
    local = tmp_path / ".claude" / "settings.local.json"
    files = {p for p in tmp_path.rglob("*") if p.is_file() and p != declared}
    assert workflow <= files, sorted(map(str, workflow - files))
    (written,) = sorted(files - workflow - {local})
    installed = json.loads(written.read_text(encoding="utf-8"))
    documented = [d for h, d, lang in adapt_snippets() if h == harness and lang == "json"]
    assert documented == [installed]


def test_codex_toml_says_what_the_json_says() -> None:
    codex = {lang: d for h, d, lang in adapt_snippets() if h == "codex"}
    toml_hooks = codex["toml"]
    json_hooks = codex["json"]
    assert isinstance(toml_hooks, dict) and isinstance(json_hooks, dict)
    assert toml_hooks["hooks"] == json_hooks["hooks"]
    assert toml_hooks["features"] == {"hooks": True}  # `codex_hooks` is the deprecated name
