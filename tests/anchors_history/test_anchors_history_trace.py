"""History judgements on built histories: moved, drift, renamed, gone, unknown, shallow."""

from __future__ import annotations

import os
import pty
import select
import subprocess
from pathlib import Path

import pytest

from tests.helpers.history import Repo, cite, numbered
from zodyssey.anchors.history import history_report
from zodyssey.anchors.history.trace import Trace, trace_citations
from zodyssey.config import Config
from zodyssey.git import GitUnavailable


def trace_one(repo: Repo, citation: object, **kwargs: object) -> Trace:
    run = trace_citations(repo.path, [citation], **kwargs)  # type: ignore[list-item, arg-type]
    assert len(run.traces) == 1
    return run.traces[0]


def test_unchanged_span_is_ok(repo: Repo) -> None:
    repo.write("src/a.py", numbered("a", 20))
    repo.write("docs/guide.md", "See src/a.py:5-6.\n")
    commit = repo.commit("write")
    trace = trace_one(repo, cite("docs/guide.md", 1, "src/a.py", 5, 6))
    assert trace.kind == "ok"
    assert trace.commit == commit
    assert trace.then_text == ("a 5", "a 6")


def test_lines_inserted_above_is_moved_with_new_lines(repo: Repo) -> None:
    repo.write("src/a.py", numbered("a", 20))
    repo.write("docs/guide.md", "See src/a.py:5-6.\n")
    written = repo.commit("write")
    repo.write("src/a.py", "new 1\nnew 2\nnew 3\n" + numbered("a", 20))
    repo.commit("insert above")
    trace = trace_one(repo, cite("docs/guide.md", 1, "src/a.py", 5, 6))
    assert trace.kind == "moved"
    assert trace.moved_to == ("src/a.py", 8, 9)
    assert trace.commit == written
    assert "src/a.py:8-9" in trace.reason


def test_moved_found_through_hunks_when_file_edited_elsewhere(repo: Repo) -> None:
    # Repeated text makes a plain search ambiguous; only the diff hunks tell
    # which copy is the cited one.
    body = "".join(f"def f{n}():\n    return 0\n\n" for n in range(1, 11))
    repo.write("src/b.py", body)
    repo.write("docs/guide.md", "f5 lives at src/b.py:13-14\n")
    repo.commit("write")
    lines = body.split("\n")
    lines.insert(20, "# edited below the span")
    lines[0:0] = ["import os", "import sys"]
    lines[30] = "    return 1  # changed elsewhere"
    repo.write("src/b.py", "\n".join(lines))
    repo.commit("edit around")
    trace = trace_one(repo, cite("docs/guide.md", 1, "src/b.py", 13, 14))
    assert trace.kind == "moved"
    assert trace.moved_to == ("src/b.py", 15, 16)
    assert repo.read("src/b.py").split("\n")[14] == "def f5():"


def test_edited_span_is_drift_with_then_and_now(repo: Repo) -> None:
    repo.write("src/a.py", numbered("a", 20))
    repo.write("docs/guide.md", "intro\nSee src/a.py:10 for the rule.\n")
    repo.commit("write")
    repo.write("src/a.py", numbered("a", 20).replace("a 10\n", "a ten, rewritten\n"))
    repo.commit("edit the span")
    trace = trace_one(repo, cite("docs/guide.md", 2, "src/a.py", 10))
    assert trace.kind == "drift"
    assert trace.then_text == ("a 10",)
    assert trace.now_text == ("a ten, rewritten",)
    report, code = history_report(
        repo.path,
        Config(root=repo.path),
        [cite("docs/guide.md", 2, "src/a.py", 10)],
        jobs=1,
        fix=False,
        dry_run=False,
    )
    assert code == 9
    [finding] = report.findings
    assert finding.rule == "drift"
    assert (finding.file, finding.line) == ("docs/guide.md", 2)
    assert "| a 10" in finding.message and "| a ten, rewritten" in finding.message


def test_whitespace_only_edit_is_not_drift(repo: Repo) -> None:
    repo.write("src/a.py", "def f():\n    return 1\n")
    repo.write("docs/guide.md", "src/a.py:2\n")
    repo.commit("write")
    repo.write("src/a.py", "def f():\n        return   1\n")
    repo.commit("reindent")
    assert trace_one(repo, cite("docs/guide.md", 1, "src/a.py", 2)).kind == "ok"


def test_renamed_file_is_moved_to_the_new_path(repo: Repo) -> None:
    repo.write("src/old_name.py", numbered("r", 30))
    repo.write("docs/guide.md", "See src/old_name.py:12-13\n")
    repo.commit("write")
    repo.git("mv", "src/old_name.py", "src/new_name.py")
    repo.write("src/new_name.py", "header\n" + numbered("r", 30))
    repo.commit("rename and insert")
    # Discovery can no longer resolve the old name: resolved is None now.
    trace = trace_one(repo, cite("docs/guide.md", 1, "src/old_name.py", 12, 13, resolved=None))
    assert trace.kind == "moved"
    assert trace.then_path == "src/old_name.py"
    assert trace.moved_to == ("src/new_name.py", 13, 14)
    assert "renamed src/old_name.py -> src/new_name.py" in trace.reason


