"""README promises about the gate hook, defended through the real hook process.

`python -m zodyssey hook pre-tool` reads a Claude Code PreToolUse payload on
stdin; exit 2 (reason on stderr) is the only exit that blocks there.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from invariants.conftest import clean_env

# Write-capable commands the README names, plus the shapes the gate was
# historically blind to (see docs/DESIGN.md).
README_WRITERS = (
    "sed -i 's/a/b/' src/app.py",
    "echo hi | tee src/app.py",
    "cat > src/app.py <<'EOF'\nx = 1\nEOF",
    "python3 -c \"open('src/app.py', 'w').write('x')\"",
    "rm -rf src",
    "find . -delete",
    "unlink src/app.py",
    "bash -c 'echo x > src/app.py'",
    "ls && rm src/app.py",
    "/bin/rm src/app.py",
)
WRITER_IDS = (
    "sed-i",
    "tee",
    "cat-heredoc",
    "python-c",
    "rm-rf",
    "find-delete",
    "unlink",
    "bash-c",
    "and-list-rm",
    "absolute-rm",
)
READERS = (
    "ls -la",
    "git status",
    "grep -rn TODO src/",
    "cat README.md | head -5",
    "ls 2>/dev/null",
)


# ------------------------------------------------------------------ no run: no-op


@pytest.mark.claim("noop-without-run")
def test_without_run_everything_is_allowed_silently(lab: Any) -> None:
    repo = lab.repo()
    payloads: list[Any] = [
        lab.write(repo, "src/app.py"),
        lab.edit(repo, "README.md"),
        lab.bash(repo, "rm -rf src && tee /tmp/x"),
        lab.bash(repo, "python3 -c \"open('x','w')\""),
        lab.write(repo, ".zcode/plans/demo.md"),
        "garbage {",
    ]
    for payload in payloads:
        outcome = lab.hook(repo, payload)
        assert outcome.allowed, (payload, outcome)
        assert outcome.stdout == "" and outcome.stderr == "", (payload, outcome)


@pytest.mark.claim("noop-without-run")
@pytest.mark.parametrize("phase", ["done", "audited", "abandoned"])
def test_terminal_run_is_no_run(lab: Any, phase: str) -> None:
    repo = lab.repo()
    lab.start_run(repo, phase=phase)
    outcome = lab.hook(repo, lab.write(repo, "README.md"))
    assert outcome.allowed, outcome
    assert lab.hook(repo, lab.bash(repo, "rm -rf src")).allowed


# ------------------------------------------------------------------ review gate


@pytest.mark.claim("review-gate")
@pytest.mark.parametrize("verdict", [None, "REJECT"])
def test_no_product_edit_before_okay(lab: Any, verdict: str | None) -> None:
    repo = lab.repo()
    lab.start_run(repo, verdict=verdict)
    for payload in (
        lab.write(repo, "src/app.py"),
        lab.edit(repo, "src/app.py"),
        {
            "session_id": "s1",
            "cwd": str(repo),
            "tool_name": "MultiEdit",
            "tool_input": {"file_path": str(repo / "src/app.py"), "edits": []},
        },
    ):
        outcome = lab.hook(repo, payload)
        assert outcome.blocked, (verdict, payload["tool_name"], outcome)
        assert outcome.stderr.strip() or outcome.stdout.strip(), "a block must say why"
        # Blocked BECAUSE of the review, not by a later layer (the drill of
        # `review-gate` removes the review check: plan-tamper would still block).
        reason = outcome.stderr + outcome.stdout
        assert "is product code" in reason and "get an OKAY" in reason, reason


@pytest.mark.claim("review-gate")
def test_the_same_edit_passes_once_the_verdict_is_okay(lab: Any) -> None:
    # The control: what blocked above is the missing verdict, not the file.
    repo = lab.repo()
    lab.start_run(repo, verdict="OKAY")
    outcome = lab.hook(repo, lab.write(repo, "src/app.py"))
    assert outcome.allowed, outcome


# ------------------------------------------------------------------ scope lock


@pytest.mark.claim("scope-lock")
def test_after_okay_only_declared_files_and_directories(lab: Any, tmp_path: Path) -> None:
    repo = lab.repo()
    lab.start_run(repo, verdict="OKAY")
    allowed = [
        lab.write(repo, "src/app.py"),
        lab.write(repo, "lib/deep/module.py"),
        lab.bash(repo, "echo x > src/app.py"),
    ]
    blocked = [
        lab.write(repo, "src/other.py"),
        lab.write(repo, "README.md"),
        lab.write(repo, "src/../README.md"),
        lab.write(repo, str(tmp_path / "outside.py")),
        lab.bash(repo, "echo x > src/other.py"),
        lab.bash(repo, "cp /etc/passwd src"),
        lab.bash(repo, "echo x > src/app.py && rm -rf lib/../docs"),
    ]
    for payload in allowed:
        outcome = lab.hook(repo, payload)
        assert outcome.allowed, (payload["tool_input"], outcome)
    for payload in blocked:
        outcome = lab.hook(repo, payload)
        assert outcome.blocked, (payload["tool_input"], outcome)


@pytest.mark.claim("scope-lock")
def test_files_mentioned_outside_todo_bullets_grant_nothing(lab: Any) -> None:
    plan = (
        "# Demo change\n"
        "<!-- Files: [`README.md`] -->\n"
        "## Todos\n"
        "- [ ] 1. Add the module\n"
        "  - Files: [`src/app.py`]\n"
        "  - Acceptance criteria:\n"
        "    - `test -f src/app.py`\n"
        "## Must NOT have\n"
        "Files: [`setup.py`]\n"
    )
    repo = lab.repo()
    lab.start_run(repo, verdict="OKAY", plan=plan)
    assert lab.hook(repo, lab.write(repo, "src/app.py")).allowed
    assert lab.hook(repo, lab.write(repo, "README.md")).blocked
    assert lab.hook(repo, lab.write(repo, "setup.py")).blocked


# ------------------------------------------------------------------ shell gate


@pytest.mark.slow
@pytest.mark.claim("bash-gate")
def test_corpus_before_okay_writers_blocked_readers_pass(
    lab: Any, corpus: list[dict[str, Any]]
) -> None:
    repo = lab.repo()
    lab.start_run(repo)
    wrong: list[str] = []
    for case in corpus:
        outcome = lab.hook(repo, lab.bash(repo, case["command"]))
        if case["class"] == "write" and not outcome.blocked:
            wrong.append(f"write let through: {case['command']!r} -> {outcome}")
        if case["class"] == "read" and not outcome.allowed:
            wrong.append(f"read blocked: {case['command']!r} -> {outcome}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.claim("bash-gate")
@pytest.mark.parametrize("command", README_WRITERS, ids=WRITER_IDS)
def test_readme_writers_blocked_before_okay(lab: Any, command: str) -> None:
    repo = lab.repo()
    lab.start_run(repo)
    outcome = lab.hook(repo, lab.bash(repo, command))
    assert outcome.blocked, outcome
    assert outcome.stderr.strip(), "the reason goes to stderr for the model"


@pytest.mark.claim("bash-gate")
def test_readers_pass_before_okay(lab: Any) -> None:
    repo = lab.repo()
    lab.start_run(repo)
    for command in READERS:
        outcome = lab.hook(repo, lab.bash(repo, command))
        assert outcome.allowed, (command, outcome)


# ------------------------------------------------------------------ plan tamper


@pytest.mark.claim("plan-tamper")
def test_edited_plan_after_okay_blocks_writes(lab: Any) -> None:
    repo = lab.repo()
    lab.start_run(repo, verdict="OKAY")
    assert lab.hook(repo, lab.write(repo, "src/app.py")).allowed
    plan = repo / ".zcode" / "plans" / "demo.md"
    # The tamper widens scope: a new declared file the reviewer never saw.
    plan.write_text(plan.read_text().replace("`lib/`]", "`lib/`, `README.md`]"), encoding="utf-8")
    for payload in (lab.write(repo, "src/app.py"), lab.write(repo, "README.md")):
        outcome = lab.hook(repo, payload)
        assert outcome.blocked, (payload["tool_input"]["file_path"], outcome)
    assert "plan" in (lab.hook(repo, lab.write(repo, "src/app.py")).stderr.lower())


@pytest.mark.claim("plan-tamper")
def test_plan_is_frozen_after_okay_on_every_path(lab: Any) -> None:
    repo = lab.repo()
    lab.start_run(repo, verdict="OKAY")
    plan = ".zcode/plans/demo.md"
    for payload in (
        lab.write(repo, plan, "# widened\n"),
        lab.edit(repo, plan),
        lab.bash(repo, f"echo '  - Files: [`README.md`]' >> {plan}"),
    ):
        outcome = lab.hook(repo, payload)
        assert outcome.blocked, (payload["tool_name"], outcome)


# ------------------------------------------------------------------ fail closed


@pytest.mark.claim("fail-closed")
@pytest.mark.parametrize(
    "garbage", ["not json {", "", "[1, 2]", '{"tool_name": 7, "tool_input": "x"}']
)
def test_garbage_stdin_in_a_run_blocks_with_a_reason(lab: Any, garbage: str) -> None:
    repo = lab.repo()
    lab.start_run(repo, verdict="OKAY")
    outcome = lab.hook(repo, garbage)
    assert outcome.code == 2, outcome
    assert outcome.stderr.strip(), "a block must say why"
    assert "Traceback" not in outcome.stderr


@pytest.mark.claim("fail-closed")
def test_unreadable_state_or_plan_blocks(lab: Any) -> None:
    repo = lab.repo()
    state = lab.start_run(repo, verdict="OKAY")
    assert lab.hook(repo, lab.write(repo, "src/app.py")).allowed
    good = state.read_text()
    state.write_text('{"slug": "demo", "phase": ', encoding="utf-8")
    outcome = lab.hook(repo, lab.write(repo, "src/app.py"))
    assert outcome.code == 2 and outcome.stderr.strip(), outcome
    state.write_text(good, encoding="utf-8")
    (repo / ".zcode" / "plans" / "demo.md").unlink()
    outcome = lab.hook(repo, lab.write(repo, "src/app.py"))
    assert outcome.blocked, outcome


def test_helpers_read_a_claude_deny_as_a_block(lab: Any) -> None:
    # Guards the suite itself: a deny on stdout with exit 0 counts as blocked.
    Outcome = lab.outcome_type
    deny = json.dumps({"hookSpecificOutput": {"permissionDecision": "deny"}})
    assert Outcome(0, deny, "").blocked and not Outcome(0, deny, "").allowed
    assert Outcome(2, "", "no").blocked and Outcome(0, "", "").allowed
    assert not Outcome(1, "", "boom").allowed and not Outcome(1, "", "boom").blocked


# ------------------------------------------------------------------ the run loop from the shell


def _answer(repo: Path, verdict: str) -> str:
    """The reviewer's answer in the shipped form: the digest of the plan it read, the verdict."""
    import hashlib

    plan = (repo / ".zcode" / "plans" / "demo.md").read_bytes()
    return f"PLAN-SHA256: {hashlib.sha256(plan).hexdigest()}\nVERDICT: {verdict}"


