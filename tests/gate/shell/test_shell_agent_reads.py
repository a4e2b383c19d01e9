"""Ordinary agent commands: how many reads the gate blocks, and that no write passes.

`data/agent_commands.jsonl` holds commands of the kind a coding agent types
while it works, labelled `read` (cannot write a file) or `write` (can). The
reads are also run in a real bash, in a sandbox repository holding the files
they name, and must leave every file there as it was: a label that is wrong
fails here, not in the rate.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import json
import os
import shutil
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest

from zodyssey.gate.shell import classify

DATA = Path(__file__).resolve().parent / "data" / "agent_commands.jsonl"
ROWS: list[dict[str, str]] = [json.loads(line) for line in DATA.read_text().splitlines() if line]
READS = [r["command"] for r in ROWS if r["class"] == "read"]
WRITES = [r["command"] for r in ROWS if r["class"] == "write"]
MAX_BLOCKED = 0.05


def test_the_set_is_large_enough() -> None:
    assert len(READS) >= 150 and len(WRITES) >= 50
    assert len(set(READS)) == len(READS) and len(set(WRITES)) == len(WRITES)


def test_no_write_is_classified_read() -> None:
    passed = [c for c in WRITES if not classify(c).is_write]
    assert passed == []


def test_at_most_five_percent_of_reads_are_blocked() -> None:
    blocked = [c for c in READS if classify(c).is_write]
    rate = len(blocked) / len(READS)
    assert rate <= MAX_BLOCKED, (f"{rate:.1%} blocked", blocked)


ISSUE_FALSE_BLOCKS = [
    'while IFS= read -r l; do echo "$l"; done < f',
    "git config user.name",
    "git clean -n",
    "git clean --dry-run",
    "git symbolic-ref --short HEAD",
    "git tag --contains HEAD",
    "git submodule",
    "git apply --check p.patch",
    "git -c color.ui=never log",
    "gzip -dc f.gz",
    "gzip -l f.gz",
    "gzip -t f.gz",
    "xz -dc f.xz",
    "unzip -p a.zip f",
    "unzip -l a.zip",
    "unzip -c a.zip",
    "tar -tf a.tar",
    "tar -xOf a.tar f",
    "docker ps",
    "yq '.a' c.yaml",
    "ruby -v",
    "perl -v",
    "java -version",
    "make -v",
    "uv pip list",
    "poetry show",
    "npm config get registry",
    "pip config list",
    "readelf -h a.out",
    "nm a.out",
    "objdump -d a.out",
    "ar t lib.a",
    "man ls",
    "hash",
    "mktemp -u",
]


@pytest.mark.parametrize("command", ISSUE_FALSE_BLOCKS)
def test_the_daily_false_blocks_are_reads(command: str) -> None:
    analysis = classify(command)
    assert not analysis.is_write, analysis


# ---------------------------------------------------------------- real shell


def _sandbox(root: Path) -> None:
    """A repository holding every file the read commands name."""
    (root / "src").mkdir(parents=True)
    (root / "bin").mkdir()
    (root / "README.md").write_text("# zodyssey sandbox\nsecond line\n")
    (root / "src" / "app.py").write_text("import os\n\n\ndef main():\n    return 1  # TODO\n")
    (root / "data.csv").write_text("a,2\nb,1\nc,3\n")
    (root / "nums.txt").write_text("3\n1\n2\n")
    (root / "data.json").write_text('{"name": "x", "n": 1}\n')
    (root / "config.yaml").write_text("a: 1\nb: two\n")
    (root / "fix.patch").write_text(
        "--- a/nums.txt\n+++ b/nums.txt\n@@ -1,3 +1,3 @@\n-3\n+4\n 1\n 2\n"
    )
    (root / "f.gz").write_bytes(gzip.compress(b"gz text\n"))
    for name, tool in (("f.xz", "xz"), ("f.bz2", "bzip2"), ("f.zst", "zstd")):
        if shutil.which(tool):
            done = subprocess.run([tool, "-c"], input=b"text\n", capture_output=True, check=True)
            (root / name).write_bytes(done.stdout)
    with zipfile.ZipFile(root / "a.zip", "w") as archive:
        archive.writestr("README.md", "zipped\n")
    with tarfile.open(root / "a.tar.gz", "w:gz") as archive:
        archive.add(root / "README.md", arcname="README.md")
    shutil.copy(shutil.which("true") or "/bin/true", root / "bin" / "tool")
    if shutil.which("ar"):
        (root / "x.o").write_bytes(b"not an object\n")
        subprocess.run(["ar", "rc", "lib.a", "x.o"], cwd=root, check=True)
        (root / "x.o").unlink()
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "config", "user.name", "t"], cwd=root, check=True)
    subprocess.run(["git", "config", "user.email", "t@example.invalid"], cwd=root, check=True)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "init"], cwd=root, check=True)


def _snapshot(root: Path) -> dict[str, str]:
    """Every path under root (outside .git) with its content hash."""
    seen: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        rel = os.path.relpath(dirpath, root)
        seen[rel + "/"] = ""
        for name in filenames:
            path = Path(dirpath) / name
            seen[os.path.join(rel, name)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return seen


@pytest.mark.slow
@pytest.mark.parametrize("quarter", range(4))  # four sandboxes, so xdist spreads them
def test_every_read_leaves_a_real_sandbox_unchanged(tmp_path: Path, quarter: int) -> None:
    root = tmp_path / "repo"
    home = tmp_path / "home"
    home.mkdir()
    _sandbox(root)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "PAGER": "cat",
        "MANPAGER": "cat",
        "GIT_PAGER": "cat",
        "LANG": "C.UTF-8",
        "USER": "agent",
    }
    before = _snapshot(root)
    changed: list[tuple[str, list[str]]] = []
    for command in READS[quarter::4]:  # blocked or not: the label is what is checked
        with contextlib.suppress(subprocess.TimeoutExpired):
            subprocess.run(
                ["bash", "-c", command],
                cwd=root,
                env=env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=30,
                check=False,
            )
        after = _snapshot(root)
        if after != before:
            diff = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
            changed.append((command, diff))
            before = after
    assert changed == [], changed
