"""`zodyssey check`: the citation lock, the claims ledger and the gate wiring, as CI runs them.

Every part runs in this process and returns what it found, a `Report` and an
exit code, exactly as it does alone (`check-anchors`, `zodyssey claims check`,
the gate wiring of zodyssey/gate/wiring.py, with --drill `zodyssey claims
drill`). The reports are combined per format from the format modules' own
documents (one JSON document, one JUnit file, one SARIF log, one rdjson result,
one GitLab Code Quality array, one HTML page; text formats one after the other).
The parts run once per invocation: `--report FORMAT=FILE` writes further
formats from the same run (CI needs annotations, SARIF and JUnit, and runs the
check once). The exit code is the
worst of the parts by the precedence
2 > 9 > 4 > 0: a part that could not run at all outranks problems found,
problems outrank "nothing discovered", which outranks success.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from zodyssey.commands import add_format
from zodyssey.core.exits import Exit
from zodyssey.errors import ZodysseyError

if TYPE_CHECKING:
    from collections.abc import Callable

    from zodyssey.findings import Report

# Lower index = worse. Codes outside this list mean a part crashed; they count as 2.
PRECEDENCE = (Exit.USAGE, Exit.PROBLEMS, Exit.EMPTY, Exit.OK)

EPILOG = """\
exit codes (the worst of the parts, in this order):
  2  a part could not run: bad arguments, unreadable configuration, lock, ledger
     or harness configuration
  9  problems found (citations, claims, gate wiring, or with --drill a break that
     survived)
  4  nothing discovered (zero citations or zero claims; with --drill, a break not
     judged or no claim naming code)
  0  every part clean

The claims part is static (documents + collected tests + ledger); whether the
linked tests pass is decided by `pytest --claims-strict` (`zodyssey claims test`).

The gate-wiring part checks every harness declared in [tool.zodyssey.gate]
harnesses (`zodyssey hook install` declares it): its committed configuration
must run the zodyssey pre-tool hook on every tool call (no entry removed, no
matcher narrowed so shell or MCP calls skip it), and no committed
configuration may set ZODYSSEY_UNGATE_BASH=1. Findings name the file, the
harness and what is missing (exit 9). No harness declared: nothing to check.

One run, every report: `--report FORMAT=FILE` (repeatable) writes the same
results in another format to FILE, atomically; the output chosen by --format
still goes to stdout (or -o). The formats are those of --format; a file named
twice, or FILE missing, is refused (exit 2) before anything runs.

examples:
  zodyssey check                          check the current repository
  zodyssey check --format github          annotations for GitHub Actions
  zodyssey check --json -o check.json     one JSON document with every part
  zodyssey check --format github --report sarif=check.sarif --report junit=check.xml
                                          annotations on stdout, SARIF and JUnit
                                          files, from one run
  zodyssey check --report codeclimate=gl-code-quality.json
                                          text on stdout, GitLab Code Quality file
