"""One rule for what a run may write (issue 33): `zodyssey/core/allowance.py`.

Static: no module of the gate or the sandbox but the allowance and the run
context (`gate/context.py`, which hands the policy its allowance) reads the
review's verdict from run state, so none can assemble "product code is open"
on its own. How this could pass while broken: a walk that missed a folder, or
read only one spelling (`review.get("verdict")`, `review["verdict"]`); a
planted module with each spelling proves the check fires.

Behaviour: the three enforcers ask the same allowance: the kernel grants
(`sandbox/grants.py`) translate it, and a declared file outside the repository
(which the gate's Edit/Write rule allows when declared exactly) gets no kernel
grant.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.helpers import REPO_ROOT, plan
from tests.helpers.gate import make_run_repo
from zodyssey.core.allowance import Allowance, Layout
from zodyssey.sandbox import grants as grants_module

PACKAGE = REPO_ROOT / "zodyssey"
ALLOWED = {"core/allowance.py", "gate/context.py"}


def reads_verdict(source: str) -> list[int]:
    """Lines reading the key "verdict": `x.get("verdict")` or `x["verdict"]` (loaded)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and node.args[0].value == "verdict"
        ) or (
            isinstance(node, ast.Subscript)
            and isinstance(node.ctx, ast.Load)
            and isinstance(node.slice, ast.Constant)
            and node.slice.value == "verdict"
        ):
            lines.append(node.lineno)
    return lines


def readers(package: Path = PACKAGE) -> list[str]:
    found: list[str] = []
    for folder in ("gate", "sandbox"):
        for path in sorted((package / folder).rglob("*.py")):
            rel = path.relative_to(package).as_posix()
            if rel in ALLOWED:
                continue
            found.extend(f"{rel}:{n}" for n in reads_verdict(path.read_text(encoding="utf-8")))
    return found


def test_only_the_allowance_and_the_context_read_the_verdict() -> None:
    assert (PACKAGE / "sandbox" / "grants.py").exists()  # the walk sees the enforcers
    assert readers() == []


def test_the_check_finds_each_spelling(tmp_path: Path) -> None:
    for body in (
        'review = state.get("review", {})\nokay = review.get("verdict") == "OKAY"\n',
        'okay = state["review"]["verdict"] == "OKAY"\n',
    ):
        (tmp_path / "sandbox").mkdir(exist_ok=True)
        (tmp_path / "gate").mkdir(exist_ok=True)
        (tmp_path / "sandbox" / "planted.py").write_text(body, encoding="utf-8")
        assert readers(tmp_path) == [
            "sandbox/planted.py:2" if "get(" in body else "sandbox/planted.py:1"
        ]
    # writing a fresh state (a dict literal) is no read
    (tmp_path / "sandbox" / "planted.py").write_text('state = {"verdict": None}\n')
    assert readers(tmp_path) == []


def _approved(tmp_path: Path, declared: list[str]) -> Path:
    text = plan("Outside", [("Write both", declared, ["`true`"])])
    return make_run_repo(tmp_path, plan=text).root


def test_a_declared_file_outside_the_repository_gets_no_kernel_grant(tmp_path: Path) -> None:
    root = _approved(tmp_path, ["greeting.txt", "../outside.txt"])
    outside = root.parent / "outside.txt"
    outside.write_text("theirs\n")
    from zodyssey.core.store import RunStore

    state = RunStore(root, "demo").read()
    allowance = Allowance.of(Layout(str(root)), "demo", state)
    assert allowance.open, allowance.why_closed()
    # the gate's rule: an exact declaration outside the repository is in scope
    assert allowance.judge(str(outside)) is None
    grants = grants_module.compute(str(root), "demo", state)
    granted = {path for path, _, _ in grants.grants}
    assert str(outside) not in granted, grants.explain()
    assert any("outside the repository" in note for note in grants.notes), grants.notes
