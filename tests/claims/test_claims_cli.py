"""`zodyssey claims check|update` and `zodyssey check` as real processes on real repositories."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.helpers import make_repo, run_zodyssey
from zodyssey.commands.check import worst

README = """# demo

The gate blocks writes before review. <!-- claim: gate-blocks -->

- Zero citations fail the check. <!-- claim: zero-fails -->
"""

TESTS = """
import pytest

@pytest.mark.claim("gate-blocks")
def test_gate():
    pass

@pytest.mark.claim("gate-blocks")
def test_gate_again():
    pass

@pytest.mark.claim("zero-fails")
def test_zero():
    pass
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "tests").mkdir(parents=True)
    make_repo(root, commit=False)
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\ntestpaths = ["tests"]\n')
    (root / "README.md").write_text(README)
    (root / "tests" / "test_demo.py").write_text(TESTS)
    return root


def test_update_then_check_is_clean(repo: Path) -> None:
    first = run_zodyssey("claims", "check", cwd=repo)
    assert first.returncode == 9
    assert "unlocked" in first.stdout
    update = run_zodyssey("claims", "update", cwd=repo)
    assert update.returncode == 0, update.stderr
    assert "+ gate-blocks (README.md:3), tests: 2" in update.stdout
    lock = json.loads((repo / "invariants" / "claims.lock.json").read_text())
    assert lock["claims"]["gate-blocks"]["tests"] == [
        "tests/test_demo.py::test_gate",
        "tests/test_demo.py::test_gate_again",
    ]
    clean = run_zodyssey("claims", "check", cwd=repo)
    assert clean.returncode == 0, clean.stdout
    again = run_zodyssey("claims", "update", cwd=repo)
    assert "unchanged" in again.stdout


def test_each_problem_kind_exits_9(repo: Path) -> None:
    assert run_zodyssey("claims", "update", cwd=repo).returncode == 0
    test_file = repo / "tests" / "test_demo.py"
    # Deleting ONE of the two tests of a claim.
    test_file.write_text(TESTS.replace("def test_gate_again():", "def _gone():"))
    missing = run_zodyssey("claims", "check", "--format", "json", cwd=repo)
    assert missing.returncode == 9
    kinds = {(f["rule"], f["extra"].get("test")) for f in json.loads(missing.stdout)["findings"]}
    assert ("missing-test", "tests/test_demo.py::test_gate_again") in kinds
    test_file.write_text(TESTS)
    (repo / "README.md").write_text(README.replace("before review", "before the review"))
    changed = run_zodyssey("claims", "check", cwd=repo)
    assert changed.returncode == 9
    assert "changed (1)" in changed.stdout and "README.md:3" in changed.stdout
    (repo / "README.md").write_text(README + "\nAnother. <!-- claim: zero-fails -->\n")
    assert "duplicate-id" in run_zodyssey("claims", "check", cwd=repo).stdout
    (repo / "README.md").write_text(README)
    test_file.write_text(TESTS + '\n@pytest.mark.claim("gate-block")\ndef test_typo():\n    pass\n')
    unknown = run_zodyssey("claims", "check", cwd=repo)
    assert unknown.returncode == 9
    assert "tests/test_demo.py:" in unknown.stdout and "gate-block`" in unknown.stdout
    test_file.write_text(TESTS.replace('@pytest.mark.claim("zero-fails")\n', ""))
    uncovered = run_zodyssey("claims", "check", cwd=repo)
    assert uncovered.returncode == 9
    assert "uncovered (1)" in uncovered.stdout


def test_zero_claims_exits_4(repo: Path) -> None:
    (repo / "README.md").write_text("# nothing promised\n\nShow `<!-- claim: x -->` in code.\n")
    # No marker, no ledger, no configuration: claims are not in use (issue 36).
    unused = run_zodyssey("claims", "check", cwd=repo)
    assert unused.returncode == 0 and "claims not in use" in unused.stdout
    # Configured, and none found: an empty ledger proves nothing.
    with (repo / "pyproject.toml").open("a") as config:
        config.write('\n[tool.zodyssey]\nclaims_documents = ["README.md"]\n')
    result = run_zodyssey("claims", "check", cwd=repo)
    assert result.returncode == 4
    assert "no claim markers" in result.stdout
    assert run_zodyssey("claims", "update", cwd=repo).returncode == 4
    assert not (repo / "invariants" / "claims.lock.json").exists()


