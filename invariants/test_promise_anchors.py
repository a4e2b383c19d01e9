"""README promises about the citation lock, through the real `check-anchors` command."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

APP = "def main():\n    return 41\n\n\ndef other():\n    pass\n"
README = "# Demo\n\nThe answer is at `src/app.py:2`; the helper is src/app.py:5-6.\n"


def cited_repo(lab: Any) -> Path:
    repo: Path = lab.repo()
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text(APP, encoding="utf-8")
    (repo / "README.md").write_text(README, encoding="utf-8")
    return repo


def anchors(lab: Any, repo: Path, *args: str) -> Any:
    return lab.zodyssey("anchors", "check", *args, cwd=repo)


def js_fingerprint(lines: list[str], start: int, end: int) -> str:
    """The JavaScript checker's pin, from the reference (not from our code)."""
    span = [" ".join(line.split()) for line in lines[start - 1 : end]]
    return hashlib.sha256("\n".join(span).encode("utf-8")).hexdigest()[:12]


@pytest.mark.claim("citation-drift-fails")
def test_changed_cited_line_fails_with_exit_9_and_shows_it(lab: Any) -> None:
    repo = cited_repo(lab)
    assert anchors(lab, repo, "--update").returncode == 0
    assert anchors(lab, repo).returncode == 0
    (repo / "src" / "app.py").write_text(APP.replace("return 41", "return 42"), encoding="utf-8")
    done = anchors(lab, repo)
    assert done.returncode == 9, done.stdout + done.stderr
    assert "drift" in done.stdout
    assert "return 42" in done.stdout, "the finding shows what the line says now"
    assert "when pinned it read: return 41" in done.stdout, "and what it said when pinned"
    assert "README.md:3" in done.stdout


@pytest.mark.claim("adoption-baseline")
def test_update_baseline_reaches_green_and_new_problems_still_fail(lab: Any) -> None:
    repo = cited_repo(lab)
    (repo / "docs").mkdir()
    (repo / "docs" / "old.md").write_text(
        "Blank: src/app.py:3. Past the end: src/app.py:90. Gone: src/gone.py:4.\n",
        encoding="utf-8",
    )
    assert anchors(lab, repo, "--update").returncode == 9, "the state a baseline is for"
    done = anchors(lab, repo, "--update", "--baseline")
    assert done.returncode == 0, done.stdout + done.stderr
    baseline = json.loads((repo / "anchors" / "anchors.baseline.json").read_text("utf-8"))
    assert sorted((e["doc"], e["cited_as"]) for e in baseline["entries"]) == [
        ("docs/old.md", "src/app.py:3"),
        ("docs/old.md", "src/app.py:90"),
        ("docs/old.md", "src/gone.py:4"),
    ]
    assert lab.zodyssey("check", cwd=repo).returncode == 0
    (repo / "docs" / "new.md").write_text("New: src/app.py:80.\n", encoding="utf-8")
    again = lab.zodyssey("check", cwd=repo)
    assert again.returncode == 9, again.stdout + again.stderr
    assert "src/app.py:80" in again.stdout


@pytest.mark.claim("zero-citations-fails")
def test_zero_citations_exit_4(lab: Any) -> None:
    repo = lab.repo()
    (repo / "README.md").write_text("# Demo\n\nNothing cited here.\n", encoding="utf-8")
    done = anchors(lab, repo)
    assert done.returncode == 4, done.stdout + done.stderr
    # Control: one citation and the same repository passes.
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text(APP, encoding="utf-8")
    (repo / "README.md").write_text(README, encoding="utf-8")
    assert anchors(lab, repo, "--update").returncode == 0
    assert anchors(lab, repo).returncode == 0


@pytest.mark.claim("moved-citations-fixed")
def test_moved_is_named_and_fix_rewrites_only_the_numbers(lab: Any) -> None:
    repo = cited_repo(lab)
    extra = "Untouched line with src/app.py in prose and tabs\tand trailing space \n"
    (repo / "README.md").write_text(README + extra, encoding="utf-8")
    assert anchors(lab, repo, "--update").returncode == 0
    (repo / "src" / "app.py").write_text("# one\n# two\n" + APP, encoding="utf-8")
    done = anchors(lab, repo, "--format", "json")
    assert done.returncode == 9
    problems = json.loads(done.stdout)["problems"]
    moved = {p["key"]: p["moved_to"]["key"] for p in problems if p["kind"] == "moved"}
    assert moved == {"src/app.py:2": "src/app.py:4", "src/app.py:5-6": "src/app.py:7-8"}
    fixed = anchors(lab, repo, "--fix")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    expected = README.replace("src/app.py:2", "src/app.py:4").replace(
        "src/app.py:5-6", "src/app.py:7-8"
    )
    assert (repo / "README.md").read_bytes() == (expected + extra).encode("utf-8")
    assert anchors(lab, repo).returncode == 0


