"""Markdown, e.g. for `$GITHUB_STEP_SUMMARY`: a summary line and a findings table."""

from __future__ import annotations

from zodyssey.findings import Report


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ").replace("<", "&lt;")


def render(report: Report) -> str:
    status = (report.payload or {}).get("verdict") or ("failed" if report.failed else "passed")
    status = {"empty": "nothing to judge"}.get(status, status)
    lines = [f"### {report.title}: {status}", "", report.summary or "", ""]
    if report.findings:
        lines += ["| rule | severity | where | message |", "|---|---|---|---|"]
        for f in report.findings:
            where = f"{f.file}:{f.line}" if f.file and f.line else (f.file or "")
            lines.append(f"| {f.rule} | {f.severity} | {_cell(where)} | {_cell(f.message)} |")
        lines.append("")
    return "\n".join(lines) + "\n"
