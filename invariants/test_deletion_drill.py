"""The drill's own promises (docs/claims.md, "The drill"), on a fixture repository.

This file used to hold three hand-written deletion drills: the copy's shell
classifier made to call every command read-only, the review gate made to
allow, the gate-wiring check made to find nothing, each followed by the whole
invariants suite. They are now ordinary drilled claims: the README's
`bash-gate`, `review-gate` and `gate-wiring-checked` name their code with
`code=`, and `zodyssey claims drill` (run by CI after `zodyssey check`) breaks
it and runs their linked tests. What stays here is what the drill cannot
prove about itself: that it reports killed, survived and not judged truthfully
on code whose answers are known, leaves the work tree alone (SIGINT too), and
treats the cache and the budget as documented.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

DRILL_ENV = "ZODYSSEY_INVARIANTS_DRILL"
HERE = Path(__file__).resolve().parent
REPO = HERE.parent

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(bool(os.environ.get(DRILL_ENV)), reason="inside a drill: no recursion"),
]


@pytest.fixture(scope="module", autouse=True)
def _bytecode_store(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The drills here share one bytecode store (zodyssey/claims/drill_bytecode.py),
    never the developer's own: the interpreter's bytecode is compiled once."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ZODYSSEY_DRILL_BYTECODE", str(tmp_path_factory.mktemp("bytecode")))
        yield


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
    assert add(0, 0) == 0


@pytest.mark.claim("add-checked")
def test_add_refuses_negative():
    for a, b in ((-1, 3), (3, -1)):
        with pytest.raises(ValueError, match="negative"):
            add(a, b)


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


@pytest.mark.claim("drill-outcomes", "drill-survivor-fails")
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
    assert [b["kind"] for b in survived] == ["body-return", "return-none", "arith"]
    assert survived[0]["tests"] == ["tests/test_ops.py::test_mul_runs"]
    # The test that exercises other code: every break survives.
    sub = claims["sub-elsewhere"]
    assert sub["status"] == "survived"
    assert sub["breaks"] and all(b["status"] == "survived" for b in sub["breaks"])
    # Deleting `BASE = 10` makes calc.consts unimportable: not judged, never killed
    # (its number mutants, `BASE = 11` and the like, are killed by `LIMIT == 20`).
    limit = claims["limit-derived"]
    assert limit["status"] == "not-judged"
    statuses = {b["kind"]: b["status"] for b in limit["breaks"]}
    assert statuses == {
        "delete-span": "not-judged",
        "number+1": "killed",
        "number-1": "killed",
        "number0": "killed",
    }, limit["breaks"]
    assert any("NameError" in b["cause"] for b in limit["breaks"]), limit["breaks"]
    assert claims["friendly"]["status"] == "not-drillable"


@pytest.mark.claim("drill-outcomes", "drill-survivor-fails")
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
    """The claim's code or its test edited: drilled again, not answered from the cache.
    The drills of edited trees are cut at once by the budget (whether the cache
    answered is known before any run starts); a cut drill leaves the cached verdict
    alone, so the unedited code finds it again."""

    def drill_add(*extra: str) -> dict[str, Any]:
        done = run_zodyssey("claims", "drill", "--json", "add-checked", *extra, cwd=root)
        return _claims(done)["add-checked"]

    root = fixture_repo(tmp_path / "repo")
    first = run_zodyssey("claims", "drill", "--json", "add-checked", cwd=root, timeout=300)
    assert first.returncode == 0, first.stdout + first.stderr
    ops = root / "calc/ops.py"
    original = ops.read_text()
    ops.write_text(original.replace("return a + b", "return b + a"))
    edited = drill_add("--budget", "0.001")
    assert not edited["cached"] and edited["status"] == "not-judged"
    ops.write_text(original)
    assert drill_add()["cached"]
    # The claim's test edited: drilled again too.
    test = root / "tests/test_ops.py"
    test.write_text(test.read_text() + "\n# edited\n")
    assert not drill_add("--budget", "0.001")["cached"]


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
    # A temp folder of this test's own: other drills running beside it (xdist) make
    # and remove their scratch copies in the shared one.
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-m", "zodyssey", "claims", "drill", "add-checked", "-j", "2"],
        cwd=root,
        env=clean_env(TMPDIR=str(scratch)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # A suite started in the background (`cmd &`, nohup) inherits SIGINT ignored,
        # and Python then installs no KeyboardInterrupt handler: give the drill the
        # default disposition a terminal's Ctrl-C meets.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    # Wait until a test run of the drill is really going (its pytest process exists).
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not _drill_children(proc.pid, scratch):
        time.sleep(0.2)
    assert _drill_children(proc.pid, scratch), "the drill never started a test run"
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, out + err
    assert tree_digest(root) == before
    assert not list(scratch.glob("zodyssey-drill-*")), "a scratch copy outlived the drill"
    assert "Traceback" not in err


@pytest.mark.claim("drill-scratch-place")
def test_scratch_copies_go_where_told_and_are_removed(tmp_path: Path) -> None:
    """A linked test that notes where it runs: under `ZODYSSEY_DRILL_SCRATCH`, in a
    `zodyssey-drill-` directory that is gone when the drill is over."""
    notes = tmp_path / "notes"
    noting = TEST_OPS.replace(
        "def test_add():\n",
        "def test_add():\n    import os\n"
        "    with open(os.environ['NOTES'], 'a') as f:\n        f.write(os.getcwd() + '\\n')\n",
    )
    root = fixture_repo(tmp_path / "repo", {"tests/test_ops.py": noting})
    place = tmp_path / "scratch"
    place.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "zodyssey", "claims", "drill", "add-checked", "--no-cache"],
        cwd=root,
        env=clean_env(ZODYSSEY_DRILL_SCRATCH=str(place), NOTES=str(notes)),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    cwds = notes.read_text().splitlines()
    assert len(cwds) >= 2 and all(c.startswith(f"{place}/zodyssey-drill-") for c in cwds), cwds
    assert not list(place.iterdir()), "the scratch directory outlived the drill"


@pytest.mark.claim("drill-bytecode-store")
def test_bytecode_store_holds_the_interpreters_files_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two drills with one store: the second finds pytest's bytecode the first one
    kept; nothing of the scratch copies (where breaks are written) or of the drilled
    tree is ever in it, and the tree is as it was."""
    store = tmp_path / "store"
    monkeypatch.setenv("ZODYSSEY_DRILL_BYTECODE", str(store))
    root = fixture_repo(tmp_path / "repo")
    before = tree_digest(root)
    verdicts = []
    for _ in range(2):
        done = run_zodyssey(
            "claims", "drill", "--json", "add-checked", "--no-cache", cwd=root, timeout=300
        )
        assert done.returncode == 0, done.stdout + done.stderr
        verdicts.append([b["status"] for b in _claims(done)["add-checked"]["breaks"]])
    assert verdicts[0] == verdicts[1] and set(verdicts[0]) == {"killed"}
    kept = [p.as_posix() for p in store.rglob("*.pyc")]
    pytest_dir = Path(pytest.__file__).resolve().parent.as_posix()
    assert any(
        p.endswith(f"{pytest_dir}/__init__.{sys.implementation.cache_tag}.pyc") for p in kept
    )
    assert not [p for p in kept if "zodyssey-drill-" in p or str(root) in p], kept
    assert not [p for p in store.rglob("*") if p.is_symlink()]
    assert tree_digest(root) == before


