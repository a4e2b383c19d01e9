"""History dates the citation, not the line: a typo fixed beside it, or its sentence
moved to another document, does not make it younger (issue 23, item 9)."""

from __future__ import annotations

from tests.helpers.history import Repo, cite, numbered
from zodyssey.anchors.history.trace import Trace, trace_citations


def _trace(repo: Repo, *args: object, **kwargs: object) -> Trace:
    run = trace_citations(repo.path, [cite(*args, **kwargs)])  # type: ignore[arg-type]
    return run.traces[0]


def _cited_then_edited(repo: Repo, doc: str, text: str) -> str:
    repo.write("src/a.py", numbered("a", 20))
    repo.write(doc, text)
    written = repo.commit("cite src/a.py:5")
    repo.write("src/a.py", numbered("a", 20).replace("a 5\n", "a five\n"))
    repo.commit("the cited line changes")
    return written


def test_a_typo_fixed_on_the_citing_line_does_not_re_date_the_citation(repo: Repo) -> None:
    written = _cited_then_edited(repo, "docs/guide.md", "# Guide\nSee src/a.py:5 for teh rule.\n")
    repo.write("docs/guide.md", "# Guide\nSee src/a.py:5 for the rule.\n")
    repo.commit("typo")
    trace = _trace(repo, "docs/guide.md", 2, "src/a.py", 5)
    assert trace.commit == written
    assert trace.kind == "drift", trace.reason


def test_twice_edited_prose_still_dates_back_to_the_citation(repo: Repo) -> None:
    written = _cited_then_edited(repo, "docs/guide.md", "See src/a.py:5 for teh rule.\n")
    repo.write("docs/guide.md", "See src/a.py:5 for the rule.\n")
    repo.commit("typo")
    repo.write("docs/guide.md", "Read src/a.py:5 for the rule.\n")
    repo.commit("another word")
    trace = _trace(repo, "docs/guide.md", 1, "src/a.py", 5)
    assert trace.commit == written
    assert trace.kind == "drift", trace.reason


def test_a_changed_citation_is_dated_by_its_change(repo: Repo) -> None:
    # The numbers themselves were rewritten: that commit wrote this citation.
    _cited_then_edited(repo, "docs/guide.md", "See src/a.py:4 for the rule.\n")
    repo.write("docs/guide.md", "See src/a.py:5 for the rule.\n")
    rewritten = repo.commit("cite the next line")
    trace = _trace(repo, "docs/guide.md", 1, "src/a.py", 5)
    assert trace.commit == rewritten
    assert trace.kind == "ok", trace.reason


def test_a_sentence_moved_to_another_document_keeps_its_history(repo: Repo) -> None:
    sentence = "The rule that decides everything lives at src/a.py:5 in the code.\n"
    written = _cited_then_edited(repo, "docs/a.md", "# A\n" + sentence)
    repo.write("docs/a.md", "# A\n")
    repo.write("docs/b.md", "# B\n\n" + sentence)
    repo.commit("move the sentence to b.md")
    trace = _trace(repo, "docs/b.md", 3, "src/a.py", 5)
    assert trace.commit == written
    assert trace.kind == "drift", trace.reason
