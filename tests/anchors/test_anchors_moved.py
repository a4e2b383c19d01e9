"""Moved versus drift, and --fix: insertions, edits, git renames, byte-identical rewrites."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers.anchors import SOURCE, check_json, commit, git, kinds, run_cli, write

DOC = (
    "# Notes\r\n"  # a CRLF line: --fix must keep it
    "Chain `src/app.py:3,5-6/:8` and later :10, trailing text \u2013 unicode.\n"
    "Link [loop](../src/app.py#L12-L13) and src/app.py:20 - 21.\n"
    "Unrelated 12:30 and `app.py:29` stays.\n"
)


def pin(repo: Path) -> None:
    write(repo, "docs/notes.md", DOC)
    proc = run_cli(repo, "--update")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    commit(repo, "docs")


def insert_lines(repo: Path, count: int, at: int = 0) -> None:
    lines = SOURCE.splitlines(keepends=True)
    lines[at:at] = [f"# inserted {i}\n" for i in range(count)]
    write(repo, "src/app.py", "".join(lines))


def test_insertion_above_is_moved_not_drift(repo: Path) -> None:
    pin(repo)
    insert_lines(repo, 2)
    code, payload = check_json(repo)
    assert code == 9
    found = kinds(payload)
    assert set(found) == {"moved"}
    moved = {p["key"]: p["moved_to"] for p in payload["problems"]}
    assert moved["src/app.py:3"] == {
        "path": "src/app.py",
        "start": 5,
        "end": 5,
        "key": "src/app.py:5",
    }
    assert moved["src/app.py:12-13"]["key"] == "src/app.py:14-15"
    assert moved["src/app.py:29"]["start"] == 31  # cited by basename, moved all the same
    assert len(moved) == 7  # 3, 5-6, 8, 10, 12-13, 20-21, 29


def test_edit_in_place_is_drift(repo: Path) -> None:
    pin(repo)
    write(repo, "src/app.py", SOURCE.replace("return 3\n", "return -3\n"))
    code, payload = check_json(repo)
    assert code == 9
    assert kinds(payload) == {"drift": ["src/app.py:3"]}
    assert payload["problems"][0]["moved_to"] is None
    assert "return -3" in payload["problems"][0]["now_reads"]


def test_duplicated_content_is_not_moved(repo: Path) -> None:
    pin(repo)
    lines = SOURCE.splitlines(keepends=True)
    # Line 20 now appears twice elsewhere: the relocation is not unique, so it stays drift.
    lines[19] = "changed = True\n"
    lines.insert(0, "def step_20():  return 20\n")
    lines.insert(0, "def step_20():  return 20\n")
    write(repo, "src/app.py", "".join(lines))
    code, payload = check_json(repo)
    assert code == 9
    assert "src/app.py:20-21" in kinds(payload)["drift"]


def test_fix_round_trip_changes_only_the_numbers(repo: Path) -> None:
    pin(repo)
    insert_lines(repo, 3, at=1)  # line 1 stays, everything below moves by 3
    before = (repo / "docs/notes.md").read_bytes()
    dry = run_cli(repo, "--fix", "--dry-run")
    assert dry.returncode == 9
    assert (repo / "docs/notes.md").read_bytes() == before  # nothing written
    assert "-Chain `src/app.py:3,5-6/:8` and later :10" in dry.stdout
    assert "+Chain `src/app.py:6,8-9/:11` and later :13" in dry.stdout
    lock_before = (repo / "anchors/anchors.lock.json").read_text()
    proc = run_cli(repo, "--fix")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    after = (repo / "docs/notes.md").read_bytes()
    expected = (
        DOC.replace("app.py:3,5-6/:8` and later :10", "app.py:6,8-9/:11` and later :13")
        .replace("#L12-L13", "#L15-L16")
        .replace("src/app.py:20 - 21", "src/app.py:23 - 24")
        .replace("`app.py:29`", "`app.py:32`")
    ).encode()
    assert after == expected
    assert b"\r\n" in after and b"12:30" in after
    lock = json.loads((repo / "anchors/anchors.lock.json").read_text())
    assert "src/app.py:6" in lock["citations"] and "src/app.py:3" not in lock["citations"]
    assert lock["citations"]["src/app.py:6"] == json.loads(lock_before)["citations"]["src/app.py:3"]
    assert run_cli(repo, "--strict").returncode == 0


def test_fix_never_touches_drift(repo: Path) -> None:
    pin(repo)
    write(repo, "src/app.py", SOURCE.replace("return 3\n", "return -3\n"))
    before = (repo / "docs/notes.md").read_bytes()
    proc = run_cli(repo, "--fix")
    assert proc.returncode == 9
    assert (repo / "docs/notes.md").read_bytes() == before


def test_git_rename_is_moved_and_fixed(repo: Path) -> None:
    pin(repo)
    git(repo, "mv", "src/app.py", "src/core.py")
    insert_lines_path = repo / "src/core.py"
    insert_lines_path.write_text("# header\n" + SOURCE)
    code, payload = check_json(repo)
    assert code == 9
    found = kinds(payload)
    assert set(found) == {"moved"}, found
    moved = {p["key"]: p["moved_to"] for p in payload["problems"]}
    assert moved["src/app.py:3"] == {
        "path": "src/core.py",
        "start": 4,
        "end": 4,
        "key": "src/core.py:4",
    }
    proc = run_cli(repo, "--fix")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    text = (repo / "docs/notes.md").read_text()
    assert "`src/core.py:4,6-7/:9` and later :11" in text
    assert "[loop](../src/core.py#L13-L14)" in text
    assert "`core.py:30`" in text
    assert run_cli(repo, "--strict").returncode == 0


def test_committed_rename_is_followed(repo: Path) -> None:
    pin(repo)
    git(repo, "mv", "src/app.py", "src/core.py")
    commit(repo, "rename")
    code, payload = check_json(repo)
    assert code == 9
    assert kinds(payload)["moved"]
    assert all(p["moved_to"]["path"] == "src/core.py" for p in payload["problems"])