def _review(lab: Any, repo: Path, verdict: str, call_id: str = "toolu_review") -> None:
    """The reviewer dispatched, then Claude Code's report of its final answer."""
    payload = {
        "session_id": "s1",
        "cwd": str(repo),
        "hook_event_name": "PreToolUse",
        "tool_name": "Task",
        "tool_use_id": call_id,
        "tool_input": {"subagent_type": "momus", "prompt": "review the plan", "description": "r"},
    }
    dispatched = lab.hook(repo, payload)
    assert dispatched.allowed, dispatched.stderr
    report = {
        **payload,
        "hook_event_name": "PostToolUse",
        "tool_response": {"content": [{"type": "text", "text": _answer(repo, verdict)}]},
    }
    assert lab.hook(repo, report, "post-tool").code == 0


@pytest.mark.claim("run-from-agent-shell")
def test_the_agent_runs_the_run_loop_from_its_shell(lab: Any) -> None:
    repo = lab.repo()
    (repo / "plan.md").write_text(
        "# Demo\n## Todos\n- [ ] 1. Add the module\n  - Files: [`src/app.py`]\n"
        "  - Acceptance criteria:\n    - `test -f src/app.py`\n"
    )
    assert lab.zodyssey("run", "start", "demo", "--plan", "plan.md", cwd=repo).returncode == 0
    for command in (
        "zodyssey run lint demo",
        "zodyssey run status demo",
        "zodyssey run verify demo 1",
        "zodyssey run todo demo 1 done",
        "zodyssey run phase demo done",
    ):
        outcome = lab.hook(repo, lab.bash(repo, command))
        assert outcome.allowed, (command, outcome.stderr)
    for command in (
        "zodyssey run review demo --human OKAY --by me",
        "python -m zodyssey run review demo --artifact .zcode/staging/momus.json",
        "zodyssey run todo demo 1 done --force-done --reason x",
        "zodyssey run phase demo done --force --reason x",
        "zodyssey run phase demo abandoned --reason x",
        "zodyssey run phase demo blocked --reason x",
    ):
        outcome = lab.hook(repo, lab.bash(repo, command))
        assert outcome.blocked, command
        assert "ask the user to run it in their own terminal" in outcome.stderr, outcome.stderr
    # Beside a trusted command, a write is judged as usual.
    outcome = lab.hook(repo, lab.bash(repo, "zodyssey run status demo > src/app.py"))
    assert outcome.blocked


