"""`zodyssey audit`: what a run really did, as a report (docs/audit.md)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from zodyssey.commands import add_format
from zodyssey.core.exits import VERDICT_CODES, Exit
from zodyssey.errors import ZodysseyError

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

  (--verify-attestation: 0 every envelope, signature and digest holds; 1 one does not;
   2 the file or key cannot be read)

formats: in-toto writes an attestation bundle (one DSSE envelope per line: one
in-toto Statement per executed criterion, test-result predicate, and one for the
verdict, SLSA verification summary); --sign-key signs it.

examples:
  zodyssey audit my-run
  zodyssey audit my-run --format in-toto --sign-key ~/.ssh/id_ed25519 -o .zcode/my-run.intoto.jsonl
  zodyssey audit --verify-attestation .zcode/my-run.intoto.jsonl --verify-key ~/.ssh/id_ed25519.pub
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
    parser.add_argument(
        "target", metavar="SLUG|STATE_FILE", nargs="?", help="run slug or state file path"
    )
    parser.add_argument("--repo", metavar="DIR", help="repository root (default: cwd)")
    add_format(parser, extra=("in-toto",), json_flag=False)
    parser.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE")
    parser.add_argument(
        "--strict", action="store_true", help="warnings (e.g. forced todos) fail the run"
    )
    parser.add_argument(
        "--require-complete",
        action="store_true",
        help="an unfinished run (phase not done/audited, todos not done) fails instead of warning",
    )
    parser.add_argument(
        "--sign-key",
        metavar="KEY",
        help="with --format in-toto: sign each envelope (an OpenSSH private key, signed "
        "with ssh-keygen -Y sign; any other file is a shared HMAC-SHA256 key)",
    )
    parser.add_argument(
        "--verify-attestation",
        metavar="FILE",
        help="check an in-toto bundle written by --format in-toto against the repository",
    )
    parser.add_argument(
        "--verify-key",
        metavar="KEY",
        help="with --verify-attestation: the public key (.pub) or shared key it must be signed with",
    )
    parser.add_argument(
        "--allow-stale",
        action="store_true",
        help="evidence recorded on another work tree than the current one is a note, not an error",
    )
    parser.set_defaults(handler=run)


def _verify_attestation(args: argparse.Namespace) -> int:
    from pathlib import Path

    from zodyssey.audit.intoto import verify

    result = verify(args.verify_attestation, Path(args.repo or "."), args.verify_key)
    for problem in result.problems:
        print(f"FAIL {problem}")
    for note in result.notes:
        print(f"ok   {note}")
    verdict = "verified" if not result.problems else "NOT verified"
    print(
        f"attestation {verdict}: {result.statements} statement(s), "
        f"{len(result.problems)} problem(s)"
    )
    return Exit.FAILED if result.problems else Exit.OK


def _audited(args: argparse.Namespace) -> tuple[Any, Any, str]:
    """(the audit's outcome, its report, the report's text in --format)."""
    from zodyssey.audit.checks import audit
    from zodyssey.audit.load import load_run
    from zodyssey.audit.report import build_report
    from zodyssey.formats import render

    loaded = load_run(args.target, args.repo)
    outcome = audit(
        loaded,
        strict=args.strict,
        require_complete=args.require_complete,
        allow_stale=args.allow_stale,
    )
    report = build_report(outcome)
    if args.format != "in-toto":
        return outcome, report, render(report, args.format, colour=False if args.output else None)
    from zodyssey.audit.intoto import bundle
    from zodyssey.audit.load import locate

    return outcome, report, bundle(locate(args.target, args.repo)[0], outcome, args.sign_key)


def run(args: argparse.Namespace) -> int:
    from zodyssey.errors import UsageError

    if args.verify_attestation:
        if args.target:
            raise UsageError("--verify-attestation takes a file, not a run: drop SLUG")
        return _verify_attestation(args)
    if not args.target:
        raise UsageError("give a run slug or state file (or --verify-attestation FILE)")
    if args.sign_key and args.format != "in-toto":
        raise UsageError("--sign-key signs --format in-toto only")
    from zodyssey.audit.artifacts import ArtifactMissing

    try:
        outcome, report, text = _audited(args)
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
        from pathlib import Path

        from zodyssey.audit.load import locate
        from zodyssey.runs.worktree import record_report

        # A report written into the work tree must not make the next audit's evidence stale.
        record_report(locate(args.target, args.repo)[0], Path(args.output))
        print(report.summary, file=sys.stderr)
    return exit_code(outcome.verdict)


def exit_code(verdict: str) -> int:
    """The exit code of an audit verdict (`AuditOutcome.verdict`)."""
    return VERDICT_CODES.get(verdict, Exit.FAILED)
