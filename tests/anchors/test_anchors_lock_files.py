"""The lock file itself: wrong shapes, non-files, links and foreign rewrites (issue 23, 6 and 9)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.helpers.anchors import SOURCE, commit, make_repo, run_cli, write

LOCK = "anchors/anchors.lock.json"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", {"src/a.py": SOURCE, "docs/a.md": "See src/a.py:3.\n"})


@pytest.mark.parametrize("args", [(), ("--update",)], ids=["check", "update"])
def test_a_null_citations_map_is_a_malformed_lock_never_overwritten(
    root: Path, args: tuple[str, ...]
) -> None:
    write(root, LOCK, '{"citations": null}\n')
    done = run_cli(root, *args)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "`citations` must map citation keys to hash strings (it is null)" in done.stderr
    assert "git checkout -- " in done.stderr
    assert (root / LOCK).read_text() == '{"citations": null}\n'


def test_a_lock_that_is_a_directory_says_how_to_recover(root: Path) -> None:
    (root / LOCK).mkdir(parents=True)
    done = run_cli(root)
    assert done.returncode == 2
    assert "is a directory" in done.stderr
    assert "re-baseline deliberately with `check-anchors --update`" in done.stderr


@pytest.mark.parametrize("args", [(), ("--update",)], ids=["check", "update"])
def test_a_fifo_as_the_lock_is_refused_not_waited_on(root: Path, args: tuple[str, ...]) -> None:
    (root / "anchors").mkdir()
    os.mkfifo(root / LOCK)
    done = run_cli(root, *args)  # run_zodyssey's timeout fails the test if it blocks
    assert done.returncode == 2, done.stdout + done.stderr
    assert "not a regular file" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_symlinked_lock_is_written_through(root: Path) -> None:
    shared = root / "shared" / "anchors.lock.json"
    shared.parent.mkdir()
    shared.write_text('{"citations": {}}\n')
    (root / "anchors").mkdir()
    (root / LOCK).symlink_to(Path("..") / "shared" / "anchors.lock.json")
    assert run_cli(root, "--update").returncode == 0
    assert (root / LOCK).is_symlink()
    assert "src/a.py:3" in json.loads(shared.read_text())["citations"]
    assert run_cli(root).returncode == 0


def test_a_lock_rewritten_by_another_tool_is_refused_until_committed(root: Path) -> None:
    assert run_cli(root, "--update").returncode == 0
    commit(root, "lock")
    ours = json.loads((root / LOCK).read_text())
    # What the JavaScript checker's --update leaves: its three keys only.
    foreign = {"_comment": "pins", "exempt": [], "citations": ours["citations"]}
    (root / LOCK).write_text(json.dumps(foreign, indent=2) + "\n")
    done = run_cli(root)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "has lost its fields" in done.stderr
    assert f"git checkout -- {root / LOCK}" in done.stderr
    commit(root, "hand the lock to the JavaScript checker")
    assert run_cli(root).returncode == 0


def test_a_drift_message_quotes_the_line_that_changed(root: Path) -> None:
    write(root, "docs/a.md", "See src/a.py:3-5.\n")
    assert run_cli(root, "--update").returncode == 0
    write(root, "src/a.py", SOURCE.replace("return 4", "return 44"))
    done = run_cli(root, "--json")
    payload = json.loads(done.stdout)
    detail = payload["problems"][0]["detail"]
    assert detail.startswith("the cited lines changed (line 4); line 4 now reads: def step_4():")
    assert "return 44" in detail


def test_a_deleted_file_is_not_replaced_by_one_whose_name_ends_like_it(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "repo",
        {"src/a.py": SOURCE, "src/data.py": SOURCE, "docs/a.md": "See a.py:2 and data.py:3.\n"},
    )
    assert run_cli(root, "--update").returncode == 0
    commit(root, "lock")
    (root / "src/a.py").unlink()
    commit(root, "drop a.py")
    done = run_cli(root, "--json")
    payload = json.loads(done.stdout)
    assert done.returncode == 9
    assert [(p["kind"], p["key"]) for p in payload["problems"]] == [("gone", "src/a.py:2")]
    assert "not read as a citation" not in done.stdout + done.stderr