"""


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "check",
        help="Run the citation check, the claims ledger and the gate wiring, as CI does.",
        description="Run `check-anchors`, `zodyssey claims check` and the gate-wiring check "
        "on one repository and combine their reports and exit codes.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--root", default=".", help="repository to check (default: current directory)"
    )
    add_format(parser)
    parser.add_argument(
        "-o", "--output", default=None, metavar="FILE", help="write the report to FILE"
    )
    parser.add_argument(
        "--report",
        action="append",
        default=[],
        metavar="FORMAT=FILE",
        help="also write the report in FORMAT to FILE, from the same run (repeatable; "
        "e.g. --report sarif=check.sarif --report junit=check.xml)",
    )
    parser.add_argument(
        "--drill",
        action="store_true",
        help="also run the claims drill (`zodyssey claims drill`), from its cache where the "
        "claims' code and tests are unchanged",
    )
    parser.set_defaults(handler=run)


def worst(codes: list[int]) -> int:
    """The combined exit code: 2 > 9 > 4 > 0; an unexpected code (a crash) counts as 2."""
    ranks = [PRECEDENCE.index(c) if c in PRECEDENCE else 0 for c in codes]
    return PRECEDENCE[min(ranks)] if ranks else Exit.OK


class Part(NamedTuple):
    """What one part found: its exit code, its report (None: nothing to show), what it
    says on stderr; `quiet_text`: the report is left out of the text format (the
    stderr note says it all)."""

    code: int
    report: Report | None
    err: str = ""
    colour: bool | None = False
    quiet_text: bool = False


def _attempt(prefix: str, work: Callable[[], Part]) -> Part:
    """`work()`, with an error the part ends with as that part's exit code and message;
    a crash as exit 1 with its traceback (reported as an unexpected code)."""
    try:
        return work()
    except ZodysseyError as exc:
        return Part(exc.exit_code, None, f"{prefix}: error: {exc.message}\n")
    except Exception:  # a bug in one part: the others still run and report
        import traceback

        return Part(1, None, traceback.format_exc())


def _anchors(root: Path, junit: bool) -> Part:
    """The citation check; its report carries JUnit's per-citation cases when a JUnit
    report is wanted (`_view` leaves them out of every other format)."""
    from zodyssey.commands.anchors import check_report

    report, code = check_report(root, "junit" if junit else "text")
    return Part(code, report)


def _claims(root: Path, colour: bool | None) -> Part:
    from zodyssey.claims.report import NOT_IN_USE, check_report, load_state, not_in_use

    state = load_state(root, None, None)
    if not_in_use(state.config, state.ledger, state.claims):
        # A repository that never adopted claims is not failed for having none; one
        # with a ledger, a marker or claims configuration and zero claims still is.
        return Part(0, None, f"zodyssey check: {NOT_IN_USE}\n")
    report, code = check_report(state)
    return Part(code, report, colour=colour)


def _gate(root: Path, colour: bool | None) -> Part:
    from zodyssey.gate.wiring import wiring_report

    report, code = wiring_report(root)
    declared = bool(report.payload and report.payload.get("declared"))
    if not declared and not report.findings:
        note = "zodyssey check: gate wiring: no harness declared; skipped\n"
        return Part(code, report, note, colour, quiet_text=True)
    return Part(code, report, colour=colour)


def _drill(root: Path, colour: bool | None) -> Part:
    import os

    from zodyssey.claims.drill_report import Options, run_drill

    report, code = run_drill(root, Options(ids=[], jobs=os.cpu_count() or 1))
    return Part(code, report, colour=colour)


def _json(parts: dict[str, Part], code: int) -> str:
    from zodyssey.formats.json_format import document as report_document

    document: dict[str, Any] = {"tool": "check", "ok": code == Exit.OK, "exit_code": code}
    for name, part in parts.items():
        report = report_document(part.report) if part.report is not None else None
        document[name] = {"exit_code": part.code, "report": report, "stderr": part.err}
    return json.dumps(document, indent=2) + "\n"


def _junit(reports: list[Report]) -> str:
    from zodyssey.formats.junit_format import render_suites, suite

    return render_suites([suite(report) for report in reports])


def _sarif(reports: list[Report]) -> str:
    from zodyssey.formats.sarif_format import document, render_runs

    return render_runs([run for report in reports for run in document(report)["runs"]])


def _rdjson(reports: list[Report]) -> str:
    from zodyssey.formats.rdjson_format import document, merge

    return merge([document(report) for report in reports])


def _codeclimate(reports: list[Report]) -> str:
    from zodyssey.formats.codeclimate_format import render_all

    return render_all(reports)


def _tail(fmt: str, parts: dict[str, Part], code: int) -> str:
    names = ", ".join(
        f"{name} exit {part.code}" for name, part in parts.items() if not name.endswith(VERDICT)
    )
    if fmt == "markdown":
        return f"**zodyssey check: exit {code}** ({names})\n"
    return f"zodyssey check: exit {code} ({names})\n"


def _html(parts: dict[str, Part], code: int) -> str:
    """One page: every part's findings, the parts' summaries, the combined verdict."""
    from zodyssey.findings import Report
    from zodyssey.formats import render

    reports = [part.report for part in parts.values() if part.report is not None]
    summaries = [report.summary for report in reports if report.summary]
    merged = Report(
        tool="check",
        title="zodyssey check",
        findings=[finding for report in reports for finding in report.findings],
        summary="\n".join([*summaries, _tail("html", parts, code).rstrip("\n")]),
        rules={rule: text for report in reports for rule, text in report.rules.items()},
    )
    return render(merged, "html")


def _shown(parts: dict[str, Part]) -> list[Report]:
    return [part.report for part in parts.values() if part.report is not None]


def _concatenated(fmt: str, parts: dict[str, Part], code: int) -> str:
    """Text formats: each part's report as it renders alone, then the verdict line."""
    from zodyssey.formats import render

    chunks = [
        render(part.report, fmt, colour=part.colour)
        for part in parts.values()
        if part.report is not None
    ]
    chunks = [text if text.endswith("\n") or not text else text + "\n" for text in chunks]
    return "".join(chunks) + _tail(fmt, parts, code)


