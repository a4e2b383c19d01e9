"""A read-only `.zcode/` during `run verify` (issue 35, item 9): one line and exit 2
(docs/runs.md, exit codes), never a traceback.

File modes do not bind root. As root the command runs in a new user namespace
without a mapping (`unshare --user`): there it holds no capability over the
files, so their modes apply as they would to an ordinary user. Where that is
not possible the test is skipped with the reason.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.runs import PLAN, Repo, make_repo


def _unprivileged(tmp_path: Path) -> list[str]:
    """The prefix that runs a command without root's override of file modes."""
    if os.geteuid() != 0:
        return []
    if shutil.which("unshare") is None:
        pytest.skip("running as root, and no `unshare` to drop root's override of file modes")
    closed = tmp_path / "closed"
    closed.mkdir()
    closed.chmod(0o555)
    probe = subprocess.run(
        ["unshare", "--user", "sh", "-c", f"! touch '{closed}/x' 2>/dev/null"],
        capture_output=True,
        check=False,
    )
    closed.chmod(0o755)
    if probe.returncode != 0:
        pytest.skip(
            "running as root, and no unprivileged user namespace here (`unshare --user` "
            "failed): root writes through any file mode"
        )
    return ["unshare", "--user"]


def _approved(tmp_path: Path) -> Repo:
    repo = make_repo(tmp_path / "repo")
    plan = tmp_path / "plan.md"
    plan.write_text(PLAN, encoding="utf-8")
    assert repo.run("start", "demo", "--plan", str(plan)).code == 0
    repo.approve()
    repo.write("greeting.txt", "hello\n")
    repo.write("docs/greeting.md", "the greeting\n")
    return repo


@pytest.mark.parametrize("read_only", [".zcode", ".zcode/state", ".zcode/verify/demo"])
def test_run_verify_with_a_read_only_zcode_is_one_line_and_exit_2(
    tmp_path: Path, read_only: str
) -> None:
    prefix = _unprivileged(tmp_path)
    repo = _approved(tmp_path)
    assert repo.run("verify", "demo", "2").code == 0  # .zcode/verify/demo exists
    target = repo.root / read_only
    subprocess.run(["chmod", "-R", "a-w", str(target)], check=True)
    try:
        done = subprocess.run(
            [*prefix, sys.executable, "-m", "zodyssey", "run", "verify", "demo", "1"],
            cwd=repo.root,
            capture_output=True,
            text=True,
            check=False,
        )
    finally:
        subprocess.run(["chmod", "-R", "u+w", str(target)], check=True)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("zodyssey: error: ") and "Permission denied" in lines[0]
    assert str(repo.root / ".zcode") in lines[0]
    # Nothing was recorded: the run goes on once .zcode/ is writable again.
    assert repo.run("verify", "demo", "1").code == 0
