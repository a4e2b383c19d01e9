"""`zodyssey check`: the citation lock, the claims ledger and the gate wiring, as CI runs them.

The citation check runs as its own process (`python -m zodyssey anchors check`),
so each part reports exactly as it does alone; the claims check and the gate
wiring (zodyssey/gate/wiring.py) run here. The
outputs are combined per format (one JSON document, one JUnit file, one SARIF
log), and the exit code is the worst of the parts by the precedence
2 > 9 > 4 > 0: a part that could not run at all outranks problems found,
problems outrank "nothing discovered", which outranks success.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from zodyssey.core.exits import Exit

FORMATS = ("text", "json", "github", "sarif", "junit", "markdown", "rdjson")
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

examples:
  zodyssey check                          check the current repository
  zodyssey check --format github          annotations for GitHub Actions
  zodyssey check --json -o check.json     one JSON document with both reports
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
    parser.add_argument(
        "--format", choices=FORMATS, default="text", help="output format (default: text)"
    )
    parser.add_argument(
        "--json", action="store_const", const="json", dest="format", help="same as --format json"
    )
    parser.add_argument(
        "-o", "--output", default=None, metavar="FILE", help="write the report to FILE"
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


def _anchors(root: Path, fmt: str) -> tuple[int, str, str]:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "zodyssey",
            "anchors",
            "check",
            "--root",
            str(root),
            "--format",
            fmt,
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode, done.stdout, done.stderr


def _claims(root: Path, fmt: str, colour: bool | None) -> tuple[int, str, str]:
    from zodyssey.claims.report import check_report, load_state
    from zodyssey.errors import ZodysseyError
    from zodyssey.formats import render

    try:
        state = load_state(root, None, None)
        if state.ledger is None and not state.claims.claims and not state.claims.occurrences:
            # A repository that never adopted claims (no ledger, no marker) is not
            # failed for having none; one with a ledger and zero claims still is.
            return 0, "", "zodyssey check: claims not in use (no ledger, no markers); skipped\n"
        report, code = check_report(state)
    except ZodysseyError as exc:
        return exc.exit_code, "", f"zodyssey claims: error: {exc.message}\n"
    return code, render(report, fmt, colour=colour), ""


def _gate(root: Path, fmt: str, colour: bool | None) -> tuple[int, str, str]:
    from zodyssey.errors import ZodysseyError
    from zodyssey.formats import render
    from zodyssey.gate.wiring import wiring_report

    try:
        report, code = wiring_report(root)
    except ZodysseyError as exc:
        return exc.exit_code, "", f"zodyssey gate wiring: error: {exc.message}\n"
    declared = bool(report.payload and report.payload.get("declared"))
    if not declared and not report.findings:
        note = "zodyssey check: gate wiring: no harness declared; skipped\n"
        return code, "" if fmt == "text" else render(report, fmt, colour=colour), note
    return code, render(report, fmt, colour=colour), ""


def _drill(root: Path, fmt: str, colour: bool | None) -> tuple[int, str, str]:
    import os

    from zodyssey.claims.drill_report import Options, run_drill
    from zodyssey.errors import ZodysseyError
    from zodyssey.formats import render

    try:
        report, code = run_drill(root, Options(ids=[], jobs=os.cpu_count() or 1))
    except ZodysseyError as exc:
        return exc.exit_code, "", f"zodyssey claims drill: error: {exc.message}\n"
    return code, render(report, fmt, colour=colour), ""


def _combine(fmt: str, parts: dict[str, tuple[int, str, str]], code: int) -> str:
    if fmt == "json":
        document: dict[str, Any] = {"tool": "check", "ok": code == Exit.OK, "exit_code": code}
        for name, (part_code, out, err) in parts.items():
            try:
                report: Any = json.loads(out) if out.strip() else None
            except json.JSONDecodeError:
                report = {"raw": out}
            document[name] = {"exit_code": part_code, "report": report, "stderr": err}
        return json.dumps(document, indent=2) + "\n"
    if fmt == "junit":
        return _merge_junit([out for _, out, _ in parts.values()])
    if fmt == "sarif":
        runs: list[Any] = []
        for _, out, _ in parts.values():
            try:
                runs.extend(json.loads(out).get("runs", []))
            except (json.JSONDecodeError, AttributeError):
                continue
        log = {
            "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
            "version": "2.1.0",
            "runs": runs,
        }
        return json.dumps(log, indent=2) + "\n"
    if fmt == "rdjson":
        from zodyssey.formats.rdjson_format import merge

        return merge([out for _, out, _ in parts.values()])
    chunks = [out if out.endswith("\n") or not out else out + "\n" for _, out, _ in parts.values()]
    names = ", ".join(f"{name} exit {c}" for name, (c, _, _) in parts.items())
    tail = f"zodyssey check: exit {code} ({names})\n"
    if fmt == "markdown":
        tail = f"**zodyssey check: exit {code}** ({names})\n"
    elif fmt == "github":
        tail = f"zodyssey check: exit {code} ({names})\n"
    return "".join(chunks) + tail


def _merge_junit(documents: list[str]) -> str:
    import xml.etree.ElementTree as ET

    root = ET.Element("testsuites")
    for text in documents:
        if not text.strip():
            continue
        try:
            parsed = ET.fromstring(text.encode("utf-8"))
        except ET.ParseError:
            continue
        suites = [parsed] if parsed.tag == "testsuite" else list(parsed.iter("testsuite"))
        root.extend(suites)
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def run(args: argparse.Namespace) -> int:
    root = Path(args.root).resolve()
    if not root.is_dir():
        from zodyssey.errors import UsageError

        raise UsageError(f"--root {args.root} is not a directory")
    # The anchors part runs with captured output, so it is never coloured; the claims
    # part is coloured only when the report goes to a terminal, never into a file.
    colour = False if args.output else None
    parts = {
        "anchors": _anchors(root, args.format),
        "claims": _claims(root, args.format, colour),
        "gate": _gate(root, args.format, colour),
    }
    if args.drill:
        parts["drill"] = _drill(root, args.format, colour)
    code = worst([c for c, _, _ in parts.values()])
    for name, (part_code, _, err) in parts.items():
        if err:
            sys.stderr.write(err)
        if part_code not in PRECEDENCE:
            sys.stderr.write(
                f"zodyssey check: the {name} part ended with unexpected exit code {part_code}\n"
            )
    text = _combine(args.format, parts, code)
    from zodyssey.formats import write_report

    write_report(text, args.output or None)
    return code
