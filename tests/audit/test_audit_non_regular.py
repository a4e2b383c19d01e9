"""A FIFO where the audit reads an attestation, a key or the anchor's reflog: never a hang.

Real runs in temporary git repositories; the file is replaced by a real named
pipe (`os.mkfifo`) nobody writes, so a reader that opened it would block until
the subprocess timeout failed the test (issue 26, item 8). Given on the command
line it is refused (exit 2, one line naming it); met inside the repository it
is a problem of the audit or of the attestation (exit 1), named.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.helpers import REPO_ROOT, assert_one_line_error, fifo_at, run_zodyssey
from tests.helpers.real_runs import approved, plan_of
from tests.helpers.runs import Repo

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")

PLAN = plan_of("    - `grep -q hello g.txt` exits 0\n")
TIMEOUT = 60
BUNDLE = ".zcode/demo.intoto.jsonl"


def verified(tmp_path: Path) -> Repo:
    repo = approved(tmp_path, PLAN)
    repo.write("g.txt", "hello\n")
    assert repo.run("verify", "demo", "1").code == 0
    return repo


def audit(repo: Repo, *args: str) -> subprocess.CompletedProcess[str]:
    return run_zodyssey("audit", "--repo", str(repo.root), *args, cwd=REPO_ROOT, timeout=TIMEOUT)


def bundled(tmp_path: Path) -> Repo:
    repo = verified(tmp_path)
    done = audit(repo, "demo", "--format", "in-toto", "-o", str(repo.root / BUNDLE))
    assert done.returncode in (0, 1), done.stderr
    return repo


@pytest.mark.parametrize("option", ["--verify-attestation", "--verify-key", "--sign-key"])
def test_a_fifo_given_on_the_command_line_is_refused(tmp_path: Path, option: str) -> None:
    repo = bundled(tmp_path)
    fifo = fifo_at(tmp_path / "given.pipe")
    args = {
        "--verify-attestation": ("--verify-attestation", str(fifo)),
        "--verify-key": (
            "--verify-attestation",
            str(repo.root / BUNDLE),
            "--verify-key",
            str(fifo),
        ),
        "--sign-key": ("demo", "--format", "in-toto", "--sign-key", str(fifo)),
    }[option]
    done = audit(repo, *args)
    assert_one_line_error(done, 2)
    assert "given.pipe" in done.stderr, done.stderr


def test_an_attested_file_replaced_by_a_fifo_fails_verification_naming_it(
    tmp_path: Path,
) -> None:
    repo = bundled(tmp_path)
    fifo_at(repo.root / ".zcode" / "verify" / "demo" / "evidence.jsonl")
    done = audit(repo, "--verify-attestation", str(repo.root / BUNDLE))
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "evidence.jsonl" in done.stdout + done.stderr


def test_the_anchor_reflog_replaced_by_a_fifo_is_a_problem_not_a_hang(tmp_path: Path) -> None:
    repo = verified(tmp_path)
    logs = repo.root / ".git" / "logs" / "refs" / "zodyssey" / "evidence" / "demo"
    (reflog,) = list(logs.iterdir())
    fifo_at(reflog)
    done = audit(repo, "demo", "--format", "json")
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 1, (done.stdout, done.stderr)
    messages = " ".join(f["message"] for f in json.loads(done.stdout)["findings"])
    assert "FIFO" in messages, messages
