"""The hook's write path stays light: a parsed, allowed write inside an active
run imports no `typing`, `pathlib`, `hashlib`/`_hashlib` or `json` (issue 14,
Speed). Checked on the command `zodyssey hook install` writes, as a whole
process, with `python -X importtime` naming every module it imports."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from gate_helpers import hook_env, make_run_repo

from zodyssey.gate.install import hook_command

HEAVY = ("typing", "pathlib", "hashlib", "_hashlib", "json")


def _imported(argv: list[str], stdin: str, env: dict[str, str]) -> tuple[int, set[str]]:
    result = subprocess.run(
        [argv[0], "-X", "importtime", *argv[1:]],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=60,
    )
    names = {
        line.rsplit("|", 1)[1].strip()
        for line in result.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    return result.returncode, names


def test_the_baseline_interpreter_does_not_preload_them() -> None:
    # otherwise a module imported at start-up would be missing from the hook's list too
    _, names = _imported([sys.executable, "-c", "pass"], "", hook_env(None))
    assert not names & set(HEAVY), names & set(HEAVY)


@pytest.mark.parametrize("command", ["echo x > src/server.py", "printf 'a\\n' >> pkg/new.py"])
def test_a_parsed_write_in_a_run_imports_none_of_them(tmp_path: Path, command: str) -> None:
    repo = make_run_repo(tmp_path)
    argv = shlex.split(hook_command("pre-tool", "claude-code"))
    payload = repo.payload("Bash", {"command": command})
    code, names = _imported(argv, json.dumps(payload), hook_env(repo.root))
    # the write path really ran: allowed, parsed, and the file lock was taken
    assert code == 0
    assert "zodyssey.gate.effects" in names
    assert "re" in names  # loaded by the parser's compiled module
    locks = repo.state()["file_locks"]
    assert [rel.rsplit("/", 1)[-1] for rel in locks] == [command.rsplit("/", 1)[-1]], locks
    assert sorted(names & set(HEAVY)) == []
