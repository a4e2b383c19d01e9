"""Symbol citations through the real CLI, in real git repositories.

A moved symbol is found where it is now (no finding, no doc edit); a changed
body is drift with a diff against the commit that holds the pin; a deleted or
renamed symbol is `gone` / `unresolved` naming the commit git records.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers.anchors import check_json, commit, git, kinds, make_repo, run_cli, write

MODULE = """import os


class Checker:
    def run(self):
        return 1

    def other(self):
        return 2


def helper(x):
    return x + 1
"""
DOC = "See `pkg/m.py::Checker.run` and pkg/m.py::helper.\n"


def _pinned(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "repo", {"pkg/m.py": MODULE, "README.md": DOC})
    proc = run_cli(root, "--update")
    assert proc.returncode == 0, proc.stderr + proc.stdout
    commit(root, "pin")
    return root


def test_symbol_keys_are_pinned_without_line_numbers(tmp_path: Path) -> None:
    root = _pinned(tmp_path)
    lock = (root / "anchors/anchors.lock.json").read_text()
    assert '"pkg/m.py::Checker.run"' in lock
    assert '"pkg/m.py::helper"' in lock
    code, payload = check_json(root)
    assert code == 0, payload
    assert payload["checked"] == 2


def test_moved_definitions_give_no_finding_and_leave_the_doc_alone(tmp_path: Path) -> None:
    root = _pinned(tmp_path)
    moved = MODULE.replace("    def run(self):\n        return 1\n\n", "").replace(
        "        return 2\n", "        return 2\n\n    def run(self):\n        return 1\n"
    )
    # helper goes first, with lines inserted above everything
    helper = "def helper(x):\n    return x + 1\n"
    moved = "# a new header\n\n\n" + helper + "\n\n" + moved.replace(helper, "")
    write(root, "pkg/m.py", moved)
    code, payload = check_json(root)
    assert code == 0, payload["problems"]
    assert (root / "README.md").read_text() == DOC


def test_a_body_edit_is_drift_with_the_diff_against_the_pinning_commit(tmp_path: Path) -> None:
    root = _pinned(tmp_path)
    pin_commit = git(root, "log", "-1", "--format=%H", "--", "pkg/m.py").strip()
    write(root, "pkg/m.py", MODULE.replace("return 1", "return 11"))
    code, payload = check_json(root)
    assert code == 9
    assert kinds(payload) == {"drift": ["pkg/m.py::Checker.run"]}
    detail = payload["problems"][0]["detail"]
    assert pin_commit[:12] in detail
    assert "-        return 1" in detail and "+        return 11" in detail
    assert payload["problems"][0]["lines"] == [5, 6]


def test_a_deleted_symbol_is_gone_naming_the_commit(tmp_path: Path) -> None:
    root = _pinned(tmp_path)
    write(root, "pkg/m.py", MODULE.replace("def helper(x):\n    return x + 1\n", ""))
    removed = commit(root, "drop the helper")
    code, payload = check_json(root)
    assert code == 9
    assert kinds(payload) == {"gone": ["pkg/m.py::helper"]}
    detail = payload["problems"][0]["detail"]
    assert removed[:12] in detail and "drop the helper" in detail


def test_a_symbol_deleted_in_the_work_tree_says_it_is_uncommitted(tmp_path: Path) -> None:
    root = _pinned(tmp_path)
    last = git(root, "log", "-1", "--format=%H", "--", "pkg/m.py").strip()
    write(root, "pkg/m.py", MODULE.replace("def helper(x):\n    return x + 1\n", ""))
    code, payload = check_json(root)
    assert code == 9
    assert kinds(payload) == {"gone": ["pkg/m.py::helper"]}
    detail = payload["problems"][0]["detail"]
    assert "not committed" in detail and last[:12] in detail


def test_a_renamed_symbol_is_unresolved_naming_the_commit_and_the_new_name(
    tmp_path: Path,
) -> None:
    root = _pinned(tmp_path)
    write(root, "pkg/m.py", MODULE.replace("def helper(x)", "def assist(x)"))
    renamed = commit(root, "rename helper")
    code, payload = check_json(root)
    assert code == 9
    assert kinds(payload) == {"unresolved": ["pkg/m.py::helper"]}
    detail = payload["problems"][0]["detail"]
    assert renamed[:12] in detail and "`assist`" in detail
    assert "pkg/m.py::assist" in detail


def test_a_symbol_never_defined_is_unresolved_listing_what_is(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {"pkg/m.py": MODULE, "README.md": "pkg/m.py::Chekcer\n"})
    code, payload = check_json(root, "--update")
    assert code == 9
    assert kinds(payload) == {"unresolved": ["pkg/m.py::Chekcer"]}
    assert "Checker.run" in payload["problems"][0]["detail"]


def test_an_overloaded_name_is_ambiguous(tmp_path: Path) -> None:
    java = (
        "class A {\n  int f(int x) { return x; }\n  int f(String s) { return 0; }\n"
        "  int g() { return 1; }\n}\n"
    )
    root = make_repo(tmp_path / "repo", {"A.java": java, "README.md": "A.java::A.f, A.java::A.g\n"})
    code, payload = check_json(root, "--update")
    assert code == 9
    assert kinds(payload) == {"ambiguous": ["A.java::A.f"]}


def test_a_deleted_file_is_gone_naming_the_commit(tmp_path: Path) -> None:
    root = _pinned(tmp_path)
    (root / "pkg/m.py").unlink()
    removed = commit(root, "remove the module")
    code, payload = check_json(root)
    assert code == 9
    found = kinds(payload)
    assert found == {"gone": ["pkg/m.py::Checker.run", "pkg/m.py::helper"]}, payload
    assert removed[:12] in payload["problems"][0]["detail"]


def test_unlocked_symbol_citation_fails_until_pinned(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {"pkg/m.py": MODULE, "README.md": DOC})
    code, payload = check_json(root)
    assert code == 9
    assert set(kinds(payload)) == {"unlocked"}


def test_under_a_javascript_lock_symbol_citations_are_notes(tmp_path: Path) -> None:
    """The JS checker has no symbol form: its lock cannot hold one (a note, not a failure)."""
    root = make_repo(
        tmp_path / "repo",
        {
            "pkg/m.py": MODULE,
            "README.md": DOC + "and pkg/m.py:12\n",
            "anchors/anchors.lock.json": "{}\n",
        },
    )
    # A JavaScript lock: no `format`, no spans; it pins the line citation only.
    from tests.helpers.anchors import reference_hash

    pin = reference_hash(MODULE.split("\n")[11:12])
    write(root, "anchors/anchors.lock.json", json.dumps({"citations": {"pkg/m.py:12": pin}}))
    code, payload = check_json(root)
    assert code == 0, payload
    assert {n["key"] for n in payload["notes"]} == {"pkg/m.py::Checker.run", "pkg/m.py::helper"}
