"""The classifier answers what it answered before a refactoring: a differential test.

`data/classified.jsonl` holds, for every command of the public corpus
(tests/data/bash-public.jsonl), every command in the recorded client payloads
and transcripts (tests/data), the labelled agent reads, and every string of
these shell tests and of the gate's red-team and replay tests, the record the
classifier gave when the file was written: the decision (`as_record()`) and
every writing part with the reason the gate shows (`why`), its targets, links
and trusted form; or the exception's name. Splitting a function or turning a
rule chain into a table must leave every one of them as it was. A deliberate
change of behaviour rewrites the file (`python
tests/gate/shell/test_shell_classified.py`) and shows in its diff.
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
GOLDEN = HERE / "data" / "classified.jsonl"


def _record(command: str) -> dict[str, Any]:
    from zodyssey.gate.shell import classify

    try:
        analysis = classify(command)
    except Exception as exc:  # recorded as what it raised
        return {"command": command, "error": type(exc).__name__}
    record: dict[str, Any] = analysis.as_record()
    record["parts"] = [
        [
            part.why,
            part.unbounded,
            [t.path + (" (append)" if t.append else "") for t in part.targets],
            part.links,
            [t.path for t in part.linked],
            list(part.trusted),
        ]
        for part in analysis.parts
        if part.write
    ]
    return record


def _golden() -> list[dict[str, Any]]:
    return [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines()]


def test_the_file_covers_the_corpus() -> None:
    commands = {record["command"] for record in _golden()}
    corpus = REPO / "tests" / "data" / "bash-public.jsonl"
    for line in corpus.read_text(encoding="utf-8").splitlines():
        assert json.loads(line)["command"] in commands
    assert set(_data_commands()) <= commands
    assert len(commands) > 1900


@pytest.mark.parametrize("chunk", range(4))
def test_every_command_is_classified_as_before(chunk: int) -> None:
    records = _golden()[chunk::4]
    changed = [(r["command"], _record(r["command"]), r) for r in records]
    changed = [(c, new, old) for c, new, old in changed if new != old]
    assert changed == [], changed[:5]


def _data_commands() -> list[str]:
    """Every "command" string in the JSON and JSONL files under tests/data."""
    found: list[str] = []

    def collect(value: Any) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if key == "command" and isinstance(item, str):
                    found.append(item)
                collect(item)
        elif isinstance(value, list):
            for item in value:
                collect(item)

    for path in sorted((REPO / "tests" / "data").rglob("*.json*")):
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines() if path.suffix == ".jsonl" else [text]
        for line in lines:
            if line.strip():
                collect(json.loads(line))
    return found


# the gate's tests whose strings are attacks and replays (beside this directory's)
_GATE_TESTS = ("test_gate_policy_redteam.py", "test_gate_round2.py", "test_gate_replays.py")


def _commands() -> list[str]:
    found: list[str] = []
    for name in ("tests/data/bash-public.jsonl", "tests/gate/shell/data/agent_commands.jsonl"):
        for line in (REPO / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                found.append(json.loads(line)["command"])
    found.extend(_data_commands())
    tests = [*sorted(HERE.glob("test_*.py")), *(HERE.parent / name for name in _GATE_TESTS)]
    for path in tests:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            value = node.value if isinstance(node, ast.Constant) else None
            if isinstance(value, str) and 1 < len(value) < 400:
                found.append(value)
    return list(dict.fromkeys(found))


if __name__ == "__main__":  # rewrite the file from the classifier as it is now
    sys.path.insert(0, str(REPO))
    lines = [json.dumps(_record(c), sort_keys=True) + "\n" for c in _commands()]
    GOLDEN.write_text("".join(lines), encoding="utf-8")
    print(f"{GOLDEN}: {len(lines)} commands")
