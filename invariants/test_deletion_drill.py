"""Deletion drill: sabotage a copy of the package the way it really regressed, and
prove the invariants suite notices and names the broken promise.

The shell write-gate of the pipeline this project replaces was deleted twice
and three audits missed it. Here the copy's shell classifier is made to call
every command read-only (the "allow everything" regression), and, separately,
the copy's review gate is made to allow what it used to block. The whole
invariants suite then runs against the copy (`PYTHONPATH` first, so every
`python -m zodyssey` the tests start is the sabotaged one) with
`--claims-strict`, and must fail naming `bash-gate` / `review-gate`, while the
promises the sabotage did not touch stay covered (the failure is specific).

A third drill deletes the gate-wiring check itself (`check_wiring` finds
nothing, the way a check that was switched off would): the suite must then
fail naming `gate-wiring-checked`, the promise that a gate removed from the
committed harness configuration fails `zodyssey check`.

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


class _ReviewGateAllows(ast.NodeTransformer):
    """Every decision the gate makes under the rule id `review-gate` becomes ALLOW.

    That is the regression precisely: the review check is gone, every other
    layer (plan tamper, scope, run state) is left as it is."""

    def __init__(self) -> None:
        self.changed = 0

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        first = node.args[0] if node.args else None
        if isinstance(first, ast.Constant) and first.value == "review-gate":
            self.changed += 1
            return ast.copy_location(ast.Name("ALLOW", ast.Load()), node)
        return node


class _WiringSeesNothing(ast.NodeTransformer):
    """`check_wiring(root)` returns an empty verdict: no harness, no finding."""

    def __init__(self) -> None:
        self.changed = 0

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        if node.name == "check_wiring" and node.args.args and node.args.args[0].arg == "root":
            keep = node.body[:1] if _is_docstring(node.body[0]) else []
            node.body = [*keep, *ast.parse("return Wiring()").body]
            self.changed += 1
        return node


def _is_docstring(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def _targets_of(stmt: ast.stmt) -> list[ast.expr]:
    if isinstance(stmt, ast.Assign):
        return list(stmt.targets)
    if isinstance(stmt, ast.AnnAssign):
        return [stmt.target]
    return []


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


def sabotage_wiring(copy: Path) -> int:
    changed = 0
    for path in sorted((copy / "gate").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        transformer = _WiringSeesNothing()
        tree = transformer.visit(tree)
        if transformer.changed:
            path.write_text(ast.unparse(ast.fix_missing_locations(tree)) + "\n", encoding="utf-8")
            changed += transformer.changed
    return changed


def sabotage_review(copy: Path) -> int:
    changed = 0
    for path in sorted((copy / "gate").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        defines_allow = any(
            isinstance(stmt, ast.Assign | ast.AnnAssign)
            and any(isinstance(t, ast.Name) and t.id == "ALLOW" for t in _targets_of(stmt))
            for stmt in tree.body
        )
        if not defines_allow:
            continue
        transformer = _ReviewGateAllows()
        tree = transformer.visit(tree)
        if transformer.changed:
            path.write_text(ast.unparse(ast.fix_missing_locations(tree)) + "\n", encoding="utf-8")
            changed += transformer.changed
    return changed


def drill(
    tmp_path: Path, sabotage: Callable[[Path], int]
) -> tuple[subprocess.CompletedProcess[str], dict[str, bool], dict[str, int], set[str]]:
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
            str(HERE),
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
    failing = {row["id"]: row["failed"] for row in document["claims"]}
    covered = {row["id"]: row["covered"] for row in document["claims"]}
    named = {f["extra"].get("id") for f in document["findings"] if f["rule"] == "test-failed"}
    return done, covered, failing, named


def test_deleting_the_shell_gate_fails_the_suite_naming_bash_gate(tmp_path: Path) -> None:
    done, covered, failing, named = drill(tmp_path, sabotage_shell)
    assert done.returncode != 0, "the suite passed with the shell gate deleted"
    assert failing["bash-gate"] > 0 and "bash-gate" in named, failing
    assert "test-failed bash-gate" in done.stdout, done.stdout[-3000:]
    # Specific: the promises the sabotage did not touch are still kept.
    for untouched in ("review-gate", "noop-without-run", "fail-closed"):
        assert covered[untouched] and not failing[untouched], (untouched, failing)


def test_deleting_the_review_gate_fails_the_suite_naming_review_gate(tmp_path: Path) -> None:
    done, covered, failing, named = drill(tmp_path, sabotage_review)
    assert done.returncode != 0, "the suite passed with the review gate deleted"
    assert failing["review-gate"] > 0 and "review-gate" in named, failing
    assert "test-failed review-gate" in done.stdout, done.stdout[-3000:]
    for untouched in ("noop-without-run", "fail-closed"):
        assert covered[untouched] and not failing[untouched], (untouched, failing)


def test_deleting_the_wiring_check_fails_the_suite_naming_gate_wiring(tmp_path: Path) -> None:
    done, covered, failing, named = drill(tmp_path, sabotage_wiring)
    assert done.returncode != 0, "the suite passed with the gate-wiring check deleted"
    assert failing["gate-wiring-checked"] > 0 and "gate-wiring-checked" in named, failing
    assert "test-failed gate-wiring-checked" in done.stdout, done.stdout[-3000:]
    for untouched in ("bash-gate", "review-gate", "noop-without-run", "fail-closed"):
        assert covered[untouched] and not failing[untouched], (untouched, failing)


def test_sabotage_rewrites_what_it_claims(tmp_path: Path) -> None:
    """The drill's own tools, on a known source: a drill that cannot bite is a defect."""
    gate = tmp_path / "pkg" / "gate"
    gate.mkdir(parents=True)
    (gate / "shell.py").write_text(
        'class Analysis(tuple):\n    pass\n\ndef classify(command, read_only=()):\n    """doc"""\n    return 1\n'
    )
    (gate / "policy.py").write_text(
        'ALLOW = "allow"\n'
        "def _block(rule, why):\n    return 'block'\n"
        "def gate(v):\n"
        '    if v != "OKAY":\n        return _block("review-gate", "no")\n'
        '    return _block("scope", "no")\n'
    )
    assert sabotage_shell(tmp_path / "pkg") == 1
    assert "return Analysis(command, ())" in (gate / "shell.py").read_text()
    assert sabotage_review(tmp_path / "pkg") == 1
    namespace: dict[str, object] = {}
    exec((gate / "policy.py").read_text(), namespace)
    gate_fn = namespace["gate"]
    assert callable(gate_fn)
    assert gate_fn(None) == "allow" and gate_fn("OKAY") == "block"
    (gate / "wiring.py").write_text(
        "class Wiring:\n    def __init__(self, declared=()):\n        self.declared = list(declared)\n"
        'def check_wiring(root):\n    """doc"""\n    return Wiring(["claude-code"])\n'
    )
    assert sabotage_wiring(tmp_path / "pkg") == 1
    wiring_ns: dict[str, object] = {}
    exec((gate / "wiring.py").read_text(), wiring_ns)
    check = wiring_ns["check_wiring"]
    assert callable(check) and check(".").declared == []
