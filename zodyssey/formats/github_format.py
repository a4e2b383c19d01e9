"""GitHub Actions workflow commands: a few annotations per rule, then a summary.

When `$GITHUB_STEP_SUMMARY` is set, the Markdown report is appended to it.
"""

from __future__ import annotations

import os

from zodyssey.findings import Finding, Report
from zodyssey.formats import markdown_format

PER_RULE = 5
_LEVEL = {"error": "error", "warning": "warning", "note": "notice"}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_prop(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _annotation(finding: Finding) -> str:
    props = []
    if finding.file:
        props.append(f"file={_escape_prop(finding.file)}")
        if finding.line:
            props.append(f"line={finding.line}")
    props.append(f"title={_escape_prop(finding.tool + ' ' + finding.rule)}")
    return f"::{_LEVEL[finding.severity]} {','.join(props)}::{_escape_data(finding.message)}"


def render(report: Report) -> str:
    lines: list[str] = []
    shown: dict[str, int] = {}
    for finding in report.findings:
        shown[finding.rule] = shown.get(finding.rule, 0) + 1
        if shown[finding.rule] <= PER_RULE:
            lines.append(_annotation(finding))
    for rule, count in shown.items():
        if count > PER_RULE:
            lines.append(
                f"::notice title={report.tool}::{count - PER_RULE} more {rule} not annotated"
            )
    lines.append(report.summary or f"{report.title}: {len(report.findings)} finding(s)")
    summary_path = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary_path:
        with open(summary_path, "a", encoding="utf-8") as handle:
            handle.write(markdown_format.render(report))
    return "\n".join(lines) + "\n"
