"""`zodyssey completion SHELL` (issue 36 item 7): completion that real shells use.

The bash script is sourced in a real bash and its completion function asked
what follows `zodyssey ` and `zodyssey run `, as bash does on <TAB>.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers import run_zodyssey
from zodyssey.commands import COMMANDS


def _complete(script: Path, *words: str) -> set[str]:
    line = " ".join(words)
    probe = (
        f"source {script}\n"
        f"COMP_WORDS=({line} ''); COMP_CWORD={len(words)}; COMP_LINE='{line} '; "
        f"COMP_POINT=${{#COMP_LINE}}\n"
        "_shtab_zodyssey zodyssey '' \"${COMP_WORDS[COMP_CWORD-1]}\"\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", probe],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return {w.strip() for w in done.stdout.split() if w.strip()}


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_bash_completes_commands_and_verbs(tmp_path: Path) -> None:
    done = run_zodyssey("completion", "bash", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    script = tmp_path / "zodyssey.bash"
    script.write_text(done.stdout)
    assert set(COMMANDS) <= _complete(script, "zodyssey")
    assert {"start", "verify", "phase"} <= _complete(script, "zodyssey", "run")


@pytest.mark.parametrize("shell", ["zsh", "tcsh"])
def test_other_shells_get_a_script_naming_every_command(tmp_path: Path, shell: str) -> None:
    done = run_zodyssey("completion", shell, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    for name in COMMANDS:
        assert name in done.stdout


def test_an_unknown_shell_is_a_usage_error(tmp_path: Path) -> None:
    done = run_zodyssey("completion", "fish", cwd=tmp_path)
    assert done.returncode == 2
    assert "invalid choice" in done.stderr