@pytest.mark.claim("drill-bytecode-store")
def test_same_size_breaks_of_one_file_each_run_their_own_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`return 2` passes the test, `return 3` fails it: the broken files have one
    size and run one after the other in the one copy (-j 1), within a second. Had a
    run been given another version's cached bytecode (Python checks it by
    modification time and size only), `three` would survive."""
    from zodyssey.claims.drill import drill, plan
    from zodyssey.claims.drill_breaks import Break
    from zodyssey.claims.model import Claim

    monkeypatch.setenv("ZODYSSEY_DRILL_BYTECODE", str(tmp_path / "store"))
    module = "def f() -> int:\n    return 1\n"
    root = tmp_path / "repo"
    root.mkdir()
    (root / "mod.py").write_text(module)
    (root / "test_mod.py").write_text("from mod import f\n\n\ndef test_f():\n    assert f() != 3\n")
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["."]\n')
    claim = Claim("c", "README.md", 1, "f is not three.", "paragraph", 1, ("mod.py::f",))
    target = plan(root, claim, ["test_mod.py::test_f"], with_breaks=False)
    digits = {"two": "2", "three": "3", "two-again": "2", "four": "4"}
    target.breaks = [
        Break("mod.py::f", "mod.py", 2, kind, kind, module.replace("1", d).encode())
        for kind, d in digits.items()
    ]
    assert {len(b.source) for b in target.breaks} == {len(module)}
    [result] = drill(root, [target], jobs=1)
    assert result.baseline is not None and result.baseline.status == "passed"
    verdicts = {r.brk.kind: r.outcome.status for r in result.results}
    assert verdicts == {
        "two": "survived",
        "three": "killed",
        "two-again": "survived",
        "four": "survived",
    }
    assert (root / "mod.py").read_text() == module


def _drill_children(pid: int, scratch: Path) -> list[int]:
    """Processes running pytest inside one of this drill's scratch copies (under `scratch`)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cwd = os.readlink(entry / "cwd")
        except OSError:
            continue
        if cwd.startswith(f"{scratch}/zodyssey-drill-") and int(entry.name) != pid:
            found.append(int(entry.name))
    return found


