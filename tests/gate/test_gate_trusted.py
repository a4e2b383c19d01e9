"""`zodyssey run ...` from the agent's shell: trusted forms, person-only forms, criteria.

How this could pass while broken: a prefix match on "zodyssey run" would let
`zodyssey run status > src/app.py` or `zodyssey run lint x && rm -rf src`
through; an abbreviation (`--force`, `--hum`) would slip past a list of exact
option names; a `.venv/bin/zodyssey` made by the agent would be trusted as the
real one; a criterion would be allowed before OKAY or after the plan changed.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.helpers.gate import bash, blocked, ctx
from zodyssey.gate.policy import decide
from zodyssey.gate.shell import classify

AGENT_FORMS = [
    "zodyssey run start demo --plan plan.md",
    "zodyssey run verify demo 1",
    "zodyssey run verify --repo . demo 1 --criterion 1",
    "zodyssey run todo demo 1 in_flight --owner a1",
    "zodyssey run todo demo 1 done",
    "zodyssey run todo demo 1 failed",
    "zodyssey run phase demo verify",
    "zodyssey run phase demo done",
    "zodyssey run window demo --label audit -- git status",
    "python -m zodyssey run verify demo 1",
    "python3 -m zodyssey run todo demo 1 done",
    "timeout 600 zodyssey run verify demo 1",
]
READ_FORMS = [
    "zodyssey run status demo",
    "zodyssey run status demo --json",
    "zodyssey run lint demo",
    "zodyssey run list",
    "zodyssey run --help",
    "zodyssey run phase --help",
    "zodyssey --version",
    "zodyssey audit demo",
    "zodyssey run status demo | head -5",
]
PERSON_FORMS = [
    "zodyssey run review demo --artifact .zcode/staging/momus.json",
    "zodyssey run review demo --art .zcode/staging/momus.json",
    "zodyssey hook post-tool",
    "zodyssey hook pre-tool --harness gemini",
    "zodyssey run review demo --human OKAY --by alice",
    "zodyssey run review demo --hum OKAY --by alice",
    "zodyssey run review demo --human=REJECT --by=alice",
    "zodyssey run todo demo 1 done --force-done --reason x",
    "zodyssey run todo demo 1 done --force --reason x",
    "zodyssey run todo demo 1 blocked",
    "zodyssey run phase demo done --force --reason x",
    "zodyssey run phase demo abandoned --reason x",
    "zodyssey run phase demo blocked --reason x",
    "zodyssey run phase demo audited",
    "python -m zodyssey run review demo --human OKAY --by alice",
    "zodyssey run status demo && zodyssey run phase demo abandoned --reason x",
]
NOT_TRUSTED = [
    "zodyssey run status demo > README.md",
    "zodyssey run lint demo && rm -rf src",
    "zodyssey run verify demo 1 | tee README.md",
    "zodyssey run window demo --label a -- sh -c 'echo x > README.md'",
    "zodyssey run window demo --label a",
    "zodyssey hook pre-tool",
    "zodyssey hook install",
    "zodyssey run frobnicate demo",
    "zodyssey run $SUB demo",
    "zodyssey audit demo -o report.txt",
    "PYTHONPATH=evil zodyssey run verify demo 1",
    "python -m zodyssey.gate pre-tool",
]


@pytest.mark.parametrize("command", AGENT_FORMS)
@pytest.mark.parametrize("phase,verdict", [("plan", None), ("execute", "OKAY")])
def test_agent_forms_allowed_in_every_active_phase(
    root: Path, command: str, phase: str, verdict: str | None
) -> None:
    assert decide(bash(root, command), ctx(root, phase=phase, verdict=verdict)).allow


@pytest.mark.parametrize("command", READ_FORMS)
def test_read_forms_are_read_only(command: str) -> None:
    assert not classify(command).is_write, classify(command)


@pytest.mark.parametrize("command", PERSON_FORMS)
@pytest.mark.parametrize("verdict", [None, "OKAY"])
def test_person_forms_blocked_with_ask_the_user(
    root: Path, command: str, verdict: str | None
) -> None:
    decision = decide(bash(root, command), ctx(root, phase="execute", verdict=verdict))
    blocked(decision, "person-only")
    assert "ask the user to run it in their own terminal" in decision.reason
    # the hatch does not open them either
    ungated = decide(bash(root, command), ctx(root, verdict=verdict, ungated=True))
    blocked(ungated, "person-only")


@pytest.mark.parametrize("command", NOT_TRUSTED)
def test_everything_beside_them_is_judged_as_usual(root: Path, command: str) -> None:
    assert not decide(bash(root, command), ctx(root, phase="plan", verdict=None)).allow
    assert not decide(bash(root, command), ctx(root)).allow


def test_leaving_blocked_is_for_a_person(root: Path) -> None:
    c = ctx(root, phase="blocked", verdict="REJECT")
    decision = decide(bash(root, "zodyssey run phase demo review"), c)
    blocked(decision, "person-only")
    assert "blocked" in decision.reason
    # a run that is done and another still active: reopening it is a person's call
    (root / ".zcode" / "state" / "old.json").write_text('{"phase": "done"}')
    blocked(decide(bash(root, "zodyssey run phase old execute"), ctx(root)), "person-only")


def test_path_forms_only_for_the_installed_zodyssey(root: Path, tmp_path: Path) -> None:
    ours = Path(sys.executable).parent
    assert decide(bash(root, f"{ours}/zodyssey run verify demo 1"), ctx(root)).allow
    assert decide(bash(root, f"{ours}/python -m zodyssey run status demo"), ctx(root)).allow
    fake = root / "bin" / "zodyssey"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho owned > src/server.py\n")
    os.chmod(fake, 0o755)
    for command in ("bin/zodyssey run status demo", "./bin/zodyssey run verify demo 1"):
        decision = decide(bash(root, command), ctx(root))
        blocked(decision, "untrusted-program")


def test_criterion_verbatim_allowed_after_okay_only(root: Path) -> None:
    criterion = "pytest -q tests/test_server.py"
    assert classify(criterion).is_write  # otherwise this test proves nothing
    assert decide(bash(root, criterion), ctx(root)).allow
    blocked(decide(bash(root, criterion), ctx(root, phase="plan", verdict=None)), "review-gate")
    # plan changed after review: the criterion no longer counts as reviewed
    assert not decide(bash(root, criterion), ctx(root, bound="0" * 64)).allow
    # not verbatim: judged as usual
    assert not decide(bash(root, criterion + " && make"), ctx(root)).allow
    assert not decide(bash(root, criterion + " > src/x.py"), ctx(root)).allow
    # run state stays closed even inside a reviewed criterion
    assert not decide(bash(root, "pytest -q > .zcode/state/demo.json"), ctx(root)).allow