def test_rename_followed_by_heavy_edits_is_followed_step_by_step(repo: Repo) -> None:
    repo.write("lib/core.py", numbered("core", 12))
    repo.write("docs/guide.md", "lib/engine.py:3\n")
    repo.commit("a doc written before its target's rename")
    repo.git("mv", "lib/core.py", "lib/engine.py")
    repo.commit("pure rename")
    # Rewrite most of the file: one diff from the first commit no longer
    # pairs the names, the commit-by-commit log does.
    repo.write("lib/engine.py", "core 1\ncore 2\ncore 3\n" + numbered("fresh", 30))
    repo.commit("rewrite")
    trace = trace_one(repo, cite("docs/guide.md", 1, "lib/engine.py", 3))
    assert trace.kind == "ok", trace.reason
    assert trace.then_path == "lib/core.py"


def test_deleted_file_is_gone(repo: Repo) -> None:
    repo.write("src/c.py", numbered("c", 10))
    repo.write("docs/guide.md", "See src/c.py:4\n")
    repo.commit("write")
    repo.git("rm", "-q", "src/c.py")
    repo.commit("delete")
    trace = trace_one(repo, cite("docs/guide.md", 1, "src/c.py", 4, resolved=None))
    assert trace.kind == "gone"
    assert "src/c.py was deleted" in trace.reason


def test_file_deleted_in_work_tree_only_is_gone(repo: Repo) -> None:
    repo.write("src/c.py", numbered("c", 10))
    repo.write("docs/guide.md", "See src/c.py:4\n")
    repo.commit("write")
    (repo.path / "src/c.py").unlink()
    trace = trace_one(repo, cite("docs/guide.md", 1, "src/c.py", 4, resolved=None))
    assert trace.kind == "gone"
    assert "not committed" in trace.reason


def test_untracked_document_is_unknown(repo: Repo) -> None:
    repo.write("src/a.py", numbered("a", 5))
    repo.commit("code")
    repo.write("docs/draft.md", "src/a.py:2\n")
    trace = trace_one(repo, cite("docs/draft.md", 1, "src/a.py", 2))
    assert trace.kind == "unknown"
    assert "not tracked" in trace.reason


def test_uncommitted_citing_line_is_unknown_but_committed_one_is_judged(repo: Repo) -> None:
    repo.write("src/a.py", numbered("a", 5))
    repo.write("docs/guide.md", "src/a.py:2\n")
    repo.commit("write")
    repo.write("docs/guide.md", "src/a.py:2\nand src/a.py:3, not committed\n")
    run = trace_citations(
        repo.path,
        [cite("docs/guide.md", 1, "src/a.py", 2), cite("docs/guide.md", 2, "src/a.py", 3)],
    )
    assert [t.kind for t in run.traces] == ["ok", "unknown"]
    assert "not committed" in run.traces[1].reason


def test_untracked_target_and_target_newer_than_citation_are_unknown(repo: Repo) -> None:
    repo.write("docs/guide.md", "gen/out.txt:1 and src/late.py:1\n")
    repo.commit("doc first")
    repo.write("src/late.py", "late\n")
    repo.commit("target later")
    repo.write("gen/out.txt", "generated\n")
    run = trace_citations(
        repo.path,
        [cite("docs/guide.md", 1, "gen/out.txt", 1), cite("docs/guide.md", 1, "src/late.py", 1)],
    )
    assert [t.kind for t in run.traces] == ["unknown", "unknown"]
    assert "not tracked" in run.traces[0].reason
    assert "did not exist yet" in run.traces[1].reason


def test_shallow_clone_says_how_deep_and_qualifies_boundary_lines(
    repo: Repo, tmp_path: Path
) -> None:
    repo.write("src/a.py", numbered("a", 20))
    repo.write("docs/old.md", "src/a.py:3\nsrc/a.py:4\n")
    repo.commit("old citations")
    for n in range(3):
        repo.write(f"filler{n}.txt", f"{n}\n")
        repo.commit(f"filler {n}")
    repo.write("docs/new.md", "src/a.py:5\n")
    repo.commit("new citation")
    clone = tmp_path / "clone"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "2", f"file://{repo.path}", str(clone)], check=True
    )
    shallow = Repo(clone)
    shallow.write("src/a.py", numbered("a", 20).replace("a 4\n", "a four\n"))
    shallow.commit("edit line 4")
    citations = [
        cite("docs/old.md", 1, "src/a.py", 3),  # dated to the boundary, unchanged
        cite("docs/old.md", 2, "src/a.py", 4),  # dated to the boundary, changed since
        cite("docs/new.md", 1, "src/a.py", 5),  # written inside the visible history
    ]
    report, code = history_report(
        clone, Config(root=clone), citations, jobs=1, fix=False, dry_run=False
    )
    kinds = [p["kind"] for p in report.payload["unknown"] + report.payload["problems"]]  # type: ignore[index]
    assert kinds == ["unknown", "drift"]
    assert report.payload["history"]["shallow"] is True  # type: ignore[index]
    assert report.payload["history"]["commits"] == 3  # type: ignore[index]
    assert "shallow clone: history holds only 3 commits" in report.summary
    unknown = report.payload["unknown"][0]  # type: ignore[index]
    assert unknown["shallow"] is True and "shallow boundary" in unknown["detail"]
    assert code == 9


