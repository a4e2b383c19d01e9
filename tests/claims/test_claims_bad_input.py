"""`zodyssey claims` and `zodyssey check` on hostile ledgers, paths and destinations."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import DEEP_JSON, assert_one_line_error, make_repo, run_zodyssey


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "claims repo", commit=False)
    (root / "README.md").write_text("# demo\n- It works. <!-- claim: it-works -->\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_demo.py").write_text(
        'import pytest\n\n@pytest.mark.claim("it-works")\ndef test_works():\n    assert True\n'
    )
    assert run_zodyssey("claims", "update", cwd=root).returncode == 0
    return root


@pytest.mark.parametrize("verb", ["check", "update"])
def test_non_utf8_ledger_is_exit_2(repo: Path, verb: str) -> None:
    (repo / "invariants" / "claims.lock.json").write_bytes(b"\xff\xfe{}")
    assert_one_line_error(run_zodyssey("claims", verb, cwd=repo), 2)


def test_deeply_nested_ledger_is_exit_2(repo: Path) -> None:
    (repo / "invariants" / "claims.lock.json").write_text(DEEP_JSON)
    assert_one_line_error(run_zodyssey("claims", "check", cwd=repo), 2)


def test_missing_test_path_is_exit_2(repo: Path) -> None:
    # Before: exit 9 with every claim `uncovered`, blaming the docs for a typo.
    done = run_zodyssey("claims", "check", "--tests", "no/such/dir", cwd=repo)
    assert_one_line_error(done, 2)
    assert "no/such/dir" in done.stderr
    assert (
        run_zodyssey(
            "claims", "check", "--tests", "tests/test_demo.py::test_works", cwd=repo
        ).returncode
        == 0
    )


def test_claims_output_into_a_directory_is_exit_2(repo: Path) -> None:
    assert_one_line_error(run_zodyssey("claims", "check", "-o", "tests", cwd=repo), 2)


def test_check_output_into_a_directory_is_exit_2(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", commit=False)
    assert run_zodyssey("init", cwd=root).returncode == 0
    assert_one_line_error(run_zodyssey("check", "-o", "docs", cwd=root), 2)
    assert not list(root.glob(".docs.*.tmp"))


@pytest.mark.parametrize("command", [["check"], ["claims", "check"], ["claims", "update"]])
def test_help_has_exit_codes_and_an_example(tmp_path: Path, command: list[str]) -> None:
    done = run_zodyssey(*command, "--help", cwd=tmp_path)
    assert done.returncode == 0
    assert "exit codes" in done.stdout
    assert "examples:" in done.stdout
