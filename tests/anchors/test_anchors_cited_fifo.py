"""A cited file that is a FIFO: one `unreadable` finding in every mode, never a hang (issue 23).

Opening a FIFO nobody writes blocks the reader forever. The walk lists only
regular files as citable, but a path git tracks (history reads the cited
file by its name at HEAD) or one replaced after the walk is opened by the
readers of cited files too: they go through `zodyssey.core.files`
(`read_regular`), which never blocks. Each test has a timeout: a reader that
blocks fails it instead of stalling the suite.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import fifo_at, run_zodyssey
from tests.helpers.anchors import SOURCE, commit, make_repo, write

LOCK = "anchors/anchors.lock.json"


def anchors(root: Path, *args: str) -> tuple[int, dict[str, Any], str]:
    done = run_zodyssey(
        "anchors", "check", "--root", str(root), "--json", *args, cwd=root, timeout=60
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stdout, done.stderr
    return done.returncode, json.loads(done.stdout), done.stderr


def findings(payload: dict[str, Any]) -> dict[str, tuple[str, str]]:
    return {
        p["cited_as"]: (p["kind"], p["detail"])
        for p in payload["problems"] + payload.get("unknown", [])
    }


@pytest.fixture
def fifo_cited(tmp_path: Path) -> Path:
    """A committed, pinned repository whose cited src/a.py is then a FIFO."""
    root = make_repo(
        tmp_path / "repo",
        {"src/a.py": SOURCE, "src/b.py": SOURCE, "docs/a.md": "See src/a.py:3 and src/b.py:4.\n"},
    )
    assert anchors(root, "--update")[0] == 0
    commit(root, "pin")
    fifo_at(root / "src/a.py")
    return root


@pytest.mark.claim("cited-fifo-unreadable")
@pytest.mark.parametrize("mode", [(), ("--fix",), ("--history",)], ids=["check", "fix", "history"])
def test_a_cited_fifo_is_one_unreadable_finding(fifo_cited: Path, mode: tuple[str, ...]) -> None:
    before = (fifo_cited / "docs/a.md").read_text()
    code, payload, _ = anchors(fifo_cited, *mode)
    assert code == 9, payload
    found = findings(payload)
    assert found["src/a.py:3"][0] == "unreadable", found
    assert "FIFO" in found["src/a.py:3"][1]
    assert "src/b.py:4" not in found  # the other citation is still judged: ok
    assert (fifo_cited / "docs/a.md").read_text() == before


@pytest.mark.claim("cited-fifo-unreadable")
def test_a_cited_fifo_under_a_symbol_citation(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "repo", {"src/a.py": SOURCE, "docs/a.md": "See src/a.py::step_4 here.\n"}
    )
    assert anchors(root, "--update")[0] == 0
    commit(root, "pin")
    fifo_at(root / "src/a.py")
    for mode in ((), ("--history",), ("--fix", "--to-symbols")):
        code, payload, _ = anchors(root, *mode)
        assert code == 9, (mode, payload)
        kind, detail = findings(payload)["src/a.py::step_4"]
        assert kind == "unreadable" and "FIFO" in detail, (mode, kind, detail)


def test_a_fifo_cited_by_lines_offered_as_symbols_does_not_hang(tmp_path: Path) -> None:
    # --fix --to-symbols reads the cited file's definitions to offer symbols.
    root = make_repo(tmp_path / "repo", {"src/a.py": SOURCE, "docs/a.md": "See src/a.py:3-4.\n"})
    assert anchors(root, "--update")[0] == 0
    fifo_at(root / "src/a.py")
    code, payload, _ = anchors(root, "--fix", "--to-symbols")
    assert code == 9, payload
    assert findings(payload)["src/a.py:3-4"][0] == "unreadable"


def test_every_reader_of_a_cited_file_refuses_a_fifo_without_waiting(tmp_path: Path) -> None:
    # The readers themselves, for a file that became a FIFO after the walk.
    from zodyssey.anchors.fingerprint import TargetFile
    from zodyssey.anchors.history.trace import _read_now
    from zodyssey.anchors.symbols.resolve import read_definitions

    from .test_anchors_non_regular import no_hang

    root = make_repo(tmp_path / "repo", {"src/a.py": SOURCE})
    fifo_at(root / "src/a.py")
    with no_hang():
        target = TargetFile.read(root, "src/a.py")
        assert target.lines is None and target.error is not None and "FIFO" in target.error
        assert read_definitions(root, "src/a.py") is None
        assert _read_now(root, "src/a.py", {}) is None
    (root / "src/a.py").unlink()
    write(root, "src/a.py", SOURCE)  # a regular file again: read as before
    assert TargetFile.read(root, "src/a.py").lines is not None