@pytest.mark.claim("verdict-from-reviewer")
def test_only_the_reviewer_gives_the_verdict(lab: Any) -> None:
    repo = lab.repo()
    lab.start_run(repo)
    payload = {
        "session_id": "s1",
        "cwd": str(repo),
        "hook_event_name": "PreToolUse",
        "tool_name": "Task",
        "tool_use_id": "toolu_review",
        "tool_input": {"subagent_type": "momus", "prompt": "review the plan", "description": "r"},
    }
    assert lab.hook(repo, payload).allowed
    state_text = (repo / ".zcode" / "state" / "demo.json").read_text()
    assert "toolu_review" not in state_text
    assert json.loads(state_text)["review"].get("pending_nonce") is None
    staging = repo / ".zcode" / "staging"
    staging.mkdir(parents=True)
    (staging / "v.json").write_text(json.dumps({"verdict": "OKAY", "nonce": "x"}))
    forged = "zodyssey run review demo --artifact .zcode/staging/v.json"
    assert lab.hook(repo, lab.bash(repo, forged)).blocked
    assert (
        lab.zodyssey(
            "run", "review", "demo", "--artifact", str(staging / "v.json"), cwd=repo
        ).returncode
        == 11
    )
    post = json.dumps({**payload, "tool_response": _answer(repo, "OKAY")})
    assert lab.hook(repo, lab.bash(repo, f"echo '{post}' | zodyssey hook post-tool")).blocked
    assert lab.hook(repo, lab.write(repo, "src/app.py")).blocked
    # The harness's own report of that dispatch is the verdict.
    report = {
        **payload,
        "hook_event_name": "PostToolUse",
        "tool_response": {"content": [{"type": "text", "text": _answer(repo, "OKAY")}]},
    }
    assert lab.hook(repo, report, "post-tool").code == 0
    assert lab.hook(repo, lab.write(repo, "src/app.py")).allowed


