"""The claims verdict under pytest-xdist equals the serial verdict, test by test.

Real pytest subprocesses with real xdist workers (`-n 2`), every `--dist` mode.
The suite mixes every outcome, several files, a class, parametrised ids and
`xdist_group` marks (loadgroup appends `@group` to node ids on the workers).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("xdist")

README = """# demo

The gate blocks writes before review. <!-- claim: gate-blocks -->

- Zero citations fail the check. <!-- claim: zero-fails -->
- Locks are written atomically. <!-- claim: atomic-locks -->
- A skipped defence is no defence. <!-- claim: skipped-only -->
- A failing defence fails. <!-- claim: failing -->
- A deselected defence is no defence. <!-- claim: deselected-only -->
"""

TEST_A = """
import pytest

@pytest.mark.claim("gate-blocks")
def test_gate():
    pass

@pytest.mark.claim("zero-fails")
@pytest.mark.parametrize("n", [0, 1, 2])
def test_zero(n):
    pass

@pytest.mark.claim("skipped-only")
def test_skipped():
    pytest.skip("later")

@pytest.mark.claim("failing")
def test_failing():
    assert False

@pytest.mark.claim("deselected-only")
def test_deselected():
    pass
"""

TEST_B = """
import pytest

@pytest.mark.claim("atomic-locks")
@pytest.mark.xdist_group("locks")
class TestLocks:
    def test_one(self):
        pass

    @pytest.mark.claim("gate-blocks")
    def test_two(self):
        pass

@pytest.mark.claim("failing")
@pytest.mark.xfail(reason="known")
def test_xfail():
    assert False

@pytest.mark.xdist_group("locks")
@pytest.mark.claim("zero-fails")
def test_grouped_b():
    pass

def test_unlinked():
    pass
"""

PASSING_A = """
import pytest

@pytest.mark.claim("gate-blocks")
def test_gate():
    pass

@pytest.mark.claim("zero-fails")
@pytest.mark.parametrize("n", [0, 1, 2])
def test_zero(n):
    pass

@pytest.mark.xdist_group("locks")
@pytest.mark.claim("atomic-locks")
def test_atomic():
    pass
"""

PASSING_README = """# demo

The gate blocks writes before review. <!-- claim: gate-blocks -->

