"""Help texts say what the commands do: defaults, exit codes, formats and doc pointers."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from tests.helpers import make_repo, run_zodyssey
from zodyssey import HOMEPAGE, __version__, docs_url
from zodyssey.cli import build_parser
from zodyssey.commands.init import STARTER_DOC_PATH

REPO = Path(__file__).resolve().parents[2]
CI_MD = REPO / "docs" / "ci.md"


def all_parsers() -> dict[str, argparse.ArgumentParser]:
    """Every parser of the command line by its words ("" is `zodyssey` itself)."""
    found: dict[str, argparse.ArgumentParser] = {}

    def walk(words: str, parser: argparse.ArgumentParser) -> None:
        found[words] = parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    walk(f"{words} {name}".strip(), child)

    walk("", build_parser())
    return found


def help_text(words: str) -> str:
    return all_parsers()[words].format_help()


def exit_codes_in_help(text: str) -> set[int]:
    """The codes listed under the `exit codes` heading of a help text."""
    heading = re.search(r"^exit codes.*$", text, re.MULTILINE)
    assert heading, text
    codes: set[int] = set()
    for line in text[heading.end() :].splitlines()[1:]:
        if not line.strip():
            break
        match = re.match(r"^  (\d+)\s", line)
        if match:
            codes.add(int(match.group(1)))
    return codes


def test_help_points_at_docs_a_wheel_user_can_open() -> None:
    """A wheel has no docs/: a help text names a page by its published URL, which exists here."""
    pointers = 0
    for words, parser in all_parsers().items():
        if words == "anchors check":
            continue  # check-anchors' help belongs to the citation-lock work (issue 27)
        text = parser.format_help()
        for match in re.finditer(r"(\S*)docs/([\w-]+\.md)", text):
            prefix, page = match.groups()
            if words == "init" and match[0] == STARTER_DOC_PATH:
                continue  # the page init writes into the user's repository
            assert prefix.startswith(HOMEPAGE), f"`zodyssey {words} --help` names {match[0]}"
            assert (REPO / "docs" / page).is_file(), page
            pointers += 1
    assert pointers >= 1
    assert docs_url("runs.md") in help_text("run")
    assert f"/blob/v{__version__}/" in docs_url("runs.md")


def test_init_help_says_the_lock_is_pinned(tmp_path: Path) -> None:
    line = next(
        line for line in help_text("").splitlines() if line.strip().startswith("init")
    ).lower()
    assert "empty lock" not in line and "pinning" in line, line
    repo = make_repo(tmp_path / "repo", commit=False)
    assert run_zodyssey("init", cwd=repo).returncode == 0
    assert '"citations": {}' not in (repo / "anchors/anchors.lock.json").read_text()


def test_hook_install_help_names_the_command_it_writes(tmp_path: Path) -> None:
    text = " ".join(help_text("hook install").split())
    assert "-m zodyssey" not in text
    assert "hook_entry.py" in text and "PATH" in text
    done = run_zodyssey("hook", "install", "--dry-run", "--project", str(tmp_path), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    # this interpreter is outside tmp_path: the command found on PATH, as the help says
    written = [line for line in done.stdout.splitlines() if "PreToolUse" in line]
    assert written and all(line.endswith(": zodyssey hook pre-tool") for line in written), (
        done.stdout
    )


# `docs/ci.md` says which codes each command returns; its help lists the same.
RETURNS = {
    "check": "`zodyssey check` and `check-anchors` return",
    "claims test": "`zodyssey claims test` returns",
    "audit": "`zodyssey audit` returns",
}


@pytest.mark.parametrize("words", sorted(RETURNS))
def test_help_lists_the_exit_codes_ci_md_names(words: str) -> None:
    text = " ".join(CI_MD.read_text(encoding="utf-8").split())
    after = text.split(RETURNS[words], 1)[1]
    sentence = re.split(r"[;(]", after, maxsplit=1)[0]
    documented = {int(code) for code in re.findall(r"\b(\d+)\b", sentence)}
    assert documented, words
    assert exit_codes_in_help(help_text(words)) == documented


def test_main_help_lists_every_command() -> None:
    text = help_text("")
    for words in all_parsers():
        if words and " " not in words:
            assert re.search(rf"^\s+{words}\s", text, re.MULTILINE), words


def test_a_skipped_test_says_why_under_the_readme_command(tmp_path: Path) -> None:
    """`pytest -q` with this repository's configuration prints each skip's reason."""
    import subprocess
    import sys

    (tmp_path / "test_skips.py").write_text(
        "import pytest\n\n\ndef test_later():\n    pytest.skip('needs a browser here')\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [
            *(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"),
            *("-c", str(REPO / "pyproject.toml"), "--rootdir", str(tmp_path), str(tmp_path)),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert "1 skipped" in done.stdout, done.stdout + done.stderr
    assert "needs a browser here" in done.stdout, done.stdout
