"""`zodyssey claims check|update`: the claims ledger from the command line."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from zodyssey.commands import add_format, verbs
from zodyssey.json_out import JSON_HELP, JsonAware

DESCRIPTION = """\
Claims are promises marked in the docs with `<!-- claim: some-id -->`; tests
defend them with `@pytest.mark.claim("some-id")`. The ledger
(invariants/claims.lock.json by default) records per claim where it is made,
the fingerprint of its text and the exact ids of its tests.

  check   static: parse the documents, collect the tests (no test runs) and
          compare with the ledger
  update  re-write the ledger from the documents and the collected tests
          (atomic), printing what changed; review that diff like code
"""

EPILOG = """\
exit codes:
  0  every claim has a linked test and the ledger agrees
  2  bad arguments, unreadable configuration or ledger, pytest could not collect
  4  zero claims found (an empty ledger proves nothing)
  9  problems: uncovered, missing-test, changed, duplicate-id, unknown-claim,
     unlocked, removed, bad-marker

Whether the linked tests PASS is decided by running them:
  pytest --claims-strict     (fails unless every claim's tests ran and passed;
                             works under pytest-xdist, any --dist mode)
  check --results F [F ...]  the same for a suite split over CI jobs: each job
                             writes `pytest --claims-json F`; exit 9 unless every
                             locked test ran in some shard and passed and none
                             failed anywhere (tests that never ran are named);
                             2 when a file is missing or not a results file

examples:
  zodyssey claims check                      compare docs, tests and the ledger
  zodyssey claims check --format github      annotations for GitHub Actions
  zodyssey claims check --results shard-*.json   one verdict over CI shards
  zodyssey claims update --dry-run           show what the ledger would record
  zodyssey claims update                     re-write the ledger, then review its diff
