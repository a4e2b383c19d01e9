"""One parser for `zodyssey run` forms (issue 21, item 2).

The gate used to judge an agent's `zodyssey run ...` with a table of its own
that stopped at `--`, while argparse reads on: `zodyssey run phase --reason x
-- demo abandoned` abandoned the run from the agent's shell. Now the gate reads
the words with the argparse definition the command itself uses.

How this could pass while broken: the gate's reading could agree with the
real parser on the forms listed here and nowhere else (so a generated set of
argv is compared with the real CLI's parser, `zodyssey.cli.build_parser`); a
person-only form could still pass inside a subshell, after a newline or
beside a redirection; the parse could print help or usage on the hook's
stdout, which is its reply to the harness.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers.gate import bash, blocked, ctx
from tests.helpers.runs import PLAN, Repo, make_repo
from zodyssey.gate import trusted
from zodyssey.gate.policy import decide

PERSON_SPELLINGS = [
    "zodyssey run phase --reason x -- demo abandoned",
    "zodyssey run phase demo --note x -- abandoned",
    "zodyssey run phase --note x -- demo blocked",
    "zodyssey run phase --reas=x demo aban\\doned",
    "zodyssey run phase demo --fo -- done",
    "zodyssey run todo --rea x --force-d -- demo 1 done",
    "zodyssey run todo demo 1 -- blocked",
    "zodyssey run review demo --hu OKAY --by me",
    "zodyssey run review --by=me -- demo",
    "( zodyssey run phase demo abandoned --reason x )",
    "ls\nzodyssey run phase demo abandoned --reason x",
    "zodyssey run phase demo abandoned --reason x < /etc/passwd",
    "{ zodyssey run phase demo blocked --reason x; }",
    "true && python -m zodyssey run phase -- demo audited",
]


@pytest.mark.parametrize("command", PERSON_SPELLINGS)
def test_person_only_forms_stay_person_only_however_spelled(root: Path, command: str) -> None:
    for phase, verdict in (("plan", None), ("execute", "OKAY")):
        decision = decide(bash(root, command), ctx(root, phase=phase, verdict=verdict))
        blocked(decision, "person-only")
        decision = decide(bash(root, command), ctx(root, verdict=verdict, ungated=True))
        blocked(decision, "person-only")


@pytest.mark.parametrize(
    "command",
    [
        "zodyssey run phase --note x -- demo plan",
        "zodyssey run phase -- demo review",
        "zodyssey run phase --repo . -- demo execute",
    ],
)
def test_leaving_blocked_behind_dashes_is_a_persons(root: Path, command: str) -> None:
    decision = decide(bash(root, command), ctx(root, phase="blocked", verdict="REJECT"))
    blocked(decision, "person-only")
    assert "blocked" in decision.reason


def test_the_spelling_is_real_the_command_accepts_it(tmp_path: Path) -> None:
    """What the gate refuses is what the command does: a person's terminal abandons the run."""
    repo: Repo = make_repo(tmp_path / "repo")
    plan = tmp_path / "plan.md"
    plan.write_text(PLAN, encoding="utf-8")
    assert repo.run("start", "demo", "--plan", str(plan)).code == 0
    shell = {
        "session_id": "s",
        "cwd": str(repo.root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "zodyssey run phase --reason x -- demo abandoned"},
    }
    gated = repo.hook("pre-tool", shell)
    assert gated.code == 2 and "ask the user" in gated.err, gated.text
    assert repo.state()["phase"] == "plan"
    person = repo.run("phase", "--reason", "x", "--", "demo", "abandoned")
    assert person.code == 0, person.text
    assert repo.state()["phase"] == "abandoned"


def test_the_gate_reads_with_the_commands_own_parser() -> None:
    """No second table: every option of every `run` subcommand is the CLI's own."""
    from zodyssey.cli import build_parser

    def options(parser: Any) -> dict[str, list[tuple[str, ...]]]:
        run = _subparsers(parser)["run"]
        return {
            name: sorted(tuple(a.option_strings) for a in sub._actions)
            for name, sub in _subparsers(run).items()
        }

    assert options(trusted.parser()) == options(build_parser())


def _subparsers(parser: Any) -> dict[str, Any]:
    import argparse

    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


WORDS = st.sampled_from(
    [
        "demo",
        "1",
        "F1",
        "--",
        "-h",
        "--help",
        "--reason",
        "--rea",
        "--reason=x",
        "--note",
        "--no",
        "--force",
        "--fo",
        "--force-done",
        "--force-d",
        "--owner",
        "--repo",
        "--repo=.",
        "--criterion",
        "--timeout",
        "--label",
        "--human",
        "--hum",
        "--by",
        "--artifact",
        "x",
        "OKAY",
        "abandoned",
        "blocked",
        "audited",
        "done",
        "plan",
        "execute",
        "pending",
        "in_flight",
        "failed",
        "--json",
        "--all",
    ]
)
SUBCOMMANDS = st.sampled_from(
    ["phase", "todo", "review", "verify", "start", "status", "lint", "list", "window"]
)


def _expected(argv: list[str]) -> str:
    """What the real CLI's parser makes of `argv`, restated independently of the gate."""
    from zodyssey.cli import build_parser

    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            ns = build_parser().parse_args(argv)
    except SystemExit as exc:
        return "read" if exc.code == 0 else "unknown"
    sub = ns.run_command
    if sub in ("status", "lint", "list"):
        return "read"
    if sub == "review":
        return "person"
    if sub in ("todo", "phase") and not isinstance(ns.status if sub == "todo" else ns.phase, str):
        return "unknown"  # `-- --` gives an empty list: no status or phase to act on
    if sub == "todo":
        return "person" if ns.force_done or ns.status == "blocked" else "agent"
    if sub == "phase":
        return "person" if ns.force or ns.phase in ("abandoned", "blocked", "audited") else "agent"
    if sub == "window":
        rest = ns.rest or []
        return "agent" if "--" in rest and rest.index("--") < len(rest) - 1 else "unknown"
    return "agent"


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SUBCOMMANDS, st.lists(WORDS, max_size=7))
def test_the_gate_agrees_with_the_real_parser(sub: str, words: list[str]) -> None:
    argv = ["run", sub, *words]
    kind, _, _ = trusted.judge(list(argv))
    assert kind == _expected(argv), argv


@pytest.mark.parametrize(
    "argv", [["run", "phase", "demo", "--", "--"], ["run", "todo", "demo", "demo", "--", "--"]]
)
def test_a_double_dash_leaving_no_value_is_unknown_not_a_crash(argv: list[str]) -> None:
    """Found by the property test: argparse leaves [] where a phase or status goes."""
    assert trusted.judge(list(argv))[0] == "unknown"


def test_judging_prints_nothing_on_the_hooks_stdout(root: Path, tmp_path: Path) -> None:
    """The hook's stdout is its reply: help and usage printed there would be read as one."""
    script = (
        "from zodyssey.gate import trusted\n"
        "for argv in (['run', '--help'], ['run', 'phase', '-h'], ['--version'], ['run', 'x']):\n"
        "    trusted.judge(argv)\n"
    )
    import sys

    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False, timeout=60
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
