"""Claim markers: which block each marker marks, and what text is fingerprinted."""

from __future__ import annotations

import hashlib
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from zodyssey.claims.markers import collect_claims, parse_document
from zodyssey.claims.model import Claim, fingerprint
from zodyssey.config import load_config


def claims_of(text: str) -> dict[str, Claim]:
    parsed = parse_document(text, "doc.md")
    return {c.id: c for c in parsed.claims}


def test_inline_marker_in_paragraph_marks_whole_paragraph() -> None:
    text = "Intro.\n\nThe gate blocks tee\nbefore review. <!-- claim: bash-gate --> More text.\n"
    claim = claims_of(text)["bash-gate"]
    assert claim.block == "paragraph"
    assert claim.line == 3
    assert claim.marker_line == 4
    assert claim.text == "The gate blocks tee before review. More text."
    assert claim.fingerprint == hashlib.sha256(claim.text.encode()).hexdigest()


def test_marker_on_own_line_after_paragraph_attaches_to_it() -> None:
    text = "First para.\n\nThe promise\nspans lines.\n<!-- claim: spans -->\n\nNext para.\n"
    claim = claims_of(text)["spans"]
    assert (claim.block, claim.line, claim.text) == ("paragraph", 3, "The promise spans lines.")
    assert claim.marker_line == 5


def test_marker_after_blank_line_still_attaches_to_preceding_paragraph() -> None:
    text = "The promise.\n\n<!-- claim: after-blank -->\n"
    assert claims_of(text)["after-blank"].text == "The promise."


def test_list_items_inline_and_indented_and_after_list() -> None:
    text = (
        "- first item <!-- claim: first -->\n"
        "- second item\n"
        "  <!-- claim: second -->\n"
        "- third item\n"
        "<!-- claim: third -->\n"
    )
    claims = claims_of(text)
    assert {k: (c.block, c.line, c.text) for k, c in claims.items()} == {
        "first": ("list_item", 1, "first item"),
        "second": ("list_item", 2, "second item"),
        "third": ("list_item", 4, "third item"),
    }


def test_list_item_text_includes_nested_list_and_nested_item_is_its_own_block() -> None:
    # Issue 26 item 5: a list item's claim is its whole block, nested ones included.
    text = "1. outer promise <!-- claim: outer -->\n   - inner promise <!-- claim: inner -->\n"
    claims = claims_of(text)
    assert claims["outer"].text == "outer promise inner promise"
    assert claims["inner"].text == "inner promise"
    assert claims["inner"].line == 2


def test_table_row_inline_and_after_table() -> None:
    text = (
        "| rule | effect |\n"
        "|---|---|\n"
        "| tee | blocked <!-- claim: tee-row --> |\n"
        "| cat | allowed |\n"
        "<!-- claim: last-row -->\n"
    )
    claims = claims_of(text)
    assert (claims["tee-row"].block, claims["tee-row"].line, claims["tee-row"].text) == (
        "table_row",
        3,
        "rule | effect || tee | blocked",
    )
    assert (claims["last-row"].line, claims["last-row"].text) == (
        4,
        "rule | effect || cat | allowed",
    )


def test_heading_and_blockquote() -> None:
    text = (
        "## Fail closed <!-- claim: heading-claim -->\n\n> Quoted promise. <!-- claim: quoted -->\n"
    )
    claims = claims_of(text)
    assert claims["heading-claim"].block == "heading"
    assert claims["heading-claim"].text == "Fail closed"
    assert claims["quoted"].text == "Quoted promise."


def test_several_ids_in_one_marker_share_the_block() -> None:
    claims = claims_of("Both promises. <!-- claim: one, two -->\n")
    assert set(claims) == {"one", "two"}
    assert claims["one"].text == claims["two"].text == "Both promises."