REPO = Path(__file__).resolve().parent.parent


@pytest.mark.claim("drill-survivor-fails")
def test_ci_drills_every_readme_claim_that_names_code() -> None:
    """CI runs the drill after `zodyssey check`, and the committed cache holds a drilled
    verdict for each README claim that names code (the hand drills' three among them)."""
    from zodyssey.claims.drill import code_specs
    from zodyssey.claims.markers import parse_document

    steps = [
        line.strip()
        for line in (REPO / ".ci/run").read_text().splitlines()
        if line.strip().startswith("zodyssey ")
    ]
    assert steps.index("zodyssey check") < next(
        i for i, s in enumerate(steps) if s.startswith("zodyssey claims drill")
    )
    named = {
        c.id
        for c in parse_document((REPO / "README.md").read_text(), "README.md").claims
        if code_specs(c, REPO)
    }
    assert {"bash-gate", "review-gate", "gate-wiring-checked", "plan-tamper"} <= named
    cache = json.loads((REPO / "invariants/claims.drill.json").read_text())["claims"]
    for claim_id in named:
        assert cache[claim_id]["status"] == "drilled", claim_id
        # every break killed, but one `drill-skip=` names with its reason (printed)
        for b in cache[claim_id]["breaks"]:
            assert b["status"] == "killed" or (b["status"] == "skipped" and b.get("cause")), (
                claim_id,
                b,
            )


# --- what the cache key covers: everything the linked tests' outcome depends on --------

DEPENDENT_TESTS = """import json
from pathlib import Path

import pytest

from calc.ops import add
from tests.expect import expected


@pytest.mark.claim("add-checked")
def test_add():
    cases = json.loads(Path("tests/data/cases.json").read_text())
    for a, b in cases:
        assert add(a, b) == expected(a, b)


@pytest.mark.claim("add-checked")
def test_add_refuses_negative():
    for a, b in ((-1, 3), (3, -1)):
        with pytest.raises(ValueError, match="negative"):
            add(a, b)
"""

DEPENDENCIES = {
    # a helper module the test imports (weakened: it would accept anything)
    "tests/expect.py": ("def expected(a, b):\n    return a + b\n", "\n# weakened\n"),
    # a data file the test opens
    "tests/data/cases.json": ("[[2, 3], [0, 0]]\n", " "),
    # a plugin named by `pytest_plugins` in the conftest
    "tests/plug.py": ("def pytest_configure(config):\n    pass\n", "\n# changed\n"),
    "conftest.py": ('pytest_plugins = ["tests.plug"]\n', ""),
    "tests/__init__.py": ("", ""),
    # the pytest options (`addopts = "-k ..."` could deselect the tests)
    "pyproject.toml": (PYPROJECT, '\n[tool.pytest.extra]\naddopts = "-k nothing"\n'),
}