@pytest.mark.claim("js-lock-compatible")
def test_javascript_lock_reads_unchanged(lab: Any) -> None:
    repo = cited_repo(lab)
    lines = APP.split("\n")
    lock: dict[str, Any] = {
        "_comment": "written by scripts/check-anchors.mjs",
        "exempt": [],
        "citations": {
            "src/app.py:2": js_fingerprint(lines, 2, 2),
            "src/app.py:5-6": js_fingerprint(lines, 5, 6),
        },
    }
    (repo / "scripts").mkdir()
    lock_path = repo / "scripts" / "anchors.lock.json"
    lock_path.write_text(json.dumps(lock, indent=2) + "\n", encoding="utf-8")
    before = lock_path.read_bytes()
    done = anchors(lab, repo, "--lock", "scripts/anchors.lock.json")
    assert done.returncode == 0, done.stdout + done.stderr
    assert lock_path.read_bytes() == before, "checking must not rewrite the JS lock"
    # Control: a pin the JS checker would reject fails here too.
    lock["citations"]["src/app.py:2"] = "000000000000"
    lock_path.write_text(json.dumps(lock, indent=2) + "\n", encoding="utf-8")
    assert anchors(lab, repo, "--lock", "scripts/anchors.lock.json").returncode == 9


@pytest.mark.claim("history-check")
def test_history_judges_a_repository_without_a_lock(lab: Any) -> None:
    repo = cited_repo(lab)
    lab.commit(repo, "cite the answer")
    assert not (repo / "anchors" / "anchors.lock.json").exists()
    unchanged = anchors(lab, repo, "--history")
    assert unchanged.returncode == 0, unchanged.stdout + unchanged.stderr
    (repo / "src" / "app.py").write_text(APP.replace("return 41", "return 42"), encoding="utf-8")
    lab.commit(repo, "change the answer after it was cited")
    drifted = anchors(lab, repo, "--history", "--format", "json")
    assert drifted.returncode == 9, drifted.stdout + drifted.stderr
    kinds = {(p["kind"], p["key"]) for p in json.loads(drifted.stdout)["problems"]}
    assert ("drift", "src/app.py:2") in kinds
    assert not (repo / "anchors" / "anchors.lock.json").exists(), "--history needs no lock"


@pytest.mark.claim("citation-never-vanishes")
def test_deleted_cited_file_fails_as_gone_and_keeps_its_pin(lab: Any) -> None:
    repo = lab.repo()
    (repo / "main.go").write_text("package main\n\nfunc main() {}\n", encoding="utf-8")
    (repo / "README.md").write_text("# Demo\n\nEntry: main.go:3.\n", encoding="utf-8")
    assert anchors(lab, repo, "--update").returncode == 0
    lab.commit(repo, "cite main.go")
    (repo / "main.go").unlink()
    lab.commit(repo, "delete main.go")
    done = anchors(lab, repo, "--format", "json")
    assert done.returncode == 9, done.stdout + done.stderr
    problems = json.loads(done.stdout)["problems"]
    assert [(p["kind"], p["key"]) for p in problems] == [("gone", "main.go:3")]
    assert "deleted by" in problems[0]["detail"]
    assert anchors(lab, repo, "--update").returncode == 9
    lock = json.loads((repo / "anchors" / "anchors.lock.json").read_text(encoding="utf-8"))
    assert "main.go:3" in lock["citations"], "a cited pin is never dropped"


@pytest.mark.claim("moved-only-when-certain")
def test_changed_line_with_a_twin_is_drift_and_fix_leaves_it(lab: Any) -> None:
    repo = lab.repo()
    code = "def a():\n    x = 1\n    return None\n\ndef b():\n    y = 2\n    return None\n"
    (repo / "mod.py").write_text(code, encoding="utf-8")
    (repo / "README.md").write_text("# Demo\n\nEarly exit: mod.py:3.\n", encoding="utf-8")
    assert anchors(lab, repo, "--update").returncode == 0
    lab.commit(repo, "pin")
    changed = code.replace("    x = 1\n    return None", "    x = 1\n    return x")
    (repo / "mod.py").write_text(changed, encoding="utf-8")
    done = anchors(lab, repo, "--format", "json")
    assert done.returncode == 9
    (problem,) = json.loads(done.stdout)["problems"]
    assert problem["kind"] == "drift" and "possibly now at mod.py:7" in problem["detail"]
    before = (repo / "README.md").read_bytes()
    assert anchors(lab, repo, "--fix").returncode == 9
    assert (repo / "README.md").read_bytes() == before


@pytest.mark.claim("fix-creates-no-problem")
def test_fix_of_a_document_other_documents_cite(lab: Any) -> None:
    repo = lab.repo()
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text(APP, encoding="utf-8")
    (repo / "README.md").write_text("# Demo\n\nThe answer: src/app.py:2.\n", encoding="utf-8")
    (repo / "NOTES.md").write_text("As README.md:3 says.\n", encoding="utf-8")
    assert anchors(lab, repo, "--update").returncode == 0
    lab.commit(repo, "pin")
    (repo / "src" / "app.py").write_text("# header\n" + APP, encoding="utf-8")
    fixed = anchors(lab, repo, "--fix")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "src/app.py:3" in (repo / "README.md").read_text(encoding="utf-8")
    after = anchors(lab, repo, "--strict")
    assert after.returncode == 0, after.stdout + after.stderr