def test_markers_in_code_are_not_claims() -> None:
    text = (
        "Write `<!-- claim: in-span -->` after the text.\n\n"
        "```markdown\nA promise. <!-- claim: in-fence -->\n```\n\n"
        "    <!-- claim: in-indented-code -->\n"
    )
    assert claims_of(text) == {}


def test_marker_text_is_removed_and_other_comments_kept() -> None:
    claims = claims_of("Keep <!-- note --> this. <!-- claim: x -->\n")
    assert claims["x"].text == "Keep <!-- note --> this."


def test_marker_with_nothing_before_it_is_a_problem() -> None:
    parsed = parse_document("<!-- claim: orphan -->\n\nText.\n", "doc.md")
    assert parsed.claims == []
    assert parsed.problems and parsed.problems[0][0] == 1


def test_marker_after_fence_does_not_attach_to_text_before_fence() -> None:
    parsed = parse_document("Promise.\n\n```\ncode\n```\n<!-- claim: after-code -->\n", "doc.md")
    assert parsed.claims == []
    assert len(parsed.problems) == 1


def test_unclosed_marker_is_a_problem() -> None:
    parsed = parse_document("Promise.\n\n<!-- claim: open\n", "doc.md")
    assert parsed.problems


def _repo(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, content in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    return tmp_path


def test_collect_reports_duplicates_and_bad_ids_across_documents(tmp_path: Path) -> None:
    root = _repo(
        tmp_path,
        {
            "README.md": "A. <!-- claim: same -->\n\nB. <!-- claim: Bad_Id -->\n",
            "docs/deep/more.md": "C. <!-- claim: same -->\n",
            "docs/notes.txt": "D. <!-- claim: not-a-doc -->\n",
            "other.md": "E. <!-- claim: not-configured -->\n",
        },
    )
    result = collect_claims(root, load_config(root))
    assert result.documents == ["README.md", "docs/deep/more.md"]
    assert set(result.claims) == {"same"}
    assert [c.doc for c in result.duplicates()["same"]] == ["README.md", "docs/deep/more.md"]
    assert any("Bad_Id" in why for _, _, why in result.marker_problems)


def test_configured_documents_are_used(tmp_path: Path) -> None:
    root = _repo(
        tmp_path,
        {
            "pyproject.toml": '[tool.zodyssey]\nclaims_documents = ["spec/*.md"]\n',
            "README.md": "A. <!-- claim: ignored -->\n",
            "spec/a.md": "B. <!-- claim: counted -->\n",
        },
    )
    assert set(collect_claims(root, load_config(root)).claims) == {"counted"}


words = st.text(alphabet="abcdefghij klm,.", min_size=1, max_size=40).filter(lambda s: s.strip())


@settings(max_examples=60, deadline=None)
@given(sentence=st.lists(words, min_size=1, max_size=6), wrap=st.integers(1, 4))
def test_reflowing_a_paragraph_keeps_its_fingerprint(sentence: list[str], wrap: int) -> None:
    flat = " ".join(" ".join(sentence).split())
    tokens = flat.split(" ")
    reflowed = "\n".join(" ".join(tokens[i : i + wrap]) for i in range(0, len(tokens), wrap))
    one = claims_of(f"{flat} <!-- claim: p -->\n")["p"]
    two = claims_of(f"{reflowed}\n<!-- claim: p -->\n")["p"]
    assert one.text == two.text == flat
    assert one.fingerprint == two.fingerprint == fingerprint(flat)


@settings(max_examples=60, deadline=None)
@given(
    ids=st.lists(
        st.from_regex(r"[a-z0-9]{1,5}(-[a-z0-9]{1,5}){0,2}", fullmatch=True),
        min_size=1,
        max_size=4,
        unique=True,
    )
)
def test_every_id_of_a_marker_is_found(ids: list[str]) -> None:
    claims = claims_of(f"Promise text. <!-- claim: {', '.join(ids)} -->\n")
    assert sorted(claims) == sorted(ids)
    assert {c.text for c in claims.values()} == {"Promise text."}


markdownish = st.lists(
    st.sampled_from([*"ab -|`>#*\n\t1.<!:", "<!-- claim: x -->", "```", "| a |", "- ", "|---|"]),
    max_size=60,
).map("".join)


@settings(max_examples=200, deadline=None)
@given(text=markdownish)
def test_parser_never_crashes_and_lines_are_in_range(text: str) -> None:
    parsed = parse_document(text, "doc.md")
    total = text.count("\n") + 1
    for claim in parsed.claims:
        assert 1 <= claim.line <= claim.marker_line <= total
        assert "<!--" not in claim.text or "claim" not in claim.text.lower()
    for line, _ in parsed.problems:
        assert 1 <= line <= total


def test_design_md_at_the_root_and_in_docs_is_a_claims_document_by_default(
    tmp_path: Path,
) -> None:
    # The README promises claims in "README or DESIGN"; a root DESIGN.md was never read
    # (issue 35, item 4): fails on the old default, which named README.md and docs/ only.
    root = _repo(
        tmp_path,
        {
            "README.md": "A. <!-- claim: in-readme -->\n",
            "DESIGN.md": "B. <!-- claim: in-root-design -->\n",
            "docs/DESIGN.md": "C. <!-- claim: in-docs-design -->\n",
        },
    )
    result = collect_claims(root, load_config(root))
    assert set(result.claims) == {"in-readme", "in-root-design", "in-docs-design"}
    assert "DESIGN.md" in result.documents


INTRODUCING = """# demo

Before review the gate blocks these commands: <!-- claim: listed-blocks -->

- `tee out.txt`
- `cp a b`
  - and `cp -r`

Another paragraph.

- not part of it
"""


def test_a_paragraph_introducing_a_list_holds_the_list() -> None:
    """A claim paragraph ending in ":" promises what the list after it says: the
    list's items are part of its text, so changing an item changes the claim."""
    (claim,) = parse_document(INTRODUCING, "README.md").claims
    assert claim.text == (
        "Before review the gate blocks these commands: `tee out.txt` `cp a b` and `cp -r`"
    )
    changed = INTRODUCING.replace("`cp a b`", "`mv a b`")
    (after,) = parse_document(changed, "README.md").claims
    assert fingerprint(after.text) != fingerprint(claim.text)
    # Only the list right after it: a paragraph not ending in ":" keeps its own text,
    # and a marker on its own line between paragraph and list changes nothing.
    plain = parse_document("Plain. <!-- claim: p -->\n\n- item\n", "d").claims
    assert [c.text for c in plain] == ["Plain."]
    own_line = INTRODUCING.replace(
        " <!-- claim: listed-blocks -->", "\n<!-- claim: listed-blocks -->"
    )
    assert [c.text for c in parse_document(own_line, "README.md").claims] == [claim.text]


def test_an_introduced_list_item_changed_is_a_changed_claim(tmp_path: Path) -> None:
    """End to end: the ledger written by `claims update`, then one item of the
    introduced list edited: `claims check` reports the claim changed (exit 9)."""
    from tests.helpers import git, make_repo, run_zodyssey

    root = make_repo(tmp_path / "repo")
    (root / "README.md").write_text(INTRODUCING)
    (root / "test_demo.py").write_text(
        "import pytest\n\n@pytest.mark.claim('listed-blocks')\ndef test_it():\n    pass\n"
    )
    git(root, "add", "-A")
    git(root, "commit", "-qm", "claims")
    assert run_zodyssey("claims", "update", cwd=root).returncode == 0
    assert run_zodyssey("claims", "check", cwd=root).returncode == 0
    (root / "README.md").write_text(INTRODUCING.replace("`cp a b`", "`mv a b`"))
    done = run_zodyssey("claims", "check", cwd=root)
    assert done.returncode == 9, done.stdout + done.stderr
    assert "claim `listed-blocks` text changed" in done.stdout + done.stderr
