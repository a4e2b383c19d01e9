"""No silent skips, no vanishing pins (issue 23, items 4 and 8).

An unreadable document or folder fails the check (exit 2, naming it), run as
a user who really cannot read it; documents left out by rule are counted with
how to include them; a pinned citation whose document still exists but is no
longer scanned fails the check instead of turning "stale".
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import clean_env
from tests.helpers.anchors import SOURCE, commit, git, make_repo, run_cli, write

NOBODY = 65534


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A folder another user can enter (pytest's own tmp_path is private to root)."""
    path = Path(tempfile.mkdtemp(prefix="anchors-left-out-", dir="/tmp"))
    path.chmod(0o755)
    yield path
    for inner, dirs, _files in os.walk(path):
        for name in dirs:
            (Path(inner) / name).chmod(0o755)
    shutil.rmtree(path, ignore_errors=True)


def _as_other_user(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The check run by a user without the rights root has (dropped in the child)."""
    command = [sys.executable, "-m", "zodyssey", "anchors", "check", "--root", str(root), *args]
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root and setpriv is missing: cannot drop privileges")
        command = [
            "setpriv",
            f"--reuid={NOBODY}",
            f"--regid={NOBODY}",
            "--clear-groups",
            *command,
        ]
    home = root.parent / "home"
    home.mkdir(exist_ok=True)
    home.chmod(0o777)
    return subprocess.run(
        command,
        cwd=root,
        env=clean_env(HOME=str(home), NO_COLOR="1"),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _readable_tree(root: Path) -> None:
    for inner, dirs, files in os.walk(root):
        Path(inner).chmod(0o755)
        for name in files:
            (Path(inner) / name).chmod(0o644)
        for name in dirs:
            (Path(inner) / name).chmod(0o755)


@pytest.mark.parametrize("what", ["document", "folder"])
def test_an_unreadable_document_or_folder_fails_naming_it(shared_dir: Path, what: str) -> None:
    root = make_repo(
        shared_dir / "repo",
        {
            "src/a.py": SOURCE,
            "docs/ok.md": "See src/a.py:1.\n",
            "docs/a.md": "See src/a.py:3.\n",
            "docs/private/b.md": "See src/a.py:5.\n",
        },
    )
    assert run_cli(root, "--update").returncode == 0
    write(
        root, "src/a.py", SOURCE.replace("return 3", "return 33").replace("return 5", "return 55")
    )
    _readable_tree(root)
    # Readable to the other user, the check fails on both edits (the control).
    control = _as_other_user(root)
    assert control.returncode == 9, control.stdout + control.stderr
    hidden = root / ("docs/a.md" if what == "document" else "docs/private")
    hidden.chmod(0)
    done = _as_other_user(root)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    named = "docs/a.md" if what == "document" else "docs/private/"
    assert f"cannot read {named}" in done.stderr


def test_documents_in_hidden_folders_are_counted_and_include_checks_them(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "repo",
        {
            "src/a.py": SOURCE,
            "docs/a.md": "See src/a.py:1.\n",
            ".planning/p1.md": "Plan: src/a.py:3.\n",
            ".planning/deep/p2.md": "Plan: src/a.py:4.\n",
        },
    )
    assert run_cli(root, "--update").returncode == 0
    done = run_cli(root)
    assert done.returncode == 0
    words = " ".join(done.stdout.split())
    assert "2 document(s) left out by rule: 2 in hidden folders (.planning)" in words
    # No configuration file yet: the advice names the one zodyssey init writes.
    assert 'add include = [".planning"] under [anchors] in .zodyssey.toml' in words
    payload = json.loads(run_cli(root, "--json").stdout)
    assert payload["left_out"]["documents"] == [".planning/deep/p2.md", ".planning/p1.md"]
    write(root, "pyproject.toml", '[tool.zodyssey.anchors]\ninclude = [".planning"]\n')
    included = run_cli(root, "--json")
    payload = json.loads(included.stdout)
    assert included.returncode == 9
    assert sorted(p["key"] for p in payload["problems"]) == ["src/a.py:3", "src/a.py:4"]
    assert {p["kind"] for p in payload["problems"]} == {"unlocked"}
    assert payload["left_out"]["documents"] == []


def test_include_takes_a_glob_too(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "repo",
        {
            "src/a.py": SOURCE,
            "docs/a.md": "See src/a.py:1.\n",
            ".planning/p1.md": "Plan: src/a.py:3.\n",
            ".other/o.md": "Other: src/a.py:4.\n",
            "pyproject.toml": '[tool.zodyssey.anchors]\ninclude = [".planning/**/*.md"]\n',
        },
    )
    payload = json.loads(run_cli(root, "--json").stdout)
    assert sorted(p["key"] for p in payload["problems"]) == ["src/a.py:1", "src/a.py:3"]
    assert payload["left_out"]["documents"] == [".other/o.md"]


def _rename(root: Path) -> str:
    git(root, "mv", "docs/guide.md", "docs/guide.markdown")
    return "docs/guide.markdown"


def _hide(root: Path) -> str:
    (root / "docs/.old").mkdir()
    git(root, "mv", "docs/guide.md", "docs/.old/guide.md")
    return "docs/.old/guide.md"


def _narrow_documents(root: Path) -> str:
    write(root, "pyproject.toml", '[tool.zodyssey]\ndocuments = ["README.md"]\n')
    return "docs/guide.md"


def _exclude(root: Path) -> str:
    write(root, "pyproject.toml", '[tool.zodyssey]\nexclude = [".git", "docs"]\n')
    return "docs/guide.md"


@pytest.mark.parametrize(
    "change", [_rename, _hide, _narrow_documents, _exclude], ids=lambda f: f.__name__[1:]
)
def test_a_pin_never_vanishes_with_its_document(tmp_path: Path, change: object) -> None:
    root = make_repo(
        tmp_path / "repo",
        {"src/a.py": SOURCE, "README.md": "Start: src/a.py:1.\n", "docs/guide.md": "src/a.py:3\n"},
    )
    assert run_cli(root, "--update").returncode == 0
    write(root, "src/a.py", SOURCE.replace("return 3", "return 33"))
    commit(root, "edit the cited line")
    doc = change(root)  # type: ignore[operator]
    done = run_cli(root, "--json")
    payload = json.loads(done.stdout)
    assert done.returncode == 9, payload
    assert [(p["kind"], p["key"], p["where"]) for p in payload["problems"]] == [
        ("unscanned", "src/a.py:3", f"{doc}:1")
    ]
    table = (
        "[tool.zodyssey.anchors] in pyproject.toml"
        if (root / "pyproject.toml").exists()
        else "[anchors] in .zodyssey.toml"
    )
    assert f'include = ["{doc}"] under {table}' in payload["problems"][0]["detail"]
    # --update keeps the pin and fails too: the document still cites it.
    update = run_cli(root, "--update")
    assert update.returncode == 9
    lock = json.loads((root / "anchors/anchors.lock.json").read_text())
    assert "src/a.py:3" in lock["citations"]
