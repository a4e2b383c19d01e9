"""`zodyssey init` in a repository that already has the JavaScript checker's lock."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers import js_checkout, run_zodyssey
from tests.helpers.anchors import SOURCE, make_repo, reference_hash, run_cli, write

JS_CHECKER = (js_checkout() or Path("/nonexistent")) / "scripts" / "check-anchors.mjs"


def js_repo(tmp_path: Path, citations: int = 120) -> Path:
    source = "".join(f"export const step{i} = () => {i};\n" for i in range(citations))
    lines = source.split("\n")
    doc = "".join(f"- src/steps.ts:{i + 1}\n" for i in range(citations))
    repo = make_repo(
        tmp_path / "repo",
        {"src/steps.ts": source, "src/app.py": SOURCE, "docs/steps.md": doc + "Example: x.py:9\n"},
    )
    lock = {
        "_comment": "written by scripts/check-anchors.mjs",
        "exempt": ["x.py:9"],
        "citations": {
            f"src/steps.ts:{i + 1}": reference_hash(lines[i : i + 1]) for i in range(citations)
        },
    }
    write(repo, "scripts/anchors.lock.json", json.dumps(lock, indent=2) + "\n")
    return repo


def test_init_adopts_the_javascript_lock(tmp_path: Path) -> None:
    repo = js_repo(tmp_path)
    before = (repo / "scripts/anchors.lock.json").read_bytes()
    done = run_zodyssey("init", cwd=repo, env={"NO_COLOR": "1"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert 'lock = "scripts/anchors.lock.json"' in (repo / ".zodyssey.toml").read_text()
    assert (repo / "scripts/anchors.lock.json").read_bytes() == before, "every pin kept"
    assert not (repo / "anchors/anchors.lock.json").exists()
    assert not (repo / "docs/zodyssey.md").exists()
    assert (
        "pin them deliberately" not in done.stdout and "check-anchors --update`" not in done.stdout
    )
    check = run_cli(repo)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "the 120 checked match the lock" in check.stdout


@pytest.mark.skipif(
    shutil.which("node") is None or not JS_CHECKER.is_file(),
    reason="no JavaScript checker: set ZODYSSEY_JS_CHECKOUT to a checkout of it, and install node",
)
def test_init_does_not_break_the_javascript_checker(tmp_path: Path) -> None:
    repo = js_repo(tmp_path, 5)
    assert run_zodyssey("init", cwd=repo, env={"NO_COLOR": "1"}).returncode == 0
    theirs = subprocess.run(
        ["node", str(JS_CHECKER), "--root", str(repo)], capture_output=True, text=True
    )
    assert theirs.returncode == 0, theirs.stdout + theirs.stderr


def test_init_counts_citations_as_the_check_does(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "repo",
        {"a.py": "x = 1\ny = 2\n", "README.md": "a.py:1 and again a.py:1, a.py:2\n"},
    )
    done = run_zodyssey("init", cwd=repo, env={"NO_COLOR": "1"})
    assert done.returncode == 0
    assert "2 citation(s) in your other documents are not pinned" in done.stdout
