"""JUnit XML: one testcase per checked thing (or per finding when none are listed)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from zodyssey.findings import Case, Report

# What XML 1.0 cannot hold at all, escaped or not: C0 controls but tab, LF and
# CR; lone surrogates; U+FFFE and U+FFFF. ElementTree writes them as they are,
# which makes the file unreadable to every JUnit consumer.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_text(value: str) -> str:
    """`value` with every character XML 1.0 forbids shown as a visible `\\xNN`/`\\uNNNN`."""
    return _NOT_XML.sub(
        lambda m: (
            f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}"
        ),
        value,
    )


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
        name=xml_text(f"zodyssey {report.tool}"),
        tests=str(len(cases)),
        failures=str(sum(1 for c in cases if c.failure is not None)),
        skipped=str(sum(1 for c in cases if c.skipped is not None)),
        time=f"{sum(c.seconds for c in cases):.3f}",
    )
    for case in cases:
        element = ET.SubElement(
            element_suite,
            "testcase",
            name=xml_text(case.name),
            classname=xml_text(case.classname),
            time=f"{case.seconds:.3f}",
        )
        if case.failure is not None:
            failure = ET.SubElement(
                element,
                "failure",
                message=xml_text(case.failure.splitlines()[0][:200] if case.failure else ""),
            )
            failure.text = xml_text(case.failure)
        elif case.skipped is not None:
            ET.SubElement(element, "skipped", message=xml_text(case.skipped))
    return element_suite


def render(report: Report) -> str:
    return render_suites([suite(report)])


def render_suites(suites: list[ET.Element]) -> str:
    """One JUnit document of several suites (`zodyssey check` has one per part)."""
    root = ET.Element("testsuites")
    root.extend(suites)
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