- Zero citations fail the check. <!-- claim: zero-fails -->
- Locks are written atomically. <!-- claim: atomic-locks -->
"""

DIST_MODES = ("load", "loadscope", "loadfile", "loadgroup", "worksteal", "each")


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTEST_ADDOPTS", None)
    env.pop("PYTEST_XDIST_WORKER", None)
    env.pop("PYTEST_XDIST_WORKER_COUNT", None)
    return env


def pytest_run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=root,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )


def lock(root: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "zodyssey", "claims", "update", "--root", str(root)],
        capture_output=True,
        text=True,
        env=_env(),
        check=False,
    )
    assert done.returncode == 0, done.stderr


def make_repo(root: Path, readme: str, files: dict[str, str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "README.md").write_text(readme, encoding="utf-8")
    (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    lock(root)
    return root


def verdict(root: Path, *args: str) -> tuple[int, dict[str, Any], str]:
    out = root / "claims.json"
    out.unlink(missing_ok=True)
    done = pytest_run(root, "--claims-strict", f"--claims-json={out}", *args)
    assert out.is_file(), done.stdout + done.stderr
    return done.returncode, json.loads(out.read_text(encoding="utf-8")), done.stdout


def per_test(document: dict[str, Any]) -> dict[tuple[str, str], str]:
    """(claim, test) -> outcome: the verdict test by test."""
    return {
        (row["id"], test["nodeid"]): test["outcome"]
        for row in document["claims"]
        for test in row["tests"]
    }


def per_claim(document: dict[str, Any]) -> dict[str, bool]:
    return {row["id"]: row["covered"] for row in document["claims"]}


def findings(document: dict[str, Any]) -> list[tuple[str, str, str]]:
    return sorted(
        (f["rule"], str(f["extra"].get("id")), str(f["extra"].get("test")))
        for f in document["findings"]
    )


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_repo(
        tmp_path_factory.mktemp("mixed"),
        README,
        {"test_a.py": TEST_A, "test_b.py": TEST_B},
    )


@pytest.fixture(scope="module")
def serial(mixed: Path) -> tuple[int, dict[str, Any], str]:
    return verdict(mixed, "--deselect", "test_a.py::test_deselected")


@pytest.mark.slow
def test_serial_baseline_is_what_we_expect(serial: tuple[int, dict[str, Any], str]) -> None:
    code, document, _ = serial
    assert code == 1
    assert per_claim(document) == {
        "gate-blocks": True,
        "zero-fails": True,
        "atomic-locks": True,
        "skipped-only": False,
        "failing": False,
        "deselected-only": False,
    }
    outcomes = per_test(document)
    assert outcomes[("deselected-only", "test_a.py::test_deselected")] == "deselected"
    assert outcomes[("zero-fails", "test_b.py::test_grouped_b")] == "passed"
    assert outcomes[("zero-fails", "test_a.py::test_zero[2]")] == "passed"


@pytest.mark.slow
@pytest.mark.parametrize("dist", DIST_MODES)
def test_xdist_verdict_equals_serial(
    mixed: Path, serial: tuple[int, dict[str, Any], str], dist: str
) -> None:
    code, document, stdout = verdict(
        mixed, "-n", "2", "--dist", dist, "--deselect", "test_a.py::test_deselected"
    )
    assert "2 workers" in stdout or "gw0" in stdout or "gw1" in stdout, stdout
    serial_code, serial_doc, _ = serial
    assert per_test(document) == per_test(serial_doc)
    assert per_claim(document) == per_claim(serial_doc)
    assert findings(document) == findings(serial_doc)
    assert code == serial_code


@pytest.mark.slow
@pytest.mark.parametrize("dist", ["load", "loadgroup", "each"])
def test_passing_suite_passes_strict_under_xdist(tmp_path: Path, dist: str) -> None:
    # The reported bug: `pytest -n 2 --claims-strict` failed a fully passing suite
    # with false missing-test and uncovered findings.
    root = make_repo(tmp_path / "repo", PASSING_README, {"test_a.py": PASSING_A})
    code, document, stdout = verdict(root, "-n", "2", "--dist", dist)
    assert code == 0, stdout
    assert document["ok"] is True
    assert all(per_claim(document).values())
    assert "strict check passed" in stdout


@pytest.mark.slow
def test_failing_defender_fails_under_xdist(tmp_path: Path) -> None:
    broken = PASSING_A.replace("def test_atomic():\n    pass", "def test_atomic():\n    assert 0")
    root = make_repo(tmp_path / "repo", PASSING_README, {"test_a.py": PASSING_A})
    (root / "test_a.py").write_text(broken, encoding="utf-8")
    code, document, stdout = verdict(root, "-n", "2")
    assert code == 1
    assert ("test-failed", "atomic-locks", "None") in findings(document)
    assert "test-failed atomic-locks" in stdout


@pytest.mark.slow
def test_crashed_worker_fails_closed(tmp_path: Path) -> None:
    # A worker that dies mid-test sends nothing; its tests cannot count as passed.
    crash = PASSING_A.replace(
        "def test_gate():\n    pass", "def test_gate():\n    import os\n    os._exit(1)"
    )
    root = make_repo(tmp_path / "repo", PASSING_README, {"test_a.py": PASSING_A})
    (root / "test_a.py").write_text(crash, encoding="utf-8")
    code, document, _ = verdict(root, "-n", "2")
    assert code != 0
    assert per_claim(document)["gate-blocks"] is False
    assert document["ok"] is False


@pytest.mark.slow
def test_plugin_works_without_xdist(tmp_path: Path) -> None:
    # xdist not loaded at all: its hooks do not exist, the plugin must not need them.
    root = make_repo(tmp_path / "repo", PASSING_README, {"test_a.py": PASSING_A})
    env = {**_env(), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    out = root / "claims.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "zodyssey.claims.plugin",
            "-p",
            "no:cacheprovider",
            "--claims-strict",
            f"--claims-json={out}",
        ],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "xdist" not in done.stdout.split("collected")[0].split("plugins:")[-1]
    assert json.loads(out.read_text(encoding="utf-8"))["ok"] is True


def test_plugin_import_stays_light() -> None:
    # The plugin loads in every pytest session of every environment with zodyssey;
    # the verdict machinery loads only once a test carries a claim.
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import zodyssey.claims.plugin"],
        capture_output=True,
        text=True,
        env=_env(),
        check=True,
    )
    assert "zodyssey.claims.plugin" in done.stderr
    for heavy in ("zodyssey.claims.verdict", "zodyssey.claims.ledger", "xdist"):
        assert heavy not in done.stderr, heavy
