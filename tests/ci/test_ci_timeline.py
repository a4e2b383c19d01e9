"""The audit's HTML timeline draws every recorded run of a criterion (issue 27, item 4)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.helpers.audit import OursRun, audit_cli


def test_a_criterion_that_failed_then_passed_shows_both_runs(tmp_path: Path) -> None:
    run = OursRun(tmp_path)
    run.review("OKAY")
    run.criterion("1", 1, exit_code=1, minute=5)
    run.criterion("1", 1, minute=8)
    run.done("1", minute=9)
    run.phase("done", 10)
    run.write()
    html = audit_cli(run.root, run.slug, "--format", "html").stdout
    timeline = html.split('id="timeline"', 1)[1].split("</main>", 1)[0]
    marks = re.findall(r'<div class="mark (okay|reject)"[^>]*title="(1\.1 [^"]*)"', timeline)
    assert [css for css, _ in marks] == ["reject", "okay"], marks
    assert "run 1 of 2" in marks[0][1] and "run 2 of 2" in marks[1][1]
