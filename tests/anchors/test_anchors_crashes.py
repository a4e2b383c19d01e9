"""False reds and crashes of the citation lock and the CLI (issue 35, item 9).

A citation of a file in a hidden folder says why it cannot resolve; a closed
or full standard output is one line and exit 2 for every command (never a
traceback, never a pass whose report was lost); a document whose name is not
UTF-8 is reported in SARIF; a legacy-spec or CRLF Git LFS pointer is never
pinned as content. Real repositories, real processes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import clean_env
from tests.helpers.anchors import SOURCE, check_json, make_repo, run_cli, write


def test_a_file_in_a_hidden_folder_gets_the_true_reason(tmp_path: Path) -> None:
    # Old code: "no file in the tree matches `.circleci/config.yml`", which exists.
    root = make_repo(
        tmp_path / "repo",
        {
            ".circleci/config.yml": "version: 2.1\njobs:\n  build: {}\n",
            "docs/ci.md": "# CI\n\nThe jobs start at .circleci/config.yml:2.\n",
        },
    )
    code, payload = check_json(root, "--update")
    assert code == 9
    detail = payload["problems"][0]["detail"] if payload.get("problems") else ""
    if not detail:  # --update lists what it could not pin under `skipped`
        detail = json.dumps(payload)
    assert "hidden folder" in detail and ".circleci" in detail
    assert "no file in the tree matches" not in detail


def _python_code(command: str, args: list[str]) -> str:
    return (
        "import sys\n"
        "from zodyssey.cli import check_anchors_main, main\n"
        f"sys.argv = ['x', *{args!r}]\n"
        f"sys.exit({command}())\n"
    )


COMMANDS = [
    ("check_anchors_main", []),
    ("main", ["anchors", "check", "--json"]),
    ("main", ["anchors", "check", "--format", "sarif"]),
    ("main", ["claims", "check"]),
    ("main", ["check"]),
    ("main", ["--help"]),
    ("main", ["--version"]),
    ("main", ["anchors", "check", "--help"]),
]


@pytest.fixture
def checked(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "repo", {"src/app.py": SOURCE, "README.md": "See src/app.py:2.\n"})
    assert run_cli(root, "--update").returncode == 0
    return root


@pytest.mark.parametrize("how", ["closed", "full"])
@pytest.mark.parametrize(("command", "args"), COMMANDS, ids=[" ".join(a) or c for c, a in COMMANDS])
def test_a_closed_or_full_stdout_is_one_line_and_exit_2(
    checked: Path, how: str, command: str, args: list[str]
) -> None:
    # Old code: a traceback (AttributeError on a closed stdout, OSError ENOSPC on a
    # full one), or exit 0 for --help whose text went nowhere.
    if how == "full" and not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    script = _python_code(command, args)
    if how == "closed":
        proc = subprocess.run(
            ["sh", "-c", 'exec "$0" -c "$1" >&-', sys.executable, script],
            cwd=checked,
            env=clean_env(NO_COLOR="1"),
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            check=False,
        )
    else:
        with open("/dev/full", "w") as full:
            proc = subprocess.run(
                [sys.executable, "-c", script],
                cwd=checked,
                env=clean_env(NO_COLOR="1"),
                stdout=full,
                stderr=subprocess.PIPE,
                text=True,
                timeout=120,
                check=False,
            )
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 2, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if "error" in line]
    assert len(lines) == 1 and "cannot write to standard output" in lines[0], proc.stderr


def test_a_closed_stdout_never_lands_the_report_in_a_file_opened_later(checked: Path) -> None:
    # With fd 1 closed, the next open() takes number 1: the lock, or git's output,
    # must never receive the report.
    before = (checked / "anchors/anchors.lock.json").read_bytes()
    proc = subprocess.run(
        ["sh", "-c", 'exec "$0" -m zodyssey anchors check --update >&-', sys.executable],
        cwd=checked,
        env=clean_env(NO_COLOR="1"),
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 2, proc.stderr
    lock = (checked / "anchors/anchors.lock.json").read_bytes()
    assert json.loads(lock)["citations"] == json.loads(before)["citations"]


def test_a_document_name_that_is_not_utf8_is_reported_in_sarif(tmp_path: Path) -> None:
    # Old code: UnicodeEncodeError (a traceback) building the SARIF uri.
    root = make_repo(tmp_path / "repo", {"src/app.py": SOURCE})
    name = os.fsencode(str(root / "docs")) + b"/caf\xe9.md"
    os.makedirs(root / "docs", exist_ok=True)
    with open(name, "wb") as handle:
        handle.write(b"# Doc\n\nSee src/app.py:2 and src/app.py:99.\n")
    proc = run_cli(root, "--update", "--format", "sarif")
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 9, proc.stderr
    sarif = json.loads(proc.stdout)
    uris = [
        loc["physicalLocation"]["artifactLocation"]["uri"]
        for result in sarif["runs"][0]["results"]
        for loc in result.get("locations", [])
    ]
    assert "docs/caf%E9.md" in uris


@pytest.mark.parametrize(
    "pointer",
    [
        b"version https://git-lfs.github.com/spec/v1\r\noid sha256:"
        + b"a" * 64
        + b"\r\nsize 12\r\n",
        b"version https://hawser.github.com/spec/v1\noid sha256:" + b"b" * 64 + b"\nsize 12\n",
    ],
    ids=["crlf", "legacy-spec"],
)
def test_an_lfs_pointer_in_any_spelling_is_never_pinned(tmp_path: Path, pointer: bytes) -> None:
    # Old code: only `version https://git-lfs.github.com/spec/v1\n` was known, so these
    # were pinned as if their three lines were the file's content.
    root = make_repo(tmp_path / "repo", {"README.md": "See data/model.py:2.\n"})
    write(root, "data/model.py", "")
    (root / "data/model.py").write_bytes(pointer)
    code, payload = check_json(root, "--update")
    assert code == 9, payload
    assert "unreadable" in json.dumps(payload) and "LFS" in json.dumps(payload)