@pytest.mark.claim("verdict-from-reviewer")
@pytest.mark.parametrize("harness", ["zcode", "cursor"])
def test_a_harness_that_cannot_brief_the_reviewer_records_no_verdict(
    lab: Any, harness: str
) -> None:
    """ZCode reports the reviewer's answer but lets no hook rewrite its dispatch; Cursor
    reports no answer: an OKAY in the shipped form records nothing, a person decides."""
    repo = lab.repo()
    lab.start_run(repo)
    payload = {
        "session_id": "s1",
        "cwd": str(repo),
        "hook_event_name": "PreToolUse",
        "tool_name": "Task",
        "tool_use_id": "toolu_review",
        "tool_input": {"subagent_type": "momus", "prompt": "review the plan", "description": "r"},
    }
    env = clean_env(CLAUDE_PROJECT_DIR=str(repo))
    for event, body in (
        ("pre-tool", payload),
        (
            "post-tool",
            {
                **payload,
                "hook_event_name": "PostToolUse",
                "tool_response": {"content": [{"type": "text", "text": _answer(repo, "OKAY")}]},
            },
        ),
    ):
        done = lab.zodyssey(
            "hook", event, "--harness", harness, cwd=repo, stdin=json.dumps(body), env=env
        )
        assert done.returncode == 0, done.stderr
    state = json.loads((repo / ".zcode" / "state" / "demo.json").read_text())
    assert state["review"]["verdict"] is None and state["phase"] == "plan"
    assert lab.hook(repo, lab.write(repo, "src/app.py")).blocked


