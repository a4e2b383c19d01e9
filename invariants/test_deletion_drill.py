"""Deletion drill: sabotage a copy of the package the way it really regressed, and
prove the invariants suite notices and names the broken promise.

The shell write-gate of the pipeline this project replaces was deleted twice
and three audits missed it. Here the copy's shell classifier is made to call
every command read-only (the "allow everything" regression), and, separately,
the copy's review gate is made to treat every run as approved. The gate's
invariants then run against the copy (`PYTHONPATH` first, so every
`python -m zodyssey` the tests start is the sabotaged one) with
`--claims-strict`, and must fail naming `bash-gate` / `review-gate`, while the
promises the sabotage did not touch stay covered (the failure is specific).

The sabotage edits the copy's syntax tree, not fixed line numbers, so it
survives refactoring; when the gate code it looks for is renamed it fails
loudly ("nothing to sabotage"), which means: update the drill.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

DRILL_ENV = "ZODYSSEY_INVARIANTS_DRILL"
HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PACKAGE = REPO / "zodyssey"
GATE_TESTS = HERE / "test_promise_gate.py"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bool(os.environ.get(DRILL_ENV)), reason="inside a drill: no recursion"),
]


class _ShellAllowsEverything(ast.NodeTransformer):
    """`classify(command, ...)` returns an analysis with no parts: nothing writes."""

    def __init__(self) -> None:
        self.changed = 0

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        if node.name == "classify" and node.args.args and node.args.args[0].arg == "command":
            keep = node.body[:1] if _is_docstring(node.body[0]) else []
            ret = ast.parse("return Analysis(command, ())").body
            node.body = [*keep, *ret]
            self.changed += 1
        return node


class _EveryRunApproved(ast.NodeTransformer):
    """Every comparison of a verdict with "OKAY" comes out as approved."""

    def __init__(self, okay_names: set[str]) -> None:
        self.okay_names = okay_names
        self.changed = 0

    def _is_okay(self, node: ast.expr) -> bool:
        if isinstance(node, ast.Constant) and node.value == "OKAY":
            return True
        return isinstance(node, ast.Name) and node.id in self.okay_names

    def visit_Compare(self, node: ast.Compare) -> ast.expr:
        self.generic_visit(node)
        if len(node.ops) != 1:
            return node
        left, right, op = node.left, node.comparators[0], node.ops[0]
        if not (self._is_okay(left) or self._is_okay(right)):
            return node
        if isinstance(op, ast.Eq | ast.Is):
            self.changed += 1
            return ast.copy_location(ast.Constant(True), node)
        if isinstance(op, ast.NotEq | ast.IsNot):
            self.changed += 1
            return ast.copy_location(ast.Constant(False), node)
        return node


def _is_docstring(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def _okay_constants(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for stmt in tree.body:
        value = stmt.value if isinstance(stmt, ast.Assign | ast.AnnAssign) else None
        if not (isinstance(value, ast.Constant) and value.value == "OKAY"):
            continue
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]  # type: ignore[attr-defined]
        names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def sabotage_shell(copy: Path) -> int:
    changed = 0
    for path in sorted((copy / "gate").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        transformer = _ShellAllowsEverything()
        tree = transformer.visit(tree)
        if transformer.changed:
            path.write_text(ast.unparse(ast.fix_missing_locations(tree)) + "\n", encoding="utf-8")
            changed += transformer.changed
    return changed


def sabotage_review(copy: Path) -> int:
    changed = 0
    for path in sorted((copy / "gate").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        transformer = _EveryRunApproved(_okay_constants(tree))
        tree = transformer.visit(tree)
        if transformer.changed:
            path.write_text(ast.unparse(ast.fix_missing_locations(tree)) + "\n", encoding="utf-8")
            changed += transformer.changed
    return changed


def drill(
    tmp_path: Path, sabotage: Callable[[Path], int]
) -> tuple[subprocess.CompletedProcess[str], dict[str, bool]]:
    site = tmp_path / "site"
    copy = site / "zodyssey"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    assert sabotage(copy) > 0, "nothing to sabotage: the gate code moved; update the drill"
    matrix = tmp_path / "claims.json"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS", "CLAUDE_PROJECT_DIR")}
    env["PYTHONPATH"] = os.pathsep.join([str(site), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env[DRILL_ENV] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(GATE_TESTS),
            "-q",
            "-p",
            "no:cacheprovider",
            "--claims-strict",
            f"--claims-root={REPO}",
            f"--claims-json={matrix}",
            f"--basetemp={tmp_path / 'inner'}",
        ],
        # Not the repository: `python -m` puts the cwd first on sys.path, and the
        # working tree's package would shadow the sabotaged copy.
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert matrix.is_file(), done.stdout[-3000:] + done.stderr[-3000:]
    # Proof the copy, not the working tree, was under test.
    probe = subprocess.run(
        [sys.executable, "-c", "import zodyssey; print(zodyssey.__file__)"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert probe.stdout.strip().startswith(str(site)), probe.stdout
    document = json.loads(matrix.read_text())
    assert document["plugin"].startswith(str(site)), document["plugin"]
    covered = {row["id"]: row["covered"] for row in document["claims"]}
    return done, covered


def test_deleting_the_shell_gate_fails_the_suite_naming_bash_gate(tmp_path: Path) -> None:
    done, covered = drill(tmp_path, sabotage_shell)
    assert done.returncode != 0, "the suite passed with the shell gate deleted"
    assert covered.get("bash-gate") is False, covered
    assert "not-passed bash-gate" in done.stdout, done.stdout[-3000:]
    # Specific: the promises the sabotage did not touch are still kept.
    assert covered.get("review-gate") and covered.get("noop-without-run"), covered


def test_deleting_the_review_gate_fails_the_suite_naming_review_gate(tmp_path: Path) -> None:
    done, covered = drill(tmp_path, sabotage_review)
    assert done.returncode != 0, "the suite passed with the review gate deleted"
    assert covered.get("review-gate") is False, covered
    assert "not-passed review-gate" in done.stdout, done.stdout[-3000:]
    assert covered.get("noop-without-run"), covered


def test_sabotage_rewrites_what_it_claims(tmp_path: Path) -> None:
    """The drill's own tools, on a known source: a drill that cannot bite is a defect."""
    gate = tmp_path / "pkg" / "gate"
    gate.mkdir(parents=True)
    (gate / "shell.py").write_text(
        'class Analysis(tuple):\n    pass\n\ndef classify(command, read_only=()):\n    """doc"""\n    return 1\n'
    )
    (gate / "policy.py").write_text(
        'OKAY = "OKAY"\n'
        "def gate(v):\n"
        '    if v != "OKAY":\n        return "block"\n'
        "    if v == OKAY:\n        return 'allow'\n"
    )
    assert sabotage_shell(tmp_path / "pkg") == 1
    assert "return Analysis(command, ())" in (gate / "shell.py").read_text()
    assert sabotage_review(tmp_path / "pkg") == 2
    namespace: dict[str, object] = {}
    exec((gate / "policy.py").read_text(), namespace)
    gate_fn = namespace["gate"]
    assert callable(gate_fn) and gate_fn(None) == "allow"
