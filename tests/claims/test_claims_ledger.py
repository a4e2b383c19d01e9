"""Ledger comparison: one finding kind per case, as a pure function."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from zodyssey.claims.ledger import (
    build_ledger,
    compare,
    describe_changes,
    read_ledger,
    render_ledger,
)
from zodyssey.claims.markers import parse_document
from zodyssey.claims.model import ClaimSet, LinkedTest
from zodyssey.core.exits import Exit
from zodyssey.errors import UsageError

DOC = "Gate blocks tee. <!-- claim: bash-gate -->\n\nZero fails. <!-- claim: zero-fails -->\n"
LINKS = [
    LinkedTest("t.py::test_tee", ("bash-gate",)),
    LinkedTest("t.py::test_cat_redirect", ("bash-gate",)),
    LinkedTest("t.py::test_zero", ("zero-fails",)),
]


def claimset(text: str = DOC, doc: str = "README.md") -> ClaimSet:
    result = ClaimSet(documents=[doc])
    for claim in parse_document(text, doc).claims:
        result.occurrences.append(claim)
        result.claims.setdefault(claim.id, claim)
    return result


def rules(findings: list) -> list[tuple[str, str | None]]:  # type: ignore[type-arg]
    return sorted((f.rule, f.extra.get("id")) for f in findings)


def test_locked_state_is_clean() -> None:
    claims = claimset()
    ledger = build_ledger(claims, LINKS)
    assert compare(claims, LINKS, ledger, "lock.json") == []


def test_uncovered_claim() -> None:
    claims = claimset()
    links = LINKS[:2]
    assert ("uncovered", "zero-fails") in rules(
        compare(claims, links, build_ledger(claims, links), "l")
    )


def test_deleting_one_of_several_tests_is_missing_test() -> None:
    claims = claimset()
    ledger = build_ledger(claims, LINKS)
    findings = compare(claims, [LINKS[0], LINKS[2]], ledger, "l")
    assert rules(findings) == [("missing-test", "bash-gate")]
    assert findings[0].extra["test"] == "t.py::test_cat_redirect"


def test_test_that_stops_linking_the_claim_is_missing_too() -> None:
    claims = claimset()
    ledger = build_ledger(claims, LINKS)
    relinked = [LINKS[0], LinkedTest("t.py::test_cat_redirect", ("zero-fails",)), LINKS[2]]
    assert ("missing-test", "bash-gate") in rules(compare(claims, relinked, ledger, "l"))


def test_changed_text() -> None:
    ledger = build_ledger(claimset(), LINKS)
    edited = claimset(DOC.replace("Gate blocks tee.", "Gate blocks tee mostly."))
    findings = compare(edited, LINKS, ledger, "l")
    assert rules(findings) == [("changed", "bash-gate")]
    assert "mostly" in findings[0].message


def test_reflowed_text_is_not_changed() -> None:
    ledger = build_ledger(claimset(), LINKS)
    reflowed = claimset("\n\n" + DOC.replace("Gate blocks tee.", "Gate\n   blocks    tee."))
    assert compare(reflowed, LINKS, ledger, "l") == []


def test_duplicate_id() -> None:
    claims = claimset(DOC + "\nAgain. <!-- claim: bash-gate -->\n")
    assert ("duplicate-id", "bash-gate") in rules(compare(claims, LINKS, None, "l"))


def test_unknown_claim() -> None:
    claims = claimset()
    links = [*LINKS, LinkedTest("t.py::test_typo", ("bash-gat",), "t.py", 9)]
    findings = [
        f
        for f in compare(claims, links, build_ledger(claims, LINKS), "l")
        if f.rule == "unknown-claim"
    ]
    assert [(f.file, f.line, f.extra["id"]) for f in findings] == [("t.py", 9, "bash-gat")]


def test_unlocked_removed_and_new_test() -> None:
    claims = claimset()
    ledger = build_ledger(
        claimset(DOC + "\nOld. <!-- claim: old-promise -->\n"), LINKS[:1] + LINKS[2:]
    )
    del ledger.entries["zero-fails"]
    found = rules(compare(claims, LINKS, ledger, "l"))
    assert found == [
        ("new-test", "bash-gate"),
        ("removed", "old-promise"),
        ("unlocked", "zero-fails"),
    ]
    new_test = [f for f in compare(claims, LINKS, ledger, "l") if f.rule == "new-test"]
    assert new_test[0].severity == "note"


def test_ledger_round_trip_and_change_description(tmp_path: Path) -> None:
    claims = claimset()
    ledger = build_ledger(claims, LINKS)
    path = tmp_path / "claims.lock.json"
    path.write_text(render_ledger(ledger))
    again = read_ledger(path)
    assert again is not None and again.entries == ledger.entries
    data = json.loads(path.read_text())
    assert list(data["claims"]) == ["bash-gate", "zero-fails"]
    assert data["claims"]["bash-gate"]["tests"] == ["t.py::test_cat_redirect", "t.py::test_tee"]
    edited = build_ledger(claimset(DOC.replace("tee", "tee and cat")), LINKS[:1])
    lines = describe_changes(ledger, edited)
    assert any(line.startswith("~ bash-gate text:") for line in lines)
    assert "~ bash-gate - test t.py::test_cat_redirect" in lines
    assert "~ zero-fails - test t.py::test_zero" in lines
    dropped = build_ledger(claimset("Gate blocks tee. <!-- claim: bash-gate -->\n"), LINKS)
    assert "- zero-fails (README.md:3) dropped" in describe_changes(ledger, dropped)
    assert describe_changes(ledger, ledger) == []


@pytest.mark.parametrize(
    "content",
    [
        "{",
        "[]",
        '{"claims": []}',
        '{"claims": {"a": {"doc": "x"}}}',
        '{"claims": {"a": {"doc": "x", "line": true, "fingerprint": "f"}}}',
    ],
)
def test_malformed_ledger_is_a_usage_error(tmp_path: Path, content: str) -> None:
    path = tmp_path / "claims.lock.json"
    path.write_text(content)
    with pytest.raises(UsageError) as info:
        read_ledger(path)
    assert info.value.exit_code == Exit.USAGE
    assert str(path) in info.value.message


def test_absent_ledger_is_none(tmp_path: Path) -> None:
    assert read_ledger(tmp_path / "nope.json") is None


LONG = (
    "The gate runs before every tool call of a coding agent, reads the run state, "
    "classifies shell commands with a real parser and blocks writes outside the "
    "reviewed plan until the plan is approved by the reviewer."
)


def test_changed_finding_shows_the_edit_deep_in_a_long_claim() -> None:
    # The edit sits past the first 120 characters: cutting both texts at the same
    # length would print two identical quotes and hide what changed.
    old_doc = f"{LONG} <!-- claim: bash-gate -->\n"
    new_doc = old_doc.replace("approved by the reviewer", "approved by anyone")
    ledger = build_ledger(claimset(old_doc), LINKS[:2])
    (finding,) = compare(claimset(new_doc), LINKS[:2], ledger, "l")
    assert finding.rule == "changed"
    was, _, now = finding.message.partition(" now: ")
    assert "by the reviewer" in was and "by the reviewer" not in now
    assert "by anyone" in now and "by anyone" not in was
    assert finding.extra["was"] != finding.extra["now"]
    line = next(
        x
        for x in describe_changes(ledger, build_ledger(claimset(new_doc), LINKS[:2]))
        if x.startswith("~ bash-gate text:")
    )
    assert "by the reviewer" in line and "by anyone" in line


@pytest.mark.parametrize(
    ("old", "new", "was", "now"),
    [
        ("abc", "abXc", "", "X"),
        ("abc", "ac", "b", ""),
        ("same start, old end", "same start, new end", "old", "new"),
        ("old start, same end", "new start, same end", "old", "new"),
    ],
)
def test_text_difference_isolates_the_change(old: str, new: str, was: str, now: str) -> None:
    from zodyssey.claims.ledger import text_difference

    shown_old, shown_new = text_difference(old, new)
    assert was in shown_old and now in shown_new
    assert shown_old != shown_new
