"""Compatibility of the content pin with the JavaScript checker's rule."""

from __future__ import annotations

import hashlib

from tests.helpers.anchors import reference_hash
from zodyssey.anchors.fingerprint import fingerprint, is_contentless, normalise


def test_hello_world_hash_is_the_reference_value() -> None:
    expected = hashlib.sha256(b"hello world").hexdigest()[:12]
    assert expected == "b94d27b9934d"
    assert fingerprint(["hello world"], 1, 1) == expected
    assert fingerprint(["\t  hello \t\t world   "], 1, 1) == expected


def test_range_joins_normalised_lines_with_newlines() -> None:
    lines = ["a", "  b  c", "d", "e"]
    assert fingerprint(lines, 2, 3) == hashlib.sha256(b"b c\nd").hexdigest()[:12]
    assert fingerprint(lines, 2, 3) == reference_hash(["  b  c", "d"])


def test_javascript_whitespace_set() -> None:
    # JavaScript's \s covers NBSP and the BOM; it does not cover the ASCII separator controls.
    assert normalise("\ufeffx\u00a0\u00a0y\u3000") == "x y"
    assert normalise("x\x1cy") == "x\x1cy"
    assert normalise("  x\x1c  y ") == "x\x1c y"


def test_contentless_lines() -> None:
    for line in ["", "   ", "//", "  # ", "*", "/*", "*/", "<!--", "-->", "----", "===="]:
        assert is_contentless([line]), line
    assert not is_contentless(["", "x = 1"])
    assert not is_contentless(["# a comment with words"])
    assert not is_contentless(["--"])
