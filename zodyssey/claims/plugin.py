"""pytest plugin: link tests to claims, account for their outcomes, enforce coverage.

Registered as the `pytest11` entry point `zodyssey_claims`, so it loads in
every pytest session of every environment that installs zodyssey. It is
therefore inert and cheap unless asked: nothing is parsed and nothing can fail
unless a collected test carries `@pytest.mark.claim(...)` or one of the
`--claims*` options is given.

- `--claims` prints the coverage matrix (claim, doc:line, linked tests, outcome).
- `--claims-strict` fails the session unless every claim is covered: at least one
  linked test collected, run and PASSED in this session (skipped, xfailed,
  xpassed, deselected and never-run tests do not count), and the ledger agrees
  (no missing locked test, no changed text, no unknown claim, no duplicate id).
- `--claims-root DIR` names the repository whose documents and ledger count
  (default: pytest's rootdir); `--claims-json FILE` writes the matrix as JSON.
- A marker naming a claim no document declares fails the session, but only in
  a repository that uses claims (a ledger exists or a document marks a claim),
  so a project with its own, unrelated `claim` marker is left alone.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from zodyssey.claims.model import ClaimSet, LinkedTest
    from zodyssey.claims.verdict import TestRun
    from zodyssey.findings import Finding

MARKER_HELP = (
    "claim(*ids): this test defends the named claims of the docs "
    "(zodyssey claims ledger; see `pytest --claims`)"
)

# Where a worker puts its links and outcomes in xdist's `workeroutput`.
WORKER_KEY = "zodyssey_claims"
# The node id before anything (xdist loadgroup) appended to it.
_OWN_NODEID = pytest.StashKey[str]()

# Outcome of one test over its setup, call and teardown reports. Only PASSED covers.
# (zodyssey.claims.verdict is imported only once a test carries a claim: this
# module loads in every pytest session of every environment with zodyssey.)
PASSED = "passed"
# Worse outcomes override better ones when a later phase reports them.
_RANK = {
    "not-run": 0,
    "deselected": 0,
    PASSED: 1,
    "skipped": 2,
    "xfailed": 2,
    "xpassed": 2,
    "failed": 3,
    "error": 4,
}


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    if pluginmanager.get_plugin(GUARD) is None and not pluginmanager.is_blocked(GUARD):
        pluginmanager.register(_Guard(), GUARD)
    group = parser.getgroup("claims", "zodyssey claims ledger")
    group.addoption(
        "--claims",
        action="store_true",
        default=False,
        help="print the claims coverage matrix at the end of the session",
    )
    group.addoption(
        "--claims-strict",
        action="store_true",
        default=False,
        help="fail the session unless every claim has a linked test that passed here "
        "and the claims ledger agrees",
    )
    group.addoption(
        "--claims-root",
        default=None,
        metavar="DIR",
        help="repository whose claims documents and ledger count (default: rootdir)",
    )
    group.addoption(
        "--claims-json",
        default=None,
        metavar="FILE",
        help="write the claims coverage matrix and findings as JSON",
    )
    group.addoption(
        "--claims-drill",
        action="store_true",
        default=False,
        help="after the session, drill every claim that names code (`zodyssey claims drill`, "
        "from its cache); a drill that does not pass fails the session",
    )
    # Used by `zodyssey claims check` with --collect-only; not for people.
    group.addoption("--claims-export", default=None, help=argparse.SUPPRESS)


RECORDER = "zodyssey-claims-recorder"
GUARD = "zodyssey-claims-guard"
ALLOW_SKIP_HELP = (
    "claim_allow_skip(reason): a skip of this claim defender (a platform that cannot run "
    "it) is not a claims finding; a skipped defender still proves nothing"
)
_JUDGE_OFF = (
    "--claims-strict needs the claims judge, but the plugin `zodyssey-claims-recorder` (or "
    "`zodyssey-claims-guard`) is blocked or was unregistered (-p no:..., or a conftest "
    "calling set_blocked): a session nobody judges cannot pass the strict check"
)


def _strict_asked(config: pytest.Config) -> bool:
    try:
        return bool(config.getoption("claims_strict"))
    except ValueError:
        return False


def _refuse_special_outputs(recorder: ClaimsRecorder) -> None:
    """`--claims-json`/`--claims-export` naming a FIFO, socket or device is a usage
    error before any test runs (never a file renamed over what another process reads)."""
    from zodyssey.core.files import NotRegularFile, require_regular_target

    for path, what in ((recorder.json_path, "--claims-json"), (recorder.export_path, "export")):
        if path:
            try:
                require_regular_target(path, what)
            except NotRegularFile as exc:
                raise pytest.UsageError(str(exc)) from None


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER_HELP)
    config.addinivalue_line("markers", ALLOW_SKIP_HELP)
    recorder = ClaimsRecorder(config)
    _refuse_special_outputs(recorder)
    config.pluginmanager.register(recorder, RECORDER)
    judges = config.pluginmanager.get_plugin(RECORDER) is recorder
    if _strict_asked(config) and not (judges and config.pluginmanager.get_plugin(GUARD)):
        raise pytest.UsageError(_JUDGE_OFF)
    if config.getoption("claims_drill", False):
        from zodyssey.claims.drill_plugin import register

        register(config)


# Set by the recorder once it has judged (or refused to, with a usage error).
_JUDGED = pytest.StashKey[bool]()


# Set by the recorder once it has judged: the exit code its verdict asks for.
_VERDICT = pytest.StashKey[pytest.ExitCode]()


class _Guard:
    """Makes a strict invocation that nobody judged, or whose judge said no, fail.

    Registered under its own name when the plugin module loads (at option
    parsing, before any conftest), it leaves a cleanup on the configuration:
    cleanups run after every `pytest_sessionfinish` hook and do not go through
    the plugin manager, so a conftest that blocks or unregisters the recorder
    later (`pluginmanager.set_blocked(...)`) cannot switch this check off too.
    It also wraps pytest's main hook: modes that return their own exit code
    (`--fixtures`, `--fixtures-per-test`, `--markers`, `--help`, `--version`)
    cannot pass a strict invocation, and a test ending the process with
    `os._exit(0)` before the verdict ends it with a failure instead.
    """

    def pytest_configure(self, config: pytest.Config) -> None:
        config.add_cleanup(lambda: _unjudged(config))
        if _strict_asked(config) and not hasattr(config, "workerinput"):
            _hold_exit(config)

    @pytest.hookimpl(wrapper=True)
    def pytest_cmdline_main(self, config: pytest.Config) -> Any:
        code = yield
        return _strict_exit(config, code)


_NOTHING_JUDGED = (
    "--claims-strict: nothing judged the claims in this invocation (a mode that runs no "
    "tests, such as --fixtures, --markers, --help or --version, or the judge was switched "
    "off), so it proves nothing"
)


def _strict_exit(config: pytest.Config, code: Any) -> Any:
    """The exit code of a strict invocation: never a pass unless the judge passed it."""
    if not _strict_asked(config) or hasattr(config, "workerinput"):
        return code
    passing = code in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED)
    if not config.stash.get(_JUDGED, False):
        if passing:
            import sys

            print(f"\nERROR: {_NOTHING_JUDGED}", file=sys.stderr)
            return pytest.ExitCode.USAGE_ERROR
        return code
    if passing:
        return config.stash.get(_VERDICT, code) or code
    return code


def _hold_exit(config: pytest.Config) -> None:
    """While a strict session has not been judged, `os._exit` in this process (a
    test ending it before pytest's end of session) exits with a failure and says
    why. Forked children keep the plain `os._exit`; restored at unconfigure. A
    native exit (ctypes) cannot be caught in the process: `zodyssey claims test`
    catches it by the missing verdict file."""
    import contextlib
    import os
    import sys

    real = os._exit
    owner = os.getpid()

    def held(status: int) -> Any:
        if os.getpid() == owner and not config.stash.get(_JUDGED, False):
            # pytest's capture holds descriptors 1 and 2 during a test: let go first.
            capture = config.pluginmanager.get_plugin("capturemanager")
            if capture is not None:
                with contextlib.suppress(Exception):
                    capture.suspend_global_capture(in_=True)
            with contextlib.suppress(OSError, ValueError):
                sys.stderr.write(
                    f"\nERROR: --claims-strict: a test ended the process (os._exit({status})) "
                    "before the claims were judged: the session proves nothing\n"
                )
                sys.stderr.flush()
            real(status or int(pytest.ExitCode.TESTS_FAILED))
        real(status)

    modules = [m for m in (os, sys.modules.get("posix")) if m is not None]
    for module in modules:
        setattr(module, "_exit", held)  # noqa: B010 (posix is typed without _exit)

    def restore() -> None:
        for module in modules:
            if getattr(module, "_exit", None) is held:
                setattr(module, "_exit", real)  # noqa: B010

    config.add_cleanup(restore)


def _unjudged(config: pytest.Config) -> None:
    if not _strict_asked(config) or hasattr(config, "workerinput"):
        return
    if config.stash.get(_JUDGED, False):
        return
    session = config.pluginmanager.get_plugin("session")
    if not isinstance(session, pytest.Session):
        return
    import sys

    print(f"\nERROR: {_JUDGE_OFF}", file=sys.stderr)
    session.exitstatus = pytest.ExitCode.USAGE_ERROR


def _in_drill() -> bool:
    """A run of `zodyssey claims drill` (`DRILL_ENV` of zodyssey/claims/drill.py).

    There the unasked check for markers naming unknown claims (which parses
    every claims document) is skipped: the drill judges a break by the linked
    tests' own outcomes, and the documents are the same as the ones the drill
    read."""
    import os

    return bool(os.environ.get("ZODYSSEY_DRILL"))


def claim_ids(item: pytest.Item) -> tuple[str, ...]:
    """The claim ids of every `claim` marker on the item (class and module marks too)."""
    ids: list[str] = []
    for mark in item.iter_markers("claim"):
        for arg in mark.args:
            for part in str(arg).split(","):
                part = part.strip()
                if part and part not in ids:
                    ids.append(part)
    return tuple(ids)


def root_nodeid(nodeid: str, rootpath: Path, root: Path) -> str:
    """`nodeid` (relative to pytest's rootdir) made relative to the claims root."""
    if rootpath == root:
        return nodeid
    file, sep, rest = nodeid.partition("::")
    try:
        rel = (rootpath / file).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return nodeid
    return rel + sep + rest


class ClaimsRecorder:
    """Per-session state: links collected, outcomes seen, verdict at the end.

    Under pytest-xdist the same object lives in every process. A worker
    collects and runs its share and, at the end of its session, puts its links
    and outcomes into xdist's `workeroutput`; the controller (which collects
    nothing itself) receives them in `pytest_testnodedown`, merges them with
    the reports the workers forwarded, and judges once.
    """

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.show = bool(config.getoption("claims"))
        self.strict = bool(config.getoption("claims_strict"))
        self.json_path: str | None = config.getoption("claims_json")
        self.export_path: str | None = config.getoption("claims_export")
        root_opt: str | None = config.getoption("claims_root")
        self.root = Path(root_opt).resolve() if root_opt else Path(config.rootpath).resolve()
        self.worker = hasattr(config, "workerinput")  # an xdist worker process
        self.linked: dict[str, TestRun] = {}  # keyed by pytest's own nodeid
        self.collect_errors: list[str] = []
        # Controller only: what the workers sent, and the reports they forwarded.
        self.remote: dict[str, TestRun] = {}
        self.forwarded: dict[str, str] = {}
        self.workers_down = 0
        self.workers_silent: list[str] = []
        self.problems: list[Finding] = []
        self.rows: list[dict[str, Any]] = []
        self.claimset: ClaimSet | None = None
        self.note: str | None = None  # a one-line message for the summary

    # -- collection -------------------------------------------------------
    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        # xdist's `--dist loadgroup` appends `@group` to node ids on the workers;
        # the claims speak of the test's own id, the one a serial run sees.
        for item in items:
            item.stash[_OWN_NODEID] = item.nodeid

    def _remember(self, item: pytest.Item, outcome: str) -> None:
        ids = claim_ids(item)
        if not ids:
            return
        file, lineno, _ = item.location
        rootpath = Path(self.config.rootpath).resolve()
        own = item.stash.get(_OWN_NODEID, item.nodeid)
        from zodyssey.claims.verdict import TestRun

        self.linked[item.nodeid] = TestRun(
            root_nodeid(own, rootpath, self.root),
            ids,
            root_nodeid(file, rootpath, self.root),
            (lineno + 1) if lineno is not None else None,
            outcome,
            item.get_closest_marker("claim_allow_skip") is not None,
        )

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            name = report.nodeid or "<session>"
            if name not in self.collect_errors:
                self.collect_errors.append(name)

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        for item in items:
            self._remember(item, "deselected")

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        for item in session.items:
            self._remember(item, "not-run")

    # -- outcomes ---------------------------------------------------------
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        outcome = _phase_outcome(report)
        if outcome is None:
            return
        linked = self.linked.get(report.nodeid)
        if linked is not None:
            if _RANK[outcome] >= _RANK[linked.outcome]:
                linked.outcome = outcome
        elif not self.worker:
            # On an xdist controller: a report a worker forwarded (or the one
            # xdist writes for a test whose worker crashed). Kept by node id
            # until the workers say which tests carry claims.
            before = self.forwarded.get(report.nodeid, "not-run")
            if _RANK[outcome] >= _RANK[before]:
                self.forwarded[report.nodeid] = outcome

    # -- pytest-xdist -----------------------------------------------------
    # `optionalhook`: these hooks exist only when pytest-xdist is installed.
    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        self.workers_down += 1
        output = getattr(node, "workeroutput", None) or {}
        payload = output.get(WORKER_KEY) if isinstance(output, dict) else None
        name = str(getattr(getattr(node, "gateway", None), "id", "?"))
        if not isinstance(payload, dict) or not isinstance(payload.get("tests"), list):
            self.workers_silent.append(name)
            return
        for raw in payload["tests"]:
            run = _run_from(raw)
            if run is None:
                continue
            key = str(raw["key"])
            from zodyssey.claims.verdict import merge_outcome

            seen = self.remote.get(key)
            if seen is None:
                self.remote[key] = run
            else:
                seen.outcome = merge_outcome(seen.outcome, run.outcome)
        for name in payload.get("collect_errors", []):
            if str(name) not in self.collect_errors:
                self.collect_errors.append(str(name))

    def _send_to_controller(self) -> None:
        output = getattr(self.config, "workeroutput", None)
        if not isinstance(output, dict):
            return
        output[WORKER_KEY] = {
            "version": 1,
            "tests": [{"key": key, **run.to_dict()} for key, run in self.linked.items()],
            "collect_errors": list(self.collect_errors),
        }

    # -- verdict ----------------------------------------------------------
    @property
    def distributed(self) -> bool:
        return self.workers_down > 0 or self.config.pluginmanager.has_plugin("dsession")

    def runs(self) -> list[TestRun]:
        """Every linked test of the session with its outcome (merged over workers)."""
        if not self.distributed:
            return list(self.linked.values())
        from zodyssey.claims.verdict import merge_outcome, union

        runs: list[TestRun] = []
        for key, run in self.remote.items():
            forwarded = self.forwarded.get(key)
            if forwarded is not None:
                run.outcome = merge_outcome(run.outcome, forwarded)
            runs.append(run)
        return union([*runs, *self.linked.values()])

    def links(self) -> list[LinkedTest]:
        from zodyssey.claims.model import LinkedTest

        return [LinkedTest(v.nodeid, v.claims, v.file, v.line) for v in self.runs()]

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        self.config.stash[_JUDGED] = True
        if self.worker:
            self._send_to_controller()  # the controller judges, once
            return
        if self.export_path:
            self._export()
            return
        asked = self.show or self.strict or bool(self.json_path)
        if not asked and _in_drill():
            return  # a drill's run: the drill judges from the outcomes, not this check
        runs = self.runs()
        if asked or runs:  # else inert: nobody uses claims in this session
            self._judge(session, asked, runs)

    def _judge(self, session: pytest.Session, asked: bool, runs: list[TestRun]) -> None:
        try:
            fail = self._evaluate(asked, runs)
        except Exception as exc:  # a user-caused problem (bad config, bad ledger)
            from zodyssey.errors import ZodysseyError

            if not isinstance(exc, ZodysseyError):
                raise
            self.note = f"claims: {exc.message}"
            self.config.stash[_VERDICT] = pytest.ExitCode.USAGE_ERROR
            session.exitstatus = pytest.ExitCode.USAGE_ERROR
            return
        self.config.stash[_VERDICT] = pytest.ExitCode.TESTS_FAILED if fail else pytest.ExitCode.OK
        if fail and session.exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def _evaluate(self, asked: bool, runs: list[TestRun]) -> bool:
        from zodyssey.claims.ledger import read_ledger
        from zodyssey.claims.markers import collect_claims
        from zodyssey.claims.verdict import judge
        from zodyssey.config import load_config

        config = load_config(self.root)
        ledger_path = self.root / config.claims_lock
        ledger = read_ledger(ledger_path)
        claimset = collect_claims(self.root, config)
        self.claimset = claimset
        if not asked:
            return self._unknown_claims(claimset, ledger, runs, config.claims_lock)
        self.rows, findings = judge(claimset, runs, ledger, config.claims_lock)
        findings += self._session_findings(claimset, config.claims_documents)
        if self.strict:
            self.problems = [f for f in findings if f.severity == "error"]
        else:
            self.problems = [f for f in findings if f.rule == "unknown-claim"]
        if self.json_path:
            self._write_json(findings, runs)
        return bool(self.problems)

    def _unknown_claims(
        self, claimset: ClaimSet, ledger: Any, runs: list[TestRun], claims_lock: str
    ) -> bool:
        """Unasked: only a marker naming a claim no document marks fails the session,
        and only in a claims repository (a ledger, or a claim in the documents)."""
        from zodyssey.claims.ledger import compare
        from zodyssey.claims.model import LinkedTest

        if ledger is None and not claimset.claims:
            return False  # not a claims repository: an unrelated `claim` marker
        links = [LinkedTest(r.nodeid, r.claims, r.file, r.line) for r in runs]
        self.problems = [
            f for f in compare(claimset, links, ledger, claims_lock) if f.rule == "unknown-claim"
        ]
        return bool(self.problems)

    def _session_findings(self, claimset: ClaimSet, documents: list[str]) -> list[Finding]:
        """workers-silent (an xdist worker sent nothing) and no-claims."""
        from zodyssey.findings import Finding

        findings: list[Finding] = []
        if self.workers_silent:
            findings.append(
                Finding(
                    "claims",
                    "workers-silent",
                    "error",
                    f"pytest-xdist worker(s) {', '.join(self.workers_silent)} ended without "
                    "sending their claim outcomes (crashed, or the plugin is not loaded there); "
                    "the tests they ran cannot count",
                )
            )
        if not claimset.claims:
            findings.append(
                Finding(
                    "claims",
                    "no-claims",
                    "error",
                    f"no claim markers found in {', '.join(documents)} under {self.root}",
                )
            )
        return findings

    def _write_json(self, findings: list[Finding], runs: list[TestRun]) -> None:
        from zodyssey.claims.identity import identity
        from zodyssey.claims.verdict import RESULTS_KIND
        from zodyssey.core.atomic import write_atomic

        document = {
            "kind": RESULTS_KIND,
            "version": 1,
            "root": str(self.root),
            "plugin": __file__,  # which copy of zodyssey judged (the deletion drill checks it)
            "strict": self.strict,
            "ok": not self.problems,
            "claims": self.rows,
            "findings": [f.to_dict() for f in findings],
            # Every linked test with its outcome: `zodyssey claims check --results`
            # judges the union of several of these files (CI shards).
            "tests": [run.to_dict() for run in runs],
            "collect_errors": list(self.collect_errors),
            # Which checkout this is: `claims check --results` refuses other ones.
            "checkout": identity(self.root),
        }
        write_atomic(Path(self.json_path or ""), json.dumps(document, indent=2) + "\n")

    def _export(self) -> None:
        from zodyssey.core.atomic import write_atomic

        document = {
            "root": str(self.root),
            "links": [
                {"nodeid": v.nodeid, "claims": list(v.claims), "file": v.file, "line": v.line}
                for v in self.linked.values()
            ],
            "collect_errors": self.collect_errors,
        }
        write_atomic(Path(self.export_path or ""), json.dumps(document, indent=2) + "\n")

    # -- output -----------------------------------------------------------
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        write = terminalreporter.write_line
        if self.note:
            terminalreporter.write_sep("=", "zodyssey claims", red=True)
            write(self.note)
            return
        if self.show and self.rows:
            terminalreporter.write_sep("=", "zodyssey claims matrix")
            for line in _matrix_lines(self.rows):
                write(line)
        if self.problems:
            title = "zodyssey claims: strict check FAILED" if self.strict else "zodyssey claims"
            terminalreporter.write_sep("=", title, red=True)
            for finding in self.problems:
                write(_finding_line(finding))
        elif self.strict and self.rows:
            terminalreporter.write_sep("=", "zodyssey claims: strict check passed", green=True)


def _matrix_lines(rows: list[dict[str, Any]]) -> list[str]:
    lines: list[str] = []
    for row in rows:
        state = "covered" if row["covered"] else "NOT COVERED"
        lines.append(f"{row['id']}  {row['doc']}:{row['line']}  {state}")
        if not row["tests"]:
            lines.append("    (no linked test)")
        lines.extend(f"    {test['outcome']:<10} {test['nodeid']}" for test in row["tests"])
    covered = sum(1 for r in rows if r["covered"])
    lines.append(f"{covered}/{len(rows)} claims covered")
    return lines


def _finding_line(finding: Finding) -> str:
    where = f"{finding.file}:{finding.line}" if finding.file and finding.line else None
    return f"{finding.rule} {finding.extra.get('id', '-')} {where or finding.file or '-'}: {finding.message}"


def _run_from(raw: Any) -> TestRun | None:
    """A worker's entry, checked field by field (it crossed a process boundary)."""
    if not isinstance(raw, dict) or not isinstance(raw.get("key"), str):
        return None
    from zodyssey.claims.verdict import run_from_dict

    return run_from_dict(raw)


def _phase_outcome(report: pytest.TestReport) -> str | None:
    xfail = hasattr(report, "wasxfail")
    if report.when == "call":
        if report.passed:
            return "xpassed" if xfail else PASSED
        if report.skipped:
            return "xfailed" if xfail else "skipped"
        return "failed"
    if report.failed:
        return "error"
    if report.skipped:
        return "xfailed" if xfail else "skipped"
    return None  # a passing setup or teardown keeps what the call said
