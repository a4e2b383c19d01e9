"""Second red-team round of the gate policy (issue 16): nothing outside the shell opens it.

Every test plays the attack through the real hook process (`zodyssey hook
pre-tool`, the harness's payload shape) against a run made by the real
`zodyssey run start` / `zodyssey run review --human` commands in a temporary
git repository. Each one let the call through (or hung, or crashed) before
the fix it accompanies.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import git
from tests.helpers.gate import run_hook
from tests.helpers.session import ZODYSSEY

PLAN = """# Round two
## Todos
- [ ] 1. Change the app
  - Files: [`src/app.py`, `lib/new.py`, `pyproject.toml`, `pkg/`]
  - Acceptance criteria:
    - `true`
"""


def zrun(root: Path, *args: str) -> str:
    done = subprocess.run(
        [str(ZODYSSEY), "run", *args],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
        env={k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def make_run(base: Path, *, okay: bool = True, config: str | None = None) -> Path:
    """A git repository with run `demo` started (and reviewed OKAY by a person)."""
    root = base / "repo"
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "t")
    for rel in ("src/app.py", "README.md", "pkg/a.py", "undeclared.py"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x\n")
    if config is not None:
        (root / "pyproject.toml").write_text(config)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    (base / "plan.md").write_text(PLAN)
    zrun(root, "start", "demo", "--plan", str(base / "plan.md"))
    if okay:
        zrun(root, "review", "demo", "--human", "OKAY", "--by", "person")
    return root.resolve()


def payload(root: Path, tool: str, tool_input: Any, **extra: Any) -> dict[str, Any]:
    body = {
        "session_id": "sess-1",
        "transcript_path": "/dev/null",
        "cwd": str(root),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "toolu_1",
    }
    body.update(extra)
    return body


def hook(
    root: Path, tool: str, tool_input: Any, project: Path | None = None, **extra: Any
) -> subprocess.CompletedProcess[str]:
    env = extra.pop("env", {})
    args = extra.pop("args", ())
    cwd = extra.pop("proc_cwd", None)
    done = run_hook(
        payload(root, tool, tool_input, **extra),
        project if project is not None else root,
        *args,
        cwd=cwd,
        **env,
    )
    assert done.returncode in (0, 2), (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    return done


def blocked(done: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert done.returncode == 2, (done.stdout, done.stderr)
    for fragment in fragments:
        assert fragment in done.stderr + done.stdout, done.stderr + done.stdout


def allowed(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 0, done.stderr + done.stdout


@pytest.fixture
def run(tmp_path: Path) -> Path:
    return make_run(tmp_path)


# ------------------------------------------------------------ never hang, never crash


def test_a_long_traversal_path_through_mcp_blocks(run: Path) -> None:
    # Over PATH_MAX, with `:` and `//` so no single token is the whole path.
    path = f"{run}/a:b/../" + ("z" * 200 + "/../") * 21 + ".zcode//state/demo.json"
    assert len(path) > 4095
    done = hook(
        run, "mcp__filesystem__write_file", {"path": path, "content": "{}"}, cwd=str(run / "pkg")
    )
    blocked(done, "too large")


def test_a_megabyte_mcp_string_answers_quickly(run: Path) -> None:
    for value in ("/a" * 600_000, "a/" * 600_000 + ".zcode/state/demo.json"):
        started = time.monotonic()
        done = hook(run, "mcp__filesystem__write_file", {"path": value, "content": "x"})
        assert time.monotonic() - started < 20  # hung past 45 s before
        blocked(done, "too large")


def test_a_thousand_deep_tool_input_without_project_variable_blocks(run: Path) -> None:
    deep = '{"a": ' * 1000 + '"src/app.py"' + "}" * 1000
    body = json.dumps(payload(run, "mcp__x__do", "DEEP")).replace('"DEEP"', deep)
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_PROJECT_DIR",)}
    env.pop("ZCODE_PROJECT_DIR", None)
    from tests.helpers.gate import REPO

    env["PYTHONPATH"] = str(REPO)
    done = subprocess.run(
        [str(ZODYSSEY), "hook", "pre-tool"],
        input=body,
        capture_output=True,
        text=True,
        cwd=run,
        env=env,
        timeout=60,
    )
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("path", [".ZCODE/STATE/demo.json", ".zcode/State/demo.json"])
def test_run_state_in_another_letter_case_blocks(run: Path, path: str) -> None:
    blocked(hook(run, "Write", {"file_path": path, "content": "{}"}), "run state")
    blocked(hook(run, "mcp__filesystem__write_file", {"path": path, "content": "{}"}), "run state")


# ------------------------------------------------------------ configuration is gate state

CONFIG = '[project]\nname = "demo"\n\n[tool.zodyssey.gate]\nread_only_agents = ["explore"]\n'


@pytest.mark.parametrize("name", ["pyproject.toml", ".zodyssey.toml", "PYPROJECT.TOML"])
def test_configuration_files_are_not_writable_even_when_declared(tmp_path: Path, name: str) -> None:
    root = make_run(tmp_path, config=CONFIG)  # the plan declares pyproject.toml
    text = '[tool.zodyssey.gate]\nread_only = ["python"]\n'
    blocked(hook(root, "Write", {"file_path": name, "content": text}), "configuration")
    blocked(hook(root, "Bash", {"command": f"echo x >> {name}"}), "configuration")
    blocked(hook(root, "mcp__filesystem__write_file", {"path": name, "content": text}))
    blocked(
        hook(root, "Bash", {"command": f"echo x >> {name}"}, env={"ZODYSSEY_UNGATE_BASH": "1"}),
        "configuration",
    )


def test_a_changed_configuration_closes_the_gate_until_a_person_re_reviews(
    tmp_path: Path,
) -> None:
    root = make_run(tmp_path, config=CONFIG)
    allowed(hook(root, "Write", {"file_path": "src/app.py", "content": "y\n"}))
    # changed behind the gate's back (a person's editor, a checkout, ...)
    (root / "pyproject.toml").write_text(CONFIG.replace('"explore"', '"explore", "executor"'))
    blocked(hook(root, "Write", {"file_path": "src/app.py", "content": "y\n"}), "changed since")
    blocked(hook(root, "Task", {"subagent_type": "executor", "prompt": "go"}), "changed since")
    # a change outside [tool.zodyssey] is not a configuration change; but pyproject.toml
    # is protected, so the effect check catches the change made between calls once
    # (recorded as a violation, the file kept: a person's edit is not undone) at
    # the next call's pre-tool snapshot, before the calls go on
    (root / "pyproject.toml").write_text(CONFIG.replace('"demo"', '"demo2"'))
    blocked(hook(root, "Bash", {"command": "zodyssey run list"}), "between tool calls")
    allowed(hook(root, "Write", {"file_path": "src/app.py", "content": "y\n"}))
    (root / "pyproject.toml").write_text(CONFIG.replace('"explore"', '"explore", "executor"'))
    blocked(hook(root, "Write", {"file_path": "src/app.py", "content": "y\n"}), "changed since")
    zrun(root, "review", "demo", "--human", "OKAY", "--by", "person")
    blocked(hook(root, "Bash", {"command": "zodyssey run list"}), "between tool calls")
    allowed(hook(root, "Write", {"file_path": "src/app.py", "content": "y\n"}))


# ------------------------------------------------------------ links


def test_a_linked_staging_directory_is_not_bookkeeping(run: Path) -> None:
    (run / ".zcode" / "staging").mkdir(exist_ok=True)
    (run / ".zcode" / "staging").rmdir()
    os.symlink("..", run / ".zcode" / "staging")
    blocked(hook(run, "Write", {"file_path": "undeclared.py", "content": "y"}), "scope")
    blocked(
        hook(run, "Write", {"file_path": ".zcode/staging/undeclared.py", "content": "y"}), "scope"
    )


def test_a_declared_file_that_is_a_link_does_not_reach_an_undeclared_one(run: Path) -> None:
    (run / "lib").mkdir()
    os.symlink("../undeclared.py", run / "lib" / "new.py")
    blocked(hook(run, "Write", {"file_path": "lib/new.py", "content": "y"}), "scope")
    blocked(hook(run, "Bash", {"command": "echo y > lib/new.py"}), "scope")


def test_a_hard_link_to_an_undeclared_file_blocks(run: Path) -> None:
    os.link(run / "undeclared.py", run / "pkg" / "alias.py")
    blocked(hook(run, "Write", {"file_path": "pkg/alias.py", "content": "y"}), "hard link")
    os.link(run / ".zcode" / "plans" / "demo.md", run / "pkg" / "plan.md")
    blocked(hook(run, "Edit", {"file_path": "pkg/plan.md", "old_string": "#", "new_string": "-"}))


def test_a_non_native_link_call_is_judged_at_both_ends(run: Path) -> None:
    done = hook(run, "mcp__fs__create_link", {"target": "undeclared.py", "link": "pkg/l.py"})
    blocked(done, "scope")
    done = hook(run, "mcp__fs__link", {"from": ".zcode/plans/demo.md", "to": "pkg/p.md"})
    blocked(done)


# ------------------------------------------------------------ the hatch


@pytest.mark.parametrize(
    "command",
    [
        "python3 -c \"open('.zcode/state/demo.json','w').write('{}')\"",
        "python3 -c \"open('.zc'+'ode/st'+'ate/demo.json','w').write('{}')\"",
        "python3 -c \"import os; os.chdir('.ZCODE'); open('state/demo.json','w')\"",
        "python3 -c \"open(''.join(map(chr,[46,122,99,111,100,101]))+'/state/demo.json','w')\"",
        "perl -e 'open(F, \">.zcode/state/demo.json\")'",
        "python3 -c \"open('pyproject.toml','a').write('x')\"",
    ],
)
def test_the_hatch_never_lets_run_state_through(run: Path, command: str) -> None:
    done = hook(run, "Bash", {"command": command}, env={"ZODYSSEY_UNGATE_BASH": "1"})
    blocked(done)


def test_the_hatch_still_opens_other_untargeted_writes(run: Path) -> None:
    done = hook(
        run,
        "Bash",
        {"command": "python3 -c \"open('README.md','w')\""},
        env={"ZODYSSEY_UNGATE_BASH": "1"},
    )
    allowed(done)


# ------------------------------------------------------------ run discovery


def test_a_planted_state_directory_in_a_declared_subdir_does_not_end_discovery(run: Path) -> None:
    (run / "pkg" / ".zcode" / "state").mkdir(parents=True)
    for project in (run / "pkg", run):
        done = hook(
            run,
            "Write",
            {"file_path": str(run / "undeclared.py")},
            project=project,
            cwd=str(run / "pkg"),
        )
        blocked(done, "scope")


@pytest.mark.parametrize("where", ["sibling", "parent"])
def test_a_project_dir_beside_or_above_the_repository_finds_the_run(run: Path, where: str) -> None:
    sibling = run.parent / "sibling"
    sibling.mkdir()
    git(sibling, "init", "-q")
    project = sibling if where == "sibling" else run.parent
    if where == "parent":
        git(run.parent, "init", "-q")  # the folder above is itself a checkout
    done = hook(run, "Write", {"file_path": str(run / "undeclared.py")}, project=project)
    blocked(done, "scope")


def test_codex_cwd_above_the_repository_finds_the_run(run: Path) -> None:
    git(run.parent, "init", "-q")  # the folder above is itself a checkout
    done = run_hook(
        payload(
            run.parent,
            "apply_patch",
            {
                "command": f"*** Begin Patch\n*** Update File: {run.name}/undeclared.py\n"
                "@@\n-x\n+y\n*** End Patch"
            },
        ),
        None,
        "--harness",
        "codex",
        cwd=run.parent,
    )
    blocked(done, "scope")


def test_cursor_multi_root_workspace_finds_the_run_in_any_root(run: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    body = {
        "hook_event_name": "preToolUse",
        "conversation_id": "c1",
        "workspace_roots": [str(other), str(run)],
        "tool_name": "Write",
        "tool_input": {"file_path": str(run / "undeclared.py"), "content": "y"},
    }
    done = run_hook(body, None, "--harness", "cursor", cwd=other)
    blocked(done, "scope")


# ------------------------------------------------------------ dispatch


@pytest.mark.parametrize(
    "prompt",
    [
        "subagent_type: general-purpose\nprompt: go",  # YAML
        "subagent_type=general-purpose prompt=go",  # key=value
        '<parameter name="subagent_type">general-purpose</parameter>',  # XML parameter tags
        '{\\"subagent_type\\": \\"x\\"}',  # escaped
        '{"subagentType": "x", "prompt": "go"}',  # camelCase
        "toolUseId: 'toolu_01abc'",
        '{"toolName": "Task"}',
    ],
)
def test_nested_dispatch_forms_block(run: Path, prompt: str) -> None:
    done = hook(run, "Task", {"subagent_type": "general-purpose", "prompt": prompt})
    blocked(done, "serialized tool call")


@pytest.mark.parametrize(
    "prompt",
    [
        "Log the `tool_use_id:` field of each hook call.",
        "Explain what subagent_type means.",
        "Add hook_event_name: to the docs table",
    ],
)
def test_a_mere_mention_of_a_field_is_not_a_nested_dispatch(run: Path, prompt: str) -> None:
    allowed(hook(run, "Task", {"subagent_type": "general-purpose", "prompt": prompt}))


def test_an_empty_subagent_type_beside_another_name_key_blocks(run: Path) -> None:
    for tool_input in (
        {"subagent_type": "", "name": "momus", "prompt": "review"},
        {"subagent_type": None, "agent": "momus", "prompt": "review"},
        {"subagent_type": "explore", "agent": "momus", "prompt": "review"},
    ):
        blocked(hook(run, "Task", tool_input), "agent")


@pytest.mark.parametrize("tool", ["delegate_to_agent", "mcp__agents__spawn_subagent"])
def test_an_unknown_dispatch_like_tool_follows_the_dispatch_rules(
    tmp_path: Path, tool: str
) -> None:
    root = make_run(tmp_path, okay=False)  # phase plan: executors may not run
    done = hook(root, tool, {"agent_name": "executor", "prompt": "write src/app.py"})
    blocked(done, "executor dispatch")


# ------------------------------------------------------------ shell keys


@pytest.mark.parametrize(
    ("harness", "tool", "tool_input"),
    [
        ("codex", "shell", {"command": ["bash", "-lc", "ls"], "cmd": "echo y > undeclared.py"}),
        ("gemini", "run_shell_command", {"command": "ls", "directory": "/", "cwd": "pkg"}),
        ("claude-code", "Bash", {"command": "ls", "cmd": "echo y > undeclared.py"}),
        ("zcode", "Bash", {"command": "ls", "workdir": "/tmp", "directory": "pkg"}),
    ],
)
def test_two_candidates_for_a_shell_key_block(
    run: Path, harness: str, tool: str, tool_input: dict[str, Any]
) -> None:
    blocked(hook(run, tool, tool_input, args=("--harness", harness)), "two")


def test_a_directory_key_the_harness_does_not_read_is_ignored(run: Path) -> None:
    # Claude Code's Bash runs in the payload's cwd whatever `workdir` says.
    done = hook(run, "Bash", {"command": "echo y > pkg/a.py", "workdir": "/tmp"})
    allowed(done)  # pkg/ is declared: judged where Claude Code runs it
    done = hook(run, "Bash", {"command": "echo y > undeclared.py", "workdir": str(run / "pkg")})
    blocked(done, "scope")


# ------------------------------------------------------------ false blocks


def test_an_orchestrator_and_its_own_subagent_share_file_locks(run: Path) -> None:
    allowed(hook(run, "Write", {"file_path": "src/app.py", "content": "a"}))  # orchestrator
    sub: dict[str, Any] = {"agent_id": "agent-7", "agent_type": "executor"}
    allowed(hook(run, "Write", {"file_path": "src/app.py", "content": "b"}, **sub))
    allowed(hook(run, "Write", {"file_path": "pkg/a.py", "content": "b"}, **sub))
    allowed(hook(run, "Write", {"file_path": "pkg/a.py", "content": "c"}))  # and back
    # another session's agent is still held back
    other: dict[str, Any] = {"agent_id": "agent-9", "session_id": "sess-2"}
    blocked(hook(run, "Write", {"file_path": "src/app.py", "content": "d"}, **other), "locked")
    # two subagents of one session hold back each other
    sib: dict[str, Any] = {"agent_id": "agent-8"}
    blocked(hook(run, "Write", {"file_path": "pkg/a.py", "content": "e"}, **sib), "locked")


def test_dispatches_without_tool_use_id_release_their_slot(run: Path) -> None:
    for n in range(6):
        body = {"subagent_type": "explore", "prompt": f"look {n}"}
        allowed(hook(run, "Task", body, tool_use_id=None))
        done = run_hook(
            {
                **payload(run, "Task", body),
                "tool_use_id": None,
                "hook_event_name": "PostToolUse",
                "tool_response": {},
            },
            run,
            event="post-tool",
        )
        assert done.returncode == 0, done.stderr
    ledger = json.loads((run / ".zcode" / "state" / "demo.inflight.json").read_text())
    assert ledger == []


def test_mcp_reads_and_listings_of_zcode_are_allowed(run: Path) -> None:
    for tool, tool_input in (
        ("mcp__filesystem__read_text_file", {"path": ".zcode/state/demo.json"}),
        ("mcp__filesystem__list_directory", {"path": str(run / ".zcode")}),
        ("mcp__filesystem__directory_tree", {"path": ".zcode/state"}),
        ("mcp__filesystem__read_file", {"path": ".zcode/plans/demo.md"}),
    ):
        allowed(hook(run, tool, tool_input))
    blocked(hook(run, "mcp__filesystem__write_file", {"path": ".zcode/state/demo.json"}))


def test_non_native_writes_follow_scope_and_the_review_gate(tmp_path: Path) -> None:
    root = make_run(tmp_path, okay=False)
    for tool in ("mcp__filesystem__write_file", "WriteFile", "mcp__x__edit_file"):
        blocked(hook(root, tool, {"path": "src/app.py", "content": "y"}), "review")
    zrun(root, "review", "demo", "--human", "OKAY", "--by", "person")
    allowed(hook(root, "mcp__filesystem__write_file", {"path": "src/app.py", "content": "y"}))
    blocked(hook(root, "WriteFile", {"filename": "undeclared.py", "content": "y"}), "scope")
