"""docs/ci.md's promise that every format of `zodyssey check` says what its exit code says.

The checks live in tests/formats (real repositories, the installed command,
the SARIF 2.1.0 schema); the claim runs them again under its own id.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.formats import test_formats_verdicts as verdicts


@pytest.mark.claim("check-formats-agree")
@pytest.mark.parametrize("fmt", ["junit", "sarif", "rdjson", "github", "json"])
@pytest.mark.parametrize(
    ("make", "code"),
    [
        (verdicts.cited_repo, 0),
        (verdicts.zero_citations, 4),
        (verdicts.malformed_lock, 2),
    ],
)
def test_check_formats_agree_with_the_exit_code(
    tmp_path: Path, fmt: str, make: object, code: int
) -> None:
    verdicts.test_check_formats_give_the_exit_codes_verdict(tmp_path, fmt, make, code)


@pytest.mark.claim("check-formats-agree")
@pytest.mark.parametrize("fmt", ["junit", "sarif", "rdjson", "github"])
def test_a_part_whose_report_shows_no_failure_fails(fmt: str) -> None:
    verdicts.test_a_failing_part_whose_report_shows_no_failure_still_fails(fmt)