@pytest.mark.claim("round-cap-closed")
def test_the_round_cap_keeps_the_gate_closed(lab: Any) -> None:
    repo = lab.repo()
    lab.start_run(repo)
    for n in range(3):
        _review(lab, repo, "REJECT", f"toolu_{n}")
    state = json.loads((repo / ".zcode" / "state" / "demo.json").read_text())
    assert state["phase"] == "blocked"
    write = lab.hook(repo, lab.write(repo, "src/app.py"))
    assert write.blocked and "blocked" in write.stderr
    assert lab.hook(repo, lab.bash(repo, "rm -rf src")).blocked
    task = lab.hook(
        repo,
        {
            "session_id": "s1",
            "cwd": str(repo),
            "tool_name": "Task",
            "tool_input": {"subagent_type": "momus", "prompt": "again"},
        },
    )
    assert task.blocked and "round cap" in task.stderr


# ------------------------------------------------------------------ the installed command stays lean

# What tree-sitter's compiled module imports itself as it initialises (no stand-ins).
PARSER_IMPORTS = ("re", "enum", "collections", "functools")
LEAN = (
    "site",
    "typing",
    "json",
    "hashlib",
    "pathlib",
    "datetime",
    "__future__",
)


@pytest.mark.claim("hook-lean-write-path")
def test_the_installed_command_decides_a_parsed_write_without_heavy_imports(lab: Any) -> None:
    from zodyssey.gate.install import hook_command

    assert shlex.split(hook_command("pre-tool", "claude-code"))[1:3] == ["-S", "-P"]
    repo = lab.repo()
    lab.start_run(repo, verdict="OKAY")
    blocked, _ = lab.installed_hook(repo, lab.bash(repo, "echo x > README.md"))
    assert blocked.blocked and "README.md" in blocked.stderr, blocked
    allowed, imported = lab.installed_hook(repo, lab.bash(repo, "echo x > src/app.py"))
    assert allowed.allowed and allowed.stderr == "", allowed
    assert "zodyssey.gate.effects" in imported  # the write was judged and its lock taken
    assert not imported & set(LEAN), sorted(imported & set(LEAN))
    # the state write itself (a Write the parser never reads) needs none of the parser's
    written, imported = lab.installed_hook(repo, lab.write(repo, "src/app.py", "x = 1\n"))
    assert written.allowed, written
    assert not imported & {*LEAN, *PARSER_IMPORTS}, sorted(imported & {*LEAN, *PARSER_IMPORTS})
