"""JUnit XML: one testcase per checked thing (or per finding when none are listed)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from zodyssey.findings import Case, Report


def _cases(report: Report) -> list[Case]:
    if report.cases:
        return report.cases
    cases = [
        Case(
            name=f"{f.file or '-'}:{f.line or 0} {f.rule}",
            classname=f"zodyssey.{report.tool}.{f.rule}",
            failure=f.message if f.severity == "error" else None,
        )
        for f in report.findings
    ]
    if not cases:
        cases.append(Case(name=report.title, classname=f"zodyssey.{report.tool}"))
    return cases


def suite(report: Report) -> ET.Element:
    """The `<testsuite>` of `report` (`render` wraps it in `<testsuites>`)."""
    cases = _cases(report)
    element_suite = ET.Element(
        "testsuite",
        name=f"zodyssey {report.tool}",
        tests=str(len(cases)),
        failures=str(sum(1 for c in cases if c.failure is not None)),
        skipped=str(sum(1 for c in cases if c.skipped is not None)),
        time=f"{sum(c.seconds for c in cases):.3f}",
    )
    for case in cases:
        element = ET.SubElement(
            element_suite,
            "testcase",
            name=case.name,
            classname=case.classname,
            time=f"{case.seconds:.3f}",
        )
        if case.failure is not None:
            failure = ET.SubElement(
                element,
                "failure",
                message=case.failure.splitlines()[0][:200] if case.failure else "",
            )
            failure.text = case.failure
        elif case.skipped is not None:
            ET.SubElement(element, "skipped", message=case.skipped)
    return element_suite


def render(report: Report) -> str:
    return render_suites([suite(report)])


def render_suites(suites: list[ET.Element]) -> str:
    """One JUnit document of several suites (`zodyssey check` has one per part)."""
    root = ET.Element("testsuites")
    root.extend(suites)
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
