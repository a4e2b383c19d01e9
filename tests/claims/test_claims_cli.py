"""`zodyssey claims check|update` and `zodyssey check` as real processes on real repositories."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

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


def zodyssey(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "zodyssey", *args],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "tests").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\ntestpaths = ["tests"]\n')
    (root / "README.md").write_text(README)
    (root / "tests" / "test_demo.py").write_text(TESTS)
    return root


def test_update_then_check_is_clean(repo: Path) -> None:
    first = zodyssey(repo, "claims", "check")
    assert first.returncode == 9
    assert "unlocked" in first.stdout
    update = zodyssey(repo, "claims", "update")
    assert update.returncode == 0, update.stderr
    assert "+ gate-blocks (README.md:3), tests: 2" in update.stdout
    lock = json.loads((repo / "invariants" / "claims.lock.json").read_text())
    assert lock["claims"]["gate-blocks"]["tests"] == [
        "tests/test_demo.py::test_gate",
        "tests/test_demo.py::test_gate_again",
    ]
    clean = zodyssey(repo, "claims", "check")
    assert clean.returncode == 0, clean.stdout
    again = zodyssey(repo, "claims", "update")
    assert "unchanged" in again.stdout


def test_each_problem_kind_exits_9(repo: Path) -> None:
    assert zodyssey(repo, "claims", "update").returncode == 0
    test_file = repo / "tests" / "test_demo.py"
    # Deleting ONE of the two tests of a claim.
    test_file.write_text(TESTS.replace("def test_gate_again():", "def _gone():"))
    missing = zodyssey(repo, "claims", "check", "--format", "json")
    assert missing.returncode == 9
    kinds = {(f["rule"], f["extra"].get("test")) for f in json.loads(missing.stdout)["findings"]}
    assert ("missing-test", "tests/test_demo.py::test_gate_again") in kinds
    test_file.write_text(TESTS)
    (repo / "README.md").write_text(README.replace("before review", "before the review"))
    changed = zodyssey(repo, "claims", "check")
    assert changed.returncode == 9
    assert "changed (1)" in changed.stdout and "README.md:3" in changed.stdout
    (repo / "README.md").write_text(README + "\nAnother. <!-- claim: zero-fails -->\n")
    assert "duplicate-id" in zodyssey(repo, "claims", "check").stdout
    (repo / "README.md").write_text(README)
    test_file.write_text(TESTS + '\n@pytest.mark.claim("gate-block")\ndef test_typo():\n    pass\n')
    unknown = zodyssey(repo, "claims", "check")
    assert unknown.returncode == 9
    assert "tests/test_demo.py:" in unknown.stdout and "gate-block`" in unknown.stdout
    test_file.write_text(TESTS.replace('@pytest.mark.claim("zero-fails")\n', ""))
    uncovered = zodyssey(repo, "claims", "check")
    assert uncovered.returncode == 9
    assert "uncovered (1)" in uncovered.stdout


def test_zero_claims_exits_4(repo: Path) -> None:
    (repo / "README.md").write_text("# nothing promised\n\nShow `<!-- claim: x -->` in code.\n")
    result = zodyssey(repo, "claims", "check")
    assert result.returncode == 4
    assert "no claim markers" in result.stdout
    assert zodyssey(repo, "claims", "update").returncode == 4
    assert not (repo / "invariants" / "claims.lock.json").exists()


def test_usage_errors_exit_2_with_one_line(repo: Path, tmp_path: Path) -> None:
    (repo / "invariants").mkdir()
    (repo / "invariants" / "claims.lock.json").write_text('{"claims": 3}')
    bad = zodyssey(repo, "claims", "check")
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1 and "claims.lock.json" in bad.stderr
    assert "Traceback" not in bad.stderr
    assert zodyssey(repo, "claims", "check", "--format", "nope").returncode == 2
    assert zodyssey(repo, "claims", "check", "--root", str(tmp_path / "missing")).returncode == 2
    assert zodyssey(repo, "claims").returncode == 2


def test_update_refuses_duplicates_and_writes_nothing(repo: Path) -> None:
    (repo / "README.md").write_text(README + "\nTwice. <!-- claim: gate-blocks -->\n")
    result = zodyssey(repo, "claims", "update")
    assert result.returncode == 9
    assert "refused" in result.stderr
    assert not (repo / "invariants" / "claims.lock.json").exists()


def test_update_dry_run_and_custom_ledger_path(repo: Path) -> None:
    dry = zodyssey(repo, "claims", "update", "--dry-run")
    assert dry.returncode == 0 and "would write" in dry.stdout
    assert not (repo / "invariants").exists()
    custom = zodyssey(repo, "claims", "update", "--ledger", "meta/ledger.json")
    assert custom.returncode == 0
    assert (repo / "meta" / "ledger.json").is_file()
    assert zodyssey(repo, "claims", "check", "--ledger", "meta/ledger.json").returncode == 0


def test_formats(repo: Path, tmp_path: Path) -> None:
    zodyssey(repo, "claims", "update")
    (repo / "README.md").write_text(README.replace("before review", "after review"))
    as_json = json.loads(zodyssey(repo, "claims", "check", "--json").stdout)
    assert as_json["exit_code"] == 9 and as_json["ok"] is False
    assert {c["id"] for c in as_json["claims"]} == {"gate-blocks", "zero-fails"}
    assert as_json["counts"] == {"changed": 1}
    github = zodyssey(repo, "claims", "check", "--format", "github").stdout
    assert "::error file=README.md,line=3,title=claims changed::" in github
    junit_path = tmp_path / "claims.xml"
    assert (
        zodyssey(repo, "claims", "check", "--format", "junit", "-o", str(junit_path)).returncode
        == 9
    )
    suite = ET.parse(junit_path).getroot().find("testsuite")
    assert suite is not None and suite.get("tests") == "2" and suite.get("failures") == "1"
    markdown = zodyssey(repo, "claims", "check", "--format", "markdown").stdout
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
    zodyssey(repo, "claims", "update")
    anchors = zodyssey(repo, "anchors", "check", "--update")
    if anchors.returncode != 0:
        anchors = zodyssey(repo, "anchors", "update")
    clean = zodyssey(repo, "check")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    (repo / "README.md").write_text(
        README.replace("before review", "after review") + "\n" + CITING_DOC
    )
    zodyssey(repo, "anchors", "check", "--update")
    claims_broken = zodyssey(repo, "check", "--format", "json")
    document = json.loads(claims_broken.stdout)
    assert claims_broken.returncode == 9
    assert document["claims"]["exit_code"] == 9 and document["anchors"]["exit_code"] == 0
    (repo / "invariants" / "claims.lock.json").write_text("garbage")
    assert zodyssey(repo, "check").returncode == 2