@pytest.mark.claim("drill-cache")
@pytest.mark.parametrize(
    "changed", ["tests/expect.py", "tests/data/cases.json", "tests/plug.py", "pyproject.toml"]
)
def test_what_the_tests_read_is_part_of_the_key(tmp_path: Path, changed: str) -> None:
    """A helper module the tests import, a file they open, a plugin, the pytest
    configuration: each changed makes the claim drilled again (cut at once by the
    budget here), and put back, it is answered from the cache again."""
    files = {rel: text for rel, (text, _) in DEPENDENCIES.items()}
    root = fixture_repo(tmp_path / "repo", {**files, "tests/test_ops.py": DEPENDENT_TESTS})

    def drill_add(*extra: str) -> dict[str, Any]:
        done = run_zodyssey("claims", "drill", "--json", "add-checked", *extra, cwd=root)
        return _claims(done)["add-checked"]

    first = run_zodyssey("claims", "drill", "--json", "add-checked", cwd=root, timeout=600)
    assert first.returncode == 0, first.stdout + first.stderr
    deps = json.loads((root / "invariants/claims.drill.json").read_text())["claims"]["add-checked"]
    assert {"tests/expect.py", "tests/data/cases.json", "tests/plug.py"} <= set(
        deps["deps"]["files"]
    )
    assert "pytest" in deps["deps"]["modules"]
    assert drill_add()["cached"]
    path = root / changed
    original = path.read_text()
    path.write_text(original + DEPENDENCIES[changed][1])
    edited = drill_add("--budget", "0.001")
    assert not edited["cached"] and edited["status"] == "not-judged"
    path.write_text(original)
    assert drill_add()["cached"]


@pytest.mark.claim("drill-cache")
def test_the_interpreter_and_installed_versions_are_part_of_the_key(tmp_path: Path) -> None:
    from zodyssey.claims.drill import Deps, plan
    from zodyssey.claims.drill_cache import KeyContext, cache_key
    from zodyssey.claims.model import Claim

    root = fixture_repo(tmp_path / "repo")
    context = KeyContext(root)
    claim = Claim("add-checked", "README.md", 3, "add.", "list_item", 3, ("calc/ops.py::add",))
    target = plan(root, claim, ["tests/test_ops.py::test_add"])
    assert context.versions("pytest") == f"pytest:pytest=={pytest.__version__}"
    assert context.interpreter().endswith(".".join(str(n) for n in sys.version_info[:3]))
    keys = {
        cache_key(context, target, Deps((), modules))
        for modules in ((), ("pytest",), ("pytest", "hypothesis"))
    }
    assert len(keys) == 3
    # What the run read is not known: no key, so never answered from the cache.
    assert cache_key(context, target, None) is None


@pytest.mark.claim("drill-shards")
def test_shards_split_the_breaks_and_merge_into_one_verdict(tmp_path: Path) -> None:
    root = fixture_repo(tmp_path / "repo")
    reports = []
    for k in (1, 2):
        out = tmp_path / f"shard-{k}.json"
        done = run_zodyssey(
            "claims", "drill", "add-checked", "mul-unchecked", "--shard", f"{k}/2",
            "--format", "json", "-o", str(out), cwd=root, timeout=600,
        )  # fmt: skip
        assert done.returncode in (0, 9), done.stdout + done.stderr
        reports.append(json.loads(out.read_text()))
    assert not (root / "invariants/claims.drill.json").exists()  # a shard writes no cache
    ids = [{(c["id"], b["id"]) for c in r["claims"] for b in c["breaks"]} for r in reports]
    assert ids[0] and ids[1] and not ids[0] & ids[1]  # each break in one shard only
    planned = {c["id"]: c["shard"]["breaks"] for r in reports for c in r["claims"]}
    assert len(ids[0] | ids[1]) == sum(planned.values())
    files = [str(tmp_path / f"shard-{k}.json") for k in (1, 2)]
    merged = run_zodyssey("claims", "drill", "--merge", *files, "--json", cwd=root)
    assert merged.returncode == 9, merged.stdout + merged.stderr  # mul-unchecked survives
    claims = _claims(merged)
    assert claims["add-checked"]["status"] == "drilled"
    assert claims["mul-unchecked"]["status"] == "survived"
    # One shard's report alone: the other's breaks are missing, so nothing is drilled.
    alone = run_zodyssey("claims", "drill", "--merge", files[0], "--json", cwd=root)
    assert alone.returncode in (4, 9), alone.stdout + alone.stderr
    assert _claims(alone)["add-checked"]["status"] == "not-judged"
    assert "missing shard(s) 2/2" in alone.stdout
