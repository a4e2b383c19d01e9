"""The pytest plugin's outcome accounting and strict mode, through pytester."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import run_zodyssey

README = """# demo

The gate blocks writes before review. <!-- claim: gate-blocks -->

- Zero citations fail the check. <!-- claim: zero-fails -->
"""

PASSING = """
import pytest

@pytest.mark.claim("gate-blocks")
def test_gate():
    pass

@pytest.mark.claim("zero-fails")
def test_zero():
    pass
"""


def _setup(pytester: pytest.Pytester, tests: str, readme: str = README) -> None:
    pytester.makefile(".md", README=readme)
    pytester.makepyfile(test_demo=tests)


def _matrix(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, dict[str, object]]:
    out = pytester.path / "claims.json"
    result = pytester.runpytest("--claims", f"--claims-json={out}", *args)
    return result, json.loads(out.read_text())


def _outcomes(document: dict[str, object]) -> dict[str, str]:
    rows = document["claims"]
    assert isinstance(rows, list)
    return {t["nodeid"].split("::")[-1]: t["outcome"] for row in rows for t in row["tests"]}


def test_marker_is_declared_so_strict_markers_passes(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("import pytest\n@pytest.mark.claim('x')\ndef test_a():\n    pass\n")
    result = pytester.runpytest("--strict-markers")
    result.assert_outcomes(passed=1)
    assert result.ret == 0  # no claims documents, no ledger: the plugin stays out of the way


def test_every_outcome_is_accounted(pytester: pytest.Pytester) -> None:
    tests = """
import pytest

@pytest.fixture
def broken():
    raise RuntimeError("setup fails")

@pytest.fixture
def bad_teardown():
    yield
    raise RuntimeError("teardown fails")

@pytest.mark.claim("gate-blocks")
def test_pass():
    pass

@pytest.mark.claim("gate-blocks")
def test_fail():
    assert False

@pytest.mark.claim("gate-blocks")
def test_skip():
    pytest.skip("later")

@pytest.mark.claim("gate-blocks")
@pytest.mark.xfail(reason="known")
def test_xfail():
    assert False

@pytest.mark.claim("gate-blocks")
@pytest.mark.xfail(reason="known")
def test_xpass():
    pass

@pytest.mark.claim("gate-blocks")
def test_error(broken):
    pass

@pytest.mark.claim("gate-blocks")
def test_teardown_error(bad_teardown):
    pass

@pytest.mark.claim("zero-fails")
def test_deselected():
    pass
