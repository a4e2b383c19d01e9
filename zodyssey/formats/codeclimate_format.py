"""GitLab Code Quality (the Code Climate issue subset GitLab reads): one JSON array.

GitLab shows these issues in the merge request's Code Quality widget and diff
when a job names the file under `artifacts: reports: codequality:`. Each issue
carries the fields GitLab documents as required: `description`, `check_name`,
`fingerprint` (unique within the report, stable while the finding stays the
same: built like the SARIF fingerprint, without the line, so a finding that only
moved keeps it), `severity` (`info`, `minor`, `major`, `critical` or `blocker`)
and `location.path` with `location.lines.begin`. A finding about no file (no
citations at all, a lock that does not parse) is placed on line 1 of `.`, the
repository itself, so the report still says what the exit code says.
"""

from __future__ import annotations

import json
from typing import Any

from zodyssey.findings import Finding, Report
from zodyssey.formats.sarif_format import fingerprint

# zodyssey severity -> GitLab Code Quality severity
SEVERITY = {"error": "major", "warning": "minor", "note": "info"}
NO_FILE = "."


def issue(finding: Finding, fingerprint_text: str) -> dict[str, Any]:
    return {
        "type": "issue",
        "description": f"{finding.rule}: {finding.message}",
        "check_name": f"zodyssey/{finding.tool}/{finding.rule}",
        "fingerprint": fingerprint_text,
        "severity": SEVERITY[finding.severity],
        "categories": ["Bug Risk"] if finding.severity == "error" else ["Style"],
        "location": {
            "path": finding.file or NO_FILE,
            "lines": {"begin": finding.line if finding.line and finding.line > 0 else 1},
        },
    }


def issues(reports: list[Report]) -> list[dict[str, Any]]:
    """Every finding of `reports` as one issue; a fingerprint seen before in this
    report gets the occurrence's number, so each stays unique."""
    out: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for report in reports:
        for finding in report.findings:
            base = fingerprint(finding)
            count = seen.get(base, 0)
            seen[base] = count + 1
            out.append(issue(finding, base if count == 0 else f"{base}-{count}"))
    return out


def render_all(reports: list[Report]) -> str:
    """One array for several reports (`zodyssey check` has one per part)."""
    return json.dumps(issues(reports), indent=2, ensure_ascii=False) + "\n"


def render(report: Report) -> str:
    return render_all([report])
