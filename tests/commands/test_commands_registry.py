"""One way to write a command: one registry, one list of formats, one answer to a missing verb."""

from __future__ import annotations

import argparse
import pkgutil
from pathlib import Path

import pytest

import zodyssey.commands
from tests.helpers import run_zodyssey
from zodyssey.cli import build_parser
from zodyssey.commands import COMMANDS
from zodyssey.formats import FORMATS


def _parsers() -> dict[str, argparse.ArgumentParser]:
    found: dict[str, argparse.ArgumentParser] = {}

    def walk(words: str, parser: argparse.ArgumentParser) -> None:
        found[words] = parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    walk(f"{words} {name}".strip(), child)

    walk("", build_parser())
    return found


def test_every_command_module_is_in_the_one_registry() -> None:
    modules = {
        f"zodyssey.commands.{m.name}" for m in pkgutil.iter_modules(zodyssey.commands.__path__)
    }
    assert set(COMMANDS.values()) == modules
    top = _parsers()[""]
    sub = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    assert list(sub.choices) == list(COMMANDS)


def test_every_format_option_offers_the_one_list() -> None:
    """Each `--format` offers exactly `zodyssey.formats.FORMATS`; audit adds in-toto."""
    seen = {}
    for words, parser in _parsers().items():
        for action in parser._actions:
            if "--format" in action.option_strings:
                seen[words] = tuple(action.choices or ())
    assert set(seen) >= {"check", "anchors check", "claims check", "claims drill", "audit"}
    for words, choices in seen.items():
        extra = ("in-toto",) if words == "audit" else ()
        assert choices == (*FORMATS, *extra), words


def _with_verbs() -> list[str]:
    return [
        words
        for words, parser in _parsers().items()
        if words and any(isinstance(a, argparse._SubParsersAction) for a in parser._actions)
    ]


def test_commands_with_verbs_are_known() -> None:
    assert set(_with_verbs()) == {"anchors", "claims", "hook", "gate", "run"}


@pytest.mark.parametrize("command", ["anchors", "claims", "hook", "gate", "run"])
def test_a_missing_verb_is_answered_one_way(command: str, tmp_path: Path) -> None:
    """The command's own help on stderr, nothing on stdout, exit 2 (as bare `zodyssey`)."""
    done = run_zodyssey(command, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith(f"usage: zodyssey {command} ")
    sub = next(a for a in _parsers()[command]._actions if isinstance(a, argparse._SubParsersAction))
    for verb in sub.choices:  # the whole help, with every verb it offers
        assert f"    {verb} " in done.stderr or f"    {verb}\n" in done.stderr, verb


def test_bare_zodyssey_is_answered_the_same_way(tmp_path: Path) -> None:
    done = run_zodyssey(cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("usage: zodyssey ")
