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
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

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


# --- `zodyssey claims drill` on a fixture repository ------------------------------------
# Four claims: one defended by a test that checks (every break killed), one whose
# test asserts nothing (survived, exit 9), one whose test exercises other code
# (survived), one whose break makes the module unimportable (not judged, never a
# kill), plus one that names no code (not drillable).


def clean_env(**extra: str) -> dict[str, str]:
    scrubbed = ("PYTEST_ADDOPTS", "CLAUDE_PROJECT_DIR", "GITHUB_STEP_SUMMARY", DRILL_ENV)
    env = {k: v for k, v in os.environ.items() if k not in scrubbed}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(extra)
    return env


def run_zodyssey(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "zodyssey", *args],
        cwd=cwd,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def make_repo(root: Path, files: dict[str, str]) -> None:
    root.mkdir(parents=True)
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    ident = ["-c", "user.email=t@example.invalid", "-c", "user.name=Tester"]
    for argv in (["init", "-q"], ["add", "-A"], [*ident, "commit", "-q", "-m", "initial"]):
        subprocess.run(["git", *argv], cwd=root, check=True, capture_output=True)


README = """# calc

- `add` adds two numbers and refuses negative ones. <!-- claim: add-checked code=calc/ops.py::add -->
- `mul` multiplies. <!-- claim: mul-unchecked code=calc/ops.py::mul -->
- `sub` subtracts. <!-- claim: sub-elsewhere code=calc/ops.py::sub -->
- The limit is twice the base. <!-- claim: limit-derived code=calc/consts.py:1 -->
- The project is friendly. <!-- claim: friendly -->
"""

OPS = '''"""Arithmetic."""


def add(a: int, b: int) -> int:
    """The sum; negative input is refused."""
    if a < 0 or b < 0:
        raise ValueError("negative")
    return a + b


def mul(a: int, b: int) -> int:
    return a * b


def sub(a: int, b: int) -> int:
    return a - b
'''

CONSTS = "BASE = 10\nLIMIT = BASE * 2\n"

TEST_OPS = """import pytest

from calc.ops import add, mul


@pytest.mark.claim("add-checked")
def test_add():
    assert add(2, 3) == 5


@pytest.mark.claim("add-checked")
def test_add_refuses_negative():
    with pytest.raises(ValueError):
        add(-1, 3)


@pytest.mark.claim("mul-unchecked")
def test_mul_runs():
    mul(2, 3)


@pytest.mark.claim("sub-elsewhere")
def test_sub_is_checked():
    assert add(1, 1) == 2


@pytest.mark.claim("friendly")
def test_friendly():
    pass
"""

TEST_CONSTS = """import pytest

from calc.consts import LIMIT


@pytest.mark.claim("limit-derived")
def test_limit():
    assert LIMIT == 20
"""

PYPROJECT = """[project]
name = "calc"
version = "0"

[tool.pytest.ini_options]
testpaths = ["tests"]
addopts = "--strict-markers --import-mode=importlib"
pythonpath = ["."]
"""


