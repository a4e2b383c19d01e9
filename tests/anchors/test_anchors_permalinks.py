"""Commit-sha permalinks are checked against that commit, never the work tree (issue 23, 8).

`https://github.com/o/r/blob/<sha>/src/a.py#L5` says what line 5 read at
that commit. The repositories here have two commits where line 5 differs.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.anchors import SOURCE, check_json, commit, git, kinds, make_repo, run_cli, write
from tests.helpers.anchors import reference_hash as line_hash

LOCK = "anchors/anchors.lock.json"
URL = "https://github.com/o/r/blob"


@pytest.fixture
def two(tmp_path: Path) -> tuple[Path, str, str]:
    """A repository whose src/a.py gained a line at the top in its second commit."""
    root = make_repo(tmp_path / "repo", {"src/a.py": SOURCE, "docs/.keep": ""})
    git(root, "remote", "add", "origin", "https://github.com/o/r.git")
    first = git(root, "rev-parse", "HEAD").strip()
    write(root, "src/a.py", "# header\n" + SOURCE)
    commit(root, "header")
    second = git(root, "rev-parse", "HEAD").strip()
    return root, first, second


def line_at(root: Path, sha: str, number: int) -> str:
    return git(root, "show", f"{sha}:src/a.py").split("\n")[number - 1]


def lock(root: Path) -> dict[str, str]:
    citations: dict[str, str] = json.loads((root / LOCK).read_text())["citations"]
    return citations


@pytest.mark.parametrize("length", [40, 12, 7], ids=["full", "short12", "short7"])
def test_a_permalink_is_pinned_at_its_commit(two: tuple[Path, str, str], length: int) -> None:
    root, first, _ = two
    sha = first[:length]
    write(root, "docs/a.md", f"See [step 5]({URL}/{sha}/src/a.py#L5).\n")
    done = run_cli(root, "--update")
    assert done.returncode == 0, done.stdout + done.stderr
    pins = lock(root)
    assert list(pins) == [f"src/a.py@{sha}:5"]
    assert line_at(root, first, 5) != (root / "src/a.py").read_text().split("\n")[4]
    assert pins[f"src/a.py@{sha}:5"] == line_hash([line_at(root, first, 5)])
    assert run_cli(root).returncode == 0


def test_editing_the_work_tree_leaves_a_permalink_alone(two: tuple[Path, str, str]) -> None:
    root, first, _ = two
    write(root, "docs/a.md", f"See src/a.py:5 and {URL}/{first}/src/a.py#L5-L6.\n")
    assert run_cli(root, "--update").returncode == 0
    assert sorted(lock(root)) == ["src/a.py:5", f"src/a.py@{first}:5-6"]
    write(root, "src/a.py", (root / "src/a.py").read_text().replace("return 4\n", "return 44\n"))
    code, payload = check_json(root)
    assert code == 9
    assert kinds(payload) == {"drift": ["src/a.py:5"]}  # the permalink stays true


def test_a_branch_blob_url_is_still_the_work_tree(two: tuple[Path, str, str]) -> None:
    root, _, _ = two
    write(root, "docs/a.md", f"See {URL}/main/src/a.py#L5.\n")
    assert run_cli(root, "--update").returncode == 0
    assert list(lock(root)) == ["src/a.py:5"]


def test_a_commit_missing_from_a_shallow_clone_is_unverifiable(
    two: tuple[Path, str, str], tmp_path: Path
) -> None:
    root, first, _ = two
    write(root, "docs/a.md", f"See {URL}/{first[:10]}/src/a.py#L5.\n")
    assert run_cli(root, "--update").returncode == 0
    commit(root, "cite")
    clone = tmp_path / "shallow"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", f"file://{root}", str(clone)],
        check=True,
        capture_output=True,
    )
    code, payload = check_json(clone)
    assert code == 9
    assert kinds(payload) == {"unverifiable": [f"src/a.py@{first[:10]}:5"]}
    detail = payload["problems"][0]["detail"]
    assert f"commit {first[:10]} is not in this clone" in detail
    assert "never compared with the work tree" in detail


def test_a_permalink_without_git_is_unverifiable(
    two: tuple[Path, str, str], tmp_path: Path
) -> None:
    root, first, _ = two
    write(root, "docs/a.md", f"See {URL}/{first}/src/a.py#L5.\n")
    assert run_cli(root, "--update").returncode == 0
    bare = tmp_path / "exported"
    shutil.copytree(root, bare, ignore=shutil.ignore_patterns(".git"))
    code, payload = check_json(bare)
    assert code == 9
    assert kinds(payload) == {"unverifiable": [f"src/a.py@{first}:5"]}


def test_a_path_absent_at_the_commit_is_unverifiable(two: tuple[Path, str, str]) -> None:
    root, first, _ = two
    write(root, "src/new.py", SOURCE)
    commit(root, "new file")
    write(root, "docs/a.md", f"See {URL}/{first}/src/new.py#L5.\n")
    done = run_cli(root, "--update")
    assert done.returncode == 9
    code, payload = check_json(root)
    assert code == 9
    assert kinds(payload) == {"unverifiable": [f"src/new.py@{first}:5"]}
    assert f"src/new.py does not exist at commit {first}" in payload["problems"][0]["detail"]


def test_fix_never_re_points_a_permalink(two: tuple[Path, str, str]) -> None:
    # A pin that disagrees with the commit (here: edited by hand to line 7's
    # content, which sits two lines further down at that commit): drift, never
    # `moved`, and --fix leaves the link as written.
    root, first, _ = two
    text = f"See {URL}/{first}/src/a.py#L5.\n"
    write(root, "docs/a.md", text)
    assert run_cli(root, "--update").returncode == 0
    pins = json.loads((root / LOCK).read_text())
    key = f"src/a.py@{first}:5"
    pins["citations"][key] = line_hash([line_at(root, first, 7)])
    pins.get("evidence", {}).pop(key, None)
    (root / LOCK).write_text(json.dumps(pins, indent=2, sort_keys=True) + "\n")
    code, payload = check_json(root)
    assert code == 9
    assert kinds(payload) == {"drift": [key]}
    fixed = run_cli(root, "--fix")
    assert fixed.returncode == 9
    assert (root / "docs/a.md").read_text() == text


# --- --history judges permalinks as the lock does (issue 23, item 8) ---


def verdicts(payload: dict[str, Any], keys: list[str]) -> dict[str, str]:
    """Each key's verdict in a JSON report of either mode (`ok` when no problem names it)."""
    found = {p["key"]: p["kind"] for p in payload["problems"] + payload.get("unknown", [])}
    return {key: found.get(key, "ok") for key in keys}


