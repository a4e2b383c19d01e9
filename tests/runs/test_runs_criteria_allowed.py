"""Every command of a reviewed criterion is what the gate lets through verbatim (issue 26).

A criterion may name several commands (`` `A` exits 0 and `B` exits 0 ``);
`run verify` runs every one of them, so the gate's allow-list of reviewed
criterion commands holds every one of them too, not only the first. Real run,
real hook process (Claude Code's PreToolUse payload for Bash).
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers.gate import payload
from tests.helpers.real_runs import approved, plan_of

FIRST = "test -f g.txt"
SECOND = "mkdir -p build && touch build/stamp"  # a write outside the todo's Files
PLAN = plan_of(f"    - `{FIRST}` exits 0 and `{SECOND}` exits 0\n")


def test_the_second_command_of_a_reviewed_criterion_is_allowed(tmp_path: Path) -> None:
    repo = approved(tmp_path, PLAN)
    allowed = repo.hook("pre-tool", payload("Bash", {"command": SECOND}, cwd=repo.root))
    assert allowed.code == 0, allowed.text
    assert '"deny"' not in allowed.out, allowed.out
    # a command the criterion does not name is still judged as usual
    other = "mkdir -p build && touch build/other"
    refused = repo.hook("pre-tool", payload("Bash", {"command": other}, cwd=repo.root))
    assert refused.code == 2 or '"deny"' in refused.out, refused.text
    json.loads(allowed.out or "{}")
