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