# format -> how the parts become one document (text formats: one after the other)
MERGED: dict[str, Callable[[dict[str, Part], int], str]] = {
    "json": _json,
    "html": _html,
    "junit": lambda parts, _: _junit(_shown(parts)),
    "sarif": lambda parts, _: _sarif(_shown(parts)),
    "rdjson": lambda parts, _: _rdjson(_shown(parts)),
    "codeclimate": lambda parts, _: _codeclimate(_shown(parts)),
}


VERDICT = "-verdict"  # a part added by _with_verdicts (not a part of the check)


def _with_verdicts(parts: dict[str, Part]) -> dict[str, Part]:
    """Each failing part whose report shows no failure gets one saying so
    (zodyssey/formats/combine.py): every format says what the exit code says."""
    from zodyssey.formats.combine import verdict_report

    out = dict(parts)
    for name, part in parts.items():
        added = verdict_report(name, part.code, part.report, part.err)
        if added is not None:
            out[name + VERDICT] = Part(0, added, colour=part.colour)
    return out


def _combine(fmt: str, parts: dict[str, Part], code: int) -> str:
    merge = MERGED.get(fmt)
    shown = parts if fmt == "json" else _with_verdicts(parts)
    return merge(shown, code) if merge is not None else _concatenated(fmt, shown, code)


def _view(parts: dict[str, Part], fmt: str, colour: bool | None) -> dict[str, Part]:
    """The parts as format `fmt` shows them (one run, several formats): JUnit's cases
    only in JUnit, a quiet part's report not in text, `colour` for the coloured parts."""
    from dataclasses import replace

    out: dict[str, Part] = {}
    for name, part in parts.items():
        report = part.report
        if report is not None and part.quiet_text and fmt == "text":
            report = None
        elif report is not None and report.cases and fmt != "junit":
            report = replace(report, cases=[])
        shade = part.colour if part.colour is False else colour
        out[name] = part._replace(report=report, colour=shade)
    return out


def parse_reports(values: list[str], output: str | None) -> list[tuple[str, str]]:
    """`--report FORMAT=FILE` values as (format, file), refused (exit 2) before anything
    runs when a format is unknown, FILE is missing or a file is named twice."""
    from zodyssey.errors import UsageError
    from zodyssey.formats import FORMATS

    out: list[tuple[str, str]] = []
    taken = {output} if output else set()
    for value in values:
        fmt, sep, target = value.partition("=")
        if not sep or not target:
            raise UsageError(f"--report {value!r}: expected FORMAT=FILE, e.g. sarif=check.sarif")
        if fmt not in FORMATS:
            raise UsageError(
                f"--report {value!r}: unknown format {fmt!r}; choose one of: {', '.join(FORMATS)}"
            )
        if target in taken:
            raise UsageError(f"--report {value!r}: {target} is named twice")
        taken.add(target)
        out.append((fmt, target))
    return out


def run(args: argparse.Namespace) -> int:
    root = Path(args.root).resolve()
    if not root.is_dir():
        from zodyssey.errors import UsageError

        raise UsageError(f"--root {args.root} is not a directory")
    from zodyssey.core.files import require_regular_target
    from zodyssey.formats import write_report

    reports = parse_reports(list(args.report or []), args.output)
    for _, target in reports:
        require_regular_target(target, "report output")
        if not Path(target).resolve().parent.is_dir():
            from zodyssey.errors import UsageError

            raise UsageError(f"--report {target}: its directory does not exist")
    # The anchors part is never coloured (as when it ran as its own captured process);
    # the others only when the report goes to a terminal, never into a file.
    colour = False if args.output else None
    fmt = args.format
    junit = "junit" in (fmt, *(f for f, _ in reports))
    parts = {
        "anchors": _attempt("zodyssey", lambda: _anchors(root, junit)),
        "claims": _attempt("zodyssey claims", lambda: _claims(root, colour)),
        "gate": _attempt("zodyssey gate wiring", lambda: _gate(root, colour)),
    }
    if args.drill:
        parts["drill"] = _attempt("zodyssey claims drill", lambda: _drill(root, colour))
    code = worst([part.code for part in parts.values()])
    for name, part in parts.items():
        if part.err:
            sys.stderr.write(part.err)
        if part.code not in PRECEDENCE:
            sys.stderr.write(
                f"zodyssey check: the {name} part ended with unexpected exit code {part.code}\n"
            )
    for other, target in reports:
        write_report(_combine(other, _view(parts, other, False), code), target)
    write_report(_combine(fmt, _view(parts, fmt, colour), code), args.output or None)
    return code
