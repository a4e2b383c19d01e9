"""Drift shows before and after: what the pinned line said (kept in the lock, or read
from git's version the lock was pinned against) next to what it reads now, in every
format a reader meets it in.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers import js_checkout, run_zodyssey
from tests.helpers.anchors import check_json, commit, git, make_repo, run_cli, write

CODE = "def one():\n    return 1\n\n\ndef two():\n    return   2\n"
DOC = "# A\n\nTwo returns at `src/m.py:6`, both at src/m.py:5-6.\n"
BEFORE = "when pinned it read: return 2"
JS_CHECKER = (js_checkout() or Path("/nonexistent")) / "scripts" / "check-anchors.mjs"


def pinned(root: Path, *, git_repo: bool = True) -> Path:
    files = {"src/m.py": CODE, "docs/a.md": DOC}
    if git_repo:
        repo = make_repo(root, files, commit=False)
    else:
        for rel, text in files.items():
            write(root, rel, text)
        repo = root
    done = run_cli(repo, "--update")
    assert done.returncode == 0, done.stdout + done.stderr
    return repo


def lock_of(repo: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads((repo / "anchors/anchors.lock.json").read_text())
    return data


def test_lock_keeps_what_each_span_said(tmp_path: Path) -> None:
    repo = pinned(tmp_path / "r")
    said = lock_of(repo)["said"]
    assert said == {"src/m.py:6": "return 2", "src/m.py:5-6": "def two():\nreturn 2"}


def test_drift_says_what_the_line_read_from_the_lock_without_git(tmp_path: Path) -> None:
    repo = pinned(tmp_path / "plain", git_repo=False)  # no git: only the lock can tell
    write(repo, "src/m.py", CODE.replace("return   2", "return 3"))
    code, payload = check_json(repo)
    assert code == 9
    by_key = {p["key"]: p for p in payload["problems"]}
    line = by_key["src/m.py:6"]
    assert line["was_reads"] == "return 2"
    assert line["now_reads"] == "return 3"
    assert "now reads: return 3; " + BEFORE in line["detail"]
    assert by_key["src/m.py:5-6"]["was_reads"] == "return 2"  # the changed line of the range
    text = run_cli(repo)
    assert BEFORE in text.stdout and "now reads: return 3" in text.stdout


def test_git_supplies_it_for_a_lock_without_text(tmp_path: Path) -> None:
    """A JavaScript checker's lock keeps hashes only: git's pinned version answers."""
    repo = pinned(tmp_path / "r")
    lock = lock_of(repo)
    js_lock = {"_comment": "js", "exempt": [], "citations": lock["citations"]}
    (repo / "anchors/anchors.lock.json").write_text(json.dumps(js_lock, indent=2) + "\n")
    commit(repo, "pinned by the JavaScript checker")
    write(repo, "src/m.py", CODE.replace("return   2", "return 3"))
    code, payload = check_json(repo)
    assert code == 9
    [line] = [p for p in payload["problems"] if p["key"] == "src/m.py:6"]
    assert line["was_reads"] == "return   2".strip()


def test_text_that_no_longer_hashes_to_the_pin_is_never_shown(tmp_path: Path) -> None:
    repo = pinned(tmp_path / "plain", git_repo=False)
    lock = lock_of(repo)
    said = lock["said"]
    assert isinstance(said, dict)
    said["src/m.py:6"] = "return 99"  # a hand edit: not what was pinned
    (repo / "anchors/anchors.lock.json").write_text(json.dumps(lock, indent=2) + "\n")
    write(repo, "src/m.py", CODE.replace("return   2", "return 3"))
    _code, payload = check_json(repo)
    [line] = [p for p in payload["problems"] if p["key"] == "src/m.py:6"]
    assert line["was_reads"] is None
    assert "99" not in line["detail"]


def test_every_format_shows_before_and_after(tmp_path: Path) -> None:
    repo = pinned(tmp_path / "r")
    commit(repo, "pinned")
    git(repo, "checkout", "-q", "-b", "change")
    write(repo, "src/m.py", CODE.replace("return   2", "return 3"))
    commit(repo, "change two")
    for fmt in ("text", "markdown", "html", "rdjson", "sarif", "junit"):
        done = run_cli(repo, "--format", fmt)
        assert done.returncode == 9, fmt
        assert "return 2" in done.stdout and "return 3" in done.stdout, (fmt, done.stdout)
    env = {"ZODYSSEY_DIFF_BASE": "main"}
    done = run_zodyssey("anchors", "check", "--format", "github", cwd=repo, env=env)
    cited = [line for line in done.stdout.splitlines() if line.startswith("::error file=src/m.py")]
    assert cited, done.stdout
    assert all("When pinned it read: return 2%0ANow it reads: return 3" in c for c in cited)
    whole = run_zodyssey("check", "--format", "rdjson", cwd=repo)
    assert BEFORE in whole.stdout


def test_fix_and_update_keep_the_text_in_step(tmp_path: Path) -> None:
    repo = pinned(tmp_path / "r")
    commit(repo, "pinned")
    write(repo, "src/m.py", "# header\n" + CODE)
    assert run_cli(repo, "--fix").returncode == 0
    said = lock_of(repo)["said"]
    assert said == {"src/m.py:7": "return 2", "src/m.py:6-7": "def two():\nreturn 2"}
    write(repo, "src/m.py", "# header\n" + CODE.replace("return   2", "return 3"))
    assert run_cli(repo, "--update").returncode == 0
    assert lock_of(repo)["said"] == {
        "src/m.py:7": "return 3",
        "src/m.py:6-7": "def two():\nreturn 3",
    }


def test_the_javascript_checker_shape_stays_without_text(tmp_path: Path) -> None:
    """--fix keeps a JavaScript checker's lock in its shape: no `said` added."""
    repo = pinned(tmp_path / "r")
    lock = lock_of(repo)
    js_lock = {"_comment": "js", "exempt": [], "citations": lock["citations"]}
    (repo / "anchors/anchors.lock.json").write_text(json.dumps(js_lock, indent=2) + "\n")
    commit(repo, "js lock")
    other = tmp_path / "copy"
    shutil.copytree(repo, other)
    write(other, "src/m.py", "# header\n" + CODE)
    assert run_cli(other, "--fix").returncode == 0
    assert "said" not in lock_of(other)


@pytest.mark.skipif(
    shutil.which("node") is None or not JS_CHECKER.is_file(),
    reason="no JavaScript checker: set ZODYSSEY_JS_CHECKOUT to a checkout of it, and install node",
)
def test_the_javascript_checker_reads_a_lock_with_text(tmp_path: Path) -> None:
    """Our lock with `said`, where that checker keeps its lock: it verifies it as its own."""
    repo = make_repo(tmp_path / "r", {"src/m.py": CODE, "docs/a.md": DOC}, commit=False)
    done = run_cli(repo, "--lock", str(repo / "scripts/anchors.lock.json"), "--update")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "said" in json.loads((repo / "scripts/anchors.lock.json").read_text())

    def theirs() -> int:
        return subprocess.run(
            ["node", str(JS_CHECKER), "--root", str(repo)], capture_output=True, text=True
        ).returncode

    assert theirs() == 0
    write(repo, "src/m.py", CODE.replace("return   2", "return 3"))
    assert theirs() == 9
