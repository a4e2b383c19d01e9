"""Atomic writes: a killed writer leaves the old or the new file, never a torn one."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from tests.helpers.anchors import SOURCE, make_repo, run_cli, write

WRITER = textwrap.dedent(
    """
    import sys
    from zodyssey.anchors.lock import LockFile, write_lock
    path = sys.argv[1]
    size = int(sys.argv[2])
    for round in range(1000):
        mark = "%012x" % round
        lock = LockFile(citations={f"src/file_{i}.py:{i}": mark for i in range(size)})
        write_lock(path, lock)
        print(round, flush=True)
    """
)


def test_killed_lock_writer_leaves_old_or_new(tmp_path: Path) -> None:
    lock_path = tmp_path / "anchors.lock.json"
    size = 60000  # a few MB: each write takes long enough to be killed half way
    for delay in (0.15, 0.3, 0.45, 0.6):
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(lock_path), str(size)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout is not None
        proc.stdout.readline()  # the first full write is on disk
        time.sleep(delay)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        data = json.loads(lock_path.read_text())  # parses: never truncated
        marks = set(data["citations"].values())
        assert len(marks) == 1 and len(data["citations"]) == size


def test_killed_fix_leaves_documents_old_or_new(tmp_path: Path) -> None:
    body = "".join(f"Line {i}: app.py:{(i % 25) + 2} and :{(i % 25) + 3}\n" for i in range(4000))
    repo = make_repo(tmp_path / "r", {"src/app.py": SOURCE, "docs/big.md": body})
    assert run_cli(repo, "--update").returncode == 0
    old = (repo / "docs/big.md").read_bytes()
    lock_path = repo / "anchors/anchors.lock.json"
    old_lock = lock_path.read_bytes()
    write(repo, "src/app.py", "# inserted\n" + SOURCE)
    env = {**os.environ}
    args = [sys.executable, "-m", "zodyssey", "anchors", "check", "--root", str(repo), "--fix"]
    seen: list[bytes] = []
    for delay in (0.2, 0.4, 0.7, 1.0):
        (repo / "docs/big.md").write_bytes(old)
        lock_path.write_bytes(old_lock)
        proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        seen.append((repo / "docs/big.md").read_bytes())
        json.loads(lock_path.read_text())  # the lock still parses
    (repo / "docs/big.md").write_bytes(old)
    lock_path.write_bytes(old_lock)
    assert subprocess.run(args, env=env, capture_output=True).returncode == 0
    fixed = (repo / "docs/big.md").read_bytes()
    assert fixed != old
    for content in seen:
        assert content in (old, fixed)  # never a torn or partly rewritten document
