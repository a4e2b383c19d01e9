"""Renames on every path from the citing commit to HEAD, not only the first-parent chain.

A rename made on a side branch and then edited there reaches main as a merge
whose first-parent diff pairs nothing (the merged file is too different from
the old one): git shows a deletion and an addition. The rename is in the
branch's own commits, and history must follow it there (issue 23, item 3).
"""

from __future__ import annotations

from tests.helpers.history import Repo, cite, numbered
from zodyssey.anchors.history.trace import Trace, trace_citations


def _trace(repo: Repo, *args: object, **kwargs: object) -> Trace:
    run = trace_citations(repo.path, [cite(*args, **kwargs)])  # type: ignore[arg-type]
    return run.traces[0]


def _kept_block() -> str:
    """A side branch keeps lines 45-65 (the cited 49-61 with neighbours), rewrites the rest."""
    kept = "".join(f"line {n}\n" for n in range(45, 66))
    return numbered("fresh", 44) + kept + numbered("later", 140)


def _side_branch_rename(repo: Repo) -> dict[str, str]:
    repo.write("src/a.py", "".join(f"line {n}\n" for n in range(1, 81)))
    repo.write("docs/guide.md", "# Guide\nSee src/a.py:49-61.\n")
    ids = {"cite": repo.commit("cite a.py")}
    repo.git("checkout", "-q", "-b", "side")
    repo.git("mv", "src/a.py", "src/b.py")
    repo.write("src/b.py", repo.read("src/b.py").replace("line 3\n", "line three\n"))
    ids["rename"] = repo.commit("rename a.py to b.py (R099)")
    repo.write("src/b.py", _kept_block())
    ids["rewrite"] = repo.commit("rewrite b.py around the cited block")
    repo.git("checkout", "-q", "main")
    repo.write("other.txt", "main moves on\n")
    repo.commit("work on main")
    repo.git("merge", "-q", "--no-ff", "--no-edit", "side")
    ids["merge"] = repo.git("rev-parse", "HEAD").strip()
    return ids


def test_the_merge_alone_pairs_nothing(repo: Repo) -> None:
    # The premise: git's first-parent diff of the merge shows a delete and an add.
    ids = _side_branch_rename(repo)
    shown = repo.git("diff-tree", "-r", "-M", "--name-status", f"{ids['merge']}^1", ids["merge"])
    assert "D\tsrc/a.py" in shown and "A\tsrc/b.py" in shown


def test_a_rename_on_a_merged_side_branch_is_followed(repo: Repo) -> None:
    ids = _side_branch_rename(repo)
    trace = _trace(repo, "docs/guide.md", 2, "src/a.py", 49, 61, resolved=None)
    assert trace.commit == ids["cite"]
    assert trace.kind == "moved", trace.reason
    assert trace.moved_to == ("src/b.py", 49, 61)
    assert "renamed src/a.py -> src/b.py" in trace.reason


def test_a_rename_on_a_side_branch_is_followed_for_an_off_chain_citation(repo: Repo) -> None:
    # The citing commit is itself on a branch merged into main, and the rename is on
    # another merged branch: the single tree diff from the citing commit pairs nothing.
    repo.write("src/a.py", "".join(f"line {n}\n" for n in range(1, 81)))
    repo.write("docs/guide.md", "# Guide\n")
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "docs")
    repo.write("docs/guide.md", "# Guide\nSee src/a.py:49-61.\n")
    citing = repo.commit("cite on a branch")
    repo.git("checkout", "-q", "main")
    repo.git("merge", "-q", "--no-ff", "--no-edit", "docs")
    repo.git("checkout", "-q", "-b", "side")
    repo.git("mv", "src/a.py", "src/b.py")
    repo.commit("rename")
    repo.write("src/b.py", _kept_block())
    repo.commit("rewrite")
    repo.git("checkout", "-q", "main")
    repo.write("other.txt", "x\n")
    repo.commit("work on main")
    repo.git("merge", "-q", "--no-ff", "--no-edit", "side")
    trace = _trace(repo, "docs/guide.md", 2, "src/a.py", 49, 61, resolved=None)
    assert trace.commit == citing
    assert trace.kind == "moved", trace.reason
    assert trace.moved_to == ("src/b.py", 49, 61)


def test_renamed_then_deleted_names_the_deleting_commit_and_the_name_then(repo: Repo) -> None:
    ids = _side_branch_rename(repo)
    repo.git("rm", "-q", "src/b.py")
    deleter = repo.commit("delete b.py")
    trace = _trace(repo, "docs/guide.md", 2, "src/a.py", 49, 61, resolved=None)
    assert trace.kind == "gone"
    assert deleter[:12] in trace.reason
    assert ids["merge"][:12] not in trace.reason
    assert "src/b.py" in trace.reason
    assert "renamed src/a.py -> src/b.py" in trace.reason


def test_a_plain_delete_on_a_merged_branch_names_its_own_commit(repo: Repo) -> None:
    repo.write("src/a.py", numbered("a", 20))
    repo.write("docs/guide.md", "src/a.py:4\n")
    repo.commit("cite")
    repo.git("checkout", "-q", "-b", "side")
    repo.git("rm", "-q", "src/a.py")
    deleter = repo.commit("delete on the branch")
    repo.git("checkout", "-q", "main")
    repo.write("other.txt", "x\n")
    repo.commit("work on main")
    repo.git("merge", "-q", "--no-ff", "--no-edit", "side")
    trace = _trace(repo, "docs/guide.md", 1, "src/a.py", 4, resolved=None)
    assert trace.kind == "gone"
    assert f"src/a.py was deleted by {deleter[:12]}" in trace.reason


def test_a_citation_of_the_new_name_written_before_a_side_branch_rename(repo: Repo) -> None:
    # Backwards too: the citation names the file as it is called now; at the
    # citing commit it had its old name, and the rename is on a merged branch.
    repo.write("lib/core.py", numbered("core", 12))
    repo.write("docs/guide.md", "lib/engine.py:3\n")
    citing = repo.commit("a doc written before its target's rename")
    repo.git("checkout", "-q", "-b", "side")
    repo.git("mv", "lib/core.py", "lib/engine.py")
    repo.commit("pure rename")
    repo.write("lib/engine.py", "core 1\ncore 2\ncore 3\n" + numbered("fresh", 30))
    repo.commit("rewrite")
    repo.git("checkout", "-q", "main")
    repo.write("other.txt", "x\n")
    repo.commit("work on main")
    repo.git("merge", "-q", "--no-ff", "--no-edit", "side")
    trace = _trace(repo, "docs/guide.md", 1, "lib/engine.py", 3)
    assert trace.commit == citing
    assert trace.kind == "ok", trace.reason
    assert trace.then_path == "lib/core.py"