def fixture_repo(root: Path, extra: dict[str, str] | None = None) -> Path:
    files = {
        "README.md": README,
        "pyproject.toml": PYPROJECT,
        "calc/__init__.py": "",
        "calc/ops.py": OPS,
        "calc/consts.py": CONSTS,
        "tests/test_ops.py": TEST_OPS,
        "tests/test_consts.py": TEST_CONSTS,
        **(extra or {}),
    }
    make_repo(root, files)
    done = run_zodyssey("claims", "update", cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    return root


def tree_digest(root: Path) -> dict[str, str]:
    """Every file of the work tree (outside .git) and its sha256: byte-identical or not."""
    out: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if rel.parts[0] == ".git":
            continue
        out[rel.as_posix()] = (
            hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir"
        )
    return out


@pytest.fixture(scope="module")
def drilled(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, dict[str, str], subprocess.CompletedProcess[str]]:
    root = fixture_repo(tmp_path_factory.mktemp("drill") / "repo")
    before = tree_digest(root)
    done = run_zodyssey("claims", "drill", "--json", "-j", "2", cwd=root, timeout=300)
    return root, before, done


def _claims(done: subprocess.CompletedProcess[str]) -> dict[str, dict[str, Any]]:
    document = json.loads(done.stdout)
    return {c["id"]: c for c in document["claims"]}


@pytest.mark.claim("drill-outcomes")
def test_four_claims_killed_survived_other_code_not_judged(drilled) -> None:
    _, _, done = drilled
    assert done.returncode == 9, done.stdout + done.stderr
    claims = _claims(done)
    add = claims["add-checked"]
    assert add["status"] == "drilled"
    kinds = {b["kind"] for b in add["breaks"]}
    assert {"body-raise", "body-return", "negate-guard", "drop-guard"} <= kinds
    assert all(b["status"] == "killed" for b in add["breaks"])
    # The test that asserts nothing: `return 0` passes it.
    mul = claims["mul-unchecked"]
    assert mul["status"] == "survived"
    survived = [b for b in mul["breaks"] if b["status"] == "survived"]
    assert [b["kind"] for b in survived] == ["body-return"]
    assert survived[0]["tests"] == ["tests/test_ops.py::test_mul_runs"]
    # The test that exercises other code: every break survives.
    sub = claims["sub-elsewhere"]
    assert sub["status"] == "survived"
    assert sub["breaks"] and all(b["status"] == "survived" for b in sub["breaks"])
    # Deleting `BASE = 10` makes calc.consts unimportable: not judged, never killed.
    limit = claims["limit-derived"]
    assert limit["status"] == "not-judged"
    assert limit["breaks"] and all(b["status"] == "not-judged" for b in limit["breaks"])
    assert any("NameError" in b["cause"] for b in limit["breaks"]), limit["breaks"]
    assert claims["friendly"]["status"] == "not-drillable"


@pytest.mark.claim("drill-outcomes")
def test_survivors_are_findings_naming_claim_break_and_tests(drilled) -> None:
    _, _, done = drilled
    findings = json.loads(done.stdout)["findings"]
    survived = [f for f in findings if f["rule"] == "survived"]
    assert {f["extra"]["id"] for f in survived} == {"mul-unchecked", "sub-elsewhere"}
    mul = next(f for f in survived if f["extra"]["id"] == "mul-unchecked")
    assert "calc/ops.py" in mul["message"] and "test_mul_runs" in mul["message"]
    assert mul["file"] == "README.md" and mul["line"] == 4
    assert mul["extra"]["related"][0]["file"] == "calc/ops.py"
    rules = {f["rule"] for f in findings}
    assert "not-drillable" in rules and "not-judged" in rules
    assert not any(f["extra"].get("id") == "add-checked" for f in findings)


@pytest.mark.claim("drill-tree-untouched")
def test_work_tree_untouched_except_the_cache(drilled) -> None:
    root, before, _ = drilled
    after = tree_digest(root)
    cache = "invariants/claims.drill.json"
    assert cache in after and cache not in before
    after.pop(cache)
    after.pop("invariants", None)
    before.pop("invariants", None)
    assert after == before


@pytest.mark.claim("drill-cache")
def test_cached_run_reports_the_same_verdicts(drilled) -> None:
    root, _, first = drilled
    again = run_zodyssey("claims", "drill", "--json", cwd=root, timeout=300)
    assert again.returncode == first.returncode
    before, after = _claims(first), _claims(again)
    assert after["add-checked"]["cached"] and after["mul-unchecked"]["cached"]
    for cid in before:
        assert after[cid]["status"] == before[cid]["status"], cid
        assert [b["status"] for b in after[cid]["breaks"]] == [
            b["status"] for b in before[cid]["breaks"]
        ]
    # Not judged is never cached: judged again.
    assert not after["limit-derived"]["cached"]


def test_text_report_and_one_claim(tmp_path: Path) -> None:
    root = fixture_repo(tmp_path / "repo")
    done = run_zodyssey("claims", "drill", "add-checked", "--no-cache", cwd=root, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "drilled       add-checked (README.md:3)" in done.stdout
    assert "1 claim(s) drilled" in done.stdout
    assert not (root / "invariants/claims.drill.json").exists()


@pytest.mark.claim("drill-cache")
def test_changed_code_is_drilled_again(tmp_path: Path) -> None:
    root = fixture_repo(tmp_path / "repo")
    first = run_zodyssey("claims", "drill", "--json", "add-checked", cwd=root, timeout=300)
    assert first.returncode == 0, first.stdout + first.stderr
    ops = root / "calc/ops.py"
    ops.write_text(ops.read_text().replace("return a + b", "return b + a"))
    again = run_zodyssey("claims", "drill", "--json", "add-checked", cwd=root, timeout=300)
    assert not _claims(again)["add-checked"]["cached"]
    # The claim's test edited: drilled again too.
    third = run_zodyssey("claims", "drill", "--json", "add-checked", cwd=root, timeout=300)
    assert _claims(third)["add-checked"]["cached"]
    test = root / "tests/test_ops.py"
    test.write_text(test.read_text() + "\n# edited\n")
    fourth = run_zodyssey("claims", "drill", "--json", "add-checked", cwd=root, timeout=300)
    assert not _claims(fourth)["add-checked"]["cached"]


@pytest.mark.claim("drill-outcomes")
def test_failing_unbroken_tests_make_no_kill(tmp_path: Path) -> None:
    """Tests that fail anyway would 'kill' every break: they are not judged instead."""
    broken = TEST_OPS.replace("assert add(2, 3) == 5", "assert add(2, 3) == 6")
    root = fixture_repo(tmp_path / "repo", {"tests/test_ops.py": broken})
    done = run_zodyssey(
        "claims", "drill", "--json", "add-checked", "--no-cache", cwd=root, timeout=300
    )
    assert done.returncode == 4, done.stdout + done.stderr
    add = _claims(done)["add-checked"]
    assert add["status"] == "not-judged"
    assert all(b["status"] == "not-judged" for b in add["breaks"])
    assert "unbroken copy" in add["breaks"][0]["cause"]


def test_code_that_does_not_exist_is_a_finding(tmp_path: Path) -> None:
    readme = README.replace("code=calc/ops.py::add", "code=calc/ops.py::gone")
    root = fixture_repo(tmp_path / "repo", {"README.md": readme})
    done = run_zodyssey(
        "claims", "drill", "--json", "add-checked", "--no-cache", cwd=root, timeout=300
    )
    assert done.returncode == 9
    findings = json.loads(done.stdout)["findings"]
    assert [f["rule"] for f in findings] == ["bad-code"]
    assert "no function or class gone" in findings[0]["message"]


def test_nothing_drillable_is_exit_4(tmp_path: Path) -> None:
    root = fixture_repo(tmp_path / "repo")
    done = run_zodyssey("claims", "drill", "friendly", cwd=root, timeout=300)
    assert done.returncode == 4, done.stdout + done.stderr
    assert "not-drillable" in done.stdout


def test_unknown_id_is_one_line_exit_2(tmp_path: Path) -> None:
    root = fixture_repo(tmp_path / "repo")
    done = run_zodyssey("claims", "drill", "nope", cwd=root)
    assert done.returncode == 2
    assert "no claim with id nope" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.claim("drill-budget-not-judged")
def test_budget_cut_is_not_judged_never_killed(tmp_path: Path) -> None:
    slow = TEST_OPS.replace(
        "def test_add():\n", "def test_add():\n    import time; time.sleep(1.5)\n"
    )
    root = fixture_repo(tmp_path / "repo", {"tests/test_ops.py": slow})
    done = run_zodyssey(
        "claims",
        "drill",
        "--json",
        "add-checked",
        "-j",
        "1",
        "--budget",
        "4",
        cwd=root,
        timeout=300,
    )
    assert done.returncode == 4, done.stdout + done.stderr
    add = _claims(done)["add-checked"]
    statuses = [b["status"] for b in add["breaks"]]
    assert "not-judged" in statuses and "survived" not in statuses
    assert any("--budget" in b["cause"] for b in add["breaks"])
    # A cut drill is not cached.
    assert (
        not (root / "invariants/claims.drill.json").exists()
        or "add-checked" not in (root / "invariants/claims.drill.json").read_text()
    )


@pytest.mark.claim("drill-tree-untouched")
def test_sigint_leaves_the_work_tree_byte_identical(tmp_path: Path) -> None:
    slow = TEST_OPS.replace(
        "def test_add():\n", "def test_add():\n    import time; time.sleep(30)\n"
    )
    root = fixture_repo(tmp_path / "repo", {"tests/test_ops.py": slow})
    before = tree_digest(root)
    scratch_before = set(Path(os.environ.get("TMPDIR", "/tmp")).glob("zodyssey-drill-*"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "zodyssey", "claims", "drill", "add-checked", "-j", "2"],
        cwd=root,
        env=clean_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # Wait until a test run of the drill is really going (its pytest process exists).
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not _drill_children(proc.pid):
        time.sleep(0.2)
    assert _drill_children(proc.pid), "the drill never started a test run"
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, out + err
    assert tree_digest(root) == before
    assert set(Path(os.environ.get("TMPDIR", "/tmp")).glob("zodyssey-drill-*")) <= scratch_before
    assert "Traceback" not in err


def _drill_children(pid: int) -> list[int]:
    """Processes running pytest inside a zodyssey-drill scratch copy."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cwd = os.readlink(entry / "cwd")
        except OSError:
            continue
        if "zodyssey-drill-" in cwd and int(entry.name) != pid:
            found.append(int(entry.name))
    return found
