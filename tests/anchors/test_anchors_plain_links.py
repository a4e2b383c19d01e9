"""Documents read without the Markdown parser say what the parser says (structure.py)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from zodyssey.anchors import structure

# Pieces a document is made of: plain links with line fragments, the same target
# twice, near-misses (titles, spaces, images, references, nested brackets, code,
# HTML, escapes) that must send the document to the parser, and prose.
PIECES = [
    "[a](../src/a.py#L5)",
    "[b](src/a.py#L5-L7)",
    "[c](x#L1)",
    "[d](zx#L1)",
    "[e](x#L1x#L1)",
    "[f](a.py#L2 'title')",
    "[g](a.py #L2)",
    "![h](a.py#L3)",
    "[i][ref]",
    "[ref]: a.py#L4",
    "[j [k](a.py#L5)",
    "[[l](a.py#L6)](b.py#L7)",
    "`[m](a.py#L8)`",
    "<!-- [n](a.py#L9) -->",
    "\\[o](a.py#L10)",
    "[p](a.py#L1&amp;2)",
    "[q](https://h/x#L3)",
    "[r](javascript:x#L3)",
    "[s](#L4)",
    "[t](a.py#Lx)",
    "[u](a%20b.py#L2)",
    "[v](a.py#L2\x01)",
    "see ](a.py#L3",
    "a.py:3 and prose",
    "# Heading [w](a.py#L11)",
    "- item [x](a.py#L12)",
    "> quote [y](a.py#L13)",
    "```",
    "~~~",
    "    [z](a.py#L14)",
    "\t[z](a.py#L15)",
    "",
    "plain words",
]


def _shape(found: structure.DocStructure) -> tuple[object, ...]:
    return (
        found.ignore_doc,
        found.comments,
        sorted(found.ignored_lines),
        found.links,
        found.unclosed,
    )


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(st.sampled_from(PIECES), min_size=1, max_size=4), max_size=12))
def test_plain_documents_read_as_the_parser_reads_them(rows: list[list[str]]) -> None:
    text = "\n".join(" ".join(row) for row in rows) + "\n"
    lines = text.split("\n")
    plain = structure._plain_links(text, lines)
    if plain is not None:
        assert _shape(plain) == _shape(structure.parsed(text, lines)), text
    assert _shape(structure.analyse(text, lines)) == _shape(structure.parsed(text, lines))


def test_a_plain_document_skips_the_parser() -> None:
    text = "# T\n\nSee [a](../src/a.py#L5) and [b](src/b.py#L2-L3).\n- [c](c.py#L1)\n"
    lines = text.split("\n")
    plain = structure._plain_links(text, lines)
    assert plain is not None and len(plain.links) == 3
    assert _shape(plain) == _shape(structure.parsed(text, lines))