def test_jobs_give_the_same_answers_as_one_process(repo: Repo) -> None:
    repo.write("src/a.py", numbered("a", 40))
    citations = []
    for d in range(4):
        repo.write(f"docs/d{d}.md", "".join(f"src/a.py:{n + d}\n" for n in range(1, 6)))
        citations += [cite(f"docs/d{d}.md", n, "src/a.py", n + d) for n in range(1, 6)]
    repo.commit("write")
    repo.write("src/a.py", "top\n" + numbered("a", 40).replace("a 3\n", "three\n"))
    repo.commit("edit")
    one = trace_citations(repo.path, citations, jobs=1).traces
    many = trace_citations(repo.path, citations, jobs=3).traces
    assert [(t.kind, t.moved_to) for t in one] == [(t.kind, t.moved_to) for t in many]
    assert {t.kind for t in one} == {"moved", "drift"}


def test_root_in_a_subdirectory_uses_root_relative_paths(repo: Repo) -> None:
    repo.write("pkg/src/a.py", numbered("a", 10))
    repo.write("pkg/docs/guide.md", "src/a.py:4\n")
    repo.commit("write")
    repo.write("pkg/src/a.py", "x\n" + numbered("a", 10))
    repo.commit("insert")
    trace = trace_one(Repo(repo.path / "pkg"), cite("docs/guide.md", 1, "src/a.py", 4))
    assert trace.kind == "moved"
    assert trace.moved_to == ("src/a.py", 5, 5)


def test_not_a_repository_exits_2_with_the_reason(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(GitUnavailable) as caught:
        trace_citations(plain, [cite("a.md", 1, "b.py", 1)])
    assert caught.value.exit_code == 2
    assert "not inside a git work tree" in caught.value.message


def test_git_missing_exits_2_with_the_reason(
    repo: Repo, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    empty = tmp_path / "no-git-here"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with pytest.raises(GitUnavailable) as caught:
        trace_citations(repo.path, [cite("a.md", 1, "b.py", 1)])
    assert caught.value.exit_code == 2
    assert "git is not installed" in caught.value.message


def _drain(fd: int) -> str:
    chunks: list[bytes] = []
    while select.select([fd], [], [], 0.2)[0]:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # the terminal's other end is closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks).decode()


def test_progress_bar_only_on_a_terminal(repo: Repo, tmp_path: Path) -> None:
    repo.write("src/a.py", numbered("a", 5))
    repo.write("docs/guide.md", "src/a.py:1\nsrc/a.py:2\n")
    repo.commit("write")
    citations = [cite("docs/guide.md", 1, "src/a.py", 1), cite("docs/guide.md", 2, "src/a.py", 2)]
    plain = tmp_path / "plain.txt"
    with plain.open("w") as stream:
        trace_citations(repo.path, citations, progress_stream=stream)
    assert plain.read_text() == ""
    leader, follower = pty.openpty()
    try:
        with os.fdopen(follower, "w", closefd=True) as terminal:
            trace_citations(repo.path, citations, progress_stream=terminal)
        drawn = _drain(leader)
    finally:
        os.close(leader)
    assert "history: blame" in drawn and "1/1" in drawn
    assert "history: trace" in drawn and "2/2" in drawn


def test_citation_written_on_a_merged_branch_follows_renames_on_main(repo: Repo) -> None:
    repo.write("src/a.py", numbered("a", 20))
    repo.write("docs/guide.md", "# Guide\n")
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "side")
    repo.write("docs/guide.md", "# Guide\nsrc/a.py:7\n")
    side = repo.commit("cite on a branch")
    repo.git("checkout", "-q", "main")
    repo.git("mv", "src/a.py", "src/b.py")
    repo.write("src/b.py", "top\n" + numbered("a", 20))
    repo.commit("rename on main")
    repo.git("merge", "-q", "--no-edit", "side")
    trace = trace_one(repo, cite("docs/guide.md", 2, "src/a.py", 7, resolved=None))
    assert trace.commit == side  # off the first-parent chain: the tree-diff path
    assert trace.kind == "moved"
    assert trace.moved_to == ("src/b.py", 8, 8)
