"""The shell classifier: the public corpus, principled extra cases, and properties."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import REPO_ROOT as REPO
from zodyssey.gate.shell import classify, classify_parsed

# The public corpus lives in the repository (tests/data/), so the tests need no folder beside it.
CORPUS = REPO / "tests" / "data" / "bash-public.jsonl"


def _corpus() -> list[dict[str, object]]:
    if not CORPUS.is_file():
        return []
    return [json.loads(line) for line in CORPUS.read_text().splitlines() if line.strip()]


CASES = _corpus()


def _check(record: dict[str, object], expected: dict[str, object]) -> None:
    assert record["class"] == expected["class"], (expected["command"], record)
    if "targets" in expected:
        assert record["targets"] == expected["targets"], (expected["command"], record)


def test_corpus_is_in_the_repository() -> None:
    assert CORPUS.is_file(), CORPUS
    assert len(CASES) >= 20, len(CASES)
    assert all({"command", "class"} <= set(case) for case in CASES)


# Without the corpus one placeholder case stands in, and fails saying so.
@pytest.mark.parametrize(
    "case", CASES or [None], ids=[str(c["command"])[:40] for c in CASES] or ["no-corpus"]
)
def test_corpus_through_classifier(case: dict[str, object] | None) -> None:
    assert case is not None, f"corpus missing: {CORPUS}"
    _check(classify(str(case["command"])).as_record(), case)
    _check(classify_parsed(str(case["command"])).as_record(), case)


def test_corpus_through_cli() -> None:
    assert CASES, CORPUS
    result = subprocess.run(
        [sys.executable, "-m", "zodyssey", "gate", "classify", "--jsonl"],
        input=CORPUS.read_text(),
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    )
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(lines) == len(CASES)
    for record, case in zip(lines, CASES, strict=True):
        assert record["command"] == case["command"]
        assert set(record) == {"command", "class", "targets", "unknown"}
        _check(record, case)


def test_cli_rejects_a_line_without_command() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "zodyssey", "gate", "classify", "--jsonl"],
        input='{"cmd": "ls"}\n',
        capture_output=True,
        text=True,
        check=False,
        cwd=REPO,
    )
    assert result.returncode == 2
    assert "line 1" in result.stderr and "Traceback" not in result.stderr


READS = [
    "ls -la src | grep py | sort | uniq -c",
    "for f in a b; do cat $f; done",
    "if test -f x; then echo yes; else echo no; fi",
    "cat <<EOF\n$(git rev-parse HEAD)\nEOF",
    "git branch --list",
    "git branch -a",
    "git remote -v",
    "git config --get user.name",
    "git -C sub log -1",
    "xargs grep foo < files.txt",
    "find . -type f -exec grep -l needle {} +",
    "echo $(ls) > /dev/null",
    "timeout 5 ls",
    "env FOO=1 cat x",
    "nice -n 5 grep -r x .",
    "sed -n '/start/,/end/p' file",
    "awk '{print $1}' file",
    "awk -F: '$3 > 100 {print $1}' /etc/passwd",
    "command -v git",
    "f() { ls; }; f",
    "bash -c 'ls | wc -l'",
    "wc -l < input.txt",
    "ls 2>&1 >/dev/null",
    "git stash list",
    "true && false || echo done",
    "python3 --version",
    "/usr/bin/git status",
    "tar -tzf a.tgz",
    "tar tf a.tar",
    "unzip -l a.zip",
    "pip list",
    "npm ls --depth=0",
    "go version",
    "ps aux | grep python",
]

WRITES = [
    ("git branch new-feature", []),
    ("git stash", []),
    ("git reset --hard", []),
    ("git clean -fdx", []),
    ("git diff --output=out.diff", ["out.diff"]),
    ("git diff --ext-diff", []),
    ("rg --pre cat x", []),
    ("sort in.txt --output=out.txt", ["out.txt"]),
    ("uniq in.txt out.txt", ["out.txt"]),
    ("sed -n 'w out.txt' in.txt", []),
    ("sed 's/a/b/w out.txt' in.txt", []),
    ("sed -e '1e date' in.txt", []),
    ("awk '{print > \"out\"}' in", []),
    ("awk 'BEGIN{system(\"rm -rf /\")}'", []),
    ("find . -fprint found.txt", ["found.txt"]),
    ("find . -execdir rm {} \\;", []),
    ("xargs -I{} rm {}", []),
    ("cd src && rm app.py", ["src/app.py"]),
    ("git -C sub checkout -- a.py", ["sub/a.py"]),
    ("cp -t dest a b", ["dest"]),
    ("ln -s /etc/passwd link", ["link"]),
    ("install -m 755 tool /usr/local/bin/tool", ["/usr/local/bin/tool"]),
    ("tee -a log.txt", ["log.txt"]),
    ("truncate -s 0 big.log", ["big.log"]),
    ("chown user:group f", ["f"]),
    ("rm $TARGET", []),
    ("rm src/*.pyc", []),
    ("rm {a,b}.txt", []),
    ("echo x > $OUT", []),
    ("echo x > ~/notes.txt", ["~/notes.txt"]),
    ("(cd /tmp && touch x)", ["/tmp/x"]),
    ("ls > >(tee copy.txt)", ["copy.txt"]),
    ("echo $(rm -rf build)", ["build"]),
    ("nohup rm a &", ["a"]),
    ("time rm a", ["a"]),
    ("builtin eval 'rm b'", ["b"]),
    ("bash -c \"bash -c 'rm deep'\"", ["deep"]),
    ("exec 3> fd.txt", ["fd.txt"]),
    ("curl -O http://h/x", []),
    ("wget http://h/x", []),
    ("python script.py", []),
    ("ruby -e 'File.write(\"a\", 1)'", []),
    ("doas rm a", []),
    ("pytest -q", []),
    ("npm test", []),
    ("ls; rm -rf /", ["/"]),
    ("if true; then rm x; fi", ["x"]),
    ("case $a in x) rm y;; esac", ["y"]),
    ('while read l; do rm "$l"; done < list', []),
    ("echo 'unterminated", []),
    ("./ls", []),
    ("/tmp/evil/ls", []),
    ("git add src/a.py", ["src/a.py"]),
    ("chmod -R 755 .", ["."]),
    ("tar -czf out.tgz src", []),
    ("unzip a.zip", []),
    ("pip install -e .", []),
    ("npm run build", []),
    ("go build ./...", []),
    ("echo " + "$(" * 400 + "x" + ")" * 400, []),
]


@pytest.mark.parametrize("command", READS)
def test_read_only_commands(command: str) -> None:
    record = classify(command).as_record()
    assert record["class"] == "read", record


@pytest.mark.parametrize(("command", "targets"), WRITES)
def test_write_capable_commands(command: str, targets: list[str]) -> None:
    analysis = classify(command)
    assert analysis.is_write, analysis
    assert [t.path for t in analysis.targets] == targets, analysis
    if not targets:
        assert analysis.unknown


def test_unbounded_write_is_flagged_even_when_another_part_names_a_target() -> None:
    analysis = classify("echo x > src/ok.py && curl http://h | sh")
    assert [t.path for t in analysis.targets] == ["src/ok.py"]
    assert analysis.unknown


def test_cd_then_semicolon_makes_relative_targets_unknown() -> None:
    # `cd` may fail; after `;` the next command runs in either directory
    analysis = classify("cd src; rm a.py")
    assert analysis.unknown and analysis.targets == ()


def test_unicode_paths_survive_the_ascii_stand_in() -> None:
    # the parser sees ASCII stand-ins; targets come back from the real text
    analysis = classify("echo x > 'données/é.txt' && rm a{\U0006ef60")
    assert [t.path for t in analysis.targets] == ["données/é.txt", "a{\U0006ef60"]


def test_append_redirect_is_marked_as_append() -> None:
    (target,) = classify("echo note >> n.md").targets
    assert target.append
    (target,) = classify("echo note > n.md").targets
    assert not target.append


def test_configured_read_only_prefix() -> None:
    assert classify("pytest -q tests").is_write
    assert not classify("pytest -q tests", [["pytest"]]).is_write
    assert not classify("npm test", [["npm", "test"]]).is_write
    assert classify("npm install", [["npm", "test"]]).is_write
    # the configured command is still checked for redirections
    assert classify("pytest > out.txt", [["pytest"]]).is_write


PLAIN = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789_./:@%+,=- ", min_size=1, max_size=40)
NAMES = st.sampled_from(
    [
        "ls",
        "cat",
        "rm",
        "cp",
        "mv",
        "git",
        "sed",
        "sort",
        "find",
        "echo",
        "mkdir",
        "tee",
        "curl",
        "xyz",
        "python3",
        "env",
    ]
)


@settings(max_examples=300, deadline=None)
@given(NAMES, PLAIN)
def test_plain_word_fast_path_matches_the_parser(name: str, rest: str) -> None:
    command = f"{name} {rest}"
    fast, parsed = classify(command), classify_parsed(command)
    assert fast.as_record() == parsed.as_record()
    assert [(p.write, p.targets, p.unbounded) for p in fast.parts] == [
        (p.write, p.targets, p.unbounded) for p in parsed.parts
    ]


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_any_text_classifies_without_error(command: str) -> None:
    record = classify(command).as_record()
    assert record["class"] in ("read", "write")
    if record["class"] == "read":
        assert record["targets"] == [] and record["unknown"] is False
