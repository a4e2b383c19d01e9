"""The hook's write path stays light: a parsed, allowed write inside an active
run imports no `typing`, `pathlib`, `hashlib`/`_hashlib`, `json`, `datetime`,
`re`, `enum`, `collections`, `functools` or `__future__` (issue 14, Speed). Checked on the command `zodyssey hook install` writes, as a whole
process, with `python -X importtime` naming every module it imports."""

from __future__ import annotations

import json
import os
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

HEAVY = (
    "typing",
    "pathlib",
    "hashlib",
    "_hashlib",
    "json",
    "datetime",
    "re",
    "enum",
    "collections",
    "functools",
    "__future__",
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
    assert sorted(names & set(HEAVY)) == []


STAND_INS_PROBE = r"""
import sys
from zodyssey.gate.shell import classify, walker
print(classify(sys.argv[1]).is_write)
from zodyssey.core import jsontext  # run state is written with json's encoder, re stood in
value = {"b": ["\u00e9\n\x00", 1.5, None, True], "a": {"\ud800": "\"q\\"}}
text = jsontext.dumps(value, indent=2, ensure_ascii=False)
print(sorted(m for m in ("re", "enum", "collections", "functools", "json") if m in sys.modules))
core = walker._binding("tree_sitter")
bash = core.Language(walker._binding("tree_sitter_bash").language())
tree = walker.parser().parse(b"echo hi > f")
print(tuple(tree.root_node.end_point), tree.root_node.end_point.column)
print(int(core.LogType.LEX), isinstance(core.LogType.PARSE, core.LogType))
import tree_sitter  # the public package over the module loaded above
query = tree_sitter.Query(bash, '((word) @w (#match? @w "^e"))')
found = tree_sitter.QueryCursor(query).captures(tree.root_node)
print([node.text.decode() for node in found["w"]])
import re, enum, collections, json  # the real modules, not the stand-ins
print(hasattr(re, "sub"), hasattr(enum, "Enum"), hasattr(collections, "OrderedDict"))
print(text == json.dumps(value, indent=2, ensure_ascii=False))
"""


def test_the_parser_loads_without_re_and_tree_sitter_still_works() -> None:
    # tree_sitter's compiled module imports re, collections and enum when it
    # initialises; the walker gives it stand-ins for the moment and removes them.
    # In a fresh interpreter (pytest has loaded the real ones long ago):
    result = subprocess.run(
        [sys.executable, "-P", "-c", STAND_INS_PROBE, "echo x > out.txt"],
        capture_output=True,
        text=True,
        env={**hook_env(None), "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
        check=False,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "True",
        "[]",  # classifying a parsed write and encoding state loaded none of them
        "(0, 11) 11",  # Point: a tuple with row and column
        "1 True",  # LogType: int members
        "['echo']",  # a query predicate compiles its regex with the real re
        "True True True",
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


SIDECAR_PROBE = r"""
import sys
from zodyssey.core.lean import load
try:
    load("sidecar.uses_re", ("re",))
except ImportError as exc:
    print("refused:", exc)
print(sorted(m for m in ("re", "helper_re", "sidecar.uses_re") if m in sys.modules))
import helper_re  # imported again, now with the real re
print(helper_re.clean("a-a"))
"""


def test_a_module_imported_beside_the_stand_ins_is_forgotten(tmp_path: Path) -> None:
    # A module that keeps `re` for later (`re.sub` at call time) would keep the
    # stand-in: load refuses, forgets it, and the caller imports the ordinary way.
    (tmp_path / "sidecar").mkdir()
    (tmp_path / "sidecar" / "__init__.py").write_text("")
    (tmp_path / "sidecar" / "uses_re.py").write_text("import helper_re\n")
    (tmp_path / "helper_re.py").write_text(
        "import re\n\ndef clean(text):\n    return re.sub('-', '+', text)\n"
    )
    repo = Path(__file__).resolve().parents[2]
    result = subprocess.run(
        [sys.executable, "-S", "-P", "-c", SIDECAR_PROBE],
        capture_output=True,
        text=True,
        env={**hook_env(None), "PYTHONPATH": f"{repo}{os.pathsep}{tmp_path}"},
        check=False,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "refused: sidecar.uses_re imported helper_re beside the stand-ins",
        "[]",
        "a+a",
    ]