def test_usage_errors_exit_2_with_one_line(repo: Path, tmp_path: Path) -> None:
    (repo / "invariants").mkdir()
    (repo / "invariants" / "claims.lock.json").write_text('{"claims": 3}')
    bad = run_zodyssey("claims", "check", cwd=repo)
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1 and "claims.lock.json" in bad.stderr
    assert "Traceback" not in bad.stderr
    assert run_zodyssey("claims", "check", "--format", "nope", cwd=repo).returncode == 2
    assert (
        run_zodyssey("claims", "check", "--root", str(tmp_path / "missing"), cwd=repo).returncode
        == 2
    )
    assert run_zodyssey("claims", cwd=repo).returncode == 2


def test_update_refuses_duplicates_and_writes_nothing(repo: Path) -> None:
    (repo / "README.md").write_text(README + "\nTwice. <!-- claim: gate-blocks -->\n")
    result = run_zodyssey("claims", "update", cwd=repo)
    assert result.returncode == 9
    assert "refused" in result.stderr
    assert not (repo / "invariants" / "claims.lock.json").exists()


def test_update_dry_run_and_custom_ledger_path(repo: Path) -> None:
    dry = run_zodyssey("claims", "update", "--dry-run", cwd=repo)
    assert dry.returncode == 0 and "would write" in dry.stdout
    assert not (repo / "invariants").exists()
    custom = run_zodyssey("claims", "update", "--ledger", "meta/ledger.json", cwd=repo)
    assert custom.returncode == 0
    assert (repo / "meta" / "ledger.json").is_file()
    assert run_zodyssey("claims", "check", "--ledger", "meta/ledger.json", cwd=repo).returncode == 0


def test_formats(repo: Path, tmp_path: Path) -> None:
    run_zodyssey("claims", "update", cwd=repo)
    (repo / "README.md").write_text(README.replace("before review", "after review"))
    as_json = json.loads(run_zodyssey("claims", "check", "--json", cwd=repo).stdout)
    assert as_json["exit_code"] == 9 and as_json["ok"] is False
    assert {c["id"] for c in as_json["claims"]} == {"gate-blocks", "zero-fails"}
    assert as_json["counts"] == {"changed": 1}
    github = run_zodyssey("claims", "check", "--format", "github", cwd=repo).stdout
    assert "::error file=README.md,line=3,title=claims changed::" in github
    junit_path = tmp_path / "claims.xml"
    assert (
        run_zodyssey(
            "claims", "check", "--format", "junit", "-o", str(junit_path), cwd=repo
        ).returncode
        == 9
    )
    suite = ET.parse(junit_path).getroot().find("testsuite")
    assert suite is not None and suite.get("tests") == "2" and suite.get("failures") == "1"
    markdown = run_zodyssey("claims", "check", "--format", "markdown", cwd=repo).stdout
    assert "| changed | error | README.md:3 |" in markdown


def test_worst_exit_code_precedence() -> None:
    assert worst([0, 0]) == 0
    assert worst([4, 0]) == 4
    assert worst([4, 9]) == 9
    assert worst([9, 2]) == 2
    assert worst([0, 1]) == 2  # a part that crashed is "could not run"
    assert worst([]) == 0


CITING_DOC = "See `src/app.py:1` for the entry point.\n"


def test_check_combines_both_parts(repo: Path) -> None:
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("def main():\n    return 0\n")
    (repo / "README.md").write_text(README + "\n" + CITING_DOC)
    run_zodyssey("claims", "update", cwd=repo)
    anchors = run_zodyssey("anchors", "check", "--update", cwd=repo)
    if anchors.returncode != 0:
        anchors = run_zodyssey("anchors", "update", cwd=repo)
    clean = run_zodyssey("check", cwd=repo)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    (repo / "README.md").write_text(
        README.replace("before review", "after review") + "\n" + CITING_DOC
    )
    run_zodyssey("anchors", "check", "--update", cwd=repo)
    claims_broken = run_zodyssey("check", "--format", "json", cwd=repo)
    document = json.loads(claims_broken.stdout)
    assert claims_broken.returncode == 9
    assert document["claims"]["exit_code"] == 9 and document["anchors"]["exit_code"] == 0
    (repo / "invariants" / "claims.lock.json").write_text("garbage")
    assert run_zodyssey("check", cwd=repo).returncode == 2
