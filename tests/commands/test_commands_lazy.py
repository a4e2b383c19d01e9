"""Only the command being run has its parser built; every help text stays the same (issue 23, bench)."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import clean_env, run_zodyssey
from zodyssey.cli import build_parser
from zodyssey.commands import COMMANDS


def _helps(parser: argparse.ArgumentParser) -> dict[str, str]:
    """`words -> help text` of a parser and every parser below it."""
    found: dict[str, str] = {}

    def walk(words: str, node: argparse.ArgumentParser) -> None:
        found[words] = node.format_help()
        for action in node._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    walk(f"{words} {name}".strip(), child)

    walk("", parser)
    return found


@pytest.fixture
def columns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")  # argparse wraps to the terminal's width


@pytest.mark.usefixtures("columns")
@pytest.mark.parametrize("command", list(COMMANDS))
def test_one_commands_parser_says_what_the_whole_one_says(command: str) -> None:
    whole = {w: h for w, h in _helps(build_parser()).items() if w.split(" ")[0] == command}
    alone = _helps(build_parser(command))
    top = alone.pop("")
    assert top.startswith("usage: zodyssey [-h] [--version] COMMAND ...")
    assert alone == whole


def test_the_top_level_help_is_the_whole_list(tmp_path: Path) -> None:
    done = run_zodyssey("--help", cwd=tmp_path, env={"COLUMNS": "100"})
    assert done.returncode == 0
    for command in COMMANDS:
        # a name longer than the column argparse keeps for it ends its line
        assert re.search(rf"\n    {re.escape(command)}[ \n]", done.stdout), command


def test_an_unknown_command_is_refused_with_the_whole_list(tmp_path: Path) -> None:
    done = run_zodyssey("anchor", "check", cwd=tmp_path)
    assert done.returncode == 2
    assert "invalid choice: 'anchor'" in done.stderr
    assert all(f"'{c}'" in done.stderr for c in COMMANDS)


def test_running_one_command_imports_no_other_command_module(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("no citations here\n")
    probe = (
        "import json, sys\n"
        "from zodyssey import cli\n"
        "code = cli.main(sys.argv[1:])\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('zodyssey.commands.'))\n"
        "print(json.dumps([code, loaded]), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, "anchors", "check", "--root", str(tmp_path)],
        cwd=tmp_path,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    code, loaded = json.loads(done.stderr.strip().splitlines()[-1])
    assert code == 4, done.stdout + done.stderr  # no citations: its own exit, not a parse error
    assert loaded == ["zodyssey.commands.anchors"]
