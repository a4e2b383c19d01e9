"""Discovery of every dialect on real files in temporary git repositories."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.anchors import SOURCE, make_repo, write
from zodyssey.anchors.discover import collect_citations, discover
from zodyssey.config import load_config
from zodyssey.errors import UsageError


def cites(root: Path) -> list[tuple[str, int, str | None, str]]:
    return [
        (c.site.doc, c.site.line, c.key, c.dialect)
        for c in collect_citations(root, load_config(root))
    ]


def keys(root: Path) -> list[str | None]:
    return [c.key for c in collect_citations(root, load_config(root))]


def test_path_forms_of_any_extension_resolve(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "r",
        {
            "cmd/server/main.go": SOURCE,
            "web/App.tsx": SOURCE,
            "Makefile": SOURCE,
            "README.md": "Go `cmd/server/main.go:3`, TSX App.tsx:4-5, make Makefile:2, "
            "suffix server/main.go:6 \u2013 and spaced main.go:7 \u2013 9.\n",
        },
    )
    assert keys(root) == [
        "cmd/server/main.go:3",
        "web/App.tsx:4-5",
        "Makefile:2",
        "cmd/server/main.go:6",
        "cmd/server/main.go:7-9",
    ]


def test_prose_with_colons_is_not_a_citation(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "r",
        {"a.py": SOURCE, "README.md": "at 12:30 on localhost:8080, ratio 3:1; a.py:2\n"},
    )
    assert keys(root) == ["a.py:2"]


def test_chains_and_bare_continuations(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "r",
        {
            "src/h.py": SOURCE,
            "CHANGES.md": "h.py:8,6 and h.py:9-10,12/:14 then see :20-21, 23\n"
            "next line :5 has no antecedent\n",
        },
    )
    assert keys(root) == [
        "src/h.py:8",
        "src/h.py:6",
        "src/h.py:9-10",
        "src/h.py:12",
        "src/h.py:14",
        "src/h.py:20-21",
        "src/h.py:23",
    ]


def test_markdown_links_resolve_relative_to_the_document(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "r",
        {
            "src/a.py": SOURCE,
            "docs/guide/intro.md": "See [the loop](../../src/a.py#L3-L5), [one](/src/a.py#L7),\n"
            "[ref][r] and `[code](../../src/a.py#L9)` and [no lines](../../src/a.py).\n\n"
            "[r]: ../../src/a.py#L11\n",
        },
    )
    found = cites(root)
    assert ("docs/guide/intro.md", 1, "src/a.py:3-5", "link") in found
    assert ("docs/guide/intro.md", 1, "src/a.py:7", "link") in found
    assert ("docs/guide/intro.md", 4, "src/a.py:11", "link") in found  # the definition line
    assert all(k != "src/a.py:9" for _, _, k, _ in found)  # a link in a code span is not a link


def test_blob_urls_of_the_own_remote_only(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "r",
        {
            "src/a.py": SOURCE,
            "README.md": "[x](https://github.com/Acme/Widget/blob/main/src/a.py#L4-L6) and\n"
            "https://github.com/acme/widget/blob/feature/x/src/a.py#L8 and\n"
            "https://github.com/other/repo/blob/main/src/a.py#L9\n",
        },
        remote="git@github.com:acme/widget.git",
    )
    assert cites(root) == [
        ("README.md", 1, "src/a.py:4-6", "blob"),
        ("README.md", 2, "src/a.py:8", "blob"),
    ]


def test_code_spans_and_fences_are_scanned(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "r",
        {"a.py": SOURCE, "README.md": "Inline `a.py:2`.\n\n```text\nexample a.py:3\n```\n"},
    )
    assert keys(root) == ["a.py:2", "a.py:3"]


def test_html_comments_are_skipped_but_markers_count(tmp_path: Path) -> None:
    doc = (
        "visible a.py:1 <!-- hidden a.py:2 --> visible a.py:3\n"
        "<!--\nblock comment a.py:4\n-->\n"
        "<!-- anchor-lock: ignore-next -->\n\n"
        "skipped a.py:5\n"
        "kept a.py:6\n"
        "skipped too a.py:7 <!-- anchor-lock: ignore-line -->\n"
        "Mentioning `<!-- anchor-lock: ignore -->` in code does not skip the document a.py:8\n"
    )
    root = make_repo(tmp_path / "r", {"a.py": SOURCE, "README.md": doc})
    assert keys(root) == ["a.py:1", "a.py:3", "a.py:6", "a.py:8"]


def test_document_ignore_marker(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "r",
        {
            "a.py": SOURCE,
            "README.md": "<!-- anchor-lock: ignore -->\na.py:2\n",
            "docs/x.md": "a.py:3\n",
        },
    )
    result = discover(root, load_config(root))
    assert [c.key for c in result.citations] == ["a.py:3"]
    assert result.skipped == ["README.md"]


def test_changelog_top_section_window(tmp_path: Path) -> None:
    changelog = (
        "# Changelog\n## [Unreleased]\nnew a.py:2\n"
        "```\n## [0.0.0] inside a fence does not count\n```\nstill a.py:3\n"
        "## [1.0.0]\nold a.py:4\n"
    )
    root = make_repo(tmp_path / "r", {"a.py": SOURCE, "CHANGELOG.md": changelog})
    assert keys(root) == ["a.py:2", "a.py:3"]
    write(root, "pyproject.toml", '[tool.zodyssey.windows]\n"CHANGELOG.md" = "all"\n')
    assert keys(root) == ["a.py:2", "a.py:3", "a.py:4"]


def test_documents_and_exclude_configuration(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "r",
        {
            "a.py": SOURCE,
            "vendor/a.py": SOURCE,
            "docs/x.md": "a.py:2\n",
            "notes/y.md": "a.py:3\n",
            ".hidden/z.md": "a.py:4\n",
        },
    )
    assert keys(root) == ["a.py:2", "a.py:3"]  # hidden dirs are not walked
    write(root, "pyproject.toml", '[tool.zodyssey]\ndocuments = ["docs/**/*.md"]\n')
    assert keys(root) == ["a.py:2"]
    write(root, "vendor/more.md", "")
    write(root, "pyproject.toml", '[tool.zodyssey]\nexclude = ["vendor"]\n')
    assert keys(root) == ["a.py:2", "a.py:3"]


def test_ambiguity_and_relative_to_document(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "r",
        {
            "one/util.py": SOURCE,
            "two/util.py": SOURCE,
            "two/notes.md": "util.py:2\n",
            "README.md": "util.py:3\n",
        },
    )
    found = {c.site.doc: c for c in collect_citations(root, load_config(root))}
    assert found["two/notes.md"].key == "two/util.py:2"  # relative to the citing document
    assert found["README.md"].resolved is None
    assert found["README.md"].candidates == ("one/util.py", "two/util.py")


def test_ignore_region(tmp_path: Path) -> None:
    doc = (
        "a.py:1\n<!-- anchor-lock: ignore-begin -->\n```\nexample a.py:2\n```\n"
        "<!-- anchor-lock: ignore-end -->\na.py:3\n<!-- anchor-lock: ignore-begin -->\na.py:4\n"
        "<!-- anchor-lock: ignore-end -->\n"
    )
    root = make_repo(tmp_path / "r", {"a.py": SOURCE, "README.md": doc})
    assert keys(root) == ["a.py:1", "a.py:3"]
    # An unclosed region is an error naming the document and line, never a silent skip.
    (root / "README.md").write_text(doc.rsplit("<!--", 1)[0])
    with pytest.raises(UsageError, match=r"README.md:8"):
        keys(root)


def test_link_query_is_not_part_of_the_path(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "r",
        {
            "docs/a.md": "x\ny\n",
            "README.md": "[src](docs/a.md?plain=1#L2) and [b](<docs/a.md#L1>)\n",
        },
    )
    found = collect_citations(root, load_config(root))
    assert [c.key for c in found] == ["docs/a.md:2", "docs/a.md:1"]
    line = (root / "README.md").read_text()
    assert [line[s:e] for c in found for s, e in c.number_spans] == ["2", "1"]
