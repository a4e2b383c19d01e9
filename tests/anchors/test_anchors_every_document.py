"""Every document read or reported (issue 35, item 4).

Each case is a real git repository whose expectation was decided before the
run: a document a sparse checkout leaves out of the work tree, an `.mdx`
page, a citation of a path with non-ASCII letters (NFC in the document, NFD
on disk, and the other way round), a notebook whose cell source is one string
or a list of lines.
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path
from typing import Literal

import pytest

from tests.helpers.anchors import SOURCE, commit, git, make_repo, run_cli, write


def _lock(root: Path) -> dict[str, str]:
    data = json.loads((root / "anchors/anchors.lock.json").read_text())
    citations: dict[str, str] = data["citations"]
    return citations


# --------------------------------------------------------------------------
# Sparse checkout: a document git has and the work tree does not
# --------------------------------------------------------------------------


def _sparse_repo(tmp_path: Path) -> Path:
    root = make_repo(
        tmp_path / "repo",
        {
            "src/app.py": SOURCE,
            "README.md": "# App\n\nSee src/app.py:3 for the start.\n",
            "docs/guide.md": "# Guide\n\nThe second step is src/app.py:2.\n",
        },
    )
    assert run_cli(root, "--update").returncode == 0
    commit(root, "lock")
    assert "src/app.py:2" in _lock(root)
    # Check out everything but docs/: the guide stays in git, not in the work tree.
    git(root, "sparse-checkout", "set", "--no-cone", "/*", "!/docs/")
    assert not (root / "docs/guide.md").exists()
    return root


def test_a_sparse_checkout_never_lets_a_pin_go_quietly_stale(tmp_path: Path) -> None:
    # Old code: the guide's pin turned `stale`, the check passed after the cited
    # line changed, and the summary blamed an `exclude` nobody wrote.
    root = _sparse_repo(tmp_path)
    lines = SOURCE.splitlines(keepends=True)
    lines[1] = "def step_2():  return 222\n"
    write(root, "src/app.py", "".join(lines))
    done = run_cli(root, "--json")
    payload = json.loads(done.stdout)
    assert done.returncode == 9, done.stdout
    problems = {(p["kind"], p["key"]) for p in payload["problems"]}
    assert ("unscanned", "src/app.py:2") in problems
    detail = next(p["detail"] for p in payload["problems"] if p["kind"] == "unscanned")
    assert "docs/guide.md" in detail and "sparse checkout" in detail
    assert payload["left_out"]["why"] == {"docs/guide.md": "sparse"}
    text = run_cli(root)
    assert "excluded by `exclude`" not in text.stdout
    assert "`exclude` in [tool.zodyssey] leaves it out" not in text.stdout
    assert "not checked out" in text.stdout


def test_a_sparse_checkout_without_pins_there_says_why_and_blames_no_exclude(
    tmp_path: Path,
) -> None:
    root = make_repo(
        tmp_path / "repo",
        {
            "src/app.py": SOURCE,
            "README.md": "# App\n\nSee src/app.py:3 for the start.\n",
            "docs/guide.md": "# Guide\n\nNo citation here.\n",
        },
    )
    assert run_cli(root, "--update").returncode == 0
    git(root, "sparse-checkout", "set", "--no-cone", "/*", "!/docs/")
    done = run_cli(root)
    assert done.returncode == 0, done.stdout
    assert "excluded by `exclude`" not in done.stdout
    assert "1 not checked out (sparse checkout)" in done.stdout


# --------------------------------------------------------------------------
# .mdx pages are documents by default
# --------------------------------------------------------------------------


def test_an_mdx_page_is_read_by_default(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "repo",
        {"src/app.py": SOURCE, "site/page.mdx": "# Page\n\n<Note>see src/app.py:4</Note>\n"},
    )
    assert run_cli(root, "--update").returncode == 0
    assert "src/app.py:4" in _lock(root)


# --------------------------------------------------------------------------
# Non-ASCII paths, compared by normal form
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("doc_form", "file_form"), [("NFC", "NFD"), ("NFD", "NFC"), ("NFC", "NFC")]
)
def test_a_non_ascii_path_is_a_citation_whatever_its_normal_form(
    tmp_path: Path, doc_form: Literal["NFC", "NFD"], file_form: Literal["NFC", "NFD"]
) -> None:
    name = unicodedata.normalize(file_form, "src/café.py")
    cited = unicodedata.normalize(doc_form, "src/café.py")
    root = make_repo(tmp_path / "repo", {name: SOURCE, "README.md": f"# A\n\nSee {cited}:2.\n"})
    update = run_cli(root, "--update", "--json")
    assert update.returncode == 0, update.stdout + update.stderr
    assert list(_lock(root)) == [f"{name}:2"]
    lines = SOURCE.splitlines(keepends=True)
    lines[1] = "def step_2():  return 'changed'\n"
    (root / name).write_text("".join(lines), encoding="utf-8")
    done = run_cli(root, "--json")
    assert done.returncode == 9
    assert [p["kind"] for p in json.loads(done.stdout)["problems"]] == ["drift"]


def test_unicode_letters_in_folders_and_names(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "repo",
        {
            "модуль/данные.py": SOURCE,
            "文档/说明.ts": SOURCE,
            "README.md": "# A\n\nSee модуль/данные.py:3 and 文档/说明.ts:4-5.\n",
        },
    )
    assert run_cli(root, "--update").returncode == 0
    assert set(_lock(root)) == {"文档/说明.ts:4-5", "модуль/данные.py:3"}


# --------------------------------------------------------------------------
# Notebooks: a cell's source as one string or as a list of lines
# --------------------------------------------------------------------------


def _notebook(source: object) -> str:
    cell = {"cell_type": "markdown", "metadata": {}, "source": source}
    return json.dumps(
        {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1
    )


@pytest.mark.parametrize(
    "source",
    [
        "See src/app.py:2\nsrc/app.py:5 and\nsrc/app.py:7",
        ["See src/app.py:2\n", "src/app.py:5 and\n", "src/app.py:7"],
    ],
    ids=["one-string", "list-of-lines"],
)
def test_notebook_sources_in_both_forms(tmp_path: Path, source: object) -> None:
    root = make_repo(
        tmp_path / "repo",
        {
            "src/app.py": SOURCE,
            "nb/tour.ipynb": _notebook(source),
            "pyproject.toml": '[tool.zodyssey]\ndocuments = ["**/*.md", "**/*.ipynb"]\n',
        },
    )
    update = run_cli(root, "--update", "--json")
    assert update.returncode == 0, update.stdout + update.stderr
    assert sorted(_lock(root)) == ["src/app.py:2", "src/app.py:5", "src/app.py:7"]
