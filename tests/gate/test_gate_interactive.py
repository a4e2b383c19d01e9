"""Interactive sessions: a pager or editor with shell escapes is write-capable before OKAY.

Codex's `exec_command {cmd, tty: true}` keeps the program running and lets the
model type into it with `write_stdin`, which reaches no hook (driven in
Codex CLI 0.171.0: `exec_command {cmd: "bash", tty: true}` reached the hook as
`Bash {command: "bash"}`, then `write_stdin` typed `echo typed > typed.txt`
and the file was written with no hook call). So whatever a program can run
from its keyboard counts: `less`/`more` run `!cmd`, `man` and `git` run
`$PAGER`/`$MANPAGER`/`$GIT_PAGER`/`core.pager`, editors run `:!cmd`. Codex
exports `PAGER=cat`, `GIT_PAGER=cat` and `GH_PAGER=cat` to its shell (seen in
the same session), which is why a bare `man ls` or `git log` stays a read.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.gate import bash, call, ctx
from zodyssey.gate.context import RunContext
from zodyssey.gate.policy import decide

WRITE_CAPABLE = [
    "PAGER=less man ls",
    "MANPAGER=less man ls",
    "MANPAGER='less -R' man ls",
    "env PAGER=less man ls",
    "env MANPAGER=more man ls",
    "export PAGER=less; man ls",
    "PAGER='less -FRX' git log",
    "GIT_PAGER=less git log",
    "GH_PAGER=less gh pr list",
    "SYSTEMD_PAGER=less systemctl status",
    "git -c core.pager=less log",
    "git -c core.pager=more log",
    "less src/server.py",
    "more src/server.py",
    "ls | less",
    "man -P less ls",
    "vim src/server.py",
    "vi",
    "ed",
    "nano src/server.py",
    "bash",
    "python3",
]
READS = [
    "man ls",
    "git log",
    "PAGER=cat man ls",
    "GIT_PAGER=cat git log",
    "git -c core.pager=cat log",
    "env PAGER= man ls",
    "cat src/server.py",
    "tty",
]


@pytest.mark.parametrize("command", WRITE_CAPABLE)
@pytest.mark.parametrize("harness", ["claude-code", "codex"])
def test_pagers_and_editors_are_write_capable_in_phase_plan(
    root: Path, command: str, harness: str
) -> None:
    decision = decide(call("Bash", {"command": command}, root, harness=harness), plan_ctx(root))
    assert not decision.allow, decision
    assert decision.reason, decision


@pytest.mark.parametrize("command", READS)
def test_plain_pagers_of_the_session_stay_reads(root: Path, command: str) -> None:
    assert decide(bash(root, command), plan_ctx(root)).allow


def plan_ctx(root: Path) -> RunContext:
    return ctx(root, phase="plan", verdict=None)
