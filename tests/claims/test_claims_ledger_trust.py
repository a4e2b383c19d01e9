"""Issue 26 item 6: the ledger and results files are not trusted blindly.

Real git repositories in temp dirs, the installed command, real pytest runs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import clean_env, commit, git, make_repo, run_zodyssey, write

README = "# demo\n\nThe gate blocks writes before review. <!-- claim: gate-blocks -->\n"
TESTS = """
import pytest

@pytest.mark.claim("gate-blocks")
def test_gate():
    pass
"""
LEDGER = "invariants/claims.lock.json"


def _repo(root: Path) -> Path:
    make_repo(
        root,
        {
            "README.md": README,
            "pytest.ini": "[pytest]\ntestpaths = checks\n",
            "checks/test_gate.py": TESTS,
        },
    )
    done = run_zodyssey("claims", "update", cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    commit(root, "ledger")
    return root


def _one_error_line(done: subprocess.CompletedProcess[str], *words: str) -> None:
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    for word in words:
        assert word in done.stderr, done.stderr


def _ledger(root: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads((root / LEDGER).read_text())
    return data


def test_a_claim_id_twice_in_the_ledger_is_refused(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    text = (root / LEDGER).read_text()
    entry = text[text.index('"gate-blocks"') : text.rindex("}", 0, text.rindex("}"))].rstrip()
    # JSON keeps the last of two equal keys: a stale second entry would win silently.
    doubled = text.replace(entry, entry + ",\n    " + entry.replace('"line": 3', '"line": 99'))
    assert doubled.count('"gate-blocks"') == 2
    (root / LEDGER).write_text(doubled)
    _one_error_line(run_zodyssey("claims", "check", cwd=root), "'gate-blocks' twice")


def test_an_unknown_ledger_version_is_refused(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    data = _ledger(root)
    for version in (2, 0, "1", True, None):
        data["version"] = version
        (root / LEDGER).write_text(json.dumps(data))
        _one_error_line(run_zodyssey("claims", "check", cwd=root), "version")


def test_a_fingerprint_that_is_not_its_texts_is_refused(tmp_path: Path) -> None:
    from zodyssey.claims.model import fingerprint

    root = _repo(tmp_path)
    new = "The gate blocks writes after review."
    write(root, "README.md", README.replace("before review", "after review"))
    data = _ledger(root)
    claims = data["claims"]
    assert isinstance(claims, dict)
    # The wording changed; a hand-set fingerprint matches the new wording, `text` keeps the old.
    claims["gate-blocks"]["fingerprint"] = fingerprint(new)
    (root / LEDGER).write_text(json.dumps(data))
    _one_error_line(run_zodyssey("claims", "check", cwd=root), "fingerprint", "gate-blocks")


def test_update_refuses_while_a_test_module_cannot_be_imported(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    before = (root / LEDGER).read_bytes()
    write(root, "checks/test_gate.py", "import no_such_module_here\n" + TESTS)
    done = run_zodyssey("claims", "update", cwd=root)
    assert done.returncode == 9, done.stdout + done.stderr
    assert "No module named 'no_such_module_here'" in done.stderr
    assert "refused" in done.stderr
    assert (root / LEDGER).read_bytes() == before


def test_update_writes_through_a_symlinked_ledger(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo")
    shared = tmp_path / "shared" / "claims.lock.json"
    shared.parent.mkdir()
    (root / LEDGER).rename(shared)
    (root / LEDGER).symlink_to(shared)
    write(root, "README.md", README.replace("writes", "all writes"))
    done = run_zodyssey("claims", "update", cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (root / LEDGER).is_symlink()
    assert "all writes" in shared.read_text()
    assert run_zodyssey("claims", "check", cwd=root).returncode == 0


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_fifo_ledger_is_refused_not_waited_on(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    (root / LEDGER).unlink()
    os.mkfifo(root / LEDGER)
    done = run_zodyssey("claims", "check", cwd=root, timeout=60)
    _one_error_line(done, "not a regular file")


def _shard(root: Path, name: str = "shard.json") -> Path:
    out = root.parent / f"{root.name}-{name}"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--claims-json={out}"],
        cwd=root,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.is_file(), done.stdout + done.stderr
    return out


def _results(root: Path, *files: Path) -> subprocess.CompletedProcess[str]:
    return run_zodyssey("claims", "check", "--results", *map(str, files), cwd=root)


def test_results_carry_the_checkout_and_are_refused_elsewhere(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo")
    shard = _shard(root)
    recorded = json.loads(shard.read_text())["checkout"]
    assert recorded["commit"] == git(root, "rev-parse", "HEAD").strip()
    assert recorded["tree"] and recorded["repository"]
    assert _results(root, shard).returncode == 0
    # A clone at the same commit with the same content: the same checkout, accepted.
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(root), str(clone))
    assert _results(clone, shard).returncode == 0
    # Other content in a tracked file (not committed): refused.
    write(clone, "checks/test_gate.py", TESTS + "\n# edited\n")
    _one_error_line(_results(clone, shard), "not from this checkout", "other content")
    # Yesterday's shard: the checkout moved on by a commit.
    commit(clone, "today")
    _one_error_line(_results(clone, shard), "not from this checkout", "commit")
    # Another repository with the same files.
    other = _repo(tmp_path / "other")
    write(other, "NOTES.md", "another project\n")
    commit(other, "its own history")
    _one_error_line(_results(other, shard), "another repository")


def test_results_without_a_checkout_are_refused(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo")
    shard = _shard(root)
    data = json.loads(shard.read_text())
    del data["checkout"]
    shard.write_text(json.dumps(data))
    _one_error_line(_results(root, shard), "records no checkout")
