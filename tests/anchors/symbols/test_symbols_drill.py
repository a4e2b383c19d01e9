"""The claims drill names a non-Python claim's code by symbol through `symbol_span`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.anchors import write
from zodyssey.claims.drill_breaks import SpecError, breaks_for, resolve

GO = (
    "package pkg\n\ntype Store struct {\n\tn int\n}\n\nfunc (s *Store) Get() int {\n"
    "\treturn s.n\n}\n"
)


def test_a_go_symbol_is_drilled_as_its_lines(tmp_path: Path) -> None:
    write(tmp_path, "pkg/file.go", GO)
    [span] = resolve(tmp_path, "pkg/file.go::Store.Get")
    assert (span.kind, span.start, span.end) == ("lines", 7, 9)
    broken, returned = breaks_for(tmp_path, span)
    text = broken.source.decode()
    assert "return s.n" not in text and "type Store struct" in text
    # The operator mutant of the value returned: Go's zero value of the result type.
    assert returned.kind == "return-default" and "\treturn 0\n" in returned.source.decode()


def test_an_unknown_symbol_or_language_is_a_spec_error(tmp_path: Path) -> None:
    write(tmp_path, "pkg/file.go", GO)
    write(tmp_path, "x.zig", "fn f() void {}\n")
    with pytest.raises(SpecError, match="no single definition"):
        resolve(tmp_path, "pkg/file.go::Store.Put")
    with pytest.raises(SpecError, match="no symbol citations"):
        resolve(tmp_path, "x.zig::f")
