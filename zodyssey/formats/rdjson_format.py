"""reviewdog's Diagnostic Format (rdjson): one `DiagnosticResult` document.

`reviewdog -f=rdjson -reporter=github-pr-review` turns it into review
comments on the pull request's lines. A `moved` citation carries its fix as a
suggestion (the new line numbers in place of the old ones, the edit
`check-anchors --fix` makes), which the review shows as a change to apply in
one click. Positions follow the format's rules: lines and columns start at 1,
columns count UTF-8 bytes, a range's end is exclusive.

The suggestion's columns are checked against the document as it is on disk
(relative to the current directory, where CI runs): when the line no longer
holds the old numbers there, the finding is reported without a suggestion.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from zodyssey import HOMEPAGE, docs_url
from zodyssey.findings import Finding, Report

_SEVERITY = {"error": "ERROR", "warning": "WARNING", "note": "INFO"}
# Where each tool's rules are explained.
_RULE_PAGES = {"anchors": "citation-lock.md", "claims": "claims.md", "audit": "audit.md"}


def _line_of(path: str, line: int, cache: dict[str, list[str] | None]) -> str | None:
    if path not in cache:
        try:
            cache[path] = Path(path).read_text(encoding="utf-8").split("\n")
        except (OSError, UnicodeDecodeError):
            cache[path] = None
    lines = cache[path]
    if lines is None or not 1 <= line <= len(lines):
        return None
    return lines[line - 1]


def _column(text: str, index: int) -> int:
    """The rdjson column (1-based, UTF-8 bytes) of character `index` of a line."""
    return len(text[:index].encode("utf-8")) + 1


def suggestions(finding: Finding, cache: dict[str, list[str] | None]) -> list[dict[str, Any]]:
    """The edits of a `moved` finding (`extra["edits"]`: line, begin, end, new text,
    character offsets), as rdjson suggestions; none when the document disagrees."""
    edits = finding.extra.get("edits")
    if finding.rule != "moved" or not finding.file or not isinstance(edits, list):
        return []
    out: list[dict[str, Any]] = []
    for edit in edits:
        line, begin, end, text, old = edit
        current = _line_of(finding.file, line, cache)
        if current is None or current[begin:end] != old:
            return []  # the document changed since the check read it: suggest nothing
        out.append(
            {
                "range": {
                    "start": {"line": line, "column": _column(current, begin)},
                    "end": {"line": line, "column": _column(current, end)},
                },
                "text": text,
            }
        )
    return out


def diagnostic(finding: Finding, cache: dict[str, list[str] | None]) -> dict[str, Any]:
    item: dict[str, Any] = {
        "message": finding.message,
        "severity": _SEVERITY[finding.severity],
        "source": {"name": f"zodyssey {finding.tool}", "url": HOMEPAGE},
        "code": {"value": finding.rule},
    }
    page = _RULE_PAGES.get(finding.tool)
    if page:
        item["code"]["url"] = docs_url(page)
    if finding.file:
        location: dict[str, Any] = {"path": finding.file}
        if finding.line:
            location["range"] = {"start": {"line": finding.line}}
        item["location"] = location
    fixes = suggestions(finding, cache)
    if fixes:
        item["suggestions"] = fixes
    return item


def render(report: Report) -> str:
    return json.dumps(document(report), indent=2, ensure_ascii=False) + "\n"


def document(report: Report) -> dict[str, Any]:
    """The DiagnosticResult of `report`."""
    cache: dict[str, list[str] | None] = {}
    worst = min(
        (("error", "warning", "note").index(f.severity) for f in report.findings), default=None
    )
    document: dict[str, Any] = {
        "source": {"name": f"zodyssey {report.tool}", "url": HOMEPAGE},
        "diagnostics": [diagnostic(f, cache) for f in report.findings],
    }
    if worst is not None:
        document["severity"] = ("ERROR", "WARNING", "INFO")[worst]
    return document


def merge(documents: list[dict[str, Any]]) -> str:
    """One DiagnosticResult from several (`zodyssey check` has one per part)."""
    diagnostics: list[Any] = []
    severities: list[str] = []
    for parsed in documents:
        diagnostics.extend(parsed.get("diagnostics", []))
        if parsed.get("severity"):
            severities.append(parsed["severity"])
    document: dict[str, Any] = {
        "source": {"name": "zodyssey check", "url": HOMEPAGE},
        "diagnostics": diagnostics,
    }
    for level in ("ERROR", "WARNING", "INFO"):
        if level in severities:
            document["severity"] = level
            break
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
