"""A change made between two tool calls (a background process, another program
the person did not start) is caught at the next call's pre-tool, before that
call runs: every allowed call that could write takes its own pre-tool
snapshot, compared with the one the previous call's post-tool left.

Real runs, real git repositories, the installed hook commands as processes;
the test itself is the "background process": it writes between the post-tool
of call 1 and the pre-tool of call 2, both ordinary (non-`zodyssey`) Bash calls.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import time
from pathlib import Path

import pytest

from tests.helpers import clean_env, git, run_zodyssey
from tests.helpers.gate import RunRepo
from tests.sandbox.test_effects import hook, repo_with_run, violations
from zodyssey.gate.install import hook_command
from zodyssey.sandbox import effects

BETWEEN = "something between tool calls"


def _first_call(repo: RunRepo) -> None:
    assert hook(repo, "pre-tool", "ls", "toolu_1").returncode == 0
    assert hook(repo, "post-tool", "ls", "toolu_1").returncode == 0


@pytest.mark.claim("effect-check-between-calls")
def test_a_product_change_between_two_ordinary_calls_is_caught_before_the_second(
    tmp_path: Path,
) -> None:
    repo = repo_with_run(tmp_path)  # execute, OKAY: README.md and src/dropped.py out of scope
    _first_call(repo)
    (repo.root / "README.md").write_text("background\n")
    (repo.root / "src" / "dropped.py").write_text("planted\n")
    (repo.root / "fresh" / "deep").mkdir(parents=True)  # a new directory, files inside
    (repo.root / "fresh" / "a.py").write_text("a\n")
    (repo.root / "fresh" / "deep" / "b.py").write_text("b\n")
    done = hook(repo, "pre-tool", "ls", "toolu_2")
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert BETWEEN in done.stderr and "README.md (restored)" in done.stderr, done.stderr
    assert (repo.root / "README.md").read_text() == "x\n"
    assert not (repo.root / "src" / "dropped.py").exists()
    assert not (repo.root / "fresh" / "a.py").exists()
    moved = repo.root / ".zcode" / "quarantine" / "demo" / "toolu_2"
    assert (moved / "src" / "dropped.py").read_text() == "planted\n"
    assert (moved / "fresh" / "deep" / "b.py").read_text() == "b\n"
    [record] = violations(repo)
    assert record["when"] == BETWEEN and record["tool_use_id"] == "toolu_2"
    assert {c["path"] for c in record["changes"]} == {
        "README.md",
        "src/dropped.py",
        "fresh/a.py",
        "fresh/deep/b.py",
    }
    # the call itself changed nothing: its post-tool adds no second record
    assert hook(repo, "post-tool", "ls", "toolu_2").returncode == 0
    assert len(violations(repo)) == 1
    refused = run_zodyssey("run", "todo", "demo", "1", "done", cwd=repo.root)
    assert refused.returncode == 11, refused.stdout + refused.stderr
    assert "unresolved violation" in refused.stdout + refused.stderr


@pytest.mark.claim("effect-check-between-calls")
def test_a_protected_file_changed_between_calls_is_caught_before_the_next(
    tmp_path: Path,
) -> None:
    repo = repo_with_run(tmp_path)  # after OKAY the plan is protected, as is the hook wiring
    settings = repo.root / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text('{"hooks": {}}\n')
    _first_call(repo)
    settings.write_text("{}\n")  # the gate unwired
    repo.plan_path.write_text(repo.plan_path.read_text() + "\n- [ ] 9. More\n")
    done = hook(repo, "pre-tool", "ls", "toolu_2")
    assert done.returncode == 2 and BETWEEN in done.stderr, done.stderr
    [record] = violations(repo)
    guarded = {c["path"] for c in record["changes"] if c.get("protected")}
    assert guarded == {str(settings), str(repo.plan_path)}, record["changes"]
    # the wiring is a file of the work tree as well: put back from its blob
    assert settings.read_text() == '{"hooks": {}}\n'
    # a protected file is recorded, not undone (a person's edit of the gate's files is
    # the person's: test_gate_round2's re-reviewed configuration)
    assert "9. More" in repo.plan_path.read_text()
    assert {c["action"] for c in record["changes"] if c.get("protected")} == {"kept"}


def test_nothing_changed_between_calls_lets_the_next_call_run(tmp_path: Path) -> None:
    repo = repo_with_run(tmp_path)
    _first_call(repo)
    (repo.root / "build").mkdir()
    (repo.root / "build" / "out.o").write_text("ignored: not product\n")
    (repo.root / "src" / "server.py").write_text("in scope\n")  # allowed after OKAY
    for call in ("toolu_2", "toolu_3"):
        done = hook(repo, "pre-tool", "ls", call)
        assert done.returncode == 0, done.stderr
        assert hook(repo, "post-tool", "ls", call).returncode == 0
    assert violations(repo) == []


def _same_size_same_mtime(path: Path, text: str) -> None:
    """Rewrite `path` with other content of the same size and put its mtime back:
    what a write in the same timestamp tick as the snapshot leaves on a file
    system with coarse timestamps."""
    info = path.stat()
    assert len(text.encode()) == info.st_size
    path.write_text(text)
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))


@pytest.mark.claim("effect-check-between-calls")
def test_a_same_size_rewrite_with_the_mtime_put_back_is_seen(tmp_path: Path) -> None:
    """Racy timestamps: size and mtime alone do not prove content unchanged."""
    repo = repo_with_run(tmp_path)
    _first_call(repo)
    _same_size_same_mtime(repo.root / "notes.txt", "dirty BEFORE\n")  # untracked, hashed before
    _same_size_same_mtime(repo.root / "README.md", "y\n")  # tracked and clean
    done = hook(repo, "pre-tool", "ls", "toolu_2")
    assert done.returncode == 2 and BETWEEN in done.stderr, done.stderr
    assert (repo.root / "notes.txt").read_text() == "dirty before\n"
    assert (repo.root / "README.md").read_text() == "x\n"


def test_the_snapshot_sees_a_same_size_rewrite_of_a_dirty_file(tmp_path: Path) -> None:
    root = tmp_path / "r"
    root.mkdir()
    git(root, "init", "-q")
    (root / "a.txt").write_text("one\n")
    git(root, "add", "a.txt")
    git(root, "commit", "-qm", "a")
    (root / "a.txt").write_text("two\n")  # dirty: its blob is hashed by the snapshot
    (root / "u.txt").write_text("uuu\n")
    first = effects.snapshot(str(root))
    _same_size_same_mtime(root / "a.txt", "TWO\n")
    _same_size_same_mtime(root / "u.txt", "UUU\n")
    second = effects.snapshot(str(root), previous=first)
    changed = {c["path"] for c in effects.compare(str(root), first, second)}
    assert changed == {"a.txt", "u.txt"}


def test_the_racy_rule_rehashes_what_was_written_in_the_snapshots_tick() -> None:
    """An entry whose mtime or ctime is not older than the snapshot that hashed it
    may have been written after the hash in the same tick: never reused."""
    old = [4, 1_000, "file", "blob", 1_000, 7]  # size, mtime, kind, blob, ctime, inode
    same = (4, 1_000, "file", 1_000, 7)
    assert effects.reusable(old, same, stamp=2_000)
    assert not effects.reusable(old, same, stamp=1_000)  # same tick as the snapshot
    assert not effects.reusable(old, same, stamp=None)  # no stamp known
    assert not effects.reusable(old, (4, 1_000, "file", 1_500, 7), stamp=2_000)  # ctime moved
    assert not effects.reusable(old, (4, 1_000, "file", 1_000, 8), stamp=2_000)  # replaced
    assert not effects.reusable(old[:4], same, stamp=2_000)  # an entry of the old form


def test_the_private_index_leaves_the_users_index_alone(tmp_path: Path) -> None:
    repo = repo_with_run(tmp_path)
    index = repo.root / ".git" / "index"
    before = index.read_bytes(), index.stat().st_mtime_ns
    (repo.root / "README.md").write_text("changed\n")
    effects.snapshot(str(repo.root))
    effects.snapshot(str(repo.root))
    assert (index.read_bytes(), index.stat().st_mtime_ns) == before
    stored = json.loads(json.dumps(effects.snapshot(str(repo.root))))
    assert "README.md" in stored["files"]


def test_a_snapshot_without_refresh_sees_every_change_and_leaves_the_index(
    tmp_path: Path,
) -> None:
    """The pre-tool snapshot reads the check's index without writing it back. Broken,
    either it rewrites the index (the cost it saves) or, reading an index that was
    not refreshed, takes stale stat data for proof and misses a change."""
    root = tmp_path / "r"
    root.mkdir()
    git(root, "init", "-q")
    for name in ("a.txt", "b.txt", "c.txt"):
        (root / name).write_text(f"{name}\n")
    git(root, "add", ".")
    git(root, "commit", "-qm", "a")
    first = effects.snapshot(str(root))  # refreshes: the check's index exists now
    index = root / effects.INDEX
    written = index.read_bytes(), index.stat().st_ino, index.stat().st_mtime_ns
    (root / "a.txt").write_text("changed\n")
    _same_size_same_mtime(root / "b.txt", "B.TXT\n")
    (root / "new.txt").write_text("new\n")
    for _ in range(2):  # twice: the first read left nothing behind that hides the change
        second = effects.snapshot(str(root), previous=first, refresh=False)
        changed = {c["path"] for c in effects.compare(str(root), first, second)}
        assert changed == {"a.txt", "b.txt", "new.txt"}
        assert (index.read_bytes(), index.stat().st_ino, index.stat().st_mtime_ns) == written
    third = effects.snapshot(str(root), previous=second)  # post-tool's refreshes it
    assert {c["path"] for c in effects.compare(str(root), second, third)} == set()
    assert index.stat().st_ino != written[1] or index.read_bytes() != written[0]


def _stamp(repo: RunRepo) -> int:
    return (repo.root / ".zcode" / "state" / "effects.stamp").stat().st_mtime_ns


def test_a_small_unchanged_tree_is_proven_by_stat_data_alone(tmp_path: Path) -> None:
    """No snapshot (no `git status`) when a walk of a small tree finds every
    entry as the last snapshot left it: the stamp a snapshot touches stays."""
    repo = repo_with_run(tmp_path)
    time.sleep(0.05)  # past the clock tick of the repository's last write
    _first_call(repo)
    stamp = _stamp(repo)
    assert hook(repo, "pre-tool", "ls", "toolu_2").returncode == 0
    assert _stamp(repo) == stamp
    (repo.root / "build").mkdir()  # ignored, yet a change of the tree: a snapshot decides
    assert hook(repo, "pre-tool", "ls", "toolu_3").returncode == 0
    assert _stamp(repo) != stamp
    assert violations(repo) == []


def test_a_new_file_beside_ignored_ones_only_is_caught_before_the_next_call(
    tmp_path: Path,
) -> None:
    """A folder git lists nothing of (it holds only ignored files) is walked too."""
    repo = repo_with_run(tmp_path)
    (repo.root / ".gitignore").write_text("build/\n*.log\n")
    (repo.root / "logs").mkdir()
    (repo.root / "logs" / "run.log").write_text("ignored\n")
    git(repo.root, "add", ".gitignore")
    git(repo.root, "commit", "-qm", "logs")
    _first_call(repo)
    (repo.root / "logs" / "evil.py").write_text("planted\n")
    done = hook(repo, "pre-tool", "ls", "toolu_2")
    assert done.returncode == 2 and "logs/evil.py (quarantined)" in done.stderr, done.stderr


def test_unchanged_answers_false_for_every_kind_of_change(tmp_path: Path) -> None:
    repo = repo_with_run(tmp_path)
    root = str(repo.root)
    guarded = [str(repo.plan_path)]
    changes = [
        lambda: (repo.root / "README.md").write_text("y\n"),  # a tracked file
        lambda: (repo.root / "src" / "new.py").write_text("n\n"),  # a new file
        lambda: (repo.root / "src" / "server.py").unlink(),  # a removed one
        lambda: (repo.root / "build" / "o").write_text("o\n"),  # inside an ignored folder
        lambda: repo.plan_path.write_text("changed plan\n"),  # a protected file
        lambda: os.chmod(repo.root / "README.md", 0o755),  # a mode
    ]
    (repo.root / "build").mkdir()
    for change in changes:
        time.sleep(0.05)  # past the clock tick of the last write: no entry is racy
        snap = effects.snapshot(root, guarded)
        assert effects.unchanged(root, json.loads(json.dumps(snap)), guarded)
        change()
        assert not effects.unchanged(root, snap, guarded), change
    time.sleep(0.05)
    snap = effects.snapshot(root, guarded)
    assert snap["tree"] is not None
    assert not effects.unchanged(root, snap, [*guarded, str(repo.root / "pyproject.toml")])


def test_a_tree_beyond_the_limit_is_never_proven_by_stat_data(tmp_path: Path) -> None:
    repo = repo_with_run(tmp_path)
    for index in range(effects.QUICK_LIMIT + 1):
        (repo.root / "src" / f"m{index}.txt").write_text("m\n")
    snap = effects.snapshot(str(repo.root))
    assert snap["tree"] is None and not effects.unchanged(str(repo.root), snap, [])


def test_an_entry_written_in_the_snapshots_tick_leaves_no_tree(tmp_path: Path) -> None:
    """Racy: an entry whose mtime is not older than the stamp (the same tick) makes
    the walk unusable as proof: the next pre-tool takes a snapshot."""
    repo = repo_with_run(tmp_path)
    future = time.time_ns() + 3600 * 10**9
    os.utime(repo.root / "README.md", ns=(future, future))
    assert effects.snapshot(str(repo.root))["tree"] is None


def _gemini(repo: RunRepo, event: str, call_id: str) -> subprocess.CompletedProcess[str]:
    """A Gemini CLI shell call (BeforeTool / AfterTool, as its recorded payloads)."""
    body: dict[str, object] = {
        "session_id": "gemini-session",
        "cwd": str(repo.root),
        "hook_event_name": "BeforeTool" if event == "pre-tool" else "AfterTool",
        "tool_name": "run_shell_command",
        "tool_input": {"command": "ls"},
        "tool_call_id": call_id,
    }
    if event == "post-tool":
        body["tool_response"] = {"llmContent": ""}
    return subprocess.run(
        shlex.split(hook_command(event, "gemini")),
        input=json.dumps(body),
        capture_output=True,
        text=True,
        env=clean_env(GEMINI_PROJECT_DIR=str(repo.root)),
        cwd=repo.root,
        timeout=60,
        check=False,
    )


def test_gemini_a_change_between_calls_is_caught_before_the_next(tmp_path: Path) -> None:
    repo = repo_with_run(tmp_path)
    assert _gemini(repo, "pre-tool", "g1").returncode == 0
    assert _gemini(repo, "post-tool", "g1").returncode == 0
    (repo.root / "README.md").write_text("background\n")
    done = _gemini(repo, "pre-tool", "g2")
    assert done.returncode == 2 or '"deny"' in done.stdout, (done.stdout, done.stderr)
    assert BETWEEN in done.stdout + done.stderr
    assert (repo.root / "README.md").read_text() == "x\n"
    [record] = violations(repo)
    assert record["when"] == BETWEEN
