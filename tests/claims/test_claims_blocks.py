"""Issue 26 item 5: the pinned text is the marker's own block.

Each case changes the words of the block a marker is in and checks that the
claim's text (and so its fingerprint, which the ledger pins) changes with them,
and that the text of the block before it does not stand in.
"""

from __future__ import annotations

from zodyssey.claims.markers import parse_document


def _text(doc: str, claim_id: str = "x") -> str:
    claims = {c.id: c for c in parse_document(doc, "README.md").claims}
    return claims[claim_id].text


def _bites(doc: str, old: str, new: str, claim_id: str = "x") -> None:
    assert old in doc
    before, after = _text(doc, claim_id), _text(doc.replace(old, new), claim_id)
    assert old in before, before
    assert before != after


DETAILS = """# Demo

Unrelated paragraph before.

<details>
<summary>Gate</summary>
The gate blocks tee before review. <!-- claim: x -->
</details>
"""


def test_marker_inside_details_pins_the_details_text() -> None:
    assert "Unrelated" not in _text(DETAILS)
    _bites(DETAILS, "before review", "after review")


DETAILS_SPACED = """Unrelated paragraph before.

<details>
<summary>Gate</summary>

The gate blocks tee before review. <!-- claim: x -->

</details>
"""


def test_marker_in_a_paragraph_inside_details_pins_that_paragraph() -> None:
    assert _text(DETAILS_SPACED) == "The gate blocks tee before review."


HTML_TABLE = """## Commands

<table>
<tr><th>command</th><th>before review</th></tr>
<tr><td>tee</td><td>blocked <!-- claim: x --></td></tr>
<tr><td>cat</td><td>allowed <!-- claim: y --></td></tr>
</table>
"""


def test_marker_in_a_raw_html_table_pins_its_row_and_header() -> None:
    text = _text(HTML_TABLE)
    assert "Commands" not in text
    assert "tee" in text and "cat" not in text
    _bites(HTML_TABLE, "blocked", "allowed now")
    _bites(HTML_TABLE, "before review", "after review")
    assert "cat" in _text(HTML_TABLE, "y")


TABLE = """| command | before review |
|---|---|
| `tee` | blocked <!-- claim: x --> |
| `cat` | allowed |
"""


def test_table_row_claim_includes_its_column_headers() -> None:
    _bites(TABLE, "before review", "after review")
    _bites(TABLE, "blocked", "allowed")
    assert "cat" not in _text(TABLE)


LIST = """- The gate refuses this command: <!-- claim: x -->

  ```sh
  tee out.txt
  ```

- Another item.
"""


def test_list_item_claim_includes_its_nested_code_block() -> None:
    _bites(LIST, "tee out.txt", "cat out.txt")
    assert "Another" not in _text(LIST)


NESTED = """- The gate blocks these: <!-- claim: x -->
  - `tee`
  - `dd`
- Other.
"""


def test_list_item_claim_includes_its_nested_list() -> None:
    _bites(NESTED, "`dd`", "`cp`")


def test_plain_paragraph_and_marker_on_its_own_line_are_unchanged() -> None:
    assert _text("One promise here. <!-- claim: x -->\n") == "One promise here."
    assert _text("One promise here.\n<!-- claim: x -->\n") == "One promise here."
    assert _text("Para.\n\n<!-- claim: x -->\n") == "Para."
