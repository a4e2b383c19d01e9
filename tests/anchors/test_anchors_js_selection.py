"""Reading a JavaScript lock reproduces that checker's document selection."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers import js_checkout
from tests.helpers.anchors import SOURCE, check_json, make_repo, reference_hash, write

JS_CHECKER = (js_checkout() or Path("/nonexistent")) / "scripts" / "check-anchors.mjs"


def js_repo(tmp_path: Path) -> Path:
    lines = SOURCE.split("\n")
    repo = make_repo(
        tmp_path / "repo",
        {
            "src/app.py": SOURCE,
            "docs/a.md": "src/app.py:3\n",
            # Our defaults exclude venv/; the JavaScript checker scans it.
            "venv/notes.md": "src/app.py:5\n",
            "pyproject.toml": '[tool.zodyssey]\ndocuments = ["docs/**/*.md"]\n',
        },
    )
    lock = {
        "_comment": "written by scripts/check-anchors.mjs",
        "exempt": [],
        "citations": {
            "src/app.py:3": reference_hash(lines[2:3]),
            "src/app.py:5": reference_hash(lines[4:5]),
        },
    }
    write(repo, "scripts/anchors.lock.json", json.dumps(lock, indent=2) + "\n")
    return repo


def test_javascript_lock_scans_what_the_javascript_checker_scans(tmp_path: Path) -> None:
    repo = js_repo(tmp_path)
    code, payload = check_json(repo, "--lock", "scripts/anchors.lock.json")
    assert code == 0, payload
    assert payload["documents"] == 2 and payload["checked"] == 2
    write(repo, "src/app.py", SOURCE.replace("return 5\n", "return -5\n"))
    code, payload = check_json(repo, "--lock", "scripts/anchors.lock.json")
    assert code == 9, "the JavaScript checker fails this; so must we"
    assert [p["sites"][0]["doc"] for p in payload["problems"]] == ["venv/notes.md"]


def test_our_lock_keeps_our_defaults(tmp_path: Path) -> None:
    repo = js_repo(tmp_path)
    code, payload = check_json(repo, "--update")
    assert code == 0
    assert payload["documents"] == 1, "our own configuration: docs/ only"


@pytest.mark.skipif(
    shutil.which("node") is None or not JS_CHECKER.is_file(),
    reason="no JavaScript checker: set ZODYSSEY_JS_CHECKOUT to a checkout of it, and install node",
)
def test_agrees_with_the_javascript_checker_itself(tmp_path: Path) -> None:
    repo = js_repo(tmp_path)
    write(repo, "src/app.py", SOURCE.replace("return 5\n", "return -5\n"))
    theirs = subprocess.run(
        ["node", str(JS_CHECKER), "--root", str(repo)], capture_output=True, text=True
    )
    assert theirs.returncode == 9 and "src/app.py:5" in theirs.stderr
    code, _ = check_json(repo, "--lock", "scripts/anchors.lock.json")
    assert code == theirs.returncode
