"""`--suggest-symbols` lists line citations naming one definition; `--fix --to-symbols` rewrites them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers.anchors import check_json, commit, make_repo, run_cli, write

MODULE = """import os


class Checker:
    def run(self):
        return 1

    def other(self):
        return 2


def helper(x):
    return x + 1
"""
# line 4: class Checker (4-9); 5-6 run; 8-9 other; 12-13 helper
DOC = """# Doc

- exact span: pkg/m.py:5-6
- the def line: pkg/m.py:12
- code span form: `pkg/m.py`:8
- inside a body only: pkg/m.py:6
- two definitions: pkg/m.py:5-9
- a chain: pkg/m.py:12,8
- a line form: pkg/m.py:L4-L9
"""


def _repo(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "repo", {"pkg/m.py": MODULE, "README.md": DOC})
    proc = run_cli(root, "--update")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    commit(root, "pin")
    return root


def test_suggestions_name_exactly_one_definition(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    proc = run_cli(root, "--suggest-symbols", "--json")
    assert proc.returncode == 0, proc.stderr
    rows = {(r["line"], r["cited_as"]): r for r in json.loads(proc.stdout)["suggestions"]}
    forms = {key: row["symbol_form"] for key, row in rows.items()}
    assert forms == {
        (3, "pkg/m.py:5-6"): "pkg/m.py::Checker.run",
        (4, "pkg/m.py:12"): "pkg/m.py::helper",
        (5, "pkg/m.py:8"): "pkg/m.py::Checker.other",
        (8, "pkg/m.py:12"): "pkg/m.py::helper",
        (8, "pkg/m.py:8"): "pkg/m.py::Checker.other",
        (9, "pkg/m.py:4-9"): "pkg/m.py::Checker",
    }
    assert not rows[(8, "pkg/m.py:12")]["rewritable"]
    assert "chain" in rows[(8, "pkg/m.py:12")]["why_not"]
    text = run_cli(root, "--suggest-symbols")
    assert "README.md:3: `pkg/m.py:5-6` -> `pkg/m.py::Checker.run`" in text.stdout


def test_to_symbols_rewrites_pins_and_the_check_passes(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    dry = run_cli(root, "--fix", "--to-symbols", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "+- exact span: pkg/m.py::Checker.run" in dry.stdout
    assert (root / "README.md").read_text() == DOC
    proc = run_cli(root, "--fix", "--to-symbols")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    text = (root / "README.md").read_text()
    assert "- exact span: pkg/m.py::Checker.run\n" in text
    assert "- the def line: pkg/m.py::helper\n" in text
    assert "- code span form: `pkg/m.py::Checker.other`\n" in text
    assert "- a line form: pkg/m.py::Checker\n" in text
    assert "- a chain: pkg/m.py:12,8\n" in text  # left: part of a chain
    assert "- inside a body only: pkg/m.py:6\n" in text
    lock = json.loads((root / "anchors/anchors.lock.json").read_text())["citations"]
    assert "pkg/m.py::Checker.run" in lock and "pkg/m.py:5-6" not in lock
    assert "pkg/m.py:12" in lock  # still cited by the chain
    # Now the definitions move and nothing is found; the doc stays as it is.
    write(
        root, "pkg/m.py", "# header\n\n" + MODULE.replace("import os\n", "import os\nimport re\n")
    )
    _, payload = check_json(root)
    keys = {p["key"] for p in payload["problems"]}
    assert keys, "the line citations left over moved"
    assert not any("::" in key for key in keys), payload["problems"]


def test_a_citation_with_a_problem_is_not_rewritten(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    write(root, "pkg/m.py", MODULE.replace("def helper(x):", "def helper(x, y=0):"))
    proc = run_cli(root, "--fix", "--to-symbols")
    text = (root / "README.md").read_text()
    # the cited def line changed: its citations keep their form (the drift is theirs to settle)
    assert "- the def line: pkg/m.py:12\n" in text
    assert "pkg/m.py::helper" not in text
    assert "- exact span: pkg/m.py::Checker.run\n" in text
    assert "it has a problem now" in proc.stderr
    assert proc.returncode == 9


def test_to_symbols_needs_fix_and_suggest_lists_only(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    assert run_cli(root, "--to-symbols").returncode == 2
    assert run_cli(root, "--suggest-symbols", "--update").returncode == 2
    assert run_cli(root, "--suggest-symbols", "--format", "sarif").returncode == 2
