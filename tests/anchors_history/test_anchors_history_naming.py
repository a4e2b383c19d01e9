"""How history names the cited file then and now, and why it cannot: each refusal of
`trace._name_files` on a real repository (added since the last commit, resolving to
nothing then, ambiguous now, moved out of the checked root) and the link and blob
forms resolved against the tree of the commit that wrote the citing line."""

from __future__ import annotations

import dataclasses

from tests.helpers.history import Repo, cite, numbered
from zodyssey.anchors.history.trace import Trace, trace_citations
from zodyssey.anchors.model import Citation


def trace_one(repo: Repo, citation: Citation) -> Trace:
    run = trace_citations(repo.path, [citation])
    assert len(run.traces) == 1
    return run.traces[0]


def test_a_target_added_since_the_last_commit_is_unknown(repo: Repo) -> None:
    repo.write("src/a.py", numbered("a", 5))
    repo.write("docs/guide.md", "See src/new.py:2.\n")
    repo.commit("write")
    repo.write("src/new.py", numbered("n", 5))
    repo.git("add", "src/new.py")  # tracked, but in no commit yet
    trace = trace_one(repo, cite("docs/guide.md", 1, "src/new.py", 2))
    assert trace.kind == "unknown"
    assert trace.reason == "target src/new.py was added after the last commit"
    assert trace.commit is not None and trace.then_path is None


def test_a_citation_that_resolves_to_nothing_then_or_now_is_unknown(repo: Repo) -> None:
    repo.write("src/a.py", numbered("a", 5))
    repo.write("docs/guide.md", "See nowhere.py:2.\n")
    commit = repo.commit("write")
    trace = trace_one(repo, cite("docs/guide.md", 1, "nowhere.py", 2, resolved=None))
    assert trace.kind == "unknown"
    assert trace.reason == (
        f"nowhere.py resolves to no single file now, nor at {commit[:12]}, "
        "the commit that wrote the citing line"
    )


def test_a_citation_ambiguous_now_says_what_it_meant_then(repo: Repo) -> None:
    repo.write("src/app.py", numbered("a", 5))
    repo.write("docs/guide.md", "See app.py:2.\n")
    commit = repo.commit("write")
    repo.write("tools/app.py", numbered("t", 5))
    repo.commit("a second app.py")
    ambiguous = dataclasses.replace(
        cite("docs/guide.md", 1, "app.py", 2, resolved=None),
        candidates=("src/app.py", "tools/app.py"),
    )
    trace = trace_one(repo, ambiguous)
    assert trace.kind == "unknown"
    assert trace.then_path == "src/app.py"
    assert trace.reason == (
        f"app.py is ambiguous now (src/app.py, tools/app.py); at {commit[:12]} it meant src/app.py"
    )


def test_a_file_moved_out_of_the_checked_root_is_gone(repo: Repo) -> None:
    repo.write("pkg/src/a.py", numbered("a", 5))
    repo.write("pkg/docs/guide.md", "See src/a.py:2.\n")
    repo.commit("write")
    repo.git("mv", "pkg/src/a.py", "elsewhere.py")
    repo.commit("move it out")
    trace = trace_one(
        Repo(repo.path / "pkg"), cite("docs/guide.md", 1, "src/a.py", 2, resolved=None)
    )
    assert trace.kind == "gone"
    assert trace.then_path == "src/a.py"
    assert trace.reason == "src/a.py was moved out of the checked root (now elsewhere.py)"


def test_link_and_blob_forms_resolve_in_the_tree_then(repo: Repo) -> None:
    repo.write("src/a b.py", numbered("a", 5))
    repo.write("docs/guide.md", "[x](../src/a%20b.py#L2) [y](/src/a%20b.py#L2) and a blob URL\n")
    repo.commit("write")
    repo.git("rm", "-q", "src/a b.py")
    deleter = repo.commit("delete")
    base = cite("docs/guide.md", 1, "../src/a%20b.py", 2, resolved=None)
    forms = [
        dataclasses.replace(base, dialect="link"),
        dataclasses.replace(base, cited="/src/a%20b.py", dialect="link"),
        dataclasses.replace(base, cited="/src/a b.py", dialect="blob"),
    ]
    for citation in forms:
        trace = trace_one(repo, citation)
        assert trace.kind == "gone", (citation.cited, trace)
        assert trace.then_path == "src/a b.py"
        assert f"src/a b.py was deleted by {deleter[:12]}" in trace.reason


def test_a_path_written_from_the_document_folder_resolves_then(repo: Repo) -> None:
    repo.write("docs/src/b.py", numbered("b", 5))
    repo.write("docs/x/b.py", numbered("b", 5))
    repo.write("docs/guide.md", "See ./src/b.py:2 and b.py:3.\n")
    repo.commit("write")
    repo.git("rm", "-q", "docs/src/b.py", "docs/x/b.py")
    repo.commit("delete")
    relative = trace_one(repo, cite("docs/guide.md", 1, "./src/b.py", 2, resolved=None))
    assert relative.kind == "gone" and relative.then_path == "docs/src/b.py"
    # Two files named b.py then: the suffix step finds no single one.
    by_name = trace_one(repo, cite("docs/guide.md", 1, "b.py", 3, resolved=None))
    assert by_name.kind == "unknown" and "resolves to no single file" in by_name.reason
