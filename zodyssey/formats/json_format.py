"""JSON: the tool's documented payload, or a generic findings document."""

from __future__ import annotations

import json
from typing import Any

from zodyssey.findings import Report


def document(report: Report) -> dict[str, Any]:
    """The JSON document of `report` (what `render` writes)."""
    if report.payload is not None:
        return report.payload
    return {
        "tool": report.tool,
        "ok": not report.failed,
        "summary": report.summary,
        "counts": report.counts(),
        "findings": [f.to_dict() for f in report.findings],
    }


def render(report: Report) -> str:
    return json.dumps(document(report), indent=2, sort_keys=False) + "\n"
