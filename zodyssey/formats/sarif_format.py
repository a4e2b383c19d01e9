"""SARIF 2.1.0 with stable rule ids and partial fingerprints."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from zodyssey import __version__
from zodyssey.findings import Finding, Report

_LEVEL = {"error": "error", "warning": "warning", "note": "note"}
# Characters a URI path keeps as they are (RFC 3986 unreserved, sub-delims, "@"
# and "/"); ":" is encoded too, so a first segment never reads as a scheme.
_URI_SAFE = "/-._~!$&'()*+,;=@"


def uri(path: str) -> str:
    """A repository path as a SARIF `artifactLocation.uri` (an RFC 3986 URI reference).

    Spaces, non-ASCII letters (as UTF-8), "%", "#", "?" and the like are
    percent-encoded: `docs/my guide.md` is `docs/my%20guide.md`, `docs/naïve.md`
    is `docs/na%C3%AFve.md`; a consumer decodes them back to the path. A name
    that is not UTF-8 (kept as surrogate escapes) is encoded from its bytes:
    `docs/\udcff.md` is `docs/%FF.md`.
    """
    from urllib.parse import quote

    return quote(path.encode("utf-8", "surrogateescape"), safe=_URI_SAFE)


def _readable(text: str) -> str:
    """`text` with undecodable bytes (surrogate escapes) shown as U+FFFD."""
    if text.isascii():
        return text
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def fingerprint(finding: Finding) -> str:
    key = finding.extra.get("key") or finding.extra.get("id") or finding.message
    basis = f"{finding.tool}/{finding.rule}/{finding.file}/{key}"
    return hashlib.sha256(basis.encode("utf-8", "surrogateescape")).hexdigest()[:32]


def _result(finding: Finding) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": f"{finding.tool}/{finding.rule}",
        "level": _LEVEL[finding.severity],
        "message": {"text": _readable(finding.message)},
        "partialFingerprints": {"zodysseyKey/v1": fingerprint(finding)},
    }
    if finding.file:
        location: dict[str, Any] = {"artifactLocation": {"uri": uri(finding.file)}}
        if finding.line:
            location["region"] = {"startLine": finding.line}
        result["locations"] = [{"physicalLocation": location}]
    related = finding.extra.get("related")
    if isinstance(related, list):
        # Other places the finding is about (the drill: the span a surviving break edited).
        result["relatedLocations"] = [
            {
                "id": n,
                "physicalLocation": {
                    "artifactLocation": {"uri": uri(str(r["file"]))},
                    "region": {"startLine": int(r.get("line") or 1)},
                },
                "message": {"text": _readable(str(r.get("message", "")))},
            }
            for n, r in enumerate(related)
            if isinstance(r, dict) and r.get("file")
        ]
    return result


def render(report: Report) -> str:
    return render_runs(document(report)["runs"])


def render_runs(runs: list[Any]) -> str:
    """One SARIF log of several runs (`zodyssey check` has one per part)."""
    log = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": runs,
    }
    return json.dumps(log, indent=2) + "\n"


def document(report: Report) -> dict[str, Any]:
    """The SARIF log of `report`: one run."""
    rule_ids = sorted({f.rule for f in report.findings} | set(report.rules))
    rules = [
        {
            "id": f"{report.tool}/{rule}",
            "name": rule,
            "shortDescription": {"text": report.rules.get(rule, rule)},
        }
        for rule in rule_ids
    ]
    document: dict[str, Any] = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": f"zodyssey {report.tool}",
                        "version": __version__,
                        "informationUri": "https://example.invalid/zodyssey",
                        "rules": rules,
                    }
                },
                "results": [_result(f) for f in report.findings],
            }
        ],
    }
    checked = (report.payload or {}).get("checked")
    if isinstance(checked, int) and not isinstance(checked, bool):
        # How many things were checked (citations, for the anchors tool): the same
        # count the text, JSON and JUnit outputs give, so SARIF consumers see it too.
        document["runs"][0]["properties"] = {"checked": checked}
    mutants = (report.payload or {}).get("mutants")
    if isinstance(mutants, dict):
        # The drill's counts per claim (tried, killed, survived, score), as its text,
        # JSON and Markdown reports give them.
        document["runs"][0].setdefault("properties", {})["mutants"] = mutants
    return document
