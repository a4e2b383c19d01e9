"""docs/gate.md's promise about the write sandbox, through the real command.

`python -m zodyssey sandbox --run demo -- bash -c CMD` in a repository with
an active run: whatever CMD is, the bytes of run state, the plan after OKAY,
the gate's configuration and `.git` are what they were, and product files
outside the grants are untouched.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest

from zodyssey.sandbox.landlock import abi_version

ATTACKS = (
    "echo pwned > README.md",
    "pushd -n .zcode/staging >/dev/null; echo pwned > README.md",
    "eval 'cd .zcode/state'; echo '{}' > demo.json",
    "compgen -C 'touch pwned' x",
    "awk 'BEGIN { system(\"echo pwned > pyproject.toml\") }'",
    "python3 -c \"open('.zcode/plans/demo.md', 'w').write('pwned')\"",
    "rm -rf .git .zcode/state",
    "[[ 'a[$(echo pwned > README.md)]' -eq 0 ]]",
)


def _digests(repo: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for path in sorted(repo.rglob("*")):
        rel = path.relative_to(repo).as_posix()
        if rel.startswith((".zcode/notepads", ".zcode/staging")) or not path.is_file():
            continue
        out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


@pytest.mark.claim("sandbox-protected-never-written")
@pytest.mark.skipif(abi_version() < 1, reason="Landlock is not available on this kernel")
@pytest.mark.parametrize("verdict", [None, "OKAY"])
def test_no_sandboxed_command_changes_protected_or_undeclared_files(
    lab: Any, verdict: str | None
) -> None:
    repo = lab.repo()
    (repo / "README.md").write_text("readme\n")
    (repo / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("x = 1\n")
    lab.commit(repo, "initial")
    lab.start_run(repo, verdict=verdict)
    before = _digests(repo)
    for attack in ATTACKS:
        lab.zodyssey("sandbox", "--run", "demo", "--", "bash", "-c", attack, cwd=repo)
    after = _digests(repo)
    if verdict is None:  # the plan is the agent's to write until OKAY
        before.pop(".zcode/plans/demo.md")
        after.pop(".zcode/plans/demo.md")
    assert after == before
    done = lab.zodyssey(
        "sandbox", "--run", "demo", "--", "bash", "-c", "echo y > src/app.py", cwd=repo
    )
    written = (repo / "src" / "app.py").read_text()
    assert (written == "y\n") == (verdict == "OKAY"), done.stderr


@pytest.mark.claim("effect-check-restores-and-records")
def test_a_forbidden_change_is_restored_recorded_and_refuses_done(lab: Any) -> None:
    import json

    repo = lab.repo()
    (repo / "README.md").write_text("readme\n")
    lab.commit(repo, "initial")
    lab.start_run(repo)  # before OKAY: no product change is allowed
    payload = lab.bash(repo, "ls")
    payload["tool_use_id"] = "toolu_7"
    assert lab.hook(repo, payload).allowed
    (repo / "README.md").write_text("pwned\n")  # what really happened during the call
    (repo / "new.py").write_text("pwned\n")
    done = lab.zodyssey("hook", "post-tool", cwd=repo, stdin=json.dumps(payload))
    assert done.returncode == 2 and "README.md (restored)" in done.stderr, done.stderr
    assert (repo / "README.md").read_text() == "readme\n"
    assert not (repo / "new.py").exists()
    evidence = repo / ".zcode" / "verify" / "demo" / "evidence.jsonl"
    kinds = [json.loads(line)["kind"] for line in evidence.read_text().splitlines()]
    assert kinds == ["violation"]


@pytest.mark.claim("effect-check-restores-and-records")
def test_the_frozen_plan_a_call_rewrote_is_put_back(lab: Any) -> None:
    import json

    repo = lab.repo()
    (repo / "README.md").write_text("readme\n")
    lab.commit(repo, "initial")
    lab.start_run(repo, verdict="OKAY")  # after OKAY the plan is protected
    plan = repo / ".zcode" / "plans" / "demo.md"
    reviewed = plan.read_text()
    payload = lab.bash(repo, "ls")
    payload["tool_use_id"] = "toolu_9"
    assert lab.hook(repo, payload).allowed
    plan.write_text(reviewed + "\nFiles: everything\n")  # what really happened
    done = lab.zodyssey("hook", "post-tool", cwd=repo, stdin=json.dumps(payload))
    assert done.returncode == 2 and "(restored)" in done.stderr, done.stderr
    assert plan.read_text() == reviewed


@pytest.mark.claim("several-runs-intersection")
@pytest.mark.skipif(abi_version() < 1, reason="Landlock is not available on this kernel")
def test_with_two_runs_a_write_lands_only_where_both_allow_it(lab: Any) -> None:
    repo = lab.repo()
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("x = 1\n")
    lab.commit(repo, "initial")
    lab.start_run(repo, verdict="OKAY")  # declares src/app.py
    lab.start_run(repo, slug="other")  # still in plan: no product write
    write = ("bash", "-c", "echo y > src/app.py")
    lab.zodyssey("sandbox", "--run", "demo", "--run", "other", "--", *write, cwd=repo)
    assert (repo / "src" / "app.py").read_text() == "x = 1\n"
    lab.zodyssey("sandbox", "--run", "other", "--run", "demo", "--", *write, cwd=repo)
    assert (repo / "src" / "app.py").read_text() == "x = 1\n"
    lab.zodyssey("sandbox", "--run", "demo", "--", *write, cwd=repo)
    assert (repo / "src" / "app.py").read_text() == "y\n"


@pytest.mark.claim("several-runs-effects")
def test_with_two_runs_a_change_one_does_not_allow_is_its_violation(lab: Any) -> None:
    import json

    repo = lab.repo()
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("x = 1\n")
    lab.commit(repo, "initial")
    lab.start_run(repo, verdict="OKAY")  # src/app.py is in its scope
    lab.start_run(repo, slug="other")  # in plan: it allows no product change
    payload = lab.bash(repo, "ls")
    payload["tool_use_id"] = "toolu_8"
    assert lab.hook(repo, payload).allowed
    (repo / "src" / "app.py").write_text("y = 2\n")
    done = lab.zodyssey("hook", "post-tool", cwd=repo, stdin=json.dumps(payload))
    assert done.returncode == 2 and "src/app.py (restored)" in done.stderr, done.stderr
    assert (repo / "src" / "app.py").read_text() == "x = 1\n"
    verify = repo / ".zcode" / "verify"
    assert not (verify / "demo" / "evidence.jsonl").exists()
    [line] = (verify / "other" / "evidence.jsonl").read_text().splitlines()
    assert json.loads(line)["kind"] == "violation"


@pytest.mark.claim("gate-ran-proven")
def test_a_transcript_call_without_a_gate_decision_fails_the_audit(lab: Any) -> None:
    import json
    import time

    repo = lab.repo()
    (repo / "README.md").write_text("readme\n")
    lab.commit(repo, "initial")
    state = lab.start_run(repo)
    marked = json.loads(state.read_text())
    marked["created_by"] = "zodyssey 0.1.0"
    state.write_text(json.dumps(marked))
    now = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(time.time() + 1))
    transcript = lab.base / "session.jsonl"
    lines = [
        {"type": "assistant", "timestamp": now, "message": {"content": [block]}}
        for block in (
            {"type": "tool_use", "id": "toolu_seen", "name": "Read", "input": {}},
            {"type": "tool_use", "id": "toolu_unseen", "name": "Bash", "input": {}},
        )
    ]
    transcript.write_text("".join(json.dumps(line) + "\n" for line in lines))
    payload = lab.bash(repo, "ls")
    payload.update(tool_use_id="toolu_seen", transcript_path=str(transcript))
    assert lab.hook(repo, payload).allowed  # the gate decided this one, and recorded it
    done = lab.zodyssey("audit", "demo", "--format", "json", cwd=repo)
    findings = [f for f in json.loads(done.stdout)["findings"] if f["rule"] == "gate-unproven"]
    assert len(findings) == 1 and "toolu_unseen" in findings[0]["message"], findings
    assert findings[0]["severity"] == "error" and done.returncode != 0


@pytest.mark.claim("sandbox-native-helper")
@pytest.mark.skipif(abi_version() < 1, reason="Landlock is not available on this kernel")
def test_the_native_helper_applies_current_grants_and_hands_stale_ones_over(
    lab: Any, tmp_path: Path
) -> None:
    """The Python runner leaves grants and builds the helper; the helper alone
    then denies a product write (EACCES) while the grants are current, and
    hands over to the runner behind it once the run's state changed. Without a
    C compiler no helper exists and the claim's fallback is the runner itself."""
    import json
    import shutil
    import subprocess
    import sys

    from zodyssey.gate.install import entry_script
    from zodyssey.sandbox import native

    repo = lab.repo()
    (repo / "README.md").write_text("readme\n")
    lab.commit(repo, "initial")
    state = lab.start_run(repo)
    fallback = tmp_path / "runner"
    fallback.write_text("#!/bin/sh\necho handed-over\n")
    fallback.chmod(0o755)

    def runner(python: str, script: str) -> list[str]:
        return [
            *(python, "-S", "-P", str(entry_script()), "sandbox", "--run", "demo"),
            *("--repo", str(repo), "--", "bash", "-c", script),
        ]

    first = subprocess.run(runner(sys.executable, "true"), cwd=repo, capture_output=True)
    assert first.returncode == 0, first.stderr
    helper = native.available(str(repo))
    if not (shutil.which("cc") or shutil.which("gcc")):
        assert helper is None
        return
    assert helper is not None
    done = subprocess.run(
        [helper, *runner(str(fallback), "echo pwned > README.md")],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert "README.md: Permission denied" in done.stderr and "handed-over" not in done.stdout
    assert (repo / "README.md").read_text() == "readme\n"
    value = json.loads(state.read_text())
    value["phase"] = "blocked"
    state.write_text(json.dumps(value))
    done = subprocess.run(
        [helper, *runner(str(fallback), "echo ran")], cwd=repo, capture_output=True, text=True
    )
    assert done.stdout == "handed-over\n", done.stderr


@pytest.mark.claim("effect-check-byproducts")
def test_tool_by_products_pass_and_forged_bytecode_does_not(lab: Any) -> None:
    import json
    import marshal
    import py_compile

    repo = lab.repo()
    (repo / "mod.py").write_text("x = 1\n")
    (repo / "other.py").write_text("y = 2\n")
    lab.commit(repo, "initial")
    lab.start_run(repo)  # before OKAY: no product change is allowed
    payload = lab.bash(repo, "ls")
    payload["tool_use_id"] = "toolu_3"
    assert lab.hook(repo, payload).allowed
    # what really happened: an interpreter's bytecode, caches, and one forged .pyc
    py_compile.compile(str(repo / "mod.py"))
    (repo / ".pytest_cache" / "v").mkdir(parents=True)
    (repo / ".pytest_cache" / "v" / "lastfailed").write_text("{}")
    (repo / ".coverage").write_text("data")
    forged = py_compile.compile(str(repo / "other.py"))
    assert forged is not None
    head = Path(forged).read_bytes()[:16]
    Path(forged).write_bytes(head + marshal.dumps(compile("y = 3\n", "other.py", "exec")))
    done = lab.zodyssey("hook", "post-tool", cwd=repo, stdin=json.dumps(payload))
    assert done.returncode == 2, done.stderr
    evidence = repo / ".zcode" / "verify" / "demo" / "evidence.jsonl"
    [record] = [json.loads(line) for line in evidence.read_text().splitlines()]
    assert [c["path"] for c in record["changes"]] == [Path(forged).relative_to(repo).as_posix()]
