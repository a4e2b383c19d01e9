"""Issue 26 item 4: what was not run is not proven.

A claim whose locked defenders did not all run and pass in this session fails
`--claims-strict`, exactly as `zodyssey claims check --results` judges the same
session's `--claims-json` file. Sessions are real pytest runs (pytester); the
ledger is written by `zodyssey claims update`.
"""

from __future__ import annotations

import json

import pytest

from tests.helpers import run_zodyssey

README = """# demo

The gate blocks writes before review. <!-- claim: gate-blocks -->

Zero citations fail the check. <!-- claim: zero-fails -->
"""

# Two locked defenders of gate-blocks, one of zero-fails; BODY_A2 varies per test.
TESTS = """
import pytest

@pytest.mark.claim("gate-blocks")
def test_a1():
    pass

{decorators}@pytest.mark.claim("gate-blocks")
def test_a2():
    {body}

@pytest.mark.claim("zero-fails")
def test_b():
    pass
"""

INI = "[pytest]\nmarkers =\n    slow: slow tests\n"


def _tests(body: str = "pass", decorators: str = "") -> str:
    return TESTS.format(body=body, decorators=decorators)


@pytest.fixture
def repo(pytester: pytest.Pytester) -> pytest.Pytester:
    return make_repo(pytester)


def make_repo(pytester: pytest.Pytester) -> pytest.Pytester:
    """README with two claims, three locked defenders (the ledger by `claims update`)."""
    pytester.makefile(".md", README=README)
    pytester.makeini(INI)
    pytester.makepyfile(test_demo=_tests())
    done = run_zodyssey("claims", "update", cwd=pytester.path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "test_demo.py::test_a2" in (pytester.path / "invariants/claims.lock.json").read_text()
    return pytester


def _strict(pytester: pytest.Pytester, *args: str) -> tuple[int, dict[str, object]]:
    out = pytester.path / "claims.json"
    out.unlink(missing_ok=True)
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "--claims-strict", f"--claims-json={out}", *args
    )
    return int(result.ret), json.loads(out.read_text())


def _results(pytester: pytest.Pytester) -> int:
    done = run_zodyssey(
        "claims", "check", "--results", str(pytester.path / "claims.json"), cwd=pytester.path
    )
    return done.returncode


def _errors(document: dict[str, object]) -> set[tuple[str, str]]:
    findings = document["findings"]
    assert isinstance(findings, list)
    return {(f["rule"], f["extra"].get("test", "")) for f in findings if f["severity"] == "error"}


def test_all_locked_defenders_pass(repo: pytest.Pytester) -> None:
    ret, document = _strict(repo)
    assert (ret, document["ok"]) == (0, True)
    assert _results(repo) == 0


@pytest.mark.parametrize(
    "select",
    [
        ("-k", "not test_a2"),
        ("--deselect", "test_demo.py::test_a2"),
        ("-m", "not slow"),
    ],
    ids=["-k", "--deselect", "-m"],
)
def test_a_deselected_locked_defender_is_not_proof(
    repo: pytest.Pytester, select: tuple[str, str]
) -> None:
    # test_a2 is broken, but the selection leaves it out; test_a1 alone "covers" the claim.
    repo.makepyfile(test_demo=_tests("assert False", "@pytest.mark.slow\n"))
    ret, document = _strict(repo, *select)
    assert ret == 1
    assert ("never-ran", "test_demo.py::test_a2") in _errors(document)
    assert _results(repo) == 9