"""


TEST_DESCRIPTION = """\
Run the test suite the way CI must to prove the claims: `python -m pytest
--claims-strict`, which fails unless every claim has a linked test that ran
and PASSED here (a skipped, xfailed or deselected defence does not count) and
the ledger agrees. A repository that does not use claims (no ledger, no claim
marker) is told so and passes, so the same CI step fits every repository.
"""

TEST_EPILOG = """\
exit codes:
  0  claims not in use, or every test passed and every claim is defended
  2  bad arguments or configuration; pytest interrupted or could not run
  9  a test failed, or the strict claims check failed (see pytest's summary)

examples:
  zodyssey claims test                  the CI step `zodyssey init` writes
  zodyssey claims test -- -n auto       the same with pytest-xdist
"""


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--root", default=".", help="repository to check (default: current directory)"
    )
    parser.add_argument(
        "--ledger",
        "--lock",
        dest="ledger",
        default=None,
        metavar="PATH",
        help="ledger path relative to the root (default: claims_lock of the configuration)",
    )
    parser.add_argument(
        "--tests",
        action="append",
        default=None,
        metavar="PATH",
        help="test path to collect (repeatable; default: claims_tests of the configuration, "
        "else pytest's testpaths)",
    )


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "claims",
        help="Claims ledger: promises in docs defended by tests.",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = verbs(parser, "claims_command")
    check = actions.add_parser(
        "check",
        help="compare documents and collected tests with the ledger (no test runs)",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _common(check)
    add_format(check)
    check.add_argument(
        "-o", "--output", default=None, metavar="FILE", help="write the report to FILE"
    )
    check.add_argument(
        "--results",
        nargs="+",
        default=None,
        metavar="FILE",
        help="judge test outcomes instead of collecting: the `pytest --claims-json FILE` "
        "files of every CI shard; one strict verdict over their union (every locked test "
        "ran in some shard and passed, none failed anywhere)",
    )
    check.set_defaults(handler=run_check)
    update = actions.add_parser(
        "update",
        help="re-write the ledger from the documents and the collected tests",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _common(update)
    update.add_argument(
        "--dry-run", action="store_true", help="print what would change, write nothing"
    )
    update.add_argument(
        "--json",
        action="store_true",
        help="print the outcome as one JSON object (ledger, written, claims, changes); "
        "warnings go to stderr",
    )
    update.set_defaults(handler=run_update)
    test = actions.add_parser(
        "test",
        help="run the tests with `pytest --claims-strict` when the repository uses claims",
        description=TEST_DESCRIPTION,
        epilog=TEST_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    test.add_argument("--root", default=".", help="repository to test (default: current directory)")
    test.add_argument(
        "--json",
        action="store_true",
        help=JSON_HELP.format(extra=", in_use")
        + "; pytest's output goes to stderr. Give it before the pytest arguments",
    )
    test.add_argument(
        "pytest_args",
        nargs=argparse.REMAINDER,
        metavar="PYTEST_ARGS",
        help="passed to pytest after `--` (default: the claims_tests paths of the "
        "configuration, else pytest's own testpaths)",
    )
    test.set_defaults(handler=JsonAware("claims test", run_test, _test_details))
    register_drill(actions)


def emit(text: str, output: str | None) -> None:
    from zodyssey.formats import write_report

    write_report(text, output or None)


def run_check(args: argparse.Namespace) -> int:
    from zodyssey.claims.report import check_report, load_state
    from zodyssey.formats import render

    if args.results:
        from zodyssey.claims.report import results_report

        report, code = results_report(Path(args.root).resolve(), args.ledger, args.results)
        emit(render(report, args.format, colour=False if args.output else None), args.output)
        return code
    state = load_state(Path(args.root).resolve(), args.ledger, args.tests)
    report, code = check_report(state)
    emit(render(report, args.format, colour=False if args.output else None), args.output)
    return code


def _test_details(args: argparse.Namespace, document: dict[str, Any]) -> dict[str, Any]:
    """`in_use`: whether the repository uses claims (false: no test was run)."""
    from zodyssey.claims.report import NOT_IN_USE

    return {"in_use": not any(NOT_IN_USE in line for line in document["messages"])}


def run_test(args: argparse.Namespace) -> int:
    import subprocess

    from zodyssey.claims.ledger import read_ledger
    from zodyssey.claims.markers import collect_claims
    from zodyssey.claims.report import NOT_IN_USE, not_in_use, test_paths
    from zodyssey.config import load_config
    from zodyssey.core.exits import Exit
    from zodyssey.errors import UsageError

    root = Path(args.root).resolve()
    if not root.is_dir():
        raise UsageError(f"--root {args.root} is not a directory")
    config = load_config(root)
    ledger = read_ledger(root / config.claims_lock)
    claims = collect_claims(root, config)
    if not_in_use(config, ledger, claims):
        print(f"zodyssey claims test: {NOT_IN_USE}")
        return Exit.OK
    extra = list(args.pytest_args or [])
    if extra and extra[0] == "--":
        extra = extra[1:]
    paths = [] if extra else test_paths(config, None)
    import tempfile

    with tempfile.TemporaryDirectory(prefix="zodyssey-claims-") as scratch:
        # The judge's verdict, written at pytest's own end of session: a session that
        # ends any other way (os._exit, a crash, a judge switched off) writes none.
        argv, verdict = _pytest_argv(root, [*paths, *extra], Path(scratch) / "verdict.json")
        print(f"zodyssey claims test: {' '.join(argv[1:])}", flush=True)
        try:
            verdict.unlink(missing_ok=True)  # a verdict left by an earlier run proves nothing
        except OSError as exc:
            raise UsageError(f"--claims-json {verdict}: cannot replace it: {exc}") from exc
        try:
            done = subprocess.run(argv, cwd=root, check=False)
        except OSError as exc:
            raise UsageError(f"cannot run pytest: {exc}") from exc
        judged = _read_verdict(verdict)
    return _test_exit(done.returncode, judged)


def _test_exit(returncode: int, judged: bool | None) -> int:
    """`claims test`'s exit from pytest's and the judge's: 0 only when both passed."""
    from zodyssey.core.exits import Exit

    if returncode not in (0, 1):
        print(f"zodyssey claims test: pytest ended with exit {returncode}", file=sys.stderr)
        return Exit.USAGE
    if judged is None:
        print(
            "zodyssey claims test: the session wrote no claims verdict: it did not end "
            "through pytest's own finish (os._exit in a test, a crash) or the claims judge "
            "was switched off; nothing is proven",
            file=sys.stderr,
        )
        return Exit.PROBLEMS
    return Exit.OK if returncode == 0 and judged else Exit.PROBLEMS


def _pytest_argv(root: Path, args: list[str], scratch: Path) -> tuple[list[str], Path]:
    """The pytest command line and the file its judge writes the verdict to: the
    caller's own `--claims-json FILE` when given (pytest keeps the last value), else
    `scratch`."""
    import os

    verdict = scratch
    for i, arg in enumerate(args):
        if arg.startswith("--claims-json="):
            verdict = Path(arg.partition("=")[2])
        elif arg == "--claims-json" and i + 1 < len(args):
            verdict = Path(args[i + 1])
    if not verdict.is_absolute():
        verdict = root / verdict
    argv = [sys.executable, "-m", "pytest", "--claims-strict", f"--claims-root={root}"]
    argv.append(f"--claims-json={scratch}")
    if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
        argv += ["-p", "zodyssey.claims.plugin"]
    return [*argv, *args], verdict


def _read_verdict(path: Path) -> bool | None:
    """`ok` of the `--claims-json` document the judge wrote; None when there is none."""
    import json

    from zodyssey.claims.verdict import RESULTS_KIND

    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(document, dict) or document.get("kind") != RESULTS_KIND:
        return None
    if document.get("strict") is not True or not isinstance(document.get("ok"), bool):
        return None
    return bool(document["ok"])


def _update_refused(state: Any) -> int | None:
    """The exit code when `update` must write nothing, after saying why; else None."""
    from zodyssey.claims.ledger import marker_findings
    from zodyssey.core.exits import Exit

    if state.collection.errors:
        # The tests of a module pytest cannot import are not in the collection: an
        # update now would drop them from the ledger as if they had been deleted.
        for nodeid in state.collection.errors:
            cause = state.collection.causes.get(nodeid)
            print(f"{nodeid}: collection-error{': ' + cause if cause else ''}", file=sys.stderr)
        print(
            "claims update: refused; pytest could not collect the module(s) above, so their "
            "linked tests would be dropped from the ledger (nothing written)",
            file=sys.stderr,
        )
        return Exit.PROBLEMS
    blocking = marker_findings(state.claims)
    for finding in blocking:
        print(f"{finding.file}:{finding.line}: {finding.rule}: {finding.message}", file=sys.stderr)
    if blocking:
        print(
            "claims update: refused; fix the markers above first (nothing written)", file=sys.stderr
        )
        return Exit.PROBLEMS
    if not state.claims.claims:
        print(
            "claims update: no claim markers found; nothing written (an empty ledger proves nothing)",
            file=sys.stderr,
        )
        return Exit.EMPTY
    return None


def _update_leftovers(state: Any, new: Any) -> None:
    """What the new ledger still lacks: uncovered claims, tests naming unknown ones."""
    uncovered = sorted(cid for cid, entry in new.entries.items() if not entry.tests)
    if uncovered:
        print(
            f"claims update: still uncovered (no linked test): {', '.join(uncovered)}; "
            "`zodyssey claims check` fails until each has a test",
            file=sys.stderr,
        )
    known = set(state.claims.claims)
    for link in state.collection.links:
        for claim_id in (c for c in link.claims if c not in known):
            print(
                f"claims update: test {link.nodeid} names unknown claim `{claim_id}`",
                file=sys.stderr,
            )


def run_update(args: argparse.Namespace) -> int:
    from zodyssey.claims.ledger import build_ledger, describe_changes, write_ledger
    from zodyssey.claims.report import load_state
    from zodyssey.core.exits import Exit

    state = load_state(Path(args.root).resolve(), args.ledger, args.tests)
    refused = _update_refused(state)
    if refused is not None:
        return refused
    new = build_ledger(state.claims, state.collection.links)
    changes = describe_changes(state.ledger, new)
    path = Path(state.ledger_rel)
    target = path if path.is_absolute() else state.root / path
    as_json = bool(getattr(args, "json", False))
    for line in [] if as_json else changes:
        print(line)
    verb = "would write" if args.dry_run else "wrote"
    written = not args.dry_run and (bool(changes) or state.ledger is None)
    if written:
        write_ledger(target, new)
    elif not changes:
        verb = "unchanged"
    if as_json:
        import contextlib
        import json

        document = {
            "ledger": state.ledger_rel,
            "written": written,
            "dry_run": bool(args.dry_run),
            "claims": len(new.entries),
            "changes": changes,
        }
        print(json.dumps(document, indent=2))
        with contextlib.redirect_stdout(sys.stderr):
            _update_leftovers(state, new)
        return Exit.OK
    print(
        f"claims update: {verb} {state.ledger_rel} ({len(new.entries)} claim(s), {len(changes)} change(s))"
    )
    _update_leftovers(state, new)
    return Exit.OK


DRILL_DESCRIPTION = """\
Prove that a claim's tests defend its code: break the code the claim names
(`<!-- claim: id code=path.py::func -->`, or the code citations in its text)
in a scratch copy of the repository, one break at a time, and run only the
claim's linked tests there. A break is killed when a linked test fails,
survived when they all pass, not judged when the run could not say (a
collection or import error, the unbroken tests failing, a timeout, the
budget). The work tree is never written, except the drill cache.
"""

DRILL_EPILOG = """\
exit codes:
  0  every claim that names code was drilled: each of its breaks killed
  2  bad arguments, unreadable configuration, ledger or cache
  4  a break could not be judged, or no claim names code (nothing proven)
  9  a break survived (named with the claim and the tests), or a claim names
     code that does not exist

examples:
  zodyssey claims drill                     every claim that names code
  zodyssey claims drill bash-gate -j 2      one claim, two copies in parallel
  zodyssey claims drill --budget 300        stop starting breaks after 5 minutes
  zodyssey claims drill --format sarif -o drill.sarif
"""


def register_drill(verbs: Any) -> None:
    drill = verbs.add_parser(
        "drill",
        help="break each claim's code in a scratch copy and run its linked tests",
        description=DRILL_DESCRIPTION,
        epilog=DRILL_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    drill.add_argument("ids", nargs="*", metavar="ID", help="claims to drill (default: all)")
    drill.add_argument(
        "--root", default=".", help="repository to drill (default: current directory)"
    )
    drill.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="breaks run in parallel, one scratch copy each (default: the CPU count)",
    )
    drill.add_argument(
        "--budget",
        type=float,
        default=None,
        metavar="SECONDS",
        help="start no break after this many seconds; what is cut is reported not judged",
    )
    drill.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="one break's test run (default: 10x the unbroken run, at least 60 s)",
    )
    drill.add_argument(
        "--cache",
        default=None,
        metavar="PATH",
        help="drill cache relative to the root (default: drill_cache of the configuration, "
        "else claims.drill.json beside the claims ledger)",
    )
    drill.add_argument(
        "--no-cache", action="store_true", help="drill every claim again; read and write no cache"
    )
    drill.add_argument(
        "--shard",
        default=None,
        metavar="K/N",
        help="run only shard K of N of the breaks (split the same way everywhere; no cache "
        "written); join the shards' --format json reports with --merge",
    )
    drill.add_argument(
        "--merge",
        nargs="+",
        default=None,
        metavar="FILE",
        help="judge the JSON reports of --shard runs as one drill (runs nothing)",
    )
    drill.add_argument(
        "--fresh",
        action="store_true",
        help="run every break in a fresh pytest process (default: a warm process per claim "
        "forks one child per break; whatever it does not kill is run fresh)",
    )
    add_format(drill)
    drill.add_argument(
        "-o", "--output", default=None, metavar="FILE", help="write the report to FILE"
    )
    drill.set_defaults(handler=run_drill)


