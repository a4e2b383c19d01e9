"""`zodyssey.core.paths` is the one family of run-state paths.

How this could pass while broken: helpers that agreed with each other but not
with the layout in `vocabulary` (or a module still formatting `.zcode/...` by
hand) would not show in a test of the helpers alone; so the helpers are checked
against the layout constants, and the package is searched for hand-built ones.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.helpers import REPO_ROOT
from zodyssey.core import paths, store, vocabulary
from zodyssey.core.paths import (
    archive_dir,
    evidence_path,
    inflight_path,
    plan_location,
    plan_path,
    reviews_dir,
    state_path,
    ungated_path,
    verify_dir,
    zcode_dir,
)

PACKAGE = REPO_ROOT / "zodyssey"


def test_helpers_answer_in_the_type_they_are_given(tmp_path: Path) -> None:
    root = str(tmp_path)
    for helper, expected in (
        (lambda r: state_path(r, "demo"), f"{vocabulary.STATE}/demo.json"),
        (lambda r: inflight_path(r, "demo"), f"{vocabulary.STATE}/demo.inflight.json"),
        (lambda r: ungated_path(r, "demo"), f"{vocabulary.STATE}/demo.ungated.jsonl"),
        (lambda r: plan_path(r, "demo"), f"{vocabulary.PLANS}/demo.md"),
        (lambda r: verify_dir(r, "demo"), f"{vocabulary.VERIFY}/demo"),
        (lambda r: evidence_path(r, "demo"), f"{vocabulary.VERIFY}/demo/evidence.jsonl"),
        (reviews_dir, vocabulary.REVIEWS),
        (archive_dir, vocabulary.ARCHIVE),
        (zcode_dir, vocabulary.ZCODE),
    ):
        as_str, as_path = helper(root), helper(tmp_path)
        assert isinstance(as_str, str) and isinstance(as_path, Path)
        assert as_str == f"{root}/{expected}" == str(as_path)
    assert evidence_path("", "demo") == f"{vocabulary.VERIFY}/demo/evidence.jsonl"


def test_plan_location_rule() -> None:
    assert plan_location({}, "/r", "demo") == "/r/.zcode/plans/demo.md"
    assert plan_location({"plan_path": ""}, "/r", "demo") == "/r/.zcode/plans/demo.md"
    assert plan_location({"plan_path": "docs/p.md"}, "/r", "demo") == "/r/docs/p.md"
    assert plan_location({"plan_path": "/abs/p.md"}, "/r", "demo") == "/abs/p.md"
    with pytest.raises(ValueError, match="not a string"):
        plan_location({"plan_path": 3}, "/r", "demo")


def test_no_second_family() -> None:
    for module in (store, vocabulary):
        for name in ("state_path", "inflight_path", "state_file", "inflight_file", "plan_path"):
            # absent, or the very helper of `paths` (imported, not written again)
            assert getattr(module, name, None) in (None, getattr(paths, name, None)), name
    assert paths.state_path is state_path


def test_no_module_builds_a_run_state_path_by_hand() -> None:
    """An f-string putting a value after `.zcode/DIR/` builds a path by hand."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.parent.name == "core" and path.name in ("paths.py", "vocabulary.py"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.JoinedStr) and any(
                isinstance(part, ast.Constant)
                and re.search(r"\.zcode/\w+/$", str(part.value))
                and isinstance(after, ast.FormattedValue)
                for part, after in zip(node.values, node.values[1:], strict=False)
            ):
                found.append(f"{path.relative_to(REPO_ROOT)}:{node.lineno}")
    assert not found, found


def test_one_jsonl_reader(tmp_path: Path) -> None:
    text = '{"a": 1}\n\n[1]\nnot json\n' + "[" * 100_000 + "\n"
    rows = list(store.jsonl_values(text))
    assert [(n, v) for n, _, v, e in rows if e is None] == [(1, {"a": 1}), (3, [1])]
    assert [n for n, _, _, e in rows if e is not None] == [4, 5]
    target = tmp_path / "x.jsonl"
    target.write_text(text)
    with pytest.raises(store.StateError, match=r"x\.jsonl:4 is not valid JSON"):
        store.read_jsonl(target)
    assert store.read_jsonl(tmp_path / "missing.jsonl") == []
