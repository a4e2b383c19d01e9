"""`zodyssey gate classify`: every input line gets an answer, whatever it holds."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]


def _classify(stdin: bytes, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "zodyssey", "gate", "classify", *args],
        input=stdin,
        capture_output=True,
        check=False,
        cwd=REPO,
    )


def test_a_lone_surrogate_is_answered_and_later_lines_are_not_lost() -> None:
    lines = [
        '{"command": "echo \\ud800"}',
        '{"command": "rm \\udfff x"}',
        '{"command": "ls"}',
        '{"command": "echo \\ud83d\\ude00 > f\\u00e9"}',
        '{"command": "cat f"}',
    ]
    done = _classify(("\n".join(lines) + "\n").encode(), "--jsonl")
    assert done.returncode == 0, done.stderr
    assert b"Traceback" not in done.stderr
    records = [json.loads(line) for line in done.stdout.decode("utf-8").splitlines()]
    assert [r["command"] for r in records] == [json.loads(line)["command"] for line in lines]
    assert [r["class"] for r in records] == ["read", "write", "read", "write", "read"]
    assert records[3]["targets"] == ["f\u00e9"]
    # what can be written as UTF-8 is, the rest is escaped
    assert "f\u00e9" in done.stdout.decode("utf-8")


def test_a_bad_line_is_answered_in_place_and_the_rest_still_classified() -> None:
    stdin = b'{"command": "ls"}\nnot json\n{"cmd": 1}\n\xff\xfe\n{"command": "rm a"}\n'
    done = _classify(stdin, "--jsonl")
    assert done.returncode == 2
    assert b"Traceback" not in done.stderr
    records = [json.loads(line) for line in done.stdout.decode("utf-8").splitlines()]
    assert len(records) == 5
    assert records[0]["class"] == "read" and records[4]["targets"] == ["a"]
    for number, record in zip((2, 3, 4), records[1:4], strict=True):
        assert record["line"] == number and record["error"], record
        assert f"line {number}" in done.stderr.decode()


def test_command_arguments_with_undecodable_bytes() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "zodyssey",
            "gate",
            "classify",
            b"rm \xff".decode("utf-8", "surrogateescape"),
        ],
        capture_output=True,
        check=False,
        cwd=REPO,
    )
    assert done.returncode == 0 and b"Traceback" not in done.stderr, done.stderr
    record = json.loads(done.stdout)
    assert record["class"] == "write"