@pytest.mark.claim("history-proves-or-fails")
def test_history_that_can_judge_nothing_exits_4(lab: Any) -> None:
    repo = cited_repo(lab)
    (repo / "README.md").unlink()
    lab.commit(repo, "code only")
    (repo / "README.md").write_text(README, encoding="utf-8")  # never committed
    done = anchors(lab, repo, "--history")
    assert done.returncode == 4, done.stdout + done.stderr
    assert "nothing proven" in done.stdout
    lab.commit(repo, "cite")
    (repo / "DRAFT.md").write_text("Draft: src/app.py:5.\n", encoding="utf-8")
    some = anchors(lab, repo, "--history")
    assert some.returncode == 9, some.stdout
    assert anchors(lab, repo, "--history", "--allow-unknown").returncode == 0


def _app_on_github(lab: Any, *rev: str) -> tuple[Any, str]:
    """A repository whose origin is on GitHub, `src/app.py` committed: (repo, its sha)."""
    import subprocess

    repo = lab.repo()
    subprocess.run(
        ["git", "-C", str(repo), "remote", "add", "origin", "https://github.com/o/r.git"],
        check=True,
    )
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text(APP, encoding="utf-8")
    lab.commit(repo, "first")
    sha = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", *rev, "HEAD"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    return repo, sha


@pytest.mark.claim("permalink-at-its-commit")
def test_a_permalink_is_checked_at_its_commit_never_the_work_tree(lab: Any) -> None:
    import subprocess

    repo, sha = _app_on_github(lab, "--short=10")
    (repo / "src" / "app.py").write_text("# header\n" + APP, encoding="utf-8")
    url = f"https://github.com/o/r/blob/{sha}/src/app.py#L2"
    (repo / "README.md").write_text(f"# Demo\n\nThe answer: {url}.\n", encoding="utf-8")
    assert anchors(lab, repo, "--update").returncode == 0
    pins = json.loads((repo / "anchors" / "anchors.lock.json").read_text())["citations"]
    assert pins == {f"src/app.py@{sha}:2": js_fingerprint(APP.split("\n"), 2, 2)}
    (repo / "src" / "app.py").write_text("# header\n" + APP.replace("41", "42"), encoding="utf-8")
    assert anchors(lab, repo).returncode == 0  # the work tree is not what it cites
    lab.commit(repo, "cite")
    clone = lab.base / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repo}", str(clone)], check=True)
    done = anchors(lab, clone, "--format", "json")
    assert done.returncode == 9, done.stdout + done.stderr
    assert [p["kind"] for p in json.loads(done.stdout)["problems"]] == ["unverifiable"]


def _verdicts(payload: dict[str, Any]) -> dict[str, str]:
    return {p["cited_as"]: p["kind"] for p in payload["problems"] + payload.get("unknown", [])}


@pytest.mark.claim("permalink-history-agrees")
def test_history_judges_permalinks_at_their_commit_as_the_lock_does(lab: Any) -> None:
    repo, sha = _app_on_github(lab)
    (repo / "src" / "app.py").write_text("# one\n# two\n" + APP, encoding="utf-8")
    url = f"https://github.com/o/r/blob/{sha}"
    (repo / "README.md").write_text(
        f"# Demo\n\nThe answer: {url}/src/app.py#L2 and {url}/src/gone.py#L1.\n", encoding="utf-8"
    )
    assert anchors(lab, repo, "--update").returncode == 9  # gone.py at that commit: unpinned
    lab.commit(repo, "cite")
    checked = anchors(lab, repo, "--format", "json")
    history = anchors(lab, repo, "--history", "--format", "json")
    assert checked.returncode == history.returncode == 9, history.stdout + history.stderr
    expected = {f"src/gone.py@{sha}:1": "unverifiable"}
    assert _verdicts(json.loads(checked.stdout)) == expected
    payload = json.loads(history.stdout)
    assert _verdicts(payload) == expected  # line 2 shifted to 4 in the work tree: still ok
    assert payload["counts"]["ok"] == 1 and payload["counts"]["moved"] == 0


@pytest.mark.claim("cited-fifo-unreadable")
def test_a_cited_fifo_is_unreadable_in_every_mode_never_a_hang(lab: Any) -> None:
    import os

    repo = cited_repo(lab)
    assert anchors(lab, repo, "--update").returncode == 0
    lab.commit(repo, "pin")
    (repo / "src" / "app.py").unlink()
    os.mkfifo(repo / "src" / "app.py")
    for mode in ((), ("--fix",), ("--history",)):
        done = anchors(lab, repo, *mode, "--format", "json")  # a hang fails by timeout
        assert done.returncode == 9, (mode, done.stdout, done.stderr)
        kinds = set(_verdicts(json.loads(done.stdout)).values())
        assert kinds == {"unreadable"}, (mode, done.stdout)
        assert "FIFO" in done.stdout
