"""`shared_corpus`: found relative to the repository, never by a machine path;
missing, it skips outside CI and fails in CI, saying where it looked.

How this could pass while broken: a lookup that only tried one fixed path
would still find the corpus on the machine that wrote the tests, and a
missing corpus that always skipped would leave CI green with nothing checked.
Each case builds its own directory layout in tmp_path.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import find_shared_corpus, shared_corpus

NAME = "bash-public.jsonl"


def _corpus(base: Path) -> Path:
    path = base / "shared" / "corpus" / NAME
    path.parent.mkdir(parents=True)
    path.write_text("{}\n")
    return path


@pytest.fixture(autouse=True)
def _no_override(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ZODYSSEY_SHARED_CORPUS", raising=False)
    monkeypatch.delenv("CI", raising=False)


def test_found_beside_the_repository_and_up_to_four_levels_above(tmp_path: Path) -> None:
    beside = _corpus(tmp_path / "a")
    assert shared_corpus(NAME, tmp_path / "a" / "repo") == beside
    above = _corpus(tmp_path / "b")
    deep = tmp_path / "b" / "1" / "2" / "3" / "4" / "repo"
    assert shared_corpus(NAME, deep) == above
    too_deep = tmp_path / "b" / "1" / "2" / "3" / "4" / "5" / "repo"
    assert find_shared_corpus(NAME, too_deep) is None


def test_environment_variable_names_a_directory_or_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = _corpus(tmp_path / "elsewhere")
    repo = tmp_path / "lone" / "repo"
    assert find_shared_corpus(NAME, repo) is None
    monkeypatch.setenv("ZODYSSEY_SHARED_CORPUS", str(corpus.parent))
    assert shared_corpus(NAME, repo) == corpus
    monkeypatch.setenv("ZODYSSEY_SHARED_CORPUS", str(corpus))
    assert shared_corpus(NAME, repo) == corpus


def test_missing_corpus_skips_outside_ci_and_fails_in_ci(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "lone" / "repo"
    with pytest.raises(pytest.skip.Exception, match="ZODYSSEY_SHARED_CORPUS") as skipped:
        shared_corpus(NAME, repo)
    assert str(tmp_path / "lone" / "shared" / "corpus" / NAME) in str(skipped.value)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="not found"):
        shared_corpus(NAME, repo)
