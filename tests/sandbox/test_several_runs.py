"""Two runs active in one repository: the sandbox and the effect check hold for both.

The gate allows a call only when every active run's policy allows it; the
sandbox stacks one Landlock layer per run (the kernel allows a write only
where every layer does) and the effect check calls a change a violation when
any run did not allow it, restores it once and records it in the evidence of
each run that did not allow it. Real hook processes, real kernel rulesets.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import clean_env, git, plan
from tests.helpers.gate import RunRepo, make_run_repo
from tests.sandbox.test_effects import hook
from tests.sandbox.test_sandbox_hook import pre_tool, rewritten, run_as_harness
from tests.sandbox.test_sandbox_runner import ABI, needs_landlock
from zodyssey.core.paths import evidence_path
from zodyssey.runs import evidence as chain

OTHER_PLAN = plan("Document the API", [("Document it", ["docs/api.md"], ["`true`"])])


def two_runs(tmp_path: Path, *, other_okay: bool = True) -> RunRepo:
    """Run `demo` (OKAY: src/server.py, tests/test_server.py, pkg/, docs/api.md) and run
    `other` (OKAY on docs/api.md only, or still in phase plan), both recorded with
    the Landlock ABI, in one committed repository."""
    repo = make_run_repo(tmp_path)
    (repo.root / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (repo.root / ".gitignore").write_text("build/\n")
    git(repo.root, "add", "-A", "--", ".", ":(exclude).zcode")
    git(repo.root, "commit", "-q", "-m", "initial")
    state = repo.state()
    state["sandbox"] = {"landlock_abi": ABI}
    repo.write_state(state)
    other = json.loads(json.dumps(state))
    other_plan = repo.root / ".zcode" / "plans" / "other.md"
    other_plan.write_text(OTHER_PLAN)
    other.update(slug="other", plan_path=str(other_plan), todos={"1": {"status": "in_flight"}})
    other["review"]["plan_sha256"] = hashlib.sha256(OTHER_PLAN.encode()).hexdigest()
    if not other_okay:
        other["phase"] = "plan"
        other["review"]["verdict"] = None
    (repo.root / ".zcode" / "state" / "other.json").write_text(json.dumps(other))
    return repo


def sandboxed(repo: RunRepo, runs: list[str], script: str) -> subprocess.CompletedProcess[str]:
    flags = [part for slug in runs for part in ("--run", slug)]
    return subprocess.run(
        [sys.executable, "-m", "zodyssey", "sandbox", *flags, "--", "bash", "-c", script],
        cwd=repo.root,
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=60,
        check=False,
    )


def violations(repo: RunRepo, slug: str) -> list[dict[str, Any]]:
    records = chain.read_evidence(evidence_path(repo.root, slug)).records
    return [r for r in records if r.get("kind") == chain.VIOLATION]


# -- the sandbox: the intersection of the runs' grants


@pytest.mark.claim("several-runs-intersection")
@needs_landlock
@pytest.mark.parametrize(
    ("rel", "alone", "both"),
    [
        ("src/server.py", True, False),  # demo's scope only
        ("docs/api.md", True, True),  # in both runs' scope
        ("README.md", False, False),  # in neither
    ],
)
def test_a_write_lands_only_where_every_run_allows_it(
    tmp_path: Path, rel: str, alone: bool, both: bool
) -> None:
    repo = two_runs(tmp_path)
    script = f"echo changed > {rel}"
    done = sandboxed(repo, ["demo"], script)
    assert (done.returncode == 0) is alone, done.stderr
    for order in (["demo", "other"], ["other", "demo"]):
        (repo.root / rel).write_text("x\n")
        done = sandboxed(repo, order, script)
        assert (done.returncode == 0) is both, (order, done.stderr)
        assert (repo.root / rel).read_text() == ("changed\n" if both else "x\n")
        if not both:
            assert "Permission denied" in done.stderr


@needs_landlock
def test_a_run_still_in_plan_closes_the_product_for_both(tmp_path: Path) -> None:
    repo = two_runs(tmp_path, other_okay=False)
    done = sandboxed(repo, ["demo", "other"], "echo changed > docs/api.md")
    assert done.returncode != 0 and (repo.root / "docs/api.md").read_text() == "x\n"
    done = sandboxed(repo, ["demo", "other"], "echo n > .zcode/notepads/n.md")
    assert done.returncode == 0, done.stderr  # bookkeeping: every run grants it


@pytest.mark.claim("several-runs-intersection")
@needs_landlock
def test_the_hook_wraps_with_every_active_run(tmp_path: Path) -> None:
    repo = two_runs(tmp_path)
    # a build whose recipe writes: the parser lets `make` through because it runs sandboxed
    (repo.root / "Makefile").write_text(
        "demo:\n\techo changed > src/server.py\nboth:\n\techo changed > docs/api.md\n"
    )
    decision, command = rewritten(pre_tool(repo, "make demo", mode="bypassPermissions"))
    assert decision == "allow" and " sandbox --run demo --run other --repo " in command, command
    done = run_as_harness(repo, command)
    assert done.returncode != 0 and (repo.root / "src/server.py").read_text() == "x\n"
    decision, command = rewritten(pre_tool(repo, "make both", mode="bypassPermissions"))
    assert run_as_harness(repo, command).returncode == 0
    assert (repo.root / "docs/api.md").read_text() == "changed\n"


# -- the effect check: a violation of any run, recorded in each that did not allow it


@pytest.mark.claim("several-runs-effects")
def test_a_change_one_run_allows_is_a_violation_of_the_other(tmp_path: Path) -> None:
    repo = two_runs(tmp_path)
    assert hook(repo, "pre-tool", "ls").returncode == 0
    (repo.root / "src" / "server.py").write_text("pwned\n")  # demo's scope, not other's
    (repo.root / "docs" / "api.md").write_text("documented\n")  # both scopes
    done = hook(repo, "post-tool", "ls")
    assert done.returncode == 2, done.stderr
    assert "src/server.py (restored)" in done.stderr and "docs/api.md" not in done.stderr
    assert (repo.root / "src" / "server.py").read_text() == "x\n"
    assert (repo.root / "docs" / "api.md").read_text() == "documented\n"
    assert violations(repo, "demo") == []
    [record] = violations(repo, "other")
    assert [c["path"] for c in record["changes"]] == ["src/server.py"]
    assert record["changes"][0]["action"] == "restored"


@pytest.mark.claim("several-runs-effects")
def test_a_change_neither_allows_is_recorded_in_both_and_undone_once(tmp_path: Path) -> None:
    repo = two_runs(tmp_path)
    assert hook(repo, "pre-tool", "ls").returncode == 0
    (repo.root / "README.md").write_text("pwned\n")
    (repo.root / "src" / "new.py").write_text("new\n")
    done = hook(repo, "post-tool", "ls")
    assert done.returncode == 2
    assert (repo.root / "README.md").read_text() == "x\n"
    assert not (repo.root / "src" / "new.py").exists()
    moved = repo.root / ".zcode" / "quarantine" / "demo" / "toolu_1" / "src" / "new.py"
    assert moved.read_text() == "new\n"
    for slug in ("demo", "other"):
        [record] = violations(repo, slug)
        actions = {c["path"]: c["action"] for c in record["changes"]}
        assert actions == {"README.md": "restored", "src/new.py": "quarantined"}, slug


def test_a_change_between_calls_is_caught_for_both_runs(tmp_path: Path) -> None:
    repo = two_runs(tmp_path, other_okay=False)
    assert hook(repo, "pre-tool", "ls", "toolu_1").returncode == 0
    assert hook(repo, "post-tool", "ls", "toolu_1").returncode == 0
    (repo.root / "docs" / "api.md").write_text("background\n")  # demo allows, other does not
    done = hook(repo, "pre-tool", "zodyssey run list", "toolu_2")
    assert done.returncode == 2 and "docs/api.md" in done.stderr, done.stderr
    assert (repo.root / "docs" / "api.md").read_text() == "x\n"
    assert violations(repo, "demo") == []
    assert [c["path"] for c in violations(repo, "other")[0]["changes"]] == ["docs/api.md"]
    (repo.root / "docs" / "api.md").write_text("background again\n")
    done = hook(repo, "pre-tool", "ls", "toolu_3")  # an ordinary call: caught before it too
    assert done.returncode == 2 and "docs/api.md (restored)" in done.stderr, done.stderr
    assert len(violations(repo, "other")) == 2 and violations(repo, "demo") == []
