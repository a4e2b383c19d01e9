"""What the exit code says, said in every format of a combined report (`zodyssey check`).

Each part (anchors, claims, gate, drill) builds its own report and ends with
its own exit code. A part can fail without a single failing finding in its
report: no citations at all (exit 4), a malformed lock or ledger (exit 2, the
error on stderr and no report at all), a report that only counts. Merged as
they are, the JUnit, SARIF, rdjson and GitHub outputs would then show no
failure while the exit code is not 0. So every failing part whose own report
carries no failure gets one more report here, holding one `error` finding
(`check/part-failed`) that names the part, its exit code and the first line it
wrote to stderr; every format renders it as it renders any error (a failed
JUnit case, an `error` SARIF result, an `ERROR` rdjson diagnostic, an `::error`
annotation).
"""

from __future__ import annotations

from zodyssey.findings import Finding, Report

RULE = "part-failed"
DESCRIPTION = "a part of the check failed without a failing finding of its own"


def shows_failure(report: Report | None) -> bool:
    """Whether a consumer of `report` sees a failure in it."""
    if report is None:
        return False
    return report.failed or any(case.failure is not None for case in report.cases)


def why(name: str, code: int, err: str) -> str:
    """`<name> ended with exit N: <first stderr error line>`."""
    lines = [line.strip() for line in err.splitlines() if line.strip()]
    errors = [line for line in lines if "error" in line.lower()]
    first = (errors or lines or ["its report shows no failure"])[0]
    return f"{name} ended with exit {code}: {first[:500]}"


def verdict_report(name: str, code: int, report: Report | None, err: str) -> Report | None:
    """The report saying part `name` failed, when its own report does not say so."""
    if code == 0 or shows_failure(report):
        return None
    finding = Finding(
        tool="check",
        rule=RULE,
        severity="error",
        message=why(name, code, err),
        extra={"key": f"{name}/{code}", "part": name, "exit_code": code},
    )
    return Report(
        tool="check",
        title=f"zodyssey check: {name}",
        findings=[finding],
        summary=finding.message,
        rules={RULE: DESCRIPTION},
    )
