"""JSON: the tool's documented payload, or a generic findings document."""

from __future__ import annotations

import json

from zodyssey.findings import Report


def render(report: Report) -> str:
    if report.payload is not None:
        document = report.payload
    else:
        document = {
            "tool": report.tool,
            "ok": not report.failed,
            "summary": report.summary,
            "counts": report.counts(),
            "findings": [f.to_dict() for f in report.findings],
        }
    return json.dumps(document, indent=2, sort_keys=False) + "\n"