def test_deselected_through_pytest_addopts(
    repo: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.makepyfile(test_demo=_tests("assert False"))
    monkeypatch.setenv("PYTEST_ADDOPTS", "-k 'not test_a2'")
    ret, document = _strict(repo)
    assert ret == 1
    assert ("never-ran", "test_demo.py::test_a2") in _errors(document)
    assert _results(repo) == 9


@pytest.mark.parametrize(
    ("decorators", "body", "outcome"),
    [
        ("", "pytest.skip('later')", "skipped"),
        ("@pytest.mark.skipif(True, reason='not here')\n", "pass", "skipped"),
        ("@pytest.mark.xfail(reason='known')\n", "assert False", "xfailed"),
        ("@pytest.mark.xfail(reason='known')\n", "pass", "xpassed"),
    ],
    ids=["skip", "skipif", "xfail", "xpass"],
)
def test_one_of_two_defenders_not_passing_fails_strict(
    repo: pytest.Pytester, decorators: str, body: str, outcome: str
) -> None:
    repo.makepyfile(test_demo=_tests(body, decorators))
    ret, document = _strict(repo)
    assert ret == 1
    assert ("not-passed", "test_demo.py::test_a2") in _errors(document)
    assert _results(repo) == 9


def test_documented_platform_skip_is_allowed(repo: pytest.Pytester) -> None:
    marker = "@pytest.mark.claim_allow_skip('needs Windows')\n"
    repo.makepyfile(test_demo=_tests("pytest.skip('not on this platform')", marker))
    ret, document = _strict(repo, "--strict-markers")
    assert (ret, document["ok"]) == (0, True)
    assert _results(repo) == 0


def test_allowed_skip_still_proves_nothing_alone(repo: pytest.Pytester) -> None:
    # zero-fails' only defender skipped, though allowed: nothing passed for it.
    repo.makepyfile(
        test_demo=_tests().replace(
            '@pytest.mark.claim("zero-fails")\ndef test_b():\n    pass',
            '@pytest.mark.claim_allow_skip("x")\n@pytest.mark.claim("zero-fails")\n'
            "def test_b():\n    pytest.skip('x')",
        )
    )
    ret, document = _strict(repo)
    assert ret == 1
    assert ("not-passed", "") in _errors(document)
    assert _results(repo) == 9


def test_blocking_the_judge_on_the_command_line_is_a_usage_error(repo: pytest.Pytester) -> None:
    for name in ("zodyssey-claims-recorder", "zodyssey-claims-guard"):
        result = repo.runpytest("-p", f"no:{name}", "--claims-strict")
        assert result.ret == pytest.ExitCode.USAGE_ERROR, name
        result.stderr.fnmatch_lines(["*--claims-strict needs the claims judge*"])


@pytest.mark.parametrize("where", ["conftest.py", "sub/conftest.py"])
@pytest.mark.parametrize(
    "name", ["zodyssey-claims-recorder", "zodyssey_claims", "zodyssey-claims-guard"]
)
def test_a_conftest_blocking_the_judge_is_a_usage_error(
    repo: pytest.Pytester, where: str, name: str
) -> None:
    # At the top, the conftest loads before the session starts; in sub/, during
    # collection, after the recorder was registered.
    if where != "conftest.py":
        (repo.path / "sub").mkdir()
        (repo.path / "sub/test_other.py").write_text("def test_other():\n    pass\n")
    hook = "pytest_configure" if where == "conftest.py" else "pytest_collection_modifyitems"
    conftest = (
        "import pytest\n"
        "@pytest.hookimpl(tryfirst=True)\n"
        f"def {hook}(config, *args):\n"
        f"    config.pluginmanager.set_blocked({name!r})\n"
    )
    (repo.path / where).write_text(conftest)
    out = repo.path / "claims.json"
    result = repo.runpytest_subprocess(
        "-p", "no:cacheprovider", "--claims-strict", f"--claims-json={out}"
    )
    said = result.stdout.str() + result.stderr.str()
    if name == "zodyssey-claims-recorder" or result.ret != 0:
        # The judge is gone: the session cannot pass.
        assert result.ret == pytest.ExitCode.USAGE_ERROR, said
        assert "--claims-strict needs the claims judge" in said
    else:
        # Blocking another part after the recorder was registered leaves the judge on:
        # the session was judged, and said so.
        assert "strict check passed" in said
        assert json.loads(out.read_text())["strict"] is True


def test_claims_test_fails_when_a_defender_ends_the_process(repo: pytest.Pytester) -> None:
    repo.makepyfile(test_demo=_tests("import os; os._exit(0)"))
    done = run_zodyssey("claims", "test", cwd=repo.path)
    assert done.returncode == 9, done.stdout + done.stderr
    assert "wrote no claims verdict" in done.stderr


def test_claims_test_passes_and_keeps_a_given_claims_json(repo: pytest.Pytester) -> None:
    out = repo.path / "mine.json"
    out.write_text("stale")
    done = run_zodyssey("claims", "test", "--", "--claims-json=mine.json", cwd=repo.path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(out.read_text())["ok"] is True


def test_claims_test_with_the_judge_blocked_is_a_usage_error(repo: pytest.Pytester) -> None:
    done = run_zodyssey("claims", "test", "--", "-p", "no:zodyssey-claims-recorder", cwd=repo.path)
    assert done.returncode == 2, done.stdout + done.stderr


def test_claims_test_when_a_stale_verdict_file_exists_and_the_session_dies(
    repo: pytest.Pytester,
) -> None:
    out = repo.path / "mine.json"
    out.write_text(json.dumps({"kind": "zodyssey-claims-results", "strict": True, "ok": True}))
    repo.makepyfile(test_demo=_tests("import os; os._exit(0)"))
    done = run_zodyssey("claims", "test", "--", "--claims-json", "mine.json", cwd=repo.path)
    assert done.returncode == 9, done.stdout + done.stderr


@pytest.mark.parametrize(
    "mode",
    [
        ("--fixtures",),
        ("--fixtures-per-test",),
        ("--collect-only",),
        ("--setup-plan",),
        ("--markers",),
        ("--help",),
        ("--version", "--version"),
    ],
    ids=lambda mode: mode[0],
)
def test_a_mode_that_runs_no_defender_never_passes_strict(
    repo: pytest.Pytester, mode: tuple[str, ...]
) -> None:
    """Whatever the mode, a strict invocation in which the locked defenders did not
    run fails: one that runs no tests (or no session at all) returns its own exit
    code, which must not stand for a pass. test_a2 is broken here."""
    repo.makepyfile(test_demo=_tests("assert False"))
    result = repo.runpytest_subprocess("-p", "no:cacheprovider", "--claims-strict", *mode)
    said = result.stdout.str() + result.stderr.str()
    assert result.ret in (pytest.ExitCode.TESTS_FAILED, pytest.ExitCode.USAGE_ERROR), said
    if result.ret == pytest.ExitCode.USAGE_ERROR:
        assert "nothing judged the claims" in said
    # Without --claims-strict the mode is left alone.
    plain = repo.runpytest_subprocess("-p", "no:cacheprovider", *mode)
    assert plain.ret in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED), mode


def test_the_same_modes_through_addopts(
    repo: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.makepyfile(test_demo=_tests("assert False"))
    for mode in ("--fixtures", "--markers"):
        monkeypatch.setenv("PYTEST_ADDOPTS", mode)
        result = repo.runpytest_subprocess("-p", "no:cacheprovider", "--claims-strict")
        assert result.ret != pytest.ExitCode.OK, mode


@pytest.mark.parametrize("exit_call", ["os._exit(0)", "posix._exit(0)"])
def test_a_defender_ending_the_process_fails_strict(repo: pytest.Pytester, exit_call: str) -> None:
    """A test that ends pytest's process with status 0 before the verdict fails the
    strict session and says so (pytest's own end of session never came)."""
    module = exit_call.split(".", 1)[0]
    repo.makepyfile(test_demo=_tests(f"import {module}; {exit_call}"))
    result = repo.runpytest_subprocess("-p", "no:cacheprovider", "--claims-strict")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "a test ended the process" in result.stderr.str()
    # A child the test forks keeps the plain os._exit: its status is its own.
    repo.makepyfile(
        test_demo=_tests(
            "import os\n    pid = os.fork()\n    if pid == 0:\n        os._exit(7)\n"
            "    assert os.waitpid(pid, 0)[1] >> 8 == 7"
        )
    )
    forked = repo.runpytest_subprocess("-p", "no:cacheprovider", "--claims-strict")
    assert forked.ret == pytest.ExitCode.OK, forked.stdout.str() + forked.stderr.str()
