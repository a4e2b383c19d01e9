"""Plain text for terminals: findings grouped by rule, then the summary line."""

from __future__ import annotations

import os
import sys

from zodyssey.findings import Finding, Report

_COLOURS = {"error": "\033[31m", "warning": "\033[33m", "note": "\033[36m"}
_RESET = "\033[0m"


def use_colour() -> bool:
    """Colour on a terminal; never when NO_COLOR is set (no-color.org); always, even
    into a pipe or a CI log, when FORCE_COLOR is (force-color.org). NO_COLOR wins when
    both are set, as in CPython's own rule; an empty value counts as unset."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return sys.stdout.isatty()


def _where(finding: Finding) -> str:
    if finding.file and finding.line:
        return f"{finding.file}:{finding.line}"
    return finding.file or "-"


def render(report: Report, *, colour: bool | None = None) -> str:
    if colour is None:
        colour = use_colour()
    lines: list[str] = []
    groups: dict[str, list[Finding]] = {}
    for finding in report.findings:
        groups.setdefault(finding.rule, []).append(finding)
    for rule, items in groups.items():
        severity = items[0].severity
        head = f"{rule} ({len(items)})"
        if colour:
            head = f"{_COLOURS[severity]}{head}{_RESET}"
        lines.append(head)
        for finding in items:
            text = finding.message.replace("\n", "\n      ")
            lines.append(f"  {_where(finding)}: {text}")
        lines.append("")
    lines.append(report.summary or f"{report.title}: {len(report.findings)} finding(s)")
    return "\n".join(lines) + "\n"
