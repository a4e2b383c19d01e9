"""Red team of the gate policy beyond the shell classifier.

Each row is a call an agent could make and the answer the issue's rules give
(first match wins). Rows marked "was open" let the call through before the
fix that accompanies them. Probes are data: they go to `decide` or to a hook
process whose cwd is a temporary directory; nothing here runs them.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.gate import REPO, RunRepo, call, hook_env
from tests.helpers.gate import ctx as run_ctx
from zodyssey.gate.context import RunContext, parse_cap
from zodyssey.gate.paths import GATE_PACKAGE_DIR, is_test_file
from zodyssey.gate.policy import Decision, decide
from zodyssey.gate.toolcall import MAX_SHELL_COMMAND, build_call, patch_targets

NOW = 1_800_000_000.0

PLAN = """# Red team
<!-- - [ ] 9. hidden
  - Files: [`secret/hidden.py`] -->
## Todos
- [ ] 1. Build it
  - Files: [`src/ok.py`, `tests/test_ok.py`, `pkg/`, `../outside.py`, `/etc/hosts`, `../odir/`]
  - Acceptance criteria:
    - `true`
```
- [ ] 8. fenced
  - Files: [`fenced/f.py`]
```
The prose says Files: [`prose/p.py`] too.
## Must NOT have
- Files: [`mustnot/m.py`]
"""


@pytest.fixture
def root(tmp_path: Path) -> Path:
    base = tmp_path / "repo"
    for rel in ("src/ok.py", "tests/test_ok.py", "pkg/a.py", ".zcode/notepads/demo/n.md"):
        (base / rel).parent.mkdir(parents=True, exist_ok=True)
        (base / rel).write_text("x\n")
    (base / ".zcode" / "state").mkdir(parents=True)
    (base / ".zcode" / "plans").mkdir(parents=True)
    (base / ".zcode" / "plans" / "demo.md").write_text(PLAN)
    os.symlink(base / ".zcode" / "state", base / "statelink")
    os.symlink("/etc", base / "etclink")
    return base.resolve()


def ctx(root: Path, **options: Any) -> RunContext:
    """The shared run context with this file's plan."""
    return run_ctx(root, **{"plan": PLAN, **options})


def verdict(decision: Decision) -> str:
    return "allow" if decision.allow else decision.rule


