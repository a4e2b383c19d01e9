"""`check-anchors --history` judges a symbol citation by name, then and now."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers.anchors import commit, make_repo, run_cli, write

MODULE = "def first():\n    return 1\n\n\ndef second():\n    return 2\n"
DOC = "Both: `pkg/m.py::first`, `pkg/m.py::second`.\n"


def _history(root: Path, *args: str) -> dict[str, str]:
    proc = run_cli(root, "--history", "--json", *args)
    assert proc.stdout, proc.stderr
    payload = json.loads(proc.stdout)
    found = {}
    for problem in payload["problems"]:
        found[problem["cited_as"]] = problem["kind"]
    return found


def test_a_moved_symbol_is_ok_and_a_changed_one_drift_in_history(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {"pkg/m.py": MODULE, "README.md": DOC})
    # Moved (second first, lines above) and first's body changed, committed after the doc.
    write(
        root,
        "pkg/m.py",
        "# top\n\n" + MODULE.split("\n\n\n")[1] + "\n\n\n" + "def first():\n    return 10\n",
    )
    commit(root, "reorder and change first")
    proc = run_cli(root, "--history", "--json")
    payload = json.loads(proc.stdout)
    kinds = {p["cited_as"]: p["kind"] for p in payload["problems"]}
    assert kinds == {"pkg/m.py::first": "drift"}, payload
    detail = next(p["detail"] for p in payload["problems"])
    assert "+    return 10" in detail
    assert proc.returncode == 9


def test_a_deleted_symbol_is_gone_in_history(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {"pkg/m.py": MODULE, "README.md": DOC})
    write(root, "pkg/m.py", "def first():\n    return 1\n")
    commit(root, "drop second")
    kinds = _history(root)
    assert kinds == {"pkg/m.py::second": "gone"}
