"""Symbol problems in every output format, and citations in HTML comments not read."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree

from tests.helpers.anchors import commit, make_repo, run_cli, write

MODULE = "def helper(x):\n    return x + 1\n\n\ndef other():\n    return 2\n"
DOC = "# Doc\n\nThe helper: `pkg/m.py::helper`.\nText first. <!-- not read: pkg/m.py::other -->\n"


def _drifted(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "repo", {"pkg/m.py": MODULE, "README.md": DOC})
    assert run_cli(root, "--update").returncode == 0
    commit(root, "pin")
    write(root, "pkg/m.py", MODULE.replace("x + 1", "x + 2"))
    return root


def test_a_citation_inside_an_html_comment_is_not_read(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {"pkg/m.py": MODULE, "README.md": DOC})
    assert run_cli(root, "--update").returncode == 0
    lock = json.loads((root / "anchors/anchors.lock.json").read_text())["citations"]
    assert set(lock) == {"pkg/m.py::helper"}


def test_sarif_junit_and_github_carry_the_symbol_problem(tmp_path: Path) -> None:
    root = _drifted(tmp_path)
    sarif = run_cli(root, "--format", "sarif")
    assert sarif.returncode == 9
    [result] = json.loads(sarif.stdout)["runs"][0]["results"]
    assert result["ruleId"] == "anchors/drift"
    assert "pkg/m.py::helper" in result["message"]["text"]
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "README.md"
    assert location["region"]["startLine"] == 3
    junit = run_cli(root, "--format", "junit")
    assert junit.returncode == 9
    cases = {c.get("name"): c for c in ElementTree.fromstring(junit.stdout).iter("testcase")}
    assert cases["pkg/m.py::helper"].find("failure") is not None
    github = run_cli(root, "--format", "github")
    assert github.returncode == 9
    assert "::error file=README.md,line=3" in github.stdout
    assert "pkg/m.py::helper" in github.stdout
