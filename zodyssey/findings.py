"""One finding shape shared by the citation lock, the claims ledger and the audit.

Every output format (zodyssey/formats/) renders a `Report`; the tools only
build reports, so a new format works for all of them at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Severity = Literal["error", "warning", "note"]


@dataclass(frozen=True)
class Finding:
    tool: str  # "anchors", "claims", "audit"
    rule: str  # stable rule id / problem kind, e.g. "drift"
    severity: Severity
    message: str
    file: str | None = None
    line: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "rule": self.rule,
            "severity": self.severity,
            "message": self.message,
            "file": self.file,
            "line": self.line,
            "extra": self.extra,
        }


@dataclass(frozen=True)
class Case:
    """One JUnit test case: a thing that was checked, passed or not."""

    name: str
    classname: str
    failure: str | None = None  # None means passed
    skipped: str | None = None
    seconds: float = 0.0


@dataclass
class Report:
    tool: str
    title: str
    findings: list[Finding] = field(default_factory=list)
    summary: str = ""
    # Tool-specific JSON document (documented schema); the json format emits it
    # when present, else a generic document built from the findings.
    payload: dict[str, Any] | None = None
    cases: list[Case] = field(default_factory=list)
    rules: dict[str, str] = field(default_factory=dict)  # rule id -> description
    html_template: str | None = None
    html_context: dict[str, Any] = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        return any(f.severity == "error" for f in self.findings)

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for finding in self.findings:
            out[finding.rule] = out.get(finding.rule, 0) + 1
        return out
