"""The hook's write path stays light: a parsed, allowed write inside an active
run imports no `typing`, `pathlib`, `hashlib`/`_hashlib`, `json`, `datetime` or
`__future__` (issue 14, Speed); `re`, `enum`, `collections` and `functools` only
as tree-sitter's compiled module imports them while it initialises (issue 28:
no stand-ins for them), and a write the parser never sees imports none of those
either. Checked on the command `zodyssey hook install` writes, as a whole
process, with `python -X importtime` naming every module it imports."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.helpers.gate import hook_env, make_run_repo, with_importtime
from zodyssey.core.vocabulary import utc_seconds
from zodyssey.gate.install import hook_command
from zodyssey.gate.policy import parse_time

# What tree-sitter's compiled module imports as it initialises (the real modules).
PARSER_IMPORTS = ("re", "enum", "collections", "functools")
HEAVY = (
    "typing",
    "pathlib",
    "hashlib",
    "_hashlib",
    "json",
    "datetime",
    "__future__",
    *PARSER_IMPORTS,
)


def _imported(argv: list[str], stdin: str, env: dict[str, str]) -> tuple[int, set[str]]:
    code, _, names = with_importtime(argv, stdin, env)
    return code, names


def test_the_baseline_interpreter_does_not_preload_them() -> None:
    # otherwise a module imported at start-up would be missing from the hook's list too
    _, names = _imported([sys.executable, "-c", "pass"], "", hook_env(None))
    assert not names & set(HEAVY), names & set(HEAVY)


@pytest.mark.parametrize("command", ["echo x > src/server.py", "printf 'a\\n' >> pkg/new.py"])
def test_a_parsed_write_in_a_run_imports_none_of_them(tmp_path: Path, command: str) -> None:
    repo = make_run_repo(tmp_path)
    argv = shlex.split(hook_command("pre-tool", "claude-code"))
    payload = repo.payload("Bash", {"command": command})
    code, _ = _imported(argv, json.dumps(payload), hook_env(repo.root))
    assert code == 0
    # again: now the lock exists and its time is read (live_lock)
    code, names = _imported(argv, json.dumps(payload), hook_env(repo.root))
    # the write path really ran: allowed, parsed, and the file lock was taken
    assert code == 0
    assert "zodyssey.gate.effects" in names
    locks = repo.state()["file_locks"]
    assert [rel.rsplit("/", 1)[-1] for rel in locks] == [command.rsplit("/", 1)[-1]], locks
    assert sorted(names & set(HEAVY)) == sorted(PARSER_IMPORTS)


def test_a_write_the_parser_never_sees_imports_none_of_them(tmp_path: Path) -> None:
    """A Write call in a run: its lock and the state are written without `re` or `json`."""
    repo = make_run_repo(tmp_path)
    argv = shlex.split(hook_command("pre-tool", "claude-code"))
    payload = repo.payload("Write", {"file_path": str(repo.root / "src/server.py"), "content": "x"})
    code, _ = _imported(argv, json.dumps(payload), hook_env(repo.root))
    assert code == 0
    code, names = _imported(argv, json.dumps(payload), hook_env(repo.root))
    assert code == 0
    assert "zodyssey.gate.effects" in names  # judged, and its lock taken
    assert sorted(names & set(HEAVY)) == []


PARSER_PROBE = r"""
import sys
from zodyssey.gate.shell import classify, walker
print(classify(sys.argv[1]).is_write)
print(sorted(m for m in ("typing", "importlib.resources", "tree_sitter") if m in sys.modules))
from zodyssey.core import jsontext
value = {"b": ["\u00e9\n\x00", 1.5, None, True], "a": {"\ud800": "\"q\\"}}
text = jsontext.dumps(value, indent=2, ensure_ascii=False)
print("json" in sys.modules)
core = walker._binding("tree_sitter")
bash = core.Language(walker._binding("tree_sitter_bash").language())
tree = walker.parser().parse(b"echo hi > f")
import enum, json
point = tree.root_node.end_point
print(tuple(point), point.column, type(point).__name__)
print(issubclass(core.LogType, enum.IntEnum), core.LogType.LEX.name)
import tree_sitter  # the public package over the module loaded above
query = tree_sitter.Query(bash, '((word) @w (#match? @w "^e"))')
found = tree_sitter.QueryCursor(query).captures(tree.root_node)
print([node.text.decode() for node in found["w"]])
print(text == json.dumps(value, indent=2, ensure_ascii=False))
"""


def test_the_parser_loads_without_its_package_and_tree_sitter_is_whole() -> None:
    # The compiled modules run without their packages' __init__ (no typing); what
    # they build as they initialise comes from the real re, collections and enum,
    # so a tree-sitter that uses more of them finds all of it (issue 28).
    # In a fresh interpreter (pytest has loaded these long ago):
    result = subprocess.run(
        [sys.executable, "-P", "-c", PARSER_PROBE, "echo x > out.txt"],
        capture_output=True,
        text=True,
        env={**hook_env(None), "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
        check=False,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "True",
        "[]",  # classifying a parsed write loaded neither typing nor the packages
        "False",  # encoding state loaded no json
        "(0, 11) 11 Point",  # tree-sitter's own Point, with row and column
        "True LEX",  # LogType: a real IntEnum
        "['echo']",  # a query predicate compiles its regex with re
        "True",  # the state encoder wrote what json.dumps writes
    ]


stamps = st.datetimes(
    min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59, 59, 999999)
)


@given(stamps, st.booleans())
def test_the_state_time_form_reads_as_datetime_reads_it(when: datetime, fraction: bool) -> None:
    text = when.strftime("%Y-%m-%dT%H:%M:%S") if when.year >= 1000 else when.isoformat()[:19]
    text += f".{when.microsecond:06d}Z" if fraction else "Z"
    expected = datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    assert utc_seconds(text) == expected
    assert parse_time(text) == expected


@given(st.text(alphabet="0123456789-:TZ.+ x", max_size=30) | st.text(max_size=30))
def test_any_other_text_is_left_to_datetime(text: str) -> None:
    fast = utc_seconds(text)
    try:
        expected = datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        expected = None
    assert fast is None or fast == expected
    assert parse_time(text) == (expected if text else None)


def test_impossible_dates_are_not_read() -> None:
    for text in ("2023-02-29T00:00:00Z", "2024-13-01T00:00:00Z", "2024-01-01T24:00:00Z"):
        assert utc_seconds(text) is None
        assert parse_time(text) is None
