"""README promise about the claims ledger, through the real commands."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

DOC = "# Demo\n\nThe gate blocks tee before review. <!-- claim: tee-blocked -->\n"
TESTS = """
import pytest

@pytest.mark.claim("tee-blocked")
def test_tee_in_pipeline():
    pass

@pytest.mark.claim("tee-blocked")
def test_tee_alone():
    pass

@pytest.mark.claim("tee-blocked")
def test_tee_append():
    pass
"""


def claims_repo(lab: Any) -> Path:
    repo: Path = lab.repo()
    (repo / "pyproject.toml").write_text('[tool.pytest.ini_options]\ntestpaths = ["checks"]\n')
    (repo / "README.md").write_text(DOC, encoding="utf-8")
    (repo / "checks").mkdir()
    (repo / "checks" / "test_tee.py").write_text(TESTS, encoding="utf-8")
    return repo


def strict_session(repo: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--claims-strict"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


@pytest.mark.slow
@pytest.mark.claim("claim-test-deleted-fails")
def test_deleting_one_of_three_linked_tests_fails(lab: Any) -> None:
    repo = claims_repo(lab)
    assert lab.zodyssey("claims", "update", cwd=repo).returncode == 0
    assert lab.zodyssey("claims", "check", cwd=repo).returncode == 0
    assert strict_session(repo).returncode == 0
    # Delete ONE test: the claim is still covered by two, and still the check fails.
    test_file = repo / "checks" / "test_tee.py"
    test_file.write_text(TESTS.split('@pytest.mark.claim("tee-blocked")\ndef test_tee_append')[0])
    done = lab.zodyssey("claims", "check", "--format", "json", cwd=repo)
    assert done.returncode == 9, done.stdout + done.stderr
    findings = json.loads(done.stdout)["findings"]
    assert [(f["rule"], f["extra"]["id"], f["extra"]["test"]) for f in findings] == [
        ("missing-test", "tee-blocked", "checks/test_tee.py::test_tee_append")
    ]
    strict = strict_session(repo)
    assert strict.returncode != 0
    assert "missing-test tee-blocked" in strict.stdout
    # Un-linking a test (marker removed, test kept) is the same deletion.
    test_file.write_text(
        TESTS.replace('@pytest.mark.claim("tee-blocked")\ndef test_tee_alone', "def test_tee_alone")
    )
    assert lab.zodyssey("claims", "check", cwd=repo).returncode == 9


# docs/claims.md's promises on what --claims-strict counts as proof (issue 26):
# the checks live in tests/claims and run here again under each claim's id.
from tests.claims import test_claims_selection as selection  # noqa: E402


@pytest.mark.claim("strict-every-defender")
@pytest.mark.parametrize("select", [("-k", "not test_a2"), ("-m", "not slow")])
def test_a_deselected_locked_defender_fails_strict(
    pytester: pytest.Pytester, select: tuple[str, str]
) -> None:
    selection.test_a_deselected_locked_defender_is_not_proof(selection.make_repo(pytester), select)


@pytest.mark.claim("strict-every-defender")
def test_a_skipped_locked_defender_fails_strict_unless_allowed(pytester: pytest.Pytester) -> None:
    repo = selection.make_repo(pytester)
    selection.test_one_of_two_defenders_not_passing_fails_strict(
        repo, "", "pytest.skip('later')", "skipped"
    )
    selection.test_documented_platform_skip_is_allowed(repo)


@pytest.mark.slow
@pytest.mark.claim("strict-every-defender")
def test_plugin_and_results_never_disagree(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Imported here, not at load: it needs hypothesis (the test extra), and the
    # ledger collects this file in an environment made with `pip install .` alone.
    from tests.claims import test_claims_differential as differential

    differential.test_plugin_and_results_agree(
        repo=differential.make_repo(pytester), monkeypatch=monkeypatch
    )


@pytest.mark.claim("strict-judge-off")
def test_a_strict_session_nobody_judges_fails(pytester: pytest.Pytester) -> None:
    repo = selection.make_repo(pytester)
    selection.test_blocking_the_judge_on_the_command_line_is_a_usage_error(repo)
    selection.test_a_conftest_blocking_the_judge_is_a_usage_error(
        repo, "sub/conftest.py", "zodyssey-claims-recorder"
    )


@pytest.mark.claim("claims-test-no-verdict")
def test_claims_test_fails_without_a_verdict(pytester: pytest.Pytester) -> None:
    selection.test_claims_test_fails_when_a_defender_ends_the_process(selection.make_repo(pytester))
    selection.test_claims_test_when_a_stale_verdict_file_exists_and_the_session_dies(
        selection.make_repo(pytester)
    )


from tests.claims import test_claims_ledger_trust as trust  # noqa: E402


@pytest.mark.slow
@pytest.mark.claim("ledger-refused")
def test_a_ledger_edited_by_hand_is_refused(tmp_path: Path) -> None:
    trust.test_a_claim_id_twice_in_the_ledger_is_refused(tmp_path / "twice")
    trust.test_an_unknown_ledger_version_is_refused(tmp_path / "version")
    trust.test_a_fingerprint_that_is_not_its_texts_is_refused(tmp_path / "fingerprint")


@pytest.mark.slow
@pytest.mark.claim("ledger-refused")
def test_update_refuses_a_failing_collection_and_writes_through_links(tmp_path: Path) -> None:
    trust.test_update_refuses_while_a_test_module_cannot_be_imported(tmp_path / "import")
    trust.test_update_writes_through_a_symlinked_ledger(tmp_path / "link")


@pytest.mark.slow
@pytest.mark.claim("results-bound-to-checkout")
def test_results_from_another_checkout_are_refused(tmp_path: Path) -> None:
    trust.test_results_carry_the_checkout_and_are_refused_elsewhere(tmp_path)
    trust.test_results_without_a_checkout_are_refused(tmp_path / "none")


from tests.claims import test_drill_languages as languages  # noqa: E402


@pytest.mark.slow
@pytest.mark.claim("drill-other-languages")
def test_javascript_breaks_killed_and_survived(tmp_path: Path) -> None:
    languages.test_javascript_claims_killed_and_survived(tmp_path)


@pytest.mark.claim("drill-other-languages")
def test_go_breaks_are_the_grammars_statements(tmp_path: Path) -> None:
    languages.test_go_breaks_are_statements_by_the_grammar(tmp_path)


from tests.claims import test_claims_non_regular as non_regular  # noqa: E402


@pytest.mark.claim("claims-files-regular")
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_fifo_results_ledger_cache_and_code_are_refused(tmp_path: Path) -> None:
    non_regular.test_a_fifo_results_file_is_refused(tmp_path / "results")
    non_regular.test_a_fifo_ledger_is_refused_by_every_reader(tmp_path / "ledger", ("drill",))
    non_regular.test_a_fifo_drill_cache_is_refused(tmp_path / "cache")
    non_regular.test_a_fifo_as_the_claims_code_is_named_not_waited_on(tmp_path / "code")


@pytest.mark.claim("strict-any-mode")
@pytest.mark.parametrize("mode", [("--fixtures",), ("--markers",), ("--collect-only",)])
def test_a_mode_running_no_defender_fails_strict(
    pytester: pytest.Pytester, mode: tuple[str, ...]
) -> None:
    repo = selection.make_repo(pytester)
    selection.test_a_mode_that_runs_no_defender_never_passes_strict(repo, mode)


@pytest.mark.claim("strict-any-mode")
def test_a_defender_calling_os_exit_fails_strict(pytester: pytest.Pytester) -> None:
    repo = selection.make_repo(pytester)
    selection.test_a_defender_ending_the_process_fails_strict(repo, "os._exit(0)")


from tests.claims import test_drill_ts_ops as ts_ops  # noqa: E402


@pytest.mark.claim("drill-other-languages")
def test_operator_mutants_of_other_languages_and_equivalents(tmp_path: Path) -> None:
    for language in sorted(ts_ops.SOURCES):
        (tmp_path / language).mkdir()
        ts_ops.test_operator_mutants_of_every_language_are_tree_edits_inside_the_body(
            tmp_path / language, language
        )
    ts_ops.test_a_mutant_with_the_same_tree_is_equivalent_and_never_run(tmp_path)