def run_drill(args: argparse.Namespace) -> int:
    import os

    from zodyssey.claims.drill_report import Options, run_drill
    from zodyssey.errors import UsageError
    from zodyssey.formats import render

    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if args.budget is not None and args.budget <= 0:
        raise UsageError("--budget must be a positive number of seconds")
    if args.timeout is not None and args.timeout <= 0:
        raise UsageError("--timeout must be a positive number of seconds")
    if args.merge:
        from zodyssey.claims.drill_report import build_report
        from zodyssey.claims.drill_shard import merge

        if args.ids or args.shard:
            raise UsageError("--merge takes report files only: no claim ids, no --shard")
        report, code = build_report(Path(args.root).resolve(), merge(list(args.merge)))
        emit(render(report, args.format, colour=False if args.output else None), args.output)
        return code
    shard = None
    if args.shard:
        from zodyssey.claims.drill_shard import parse_shard

        shard = parse_shard(args.shard)
    options = Options(
        ids=list(args.ids),
        shard=shard,
        jobs=args.jobs or os.cpu_count() or 1,
        budget=args.budget,
        timeout=args.timeout,
        cache=args.cache,
        use_cache=not args.no_cache,
        progress=sys.stderr.isatty(),
        fresh=args.fresh,
    )
    report, code = run_drill(Path(args.root).resolve(), options)
    emit(render(report, args.format, colour=False if args.output else None), args.output)
    return code
