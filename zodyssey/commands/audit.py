"""`zodyssey audit`: what a run really did, as a report (docs/audit.md)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from zodyssey.core.exits import VERDICT_CODES, Exit
from zodyssey.errors import ZodysseyError

FORMATS = ("text", "json", "markdown", "html", "junit", "sarif", "github")

DESCRIPTION = """\
Read a run's artifacts after the fact and say, with evidence, whether the run
did what it claims: every declared acceptance criterion of every done todo was
executed and passed under the reviewed plan (and no criterion's latest
execution failed, whatever its todo's status), the evidence chain is intact,
review bound the plan that was executed, the final wave passed, and every
read-only window stayed read-only. Works on runs written by `zodyssey run` and by the JavaScript
ZOdyssey pipeline (whose thinner evidence is reported as "not verifiable").
"""

EPILOG = """\
exit codes:
  0  the run passes the audit
  1  findings fail the run (errors; with --strict, warnings too)
  2  bad arguments
  3  run artifacts missing or unreadable (the path and the reason are printed)
  4  nothing to judge: no declared criterion was executed (and no other error)

examples:
  zodyssey audit my-run
  zodyssey audit .zcode/state/my-run.json --format html -o audit.html
  zodyssey audit --repo ../other my-run --format junit -o audit.xml --strict
  zodyssey audit my-run --require-complete      # post-run CI: an unfinished run fails
"""


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "audit",
        help="Post-run audit of a run's artifacts.",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("target", metavar="SLUG|STATE_FILE", help="run slug or state file path")
    parser.add_argument("--repo", metavar="DIR", help="repository root (default: cwd)")
    parser.add_argument("--format", choices=FORMATS, default="text", help="report format")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE")
    parser.add_argument(
        "--strict", action="store_true", help="warnings (e.g. forced todos) fail the run"
    )
    parser.add_argument(
        "--require-complete",
        action="store_true",
        help="an unfinished run (phase not done/audited, todos not done) fails instead of warning",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from zodyssey.audit.artifacts import ArtifactMissing
    from zodyssey.audit.checks import audit
    from zodyssey.audit.load import load_run
    from zodyssey.audit.report import build_report
    from zodyssey.formats import render

    try:
        loaded = load_run(args.target, args.repo)
        outcome = audit(loaded, strict=args.strict, require_complete=args.require_complete)
        report = build_report(outcome)
        text = render(report, args.format, colour=False if args.output else None)
    except ZodysseyError:
        raise
    except Exception as exc:
        # Artifacts are untrusted: whatever they make the audit trip over fails it
        # closed, with one line, never as a pass and never as a traceback.
        if os.environ.get("ZODYSSEY_DEBUG"):
            raise
        raise ArtifactMissing(
            f"run artifacts could not be audited: {type(exc).__name__}: {str(exc)[:300]} "
            "(set ZODYSSEY_DEBUG=1 for details)"
        ) from exc
    from zodyssey.formats import write_report

    write_report(text, args.output or None)
    if args.output:
        print(report.summary, file=sys.stderr)
    return exit_code(outcome.verdict)


def exit_code(verdict: str) -> int:
    """The exit code of an audit verdict (`AuditOutcome.verdict`)."""
    return VERDICT_CODES.get(verdict, Exit.FAILED)
