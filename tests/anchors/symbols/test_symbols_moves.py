"""Generated moves of definitions never give a finding; every body edit gives drift.

One real repository per test, pinned once with the CLI; each example rewrites
the cited file and runs the check in process (discovery, checker, lock: the
same pipeline as `check-anchors`). The document is never touched.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers.anchors import commit, make_repo, run_cli, write
from zodyssey.anchors.check import Checker, CheckResult
from zodyssey.anchors.discover import discover
from zodyssey.anchors.lock import read_lock
from zodyssey.config import load_config

FUNCTIONS = 5
METHODS = 4


def function(i: int, value: int | None = None) -> str:
    return f"def f{i}(x):\n    y = x * {i}\n    return y + {value if value is not None else i}\n"


def method(j: int, value: int | None = None) -> str:
    return f"    def m{j}(self):\n        return {value if value is not None else 100 + j}\n"


def render(
    order: list[int],
    methods: list[int],
    filler: list[str],
    class_at: int,
    edit: tuple[str, int] | None = None,
) -> str:
    """The module: functions in `order`, the class at position `class_at`, filler between."""
    blocks = []
    for i in order:
        blocks.append(function(i, 999 if edit == ("f", i) else None))
    body = "".join(
        method(j, 999 if edit == ("m", j) else None) + ("\n" if k < len(methods) - 1 else "")
        for k, j in enumerate(methods)
    )
    blocks.insert(class_at, "class C:\n" + body)
    out = []
    for n, block in enumerate(blocks):
        out.append(filler[n % len(filler)] if filler else "")
        out.append(block + "\n\n")
    return "import os\n\n\n" + "".join(out)


INITIAL = render(list(range(FUNCTIONS)), list(range(METHODS)), [], FUNCTIONS)
DOC = "".join(f"- `pkg/mod.py::f{i}`\n" for i in range(FUNCTIONS)) + "".join(
    f"- `pkg/mod.py::C.m{j}`\n" for j in range(METHODS)
)

FILLER = st.lists(
    st.sampled_from(
        [
            "# a comment\n",
            "\n\n",
            "CONSTANT = 1\n\n",
            "def new_helper():\n    return 0\n\n\n",
            '"""a string"""\n',
            "",
        ]
    ),
    max_size=4,
)


@pytest.fixture(scope="module")
def pinned(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One repository per module: each example rewrites the cited file, never the doc."""
    root = make_repo(
        tmp_path_factory.mktemp("moves") / "repo", {"pkg/mod.py": INITIAL, "README.md": DOC}
    )
    proc = run_cli(root, "--update")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    commit(root, "pin")
    return root


def _check(root: Path) -> CheckResult:
    config = load_config(root)
    lock = read_lock(root / config.lock)
    discovery = discover(root, config, lock=lock)
    return Checker(root, config, discovery, lock).run()


SETTINGS = settings(max_examples=40, deadline=None)


@SETTINGS
@given(
    order=st.permutations(list(range(FUNCTIONS))),
    methods=st.permutations(list(range(METHODS))),
    filler=FILLER,
    class_at=st.integers(0, FUNCTIONS),
)
def test_moves_never_give_a_finding(
    pinned: Path, order: list[int], methods: list[int], filler: list[str], class_at: int
) -> None:
    root = pinned
    write(root, "pkg/mod.py", render(order, methods, filler, class_at))
    result = _check(root)
    assert result.problems == [], [(p.kind, p.key, p.detail) for p in result.problems]
    assert (root / "README.md").read_text() == DOC


@SETTINGS
@given(
    order=st.permutations(list(range(FUNCTIONS))),
    methods=st.permutations(list(range(METHODS))),
    filler=FILLER,
    class_at=st.integers(0, FUNCTIONS),
    edit=st.one_of(
        st.tuples(st.just("f"), st.integers(0, FUNCTIONS - 1)),
        st.tuples(st.just("m"), st.integers(0, METHODS - 1)),
    ),
)
def test_every_body_edit_is_drift(
    pinned: Path,
    order: list[int],
    methods: list[int],
    filler: list[str],
    class_at: int,
    edit: tuple[str, int],
) -> None:
    root = pinned
    write(root, "pkg/mod.py", render(order, methods, filler, class_at, edit))
    result = _check(root)
    kind, n = edit
    key = f"pkg/mod.py::f{n}" if kind == "f" else f"pkg/mod.py::C.m{n}"
    assert [(p.kind, p.key) for p in result.problems] == [("drift", key)]
    assert "+" in result.problems[0].detail and "999" in result.problems[0].detail
