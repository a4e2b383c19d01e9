"""`check-anchors --history`, `--fix` with history and `--update --from-history`, as processes."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from tests.helpers import REPO_ROOT
from tests.helpers.anchors import run_cli
from tests.helpers.history import Repo, numbered

CHECK_ANCHORS = shutil.which("check-anchors")


def stale_history(repo: Repo) -> None:
    """Three citations written, then the code changes under two of them."""
    repo.write("src/app.py", numbered("app", 30))
    repo.write(
        "docs/guide.md",
        "# Guide\n\nThe loader is src/app.py:10-11 and the saver src/app.py:20.\n"
        "The end is src/app.py:30.\n",
    )
    repo.commit("write the guide")
    lines = numbered("app", 30).split("\n")
    lines[19] = "app twenty, rewritten"  # line 20: drift
    lines[0:0] = ["import os", "import sys"]  # everything below moves by two
    repo.write("src/app.py", "\n".join(lines))
    repo.commit("change the code")


def test_the_real_checker_runs_the_history_check(repo: Repo) -> None:
    stale_history(repo)
    proc = run_cli(repo.path, "--history", "--format", "json", cwd=REPO_ROOT)
    assert proc.returncode == 9, proc.stderr
    payload = json.loads(proc.stdout)
    assert payload["mode"] == "history"
    assert payload["counts"] == {
        "ok": 0,
        "moved": 2,
        "drift": 1,
        "gone": 0,
        "contentless": 0,
        "out-of-range": 0,
        "unreadable": 0,
        "unverifiable": 0,
        "unknown": 0,
    }
    by_cited = {p["cited_as"]: p for p in payload["problems"]}
    assert by_cited["src/app.py:10-11"]["moved_to"] == {
        "path": "src/app.py",
        "start": 12,
        "end": 13,
        "key": "src/app.py:12-13",
    }
    assert by_cited["src/app.py:20"]["then"] == ["app 20"]
    assert by_cited["src/app.py:20"]["now"] == ["app 18"]
    assert by_cited["src/app.py:20"]["sites"] == [{"doc": "docs/guide.md", "line": 3}]


def test_history_fix_rewrites_moved_numbers_only(repo: Repo) -> None:
    stale_history(repo)
    before = repo.read("docs/guide.md")
    dry = run_cli(repo.path, "--history", "--fix", "--dry-run", cwd=REPO_ROOT)
    assert repo.read("docs/guide.md") == before
    assert "+The loader is src/app.py:12-13 and the saver src/app.py:20." in dry.stderr
    assert dry.returncode == 9
    proc = run_cli(repo.path, "--history", "--fix", cwd=REPO_ROOT)
    assert proc.returncode == 9, proc.stdout  # the drifted citation still fails
    assert repo.read("docs/guide.md") == before.replace(":10-11", ":12-13").replace(":30.", ":32.")
    assert "rewrote 2 moved citation(s)" in proc.stdout


def test_history_fix_rewrites_the_path_of_a_renamed_file(repo: Repo) -> None:
    repo.write("src/old_name.py", numbered("r", 30))
    repo.write("docs/guide.md", "See src/old_name.py:12-13 now.\n")
    repo.commit("write")
    repo.git("mv", "src/old_name.py", "src/new_name.py")
    repo.write("src/new_name.py", "header\n" + numbered("r", 30))
    repo.commit("rename")
    proc = run_cli(repo.path, "--history", "--fix", cwd=REPO_ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert repo.read("docs/guide.md") == "See src/new_name.py:13-14 now.\n"


def test_seeded_lock_flags_drift_on_the_next_check(repo: Repo) -> None:
    stale_history(repo)
    seeded = run_cli(repo.path, "--update", "--from-history", "--format", "json", cwd=REPO_ROOT)
    assert seeded.returncode == 0, seeded.stdout + seeded.stderr
    report = json.loads(seeded.stdout)
    assert report["pinned"] == 3 and report["from_history"] == 3
    assert {s["cited_as"] for s in report["stale"]} == {
        "src/app.py:10-11",
        "src/app.py:20",
        "src/app.py:30",
    }
    lock = json.loads((repo.path / "anchors/anchors.lock.json").read_text())
    assert set(lock["citations"]) == {"src/app.py:10-11", "src/app.py:20", "src/app.py:30"}

    check = run_cli(repo.path, "--format", "json", cwd=REPO_ROOT)
    assert check.returncode == 9, check.stdout + check.stderr
    kinds = {p["key"]: p["kind"] for p in json.loads(check.stdout)["problems"]}
    assert kinds["src/app.py:20"] == "drift"
    assert kinds["src/app.py:10-11"] == "moved"

    # A plain first --update would have blessed all three as they are now.
    (repo.path / "anchors/anchors.lock.json").unlink()
    blessed = run_cli(repo.path, "--update", cwd=REPO_ROOT)
    assert blessed.returncode == 0
    assert run_cli(repo.path, cwd=REPO_ROOT).returncode == 0


def test_seeding_pins_uncommitted_citations_as_they_are_now(repo: Repo) -> None:
    repo.write("src/app.py", numbered("app", 10))
    repo.write("docs/guide.md", "src/app.py:2\n")
    repo.commit("write")
    repo.write("docs/new.md", "src/app.py:3\n")  # untracked: being written now
    seeded = run_cli(repo.path, "--update", "--from-history", "--format", "json", cwd=REPO_ROOT)
    assert seeded.returncode == 0, seeded.stdout
    report = json.loads(seeded.stdout)
    assert [p["cited_as"] for p in report["pinned_now"]] == ["src/app.py:3"]
    assert run_cli(repo.path, cwd=REPO_ROOT).returncode == 0


def test_not_a_repository_exits_2_with_one_line(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    (plain / "src").mkdir(parents=True)
    (plain / "src/a.py").write_text("x\n")
    (plain / "README.md").write_text("src/a.py:1\n")
    proc = run_cli(plain, "--history", cwd=REPO_ROOT)
    assert proc.returncode == 2
    assert "not inside a git work tree" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_git_missing_exits_2_with_one_line(repo: Repo, tmp_path: Path) -> None:
    stale_history(repo)
    empty = tmp_path / "bin-without-git"
    empty.mkdir()
    env = dict(os.environ, PATH=str(empty))
    proc = run_cli(repo.path, "--history", env=env, cwd=REPO_ROOT)
    assert proc.returncode == 2
    assert "git is not installed or not on PATH" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_no_progress_bar_when_stderr_is_not_a_terminal(repo: Repo) -> None:
    stale_history(repo)
    proc = run_cli(repo.path, "--history", "--jobs", "2", cwd=REPO_ROOT)
    assert proc.returncode == 9
    assert proc.stderr == ""


def test_history_fix_keeps_an_existing_lock_in_step(repo: Repo) -> None:
    repo.write("src/app.py", numbered("app", 30))
    repo.write("docs/guide.md", "The loader is src/app.py:10-11.\n")
    repo.commit("write")
    assert run_cli(repo.path, "--update", cwd=REPO_ROOT).returncode == 0
    repo.write("src/app.py", "import os\n" + numbered("app", 30))
    repo.commit("insert above")
    proc = run_cli(repo.path, "--history", "--fix", cwd=REPO_ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "re-pinned 1 lock entry" in proc.stdout
    assert repo.read("docs/guide.md") == "The loader is src/app.py:11-12.\n"
    lock = json.loads((repo.path / "anchors/anchors.lock.json").read_text())
    assert set(lock["citations"]) == {"src/app.py:11-12"}
    assert run_cli(repo.path, cwd=REPO_ROOT).returncode == 0