def iso(seconds_ago: float) -> str:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(NOW - seconds_ago, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# ---------------------------------------------------------------- run state, every tool

STATE_WRITES: list[tuple[str, Any]] = [
    ("Write", {"file_path": ".zcode/state/demo.json", "content": "{}"}),
    ("Edit", {"file_path": ".zcode/reviews/demo-r1.json", "old_string": "a", "new_string": "b"}),
    ("MultiEdit", {"file_path": ".zcode/verify/demo/1.json", "edits": []}),
    ("NotebookEdit", {"notebook_path": "./.zcode/../.zcode/state/x.ipynb", "new_source": ""}),
    ("Write", {"file_path": "statelink/demo.json"}),  # symlink into .zcode/state
    ("write_file", {"file_path": ".zcode/state/demo.json"}),  # Gemini
    ("replace", {"file_path": ".zcode/state/demo.json", "old_string": "", "new_string": ""}),
    (
        "apply_patch",
        {"command": "*** Begin Patch\n*** Add File: .zcode/state/x.json\n+{}\n*** End Patch"},
    ),
    (
        "apply_patch",
        {
            "command": [
                "apply_patch",
                "*** Begin Patch\n*** Delete File: .zcode/reviews/r.json\n*** End Patch",
            ]
        },
    ),
    ("Bash", {"command": "echo {} > .zcode/state/demo.json"}),
    ("Bash", {"command": "rm -rf .zcode"}),
    ("mcp__fs__write_file", {"path": ".zcode/state/x.json"}),
    ("mcp__fs__write_file", {"args": {"target": "./.zcode/../.zcode/state/x.json"}}),
    ("mcp__fs__write_file", {"paths": ["README.md", "statelink/x.json"]}),
    ("mcp__fs__write_file", {"uri": "file:///REPO/.zcode/./state/x.json"}),
    ("mcp__fs__write_file", {"path": ".zcode//reviews/x.json"}),
    # was open: only the first path key was read, the tool may read another
    ("Write", {"file_path": "src/ok.py", "path": ".zcode/state/demo.json"}),
    ("edit_file", {"file_path": "src/ok.py", "target_file": ".zcode/state/demo.json"}),
    (
        "MultiEdit",
        {
            "file_path": "src/ok.py",
            "edits": [{"file_path": ".zcode/state/x.json", "old_string": "a", "new_string": "b"}],
        },
    ),
    ("Rename", {"path": "src/ok.py", "new_path": ".zcode/state/x.json"}),
    # was open: Codex trims patch lines before matching its markers
    (
        "apply_patch",
        {
            "command": "*** Begin Patch\n*** Update File: src/ok.py\n@@\n-x\n+y\n  *** Add File: .zcode/state/x.json\n+{}\n*** End Patch"
        },
    ),
    # was open: a tool of unknown effect handed the directory holding run state
    ("mcp__fs__delete", {"path": ".zcode"}),
    ("mcp__fs__move", {"source": "./.zcode", "destination": "/tmp/x"}),
    # was open: strings nested deeper than 20 levels were not looked at
    ("mcp__x__y", json.loads('{"a":' * 40 + '[".zcode/./state/x.json"]' + "}" * 40)),
]


@pytest.mark.parametrize(("tool", "tool_input"), STATE_WRITES)
@pytest.mark.parametrize(
    ("phase", "okay"), [("plan", None), ("execute", "OKAY"), ("final", "OKAY")]
)
def test_run_state_is_never_writable(
    root: Path, tool: str, tool_input: Any, phase: str, okay: str | None
) -> None:
    tool_input = json.loads(json.dumps(tool_input).replace("/REPO", str(root)))
    decision = decide(call(tool, tool_input, root), ctx(root, verdict=okay, phase=phase))
    assert verdict(decision) == "run-state", decision


def test_case_is_ignored_for_run_state(root: Path) -> None:
    # Issue 16: on a case-insensitive file system `.ZCODE/STATE` is the run state,
    # so it is judged as run state on every file system.
    c = ctx(root)
    for path in (".ZCODE/state/x.json", ".zcode/STATE/x.json", ".Zcode/Reviews/r.json"):
        assert verdict(decide(call("Write", {"file_path": path}, root), c)) == "run-state"
        assert verdict(decide(call("mcp__fs__write_file", {"path": path}, root), c)) == "run-state"


@pytest.mark.parametrize(
    "tool_input",
    [
        {"path": ".claude/settings.json"},
        {"path": ".claude"},  # was open: moving the directory moves the hook config
        {"source": ".cursor", "destination": "old"},
        {"path": ".gemini/settings.json"},
        {"path": ".codex/hooks.json"},
        {"path": os.path.join(GATE_PACKAGE_DIR, "policy.py")},
    ],
)
def test_non_native_tools_cannot_touch_the_gate(root: Path, tool_input: dict[str, str]) -> None:
    assert verdict(decide(call("mcp__fs__move", tool_input, root), ctx(root))) == "gate-itself"


def test_non_native_tools_may_be_handed_the_project(root: Path) -> None:
    c = ctx(root)
    for value in (".", str(root), "src/", "./README.md"):
        assert decide(call("mcp__git__status", {"repo_path": value}, root), c).allow, value


# ---------------------------------------------------------------- bookkeeping


def test_notepads_append_only_on_every_path(root: Path) -> None:
    note = ".zcode/notepads/demo/n.md"
    c = ctx(root, verdict=None, phase="plan")
    rows = [
        (call("Write", {"file_path": note, "content": "y"}, root), "notepad-append-only"),
        (call("Write", {"file_path": ".zcode/notepads/demo/new.md"}, root), "allow"),
        (
            call("Edit", {"file_path": note, "old_string": "x\n", "new_string": "x\ny"}, root),
            "allow",
        ),
        (
            call("Edit", {"file_path": note, "old_string": "x\n", "new_string": "y"}, root),
            "notepad-append-only",
        ),
        (call("Bash", {"command": f"echo y > {note}"}, root), "notepad-append-only"),
        (call("Bash", {"command": f"echo y >> {note}"}, root), "allow"),
        (call("Bash", {"command": f"echo y | tee -a {note}"}, root), "allow"),
        (call("Bash", {"command": f"cp /dev/null {note}"}, root), "notepad-append-only"),
        (call("Bash", {"command": f"mv {note} /tmp/n.md"}, root), "notepad-append-only"),
        (
            call(
                "apply_patch",
                {"command": f"*** Begin Patch\n*** Delete File: {note}\n*** End Patch"},
                root,
            ),
            "notepad-append-only",
        ),
    ]
    for probe, expected in rows:
        assert verdict(decide(probe, c)) == expected, probe


def test_plan_frozen_after_okay_on_every_path(root: Path) -> None:
    plan = ".zcode/plans/demo.md"
    c = ctx(root)
    for probe in (
        call("Write", {"file_path": plan}, root),
        call("Edit", {"file_path": plan, "old_string": "a", "new_string": "ab"}, root),
        call("Bash", {"command": f"sed -i s/a/b/ {plan}"}, root),
        call("Bash", {"command": f"cp /tmp/x {plan}"}, root),
        call("Bash", {"command": f"mv /tmp/x {plan}"}, root),
        call("Bash", {"command": f"mv {plan} /tmp/x"}, root),
        call("Bash", {"command": f"ln -sf /tmp/x {plan}"}, root),
        call("Bash", {"command": "rm -rf .zcode/plans"}, root),
        call(
            "apply_patch",
            {
                "command": f"*** Begin Patch\n*** Update File: src/ok.py\n*** Move to: {plan}\n*** End Patch"
            },
            root,
        ),
        call("mcp__fs__write_file", {"path": plan}, root),
        call("mcp__fs__write_file", {"path": ".zcode//plans/./demo.md"}, root),
        call("mcp__fs__delete", {"path": ".zcode/plans"}, root),  # was open
    ):
        assert verdict(decide(probe, c)) == "plan-frozen", probe
    assert decide(call("Write", {"file_path": plan}, root), ctx(root, verdict="REJECT")).allow


def test_plan_outside_the_plans_dir_is_writable_until_okay(root: Path) -> None:
    # was open: a plan_path such as docs/plan.md counted as product code
    other = str(root / "docs" / "plan.md")
    before = ctx(root, verdict=None, phase="plan", plan_file=other)
    assert decide(call("Write", {"file_path": "docs/plan.md"}, root), before).allow
    assert (
        verdict(decide(call("Write", {"file_path": "docs/other.md"}, root), before))
        == "review-gate"
    )
    after = ctx(root, plan_file=other)
    assert (
        verdict(decide(call("Write", {"file_path": "docs/plan.md"}, root), after)) == "plan-frozen"
    )


# ---------------------------------------------------------------- tests frozen


@pytest.mark.parametrize(
    "rel",
    [
        "tests/test_ok.py",
        "src/test_x.py",
        "src/x_test.py",
        "src/conftest.py",
        "app/tests.py",  # was open: Django's test module
        "pkg/testdata/golden.txt",  # was open: Go golden files
        "web/__snapshots__/a.snap",  # was open: Jest snapshots
        "Sources/Tests/AppTests.swift",
        "svc/x_test.go",
        "web/a.spec.ts",
        "web/a.test.tsx",
        "src/FooTests.java",
        "src/FooTest.cs",
    ],
)
def test_test_files(rel: str) -> None:
    assert is_test_file(rel)


@pytest.mark.parametrize("rel", ["src/ok.py", "src/contest.py", "src/attest.py", "docs/testing.md"])
def test_not_test_files(rel: str) -> None:
    assert not is_test_file(rel)


@pytest.mark.parametrize("phase", ["verify", "final"])
def test_tests_frozen_in_verify_and_final(root: Path, phase: str) -> None:
    c = ctx(root, phase=phase)
    for probe in (
        call("Write", {"file_path": "tests/test_ok.py"}, root),
        call("Bash", {"command": "echo x >> tests/test_ok.py"}, root),
        call("Write", {"file_path": "pkg/testdata/g.txt"}, root),
        call(
            "apply_patch",
            {"command": "*** Begin Patch\n*** Update File: tests/test_ok.py\n*** End Patch"},
            root,
        ),
    ):
        assert verdict(decide(probe, c)) == "tests-frozen", probe
    assert decide(call("Write", {"file_path": "src/ok.py"}, root), c).allow
    assert decide(call("Write", {"file_path": "tests/test_ok.py"}, root), ctx(root)).allow


# ---------------------------------------------------------------- review gate and tamper


@pytest.mark.parametrize("review", [None, "REJECT", "okay", "OKAY "])
def test_review_gate_names_verdict_round_and_next_step(root: Path, review: str | None) -> None:
    decision = decide(
        call("Write", {"file_path": "src/ok.py"}, root), ctx(root, verdict=review, phase="review")
    )
    assert verdict(decision) == "review-gate"
    shown = review or "none yet"
    assert f"verdict is {shown} (round 2/3)" in decision.reason
    assert "OKAY from the reviewer (momus)" in decision.reason


def test_tampered_plan_blocks_every_product_write(root: Path) -> None:
    c = ctx(root)
    c.review["plan_sha256"] = "0" * 64
    for probe in (
        call("Write", {"file_path": "src/ok.py"}, root),
        call("Bash", {"command": "echo x > src/ok.py"}, root),
        call(
            "apply_patch",
            {"command": "*** Begin Patch\n*** Update File: src/ok.py\n*** End Patch"},
            root,
        ),
    ):
        decision = decide(probe, c)
        assert verdict(decision) == "plan-tamper"
        assert (
            "expected sha256 000000000000, actual " + hashlib.sha256(PLAN.encode()).hexdigest()[:12]
            in decision.reason
        )
    assert decide(call("Write", {"file_path": ".zcode/notepads/demo/new.md"}, root), c).allow


# ---------------------------------------------------------------- scope

SCOPE_ROWS = [
    ("src/ok.py", "allow"),
    ("pkg/a.py", "allow"),
    ("pkg/deep/new.py", "allow"),
    ("./src/../src/ok.py", "allow"),
    ("/etc/hosts", "allow"),  # declared exactly
    ("../outside.py", "allow"),  # declared exactly
    ("etclink/hosts", "allow"),  # resolves to the declared /etc/hosts
    ("src", "scope"),  # an ancestor of a declared file
    ("src/ok.py.bak", "scope"),
    ("src/okx/a.py", "scope"),
    ("pkgx/a.py", "scope"),
    ("pkg/../secret/hidden.py", "scope"),
    ("../repo/../outside2.py", "scope"),
    ("/etc/passwd", "scope"),
    ("etclink/passwd", "scope"),
    ("~/x.py", "scope"),
    ("secret/hidden.py", "scope"),  # HTML comment
    ("fenced/f.py", "scope"),  # fenced block
    ("prose/p.py", "scope"),  # prose
    ("mustnot/m.py", "scope"),  # "Must NOT have" section
    ("pkg/.git/config", "scope"),
    ("pkg/HEAD", "scope"),
    ("../odir/f.py", "scope"),  # was open: an outside dir/ granted its whole tree
]


@pytest.mark.parametrize(("path", "expected"), SCOPE_ROWS)
def test_scope(root: Path, path: str, expected: str) -> None:
    assert verdict(decide(call("Write", {"file_path": path}, root), ctx(root))) == expected


def test_symlink_outside_pointing_inside_is_judged_by_its_target(
    root: Path, tmp_path: Path
) -> None:
    link = tmp_path / "into"
    os.symlink(root / "src", link)
    c = ctx(root)
    assert decide(call("Write", {"file_path": str(link / "ok.py")}, root), c).allow
    assert verdict(decide(call("Write", {"file_path": str(link / "no.py")}, root), c)) == "scope"


def test_declared_symlink_leading_out_grants_nothing(root: Path, tmp_path: Path) -> None:
    (tmp_path / "far").mkdir()
    os.symlink(tmp_path / "far", root / "farlink")
    plan = PLAN.replace("`pkg/`", "`farlink/`, `pkg/`")
    c = ctx(root, plan=plan)
    assert verdict(decide(call("Write", {"file_path": "farlink/x.py"}, root), c)) == "scope"


@pytest.mark.parametrize("plan", ["", "# nothing\n", "\xff"])
def test_empty_or_undecodable_plan_grants_nothing(root: Path, plan: str) -> None:
    decision = decide(call("Write", {"file_path": "src/ok.py"}, root), ctx(root, plan=plan))
    assert verdict(decision) == "scope"


def test_unreadable_plan_grants_nothing(root: Path) -> None:
    decision = decide(call("Write", {"file_path": "src/ok.py"}, root), ctx(root, plan=None))
    assert verdict(decision) == "plan-unreadable"


# ---------------------------------------------------------------- edit-family shapes


@pytest.mark.parametrize(
    "tool_input",
    [
        {"old_string": "a", "new_string": "b"},
        {"file_path": ""},
        {"file_path": 5},
        {"file_path": None, "path": "src/ok.py"},  # was open
        {"file_path": "", "path": "src/ok.py"},  # was open
        {"file_path": ["src/ok.py"]},
        {"file_path": "src/ok.py", "edits": [{"file_path": 3}]},  # was open
    ],
)
def test_edit_without_a_readable_path_blocks(root: Path, tool_input: dict[str, Any]) -> None:
    assert verdict(decide(call("Edit", tool_input, root), ctx(root))) in ("no-path", "malformed")


def test_multi_target_calls_check_every_target(root: Path) -> None:
    c = ctx(root)
    both = {"file_path": "src/ok.py", "edits": [{"old_string": "x", "new_string": "y"}]}
    assert decide(call("MultiEdit", both, root), c).allow
    assert (
        verdict(decide(call("NotebookEdit", {"notebook_path": "src/nb.ipynb"}, root), c)) == "scope"
    )
    patch = (
        "*** Begin Patch\n*** Update File: src/ok.py\n@@\n-x\n+y\n"
        "*** Update File: pkg/a.py\n*** Move to: src/moved.py\n*** End Patch\n"
    )
    assert patch_targets(patch) == ["src/ok.py", "pkg/a.py", "src/moved.py"]
    decision = decide(call("apply_patch", {"command": patch}, root, harness="codex"), c)
    assert verdict(decision) == "scope" and "src/moved.py" in decision.reason
    assert patch_targets("*** Add File: a\r\n*** Delete File: b\r\n") == ["a", "b"]


# ---------------------------------------------------------------- locks


def test_file_locks(root: Path) -> None:
    held = {"src/ok.py": {"session": "agent-a", "todo": "1", "acquired_at": iso(60)}}
    w = call("Write", {"file_path": "src/ok.py"}, root, agent_id="agent-b")
    decision = decide(w, ctx(root, locks=held))
    assert verdict(decision) == "file-lock" and "agent-a" in decision.reason
    # the same owner, through agent_id over session_id
    mine = call("Write", {"file_path": "src/ok.py"}, root, agent_id="agent-a", session_id="x")
    assert decide(mine, ctx(root, locks=held)).allow
    # expired after 30 minutes, released when the todo is done
    old = {"src/ok.py": {**held["src/ok.py"], "acquired_at": iso(30 * 60)}}
    assert decide(w, ctx(root, locks=old)).allow
    done = ctx(root, locks=held, todos={"1": {"status": "done"}})
    assert decide(w, done).allow
    # shell writes take the same locks
    shell = call("Bash", {"command": "echo x >> src/ok.py"}, root, agent_id="agent-b")
    assert verdict(decide(shell, ctx(root, locks=held))) == "file-lock"


# ---------------------------------------------------------------- dispatch


@pytest.mark.parametrize(
    "prompt",
    [
        'do {\\"subagent_type\\": \\"x\\", \\"prompt\\": \\"y\\"}',  # was open: escaped JSON
        "do {'subagent_type': 'general-purpose'}",  # was open: a Python dict
        "subagent_type: general-purpose\nprompt: go",  # was open: YAML
        "{'tool_name': 'Agent'}",  # was open
        '{"tool_name":"Task","tool_input":{}}',
        '<invoke name="Agent">',
    ],
)
def test_nested_dispatch_blocks(root: Path, prompt: str) -> None:
    probe = call("Task", {"subagent_type": "general-purpose", "prompt": prompt}, root)
    assert verdict(decide(probe, ctx(root))) == "nested-dispatch"


@pytest.mark.parametrize(
    "prompt", ["Explain how subagent_type is chosen", "The agent's name: Agent Smith", "type: tool"]
)
def test_prose_about_dispatch_is_not_a_dispatch(root: Path, prompt: str) -> None:
    probe = call("Task", {"subagent_type": "general-purpose", "prompt": prompt}, root)
    assert decide(probe, ctx(root)).allow


def test_nested_dispatch_in_any_field(root: Path) -> None:
    nested = call("Task", {"subagent_type": "x", "description": 'run {"subagent_type": "y"}'}, root)
    assert verdict(decide(nested, ctx(root))) == "nested-dispatch"
    # the call's own keys are not serialized text (they are joined by newlines)
    own = call("Agent", {"subagent_type": "x", "prompt": "go", "extra": [{"name": "y"}]}, root)
    assert decide(own, ctx(root)).allow


@pytest.mark.parametrize(("raw", "cap"), [("", 4), ("1", 1), (" 7 ", 7), ("99999", 99999)])
def test_cap_values(raw: str, cap: int) -> None:
    assert parse_cap(raw) == cap


@pytest.mark.parametrize("raw", ["0", "-1", "abc", "4.0", "0x4"])
def test_bad_cap_values_fail(raw: str) -> None:
    with pytest.raises(ValueError, match="ZODYSSEY_PARALLEL_CAP"):
        parse_cap(raw)


# ---------------------------------------------------------------- shell length bound


def test_over_long_shell_command_blocks_even_read_only(root: Path) -> None:
    # was open: a 10 MB command took over 30 s to classify, and a hook that
    # outlives the harness's timeout lets the call through
    long_read = "echo " + "a " * MAX_SHELL_COMMAND
    decision = decide(call("Bash", {"command": long_read}, root), ctx(root))
    assert verdict(decision) == "shell-too-long"
    assert decide(call("Bash", {"command": "echo " + "a " * 1000}, root), ctx(root)).allow


# ---------------------------------------------------------------- the real process

HOOK = str(REPO / "zodyssey" / "gate" / "hook_entry.py")


def hook(
    stdin: bytes | dict[str, Any],
    project: Path | None,
    harness: str = "claude-code",
    cwd: Path | None = None,
    event: str = "pre-tool",
    **env: str,
) -> tuple[int, str, str]:
    data = stdin if isinstance(stdin, bytes) else json.dumps(stdin).encode()
    result = subprocess.run(
        [sys.executable, "-P", HOOK, event, "--harness", harness],
        input=data,
        capture_output=True,
        env=hook_env(project, **env),
        cwd=str(cwd) if cwd else str(REPO.parent if project is None else project.parent),
        check=False,
        timeout=60,
    )
    return result.returncode, result.stdout.decode(), result.stderr.decode()


HARNESS_PAYLOADS: dict[str, Callable[[RunRepo], dict[str, Any]]] = {
    "claude-code": lambda r: r.payload("Write", {"file_path": str(r.root / ".zcode/state/x.json")}),
    "zcode": lambda r: r.payload("Edit", {"file_path": "src/server.py", "path": ".zcode/state/x"}),
    "codex": lambda r: r.payload(
        "apply_patch",
        {"command": "*** Begin Patch\n *** Add File: .zcode/state/x.json\n+{}\n*** End Patch"},
    ),
    "gemini": lambda r: {
        "session_id": "g",
        "cwd": str(r.root),
        "hook_event_name": "BeforeTool",
        "tool_name": "write_file",
        "tool_input": {"file_path": ".zcode/reviews/demo-r9.json", "content": "{}"},
    },
    "cursor": lambda r: {
        "conversation_id": "c",
        "hook_event_name": "beforeMCPExecution",
        "workspace_roots": [str(r.root)],
        "server": "fs",
        "tool_name": "delete",
        "tool_input": json.dumps({"path": ".zcode"}),
    },
}


@pytest.mark.parametrize("harness", sorted(HARNESS_PAYLOADS))
def test_each_harness_blocks_run_state_in_its_protocol(
    run_repo: Callable[..., RunRepo], harness: str
) -> None:
    repo = run_repo()
    code, out, err = hook(HARNESS_PAYLOADS[harness](repo), repo.root, harness)
    assert code == 2, (out, err)
    assert "run state" in err and "defer" not in out
    if harness == "claude-code":
        assert out == ""
    elif harness == "zcode":
        (line,) = out.splitlines()
        reply = json.loads(line)
        assert reply["decision"] == "block"
        assert reply["reason"].startswith("ZODYSSEY_BLOCK gate: ") and reply["reason"].endswith(
            "(slug=demo)"
        )
    elif harness == "codex":
        assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "deny"
    elif harness == "gemini":
        assert json.loads(out)["decision"] == "deny"
    else:
        assert json.loads(out)["permission"] == "deny"


@pytest.mark.parametrize(
    "stdin",
    [
        b"",
        b"{",
        b"[]",
        b"5",
        b'"Write"',
        b"\xff\xfe\x00{",
        b'{"tool_input": {}}',
        b'{"tool_name": "Write", "tool_input": "x"}',
        b'{"tool_name": 7, "tool_input": {}}',
    ],
)
def test_malformed_stdin_fails_closed_in_a_run(
    run_repo: Callable[..., RunRepo], stdin: bytes
) -> None:
    repo = run_repo()
    for harness in ("claude-code", "zcode"):
        code, _, err = hook(stdin, repo.root, harness)
        assert code == 2 and err, (harness, stdin)


def test_malformed_stdin_outside_a_run_is_silent(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".zcode" / "state").mkdir(parents=True)
    (tmp_path / ".zcode" / "state" / "old.json").write_text('{"phase": "done"}')
    for stdin in (b"", b"{", b"\xff", b"[]"):
        for harness in ("claude-code", "cursor", "nonsense"):
            assert hook(stdin, tmp_path, harness) == (0, "", "")


@pytest.mark.parametrize(
    "state",
    ['{"phase": ["done"]}', "[]", "not json", '{"phase": "execute", "review": "OKAY"}', "{}"],
)
def test_broken_second_run_blocks_writes(run_repo: Callable[..., RunRepo], state: str) -> None:
    repo = run_repo()
    (repo.root / ".zcode" / "state" / "other.json").write_text(state)
    payload = repo.payload("Write", {"file_path": "src/server.py"})
    code, _, err = hook(payload, repo.root)
    assert code == 2, err
    # was open: found through Cursor's workspace_roots with no project env, an
    # error reading a broken state let the call through
    cursor = {**payload, "workspace_roots": [str(repo.root)], "cwd": "/"}
    code, out, _ = hook(cursor, None, "cursor", cwd=Path("/"))
    assert code == 2 and json.loads(out)["permission"] == "deny"


def test_unreadable_plans_fail_closed(run_repo: Callable[..., RunRepo], tmp_path: Path) -> None:
    repo = run_repo()
    payload = repo.payload("Write", {"file_path": "src/server.py"})
    for plan_path in (
        str(repo.root / ".zcode" / "plans"),  # a directory
        str(repo.root / ".zcode" / "plans" / "missing.md"),
        str(tmp_path / "outside.md"),
        "../outside.md",
    ):
        repo.set(plan_path=plan_path)
        code, _, err = hook(payload, repo.root)
        assert code == 2 and "plan" in err, (plan_path, err)
    os.symlink(repo.root / "nowhere.md", repo.root / ".zcode" / "plans" / "dangling.md")
    repo.set(plan_path=str(repo.root / ".zcode" / "plans" / "dangling.md"))
    code, _, err = hook(payload, repo.root)
    assert code == 2 and "unreadable" in err


def test_huge_payloads_answer_in_time(run_repo: Callable[..., RunRepo]) -> None:
    repo = run_repo()
    big_shell = repo.payload("Bash", {"command": "echo " + "a " * 5_000_000 + "> src/x"})
    code, _, err = hook(big_shell, repo.root)
    assert code == 2 and "characters long" in err
    big_mcp = repo.payload("mcp__x__y", {"data": "a " * 5_000_000, "p": ".zcode/./state/x"})
    code, _, err = hook(big_mcp, repo.root)
    assert code == 2 and ("run state" in err or "too large" in err)


def test_bad_cap_fails_closed_and_cap_is_released(run_repo: Callable[..., RunRepo]) -> None:
    repo = run_repo()
    task = repo.payload("Task", {"subagent_type": "general-purpose", "prompt": "go"})
    for raw in ("0", "-1", "abc"):
        code, _, err = hook(task, repo.root, ZODYSSEY_PARALLEL_CAP=raw)
        assert code == 2 and "ZODYSSEY_PARALLEL_CAP" in err
    assert hook(task, repo.root, ZODYSSEY_PARALLEL_CAP="1")[0] == 0
    second = repo.payload(
        "Task", {"subagent_type": "general-purpose", "prompt": "go"}, tool_use_id="t2"
    )
    code, _, err = hook(second, repo.root, ZODYSSEY_PARALLEL_CAP="1")
    assert code == 2 and "cap 1" in err
    assert hook(task, repo.root, event="post-tool") == (0, "", "")
    assert hook(second, repo.root, ZODYSSEY_PARALLEL_CAP="1")[0] == 0


def test_a_call_without_owner_takes_no_lock(root: Path) -> None:
    # was open: an owner-less call locked the file as "unknown" for 30 minutes
    anonymous = build_call("gemini", "write_file", {"file_path": "src/ok.py"}, {"cwd": str(root)})
    decision = decide(anonymous, ctx(root))
    assert decision.allow and decision.effects == ()
    held = {"src/ok.py": {"session": "agent-a", "todo": "1", "acquired_at": iso(60)}}
    assert verdict(decide(anonymous, ctx(root, locks=held))) == "file-lock"


def test_codex_shell_argv_apply_patch_is_a_patch(root: Path) -> None:
    def shell_patch(path: str, workdir: str | None = None) -> Decision:
        text = f"*** Begin Patch\n*** Update File: {path}\n@@\n-x\n+y\n*** End Patch\n"
        tool_input: dict[str, Any] = {"command": ["apply_patch", text]}
        if workdir:
            tool_input["workdir"] = workdir
        return decide(call("shell", tool_input, root, harness="codex"), ctx(root))

    assert shell_patch("src/ok.py").allow
    assert shell_patch("ok.py", workdir="src").allow
    assert verdict(shell_patch(".zcode/state/demo.json")) == "run-state"
    assert verdict(shell_patch("src/other.py")) == "scope"


def test_locks_between_two_owners_through_the_hook(run_repo: Callable[..., RunRepo]) -> None:
    repo = run_repo()
    write = {"file_path": "src/server.py", "content": "y"}
    assert hook(repo.payload("Write", write, agent_id="agent-a"), repo.root) == (0, "", "")
    lock = repo.state()["file_locks"]["src/server.py"]
    assert (lock["session"], lock["todo"]) == ("agent-a", "1")
    # another session's main agent is another owner (issue 16: its own session's
    # orchestrator is not, tests/gate/test_gate_round2.py)
    code, _, err = hook(repo.payload("Write", write, session_id="sess-other"), repo.root)
    assert code == 2 and "locked by agent-a" in err
    assert hook(repo.payload("Write", write, agent_id="agent-a"), repo.root)[0] == 0
    repo.set(todos={"1": {"status": "done", "attempts": 1}})
    assert hook(repo.payload("Write", write), repo.root)[0] == 0
    assert repo.state()["file_locks"]["src/server.py"]["session"] == "sess-1"
