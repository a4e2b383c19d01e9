"""Differential: the plugin's strict verdict and `claims check --results` on the
same session never disagree (issue 26: "the plugin and `claims check --results`
give the same verdict on the same run, always").

Hypothesis generates, per defender, what the test does (passes, fails, errors
in setup, skips with or without `claim_allow_skip`, xfails, xpasses) and how the
session selects it (run, `-k`, `--deselect`, `-m`, `PYTEST_ADDOPTS`, not
reached after `-x`); every session is a real pytest run whose `--claims-json`
file is then judged by the `--results` code.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import run_zodyssey

README = """# demo

The gate blocks writes before review. <!-- claim: gate-blocks -->

Zero citations fail the check. <!-- claim: zero-fails -->
"""

Step = tuple[str, tuple[str, ...], str, str]  # (name, claims, behaviour, selection)

# (name, claims): a1, a2 and b are locked by the ledger; extra is linked later (new-test).
DEFENDERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("a1", ("gate-blocks",)),
    ("a2", ("gate-blocks",)),
    ("b", ("zero-fails",)),
)
EXTRA: tuple[str, tuple[str, ...]] = ("extra", ("gate-blocks", "zero-fails"))

BEHAVIOURS = {
    "pass": ("", "pass"),
    "fail": ("", "assert False"),
    "error": ("@pytest.mark.usefixtures('broken')\n", "pass"),
    "skip": ("", "pytest.skip('later')"),
    "skip-allowed": ("@pytest.mark.claim_allow_skip('not here')\n", "pytest.skip('not here')"),
    "xfail": ("@pytest.mark.xfail(reason='known')\n", "assert False"),
    "xpass": ("@pytest.mark.xfail(reason='known')\n", "pass"),
}
SELECTIONS = ("run", "-k", "--deselect", "-m", "addopts")

HEADER = """
import pytest

@pytest.fixture
def broken():
    raise RuntimeError("setup fails")
"""


def _test(name: str, claims: tuple[str, ...], behaviour: str, selection: str) -> str:
    decorators, body = BEHAVIOURS[behaviour]
    if selection == "-m":
        decorators += "@pytest.mark.slow\n"
    ids = ", ".join(repr(c) for c in claims)
    return f"\n{decorators}@pytest.mark.claim({ids})\ndef test_{name}():\n    {body}\n"


def _session(plan: list[Step], stop_first: bool) -> tuple[str, list[str], str]:
    """(test module, pytest arguments, PYTEST_ADDOPTS) for one generated session."""
    module = HEADER + "".join(_test(n, c, b, s) for n, c, b, s in plan)
    args: list[str] = []
    by_k = [n for n, _, _, s in plan if s == "-k"]
    by_opts = [n for n, _, _, s in plan if s == "addopts"]
    if by_k:
        args += ["-k", " and ".join(f"not test_{n}" for n in by_k)]
    for name, _, _, selection in plan:
        if selection == "--deselect":
            args += ["--deselect", f"test_demo.py::test_{name}"]
    if any(s == "-m" for _, _, _, s in plan):
        args += ["-m", "not slow"]
    if stop_first:
        args.append("-x")
    addopts = ""
    if by_opts:
        # -k given twice: pytest keeps the last, so both go into one expression.
        if by_k:
            args[args.index("-k") + 1] += " and " + " and ".join(f"not test_{n}" for n in by_opts)
        else:
            addopts = shlex.join(["-k", " and ".join(f"not test_{n}" for n in by_opts)])
    return module, args, addopts


@pytest.fixture
def repo(pytester: pytest.Pytester) -> pytest.Pytester:
    return make_repo(pytester)


def make_repo(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makefile(".md", README=README)
    pytester.makeini("[pytest]\nmarkers =\n    slow: slow tests\n")
    plan: list[Step] = [(n, c, "pass", "run") for n, c in DEFENDERS]
    pytester.makepyfile(test_demo=_session(plan, False)[0])
    done = run_zodyssey("claims", "update", cwd=pytester.path)
    assert done.returncode == 0, done.stdout + done.stderr
    return pytester


def _doubted(findings: list[dict[str, object]]) -> set[str]:
    out: set[str] = set()
    for finding in findings:
        extra = finding.get("extra")
        if finding.get("severity") == "error" and isinstance(extra, dict):
            out.add(str(extra.get("id", "-")))
    return out


behaviour = st.sampled_from(sorted(BEHAVIOURS))
selection = st.sampled_from(SELECTIONS)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    outcomes=st.tuples(*[st.tuples(behaviour, selection) for _ in DEFENDERS]),
    extra=st.none() | st.tuples(behaviour, selection),
    stop_first=st.booleans(),
)
def test_plugin_and_results_agree(
    repo: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    outcomes: tuple[tuple[str, str], ...],
    extra: tuple[str, str] | None,
    stop_first: bool,
) -> None:
    from zodyssey.claims.report import results_report

    plan: list[Step] = [(n, c, b, s) for (n, c), (b, s) in zip(DEFENDERS, outcomes, strict=True)]
    if extra is not None:
        plan.append((*EXTRA, *extra))
    module, args, addopts = _session(plan, stop_first)
    repo.makepyfile(test_demo=module)
    out = repo.path / "claims.json"
    out.unlink(missing_ok=True)
    monkeypatch.setenv("PYTEST_ADDOPTS", addopts)
    result = repo.runpytest_inprocess(
        "-p", "no:cacheprovider", "--claims-strict", f"--claims-json={out}", *args
    )
    document = json.loads(out.read_text())
    report, code = results_report(repo.path, None, [str(out)])
    assert report.payload is not None
    plugin_ok = bool(document["ok"])
    assert plugin_ok == (code == 0), (plan, args, addopts, document["findings"], report.summary)
    assert _doubted(document["findings"]) == _doubted(report.payload["findings"]), plan
    # The judged part of pytest's own exit agrees too: a claims failure is never exit 0.
    if not plugin_ok:
        assert result.ret != 0
    # Sanity of the generator: a session where every locked defender ran and passed is ok.
    if all(b == "pass" and s == "run" for _, _, b, s in plan[: len(DEFENDERS)]) and (
        extra is None or extra[0] in ("pass", "skip", "skip-allowed", "xfail", "xpass")
    ):
        assert plugin_ok, (plan, document["findings"])


def test_generator_deselects_what_it_says(repo: pytest.Pytester) -> None:
    plan: list[Step] = [
        (n, c, "pass", s) for (n, c), s in zip(DEFENDERS, ("-k", "--deselect", "-m"), strict=True)
    ]
    module, args, _ = _session(plan, False)
    repo.makepyfile(test_demo=module)
    out: Path = repo.path / "claims.json"
    result = repo.runpytest_inprocess("--claims-strict", f"--claims-json={out}", *args)
    assert result.ret == 1
    tests = {t["nodeid"]: t["outcome"] for t in json.loads(out.read_text())["tests"]}
    assert set(tests.values()) == {"deselected"}