@pytest.mark.claim("permalink-history-agrees")
def test_history_judges_a_permalink_at_its_commit_never_moved(two: tuple[Path, str, str]) -> None:
    # The work tree shifted line 5 down twice (a header, then two more lines):
    # a plain citation would be `moved`; the permalink still says what line 5
    # read at its commit, so history calls it ok and --fix leaves it as written.
    root, first, _ = two
    text = f"See [step 5]({URL}/{first}/src/a.py#L5).\n"
    write(root, "docs/a.md", text)
    commit(root, "cite")
    write(root, "src/a.py", "# one\n# two\n" + (root / "src/a.py").read_text())
    commit(root, "shift")
    code, payload = check_json(root, "--history")
    assert code == 0, payload
    assert payload["counts"]["ok"] == 1 and payload["problems"] == [], payload
    fixed = run_cli(root, "--history", "--fix")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert (root / "docs/a.md").read_text() == text


@pytest.fixture
def permalinks(two: tuple[Path, str, str]) -> tuple[Path, str, list[str]]:
    """A committed document citing, at the first commit: a line (full and short sha),
    a range, a blank line, a line past the end, a path absent then, an unknown commit."""
    root, first, second = two
    write(root, "src/blank.py", "x = 1\n\ny = 2\n")
    third = commit(root, "blank")
    cites = [
        (first, "src/a.py", "L5", f"src/a.py@{first}:5"),
        (first[:7], "src/a.py", "L7", f"src/a.py@{first[:7]}:7"),
        (second, "src/a.py", "L2-L4", f"src/a.py@{second}:2-4"),
        (third, "src/blank.py", "L2", f"src/blank.py@{third}:2"),
        (first, "src/a.py", "L40", f"src/a.py@{first}:40"),
        (first, "src/blank.py", "L1", f"src/blank.py@{first}:1"),
        ("abcdef1234", "src/a.py", "L3", "src/a.py@abcdef1234:3"),
    ]
    write(root, "docs/a.md", "".join(f"See {URL}/{s}/{p}#{n}.\n" for s, p, n, _ in cites))
    assert run_cli(root, "--update").returncode == 9  # four cannot be pinned
    commit(root, "cite")
    return root, first, [key for *_, key in cites]


EXPECTED = ["ok", "ok", "ok", "contentless", "out-of-range", "unverifiable", "unverifiable"]


@pytest.mark.claim("permalink-history-agrees")
def test_history_and_the_lock_agree_on_permalinks(
    permalinks: tuple[Path, str, list[str]],
) -> None:
    root, _, keys = permalinks
    code, checked = check_json(root)
    history_code, history = check_json(root, "--history")
    assert verdicts(checked, keys) == dict(zip(keys, EXPECTED, strict=True)), checked
    assert verdicts(history, keys) == verdicts(checked, keys), history
    assert code == history_code == 9
    details = {p["key"]: p["detail"] for p in history["problems"]}
    assert "src/blank.py does not exist at commit" in details[keys[5]]
    assert "commit abcdef1234 is not in this clone" in details[keys[6]]
    assert "has 31 lines" in details[keys[4]]  # 30 lines and the empty one after the last


@pytest.mark.claim("permalink-history-agrees")
def test_history_and_the_lock_agree_on_permalinks_in_a_shallow_clone(
    permalinks: tuple[Path, str, list[str]], tmp_path: Path
) -> None:
    # fetch-depth 1: the first commits are not here, so their permalinks are
    # unverifiable in both modes (never compared with the work tree).
    root, _, keys = permalinks
    clone = tmp_path / "shallow"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", f"file://{root}", str(clone)],
        check=True,
        capture_output=True,
    )
    git(clone, "remote", "set-url", "origin", "https://github.com/o/r.git")  # as CI clones it
    _, checked = check_json(clone)
    _, history = check_json(clone, "--history")
    every = dict.fromkeys(keys, "unverifiable")  # HEAD alone: every cited commit is older
    assert verdicts(checked, keys) == every, checked
    assert verdicts(history, keys) == every, history


@pytest.mark.claim("permalink-history-agrees")
def test_a_lock_seeded_from_history_pins_permalinks_as_update_does(
    permalinks: tuple[Path, str, list[str]],
) -> None:
    root, _, keys = permalinks
    updated = json.loads((root / LOCK).read_text())
    seeded = run_cli(root, "--update", "--from-history")
    assert seeded.returncode == 9, seeded.stdout + seeded.stderr  # the same four unpinned
    lock_now = json.loads((root / LOCK).read_text())
    for field in ("citations", "spans", "evidence"):
        assert lock_now.get(field, {}) == updated.get(field, {}), field
    assert sorted(lock_now["citations"]) == sorted(keys[:3])
