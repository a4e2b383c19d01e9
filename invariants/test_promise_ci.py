"""docs/ci.md's promises on pull-request output and attestations.

The checks themselves live in tests/ci (they build real repositories, run the
installed command and validate against the formats' schemas); each claim here
runs them again under its own id, so the ledger holds the promise to them.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from tests.ci import test_ci_pull_requests as pull_requests


def _intoto() -> ModuleType:
    """tests/ci/test_ci_intoto.py, imported when run: it needs protobuf (the test
    extra), and the ledger collects this file where only `pip install .` ran."""
    from tests.ci import test_ci_intoto

    return test_ci_intoto


@pytest.mark.claim("annotations-capped")
def test_annotations_capped_and_the_rest_counted(tmp_path: Path) -> None:
    pull_requests.test_at_most_fifty_annotations_and_the_rest_counted_in_the_summary(tmp_path)


@pytest.mark.claim("rdjson-moved-suggestion")
def test_moved_citation_is_a_one_click_suggestion(tmp_path: Path) -> None:
    pull_requests.test_moved_citation_carries_the_fix_as_a_suggestion(tmp_path)


@pytest.mark.claim("attestation-verified")
def test_rewritten_evidence_fails_verification(tmp_path: Path) -> None:
    _intoto().test_evidence_rewritten_after_attesting_fails_verification(tmp_path)


@pytest.mark.claim("attestation-verified")
def test_unsigned_empty_or_garbage_never_verifies(tmp_path: Path) -> None:
    _intoto().test_unsigned_empty_or_garbage_is_never_verified(tmp_path)


@pytest.mark.claim("attestation-verified")
def test_a_bundle_verifies_only_whole(tmp_path: Path) -> None:
    _intoto().test_a_bundle_verifies_only_whole(tmp_path)