"""
    _setup(pytester, tests)
    result, document = _matrix(pytester, "--deselect", "test_demo.py::test_deselected")
    assert _outcomes(document) == {
        "test_pass": "passed",
        "test_fail": "failed",
        "test_skip": "skipped",
        "test_xfail": "xfailed",
        "test_xpass": "xpassed",
        "test_error": "error",
        "test_teardown_error": "error",
        "test_deselected": "deselected",
    }
    covered = {row["id"]: row["covered"] for row in document["claims"]}  # type: ignore[attr-defined]
    assert covered == {"gate-blocks": True, "zero-fails": False}
    result.stdout.fnmatch_lines(
        ["*zodyssey claims matrix*", "zero-fails  README.md:5  NOT COVERED"]
    )


@pytest.mark.parametrize(
    ("body", "decorator"),
    [
        ("pytest.skip('no')", ""),
        ("assert False", "@pytest.mark.xfail\n"),
        ("pass", "@pytest.mark.xfail\n"),
        ("assert False", ""),
    ],
    ids=["skip", "xfail", "xpass", "fail"],
)
def test_strict_fails_when_the_only_linked_test_did_not_pass(
    pytester: pytest.Pytester, body: str, decorator: str
) -> None:
    tests = PASSING.replace(
        "def test_zero():\n    pass", f"{decorator}def test_zero():\n    {body}"
    )
    _setup(pytester, tests)
    _lock(pytester)
    result = pytester.runpytest("--claims-strict")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*strict check FAILED*", "not-passed zero-fails README.md:5*"])


def _lock(pytester: pytest.Pytester) -> None:
    """Write the ledger for the current docs and tests with the real command."""
    done = run_zodyssey("claims", "update", "--root", str(pytester.path), cwd=pytester.path)
    assert done.returncode == 0, done.stderr


def test_strict_passes_when_every_claim_is_covered_and_locked(pytester: pytest.Pytester) -> None:
    _setup(pytester, PASSING)
    _lock(pytester)
    result = pytester.runpytest("--claims-strict")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*strict check passed*"])


def test_strict_fails_on_deselected_and_never_run(pytester: pytest.Pytester) -> None:
    _setup(pytester, PASSING)
    _lock(pytester)
    deselected = pytester.runpytest("--claims-strict", "-k", "not test_zero")
    assert deselected.ret == 1
    deselected.stdout.fnmatch_lines(["never-ran zero-fails*test_zero did not run*(deselected*"])
    # -x stops the session at the first failure: the later linked test never runs.
    tests = "import pytest\ndef test_first():\n    assert False\n" + PASSING
    pytester.makepyfile(test_demo=tests)
    _lock(pytester)
    stopped = pytester.runpytest("--claims-strict", "-x")
    stopped.stdout.fnmatch_lines(["never-ran gate-blocks*test_gate did not run*(not-run*"])


def test_strict_fails_without_ledger_and_on_missing_and_changed(pytester: pytest.Pytester) -> None:
    two_tests = PASSING + '\n@pytest.mark.claim("zero-fails")\ndef test_zero_again():\n    pass\n'
    _setup(pytester, two_tests)
    unlocked = pytester.runpytest("--claims-strict")
    assert unlocked.ret == 1
    unlocked.stdout.fnmatch_lines(["unlocked gate-blocks*"])
    _lock(pytester)
    assert pytester.runpytest("--claims-strict").ret == 0
    # Deleting ONE of two tests of a claim fails, though the claim is still covered.
    pytester.makepyfile(test_demo=PASSING)
    missing = pytester.runpytest("--claims-strict")
    assert missing.ret == 1
    missing.stdout.fnmatch_lines(["missing-test zero-fails*test_zero_again*"])
    _lock(pytester)
    pytester.makefile(".md", README=README.replace("blocks writes", "blocks most writes"))
    changed = pytester.runpytest("--claims-strict")
    assert changed.ret == 1
    changed.stdout.fnmatch_lines(["changed gate-blocks README.md:3*"])


def test_unknown_claim_fails_the_session_without_options(pytester: pytest.Pytester) -> None:
    _setup(
        pytester, PASSING + '\n@pytest.mark.claim("no-such-claim")\ndef test_typo():\n    pass\n'
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=3)
    assert result.ret == 1
    result.stdout.fnmatch_lines(["unknown-claim no-such-claim*test_typo*"])


def test_a_drills_own_run_skips_the_unasked_check(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a run of the drill (ZODYSSEY_DRILL set) the documents are not parsed for
    the unknown-claim check: the drill judges by the tests' own outcomes. Asked
    for (--claims-strict), the judge still runs there."""
    from zodyssey.claims.drill import DRILL_ENV

    _setup(
        pytester, PASSING + '\n@pytest.mark.claim("no-such-claim")\ndef test_typo():\n    pass\n'
    )
    monkeypatch.setenv(DRILL_ENV, "1")
    result = pytester.runpytest()
    result.assert_outcomes(passed=3)
    assert result.ret == 0
    assert "unknown-claim" not in result.stdout.str()
    strict = pytester.runpytest("--claims-strict")
    assert strict.ret == 1
    strict.stdout.fnmatch_lines(["*unknown-claim no-such-claim*"])


def test_unrelated_project_with_own_claim_marker_is_left_alone(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nmarkers =\n    claim(kind): insurance claim kind\n")
    pytester.makepyfile(
        "import pytest\n@pytest.mark.claim('water-damage')\ndef test_a():\n    pass\n"
    )
    result = pytester.runpytest("--strict-markers")
    assert result.ret == 0
    assert "zodyssey claims" not in result.stdout.str()


def test_strict_with_zero_claims_fails(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("def test_a():\n    pass\n")
    result = pytester.runpytest("--claims-strict")
    assert result.ret == 1
    result.stdout.fnmatch_lines(["no-claims*"])


def test_claims_root_option_points_at_another_repository(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "README.md").write_text("Elsewhere. <!-- claim: elsewhere -->\n")
    pytester.makepyfile("import pytest\n@pytest.mark.claim('elsewhere')\ndef test_a():\n    pass\n")
    result, document = _matrix(pytester, f"--claims-root={other}")
    assert [row["id"] for row in document["claims"]] == ["elsewhere"]  # type: ignore[attr-defined]
    assert result.ret == 0


def test_malformed_ledger_is_a_usage_error(pytester: pytest.Pytester) -> None:
    _setup(pytester, PASSING)
    pytester.mkdir("invariants")
    (pytester.path / "invariants" / "claims.lock.json").write_text("{not json")
    result = pytester.runpytest("--claims-strict")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stdout.fnmatch_lines(["*claims ledger*not valid JSON*"])
