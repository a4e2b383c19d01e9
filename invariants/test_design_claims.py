"""Defends the promises docs/DESIGN.md makes, through the real commands and processes.

Each test names its claim with `@pytest.mark.claim("design-...")`. Repositories
are real git repositories in tmp_path; commands run as subprocesses of this
interpreter; run state is written in the reference layout (`.zcode/state/`),
the same files a ZOdyssey run leaves, so the gate is tested on what it reads.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

HARNESSES = ("claude-code", "zcode", "codex", "gemini", "cursor")
FORMATS = ("text", "json", "github", "sarif", "junit", "markdown")
HEAVY_MODULES = ("pydantic", "git", "markdown_it", "jinja2")


# ---------------------------------------------------------------- helpers


def clean_env(**extra: str) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key
        not in {
            "CLAUDE_PROJECT_DIR",
            "ZCODE_PROJECT_DIR",
            "GITHUB_STEP_SUMMARY",
            "ZODYSSEY_UNGATE_BASH",
            "ZODYSSEY_PARALLEL_CAP",
        }
    }
    env["NO_COLOR"] = "1"
    env.update(extra)
    return env


def zodyssey(
    *args: str, cwd: Path, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "zodyssey", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        env=env or clean_env(),
        timeout=120,
    )


def check_anchors(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return zodyssey("anchors", "check", *args, cwd=cwd)


def git_repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


def initialised_repo(tmp_path: Path) -> Path:
    repo = git_repo(tmp_path / "repo")
    done = zodyssey("init", cwd=repo)
    assert done.returncode == 0, done.stderr
    assert check_anchors(cwd=repo).returncode == 0
    return repo


def cited_line(repo: Path) -> tuple[Path, int]:
    """The file and line the starter page cites (read from the lock, not assumed)."""
    lock = json.loads((repo / "anchors/anchors.lock.json").read_text(encoding="utf-8"))
    (key,) = lock["citations"]
    path, line = key.rsplit(":", 1)
    return repo / path, int(line)


def edit_line(path: Path, number: int, new_text: str) -> None:
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[number - 1] = new_text
    path.write_text("\n".join(lines), encoding="utf-8")


def snapshot(repo: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(repo)): p.read_bytes()
        for p in repo.rglob("*")
        if p.is_file() and ".git" not in p.relative_to(repo).parts
    }


PLAN_BEFORE_REVIEW = """\
# Demo change
## Todos
- [ ] 1. Add the module
  - Files: [`src/`]
  - Acceptance criteria:
    - `test -f src/app.py`
"""


def start_run(lab: Any, repo: Path, *, approved: bool = False) -> Path:
    """An active run in the reference layout (the shared `lab` writer), review
    bound to the plan when approved."""
    return lab.start_run(repo, verdict="OKAY" if approved else None, plan=PLAN_BEFORE_REVIEW)


def bash_payload(repo: Path, command: str) -> str:
    return json.dumps(
        {
            "session_id": "s1",
            "cwd": str(repo),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
        }
    )


def hook(
    repo: Path, stdin: str, harness: str = "claude-code", **env: str
) -> subprocess.CompletedProcess[str]:
    return zodyssey(
        "hook",
        "pre-tool",
        "--harness",
        harness,
        cwd=repo,
        stdin=stdin,
        env=clean_env(CLAUDE_PROJECT_DIR=str(repo), **env),
    )


# ---------------------------------------------------------------- the principle


@pytest.mark.claim("design-hook-silent-outside-run")
@pytest.mark.parametrize("harness", HARNESSES)
def test_hook_allows_everything_silently_without_a_run(tmp_path: Path, harness: str) -> None:
    repo = git_repo(tmp_path / "repo")
    payloads = [
        bash_payload(repo, "rm -rf src && tee /etc/passwd"),
        bash_payload(repo, "python3 -c \"open('x','w')\""),
        json.dumps(
            {
                "cwd": str(repo),
                "tool_name": "Write",
                "tool_input": {"file_path": str(repo / ".zcode/state/x.json"), "content": "{}"},
            }
        ),
        "this is not json {",
        "",
    ]
    for stdin in payloads:
        done = hook(repo, stdin, harness)
        assert done.returncode == 0, (harness, stdin, done.stdout, done.stderr)
        assert done.stdout == "" and done.stderr == "", (harness, stdin, done.stdout, done.stderr)


BLOCK_FORMS = {
    # harness: how a block must look on stdout (None: the reason goes to stderr only)
    "claude-code": None,
    "codex": ("hookSpecificOutput", None),
    "zcode": ("decision", "block"),
    "gemini": ("decision", "deny"),
    "cursor": ("permission", "deny"),
}


@pytest.mark.claim("design-block-in-harness-protocol")
@pytest.mark.parametrize("harness", HARNESSES)
def test_block_is_exit_2_in_the_harness_protocol(lab: Any, tmp_path: Path, harness: str) -> None:
    repo = git_repo(tmp_path / "repo")
    start_run(lab, repo)
    done = hook(repo, bash_payload(repo, "tee src/app.py < /dev/null"), harness)
    assert done.returncode == 2, (harness, done.stdout, done.stderr)
    form = BLOCK_FORMS[harness]
    if form is None:
        assert done.stdout == "" and done.stderr.strip()
        return
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    key, value = form
    if value is None:
        assert answer[key]["permissionDecision"] == "deny"
    else:
        assert answer[key] == value, answer
    # The same call with nothing to object to is allowed in every protocol.
    allowed = hook(repo, bash_payload(repo, "ls src"), harness)
    assert allowed.returncode == 0 and allowed.stdout == "", (harness, allowed.stdout)


@pytest.mark.claim("design-fail-closed-in-run")
@pytest.mark.parametrize("garbage", ["this is not json {", "", "[1, 2, 3]", '{"tool_name": 7}'])
def test_hook_blocks_garbage_during_a_run(lab: Any, tmp_path: Path, garbage: str) -> None:
    repo = git_repo(tmp_path / "repo")
    start_run(lab, repo)
    done = hook(repo, garbage, "claude-code")
    # Claude Code lets any exit code but 2 through: a crash must come out as 2.
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stderr.strip(), "a block must say why"
    assert "Traceback" not in done.stderr

    native = hook(repo, garbage, "zcode")
    assert native.returncode == 2
    decision = json.loads(native.stdout.strip().splitlines()[-1])
    assert decision["decision"] == "block"
    assert decision["reason"].startswith("ZODYSSEY_BLOCK gate:")


@pytest.mark.claim("design-empty-is-failure")
def test_zero_citations_exit_4(tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "repo")
    assert check_anchors(cwd=repo).returncode == 4
    (repo / "README.md").write_text("# Demo\n\nNo citations here.\n", encoding="utf-8")
    (repo / "app.py").write_text("print('hi')\n", encoding="utf-8")
    done = check_anchors(cwd=repo)
    assert done.returncode == 4, done.stdout + done.stderr
    # The same document with one pinned citation passes: 4 is about emptiness.
    (repo / "README.md").write_text("# Demo\n\nIt prints at app.py:1.\n", encoding="utf-8")
    assert zodyssey("anchors", "check", "--update", cwd=repo).returncode == 0
    assert check_anchors(cwd=repo).returncode == 0


@pytest.mark.claim("design-no-silent-repin")
def test_fix_never_accepts_a_drifted_citation(tmp_path: Path) -> None:
    repo = initialised_repo(tmp_path)
    path, line = cited_line(repo)
    edit_line(path, line, 'lock = "somewhere/else.json"')
    before = snapshot(repo)
    fixed = check_anchors("--fix", cwd=repo)
    assert fixed.returncode == 9, fixed.stdout + fixed.stderr
    assert snapshot(repo) == before, "--fix changed files for a drifted citation"
    assert check_anchors(cwd=repo).returncode == 9
    # Only the deliberate re-baseline accepts the new content.
    assert check_anchors("--update", cwd=repo).returncode == 0
    assert check_anchors(cwd=repo).returncode == 0


@pytest.mark.claim("design-one-line-errors")
def test_user_errors_are_one_line_and_exit_2(tmp_path: Path) -> None:
    repo = initialised_repo(tmp_path)
    lock = repo / "anchors/anchors.lock.json"
    good_lock = lock.read_text(encoding="utf-8")
    lock.write_text('{"citations": {', encoding="utf-8")
    done = check_anchors(cwd=repo)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "anchors.lock.json" in done.stderr and "Traceback" not in done.stderr

    lock.write_text(good_lock, encoding="utf-8")
    config = repo / ".zodyssey.toml"
    config.write_text("documents = [\n", encoding="utf-8")
    done = check_anchors(cwd=repo)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert ".zodyssey.toml" in done.stderr and "Traceback" not in done.stderr

    for argv in (["anchors", "check", "--no-such-flag"], ["check", "--format", "yaml"]):
        done = zodyssey(*argv, cwd=repo)
        assert done.returncode == 2, argv
        assert "error" in done.stderr and "Traceback" not in done.stderr


# ---------------------------------------------------------------- data flow


@pytest.mark.claim("design-same-formats")
@pytest.mark.parametrize("fmt", FORMATS)
def test_every_checking_command_speaks_every_format(tmp_path: Path, fmt: str) -> None:
    from zodyssey.cli import build_parser

    parser = build_parser()
    for argv in (["check"], ["anchors", "check"], ["claims", "check"], ["audit", "demo"]):
        namespace = parser.parse_args([*argv, "--format", fmt])
        assert namespace.format == fmt, argv

    repo = initialised_repo(tmp_path)
    # `check` may say 4 here (no claims in a starter repository); the format is the point.
    for argv, codes in ((["anchors", "check"], {0}), (["check"], {0, 4})):
        done = zodyssey(*argv, "--format", fmt, cwd=repo)
        assert done.returncode in codes, (argv, done.returncode, done.stderr)
        assert done.stdout.strip(), (argv, fmt)
        if fmt == "json":
            json.loads(done.stdout)
        elif fmt == "sarif":
            assert json.loads(done.stdout)["version"] == "2.1.0"
        elif fmt == "junit":
            ET.fromstring(done.stdout)


def _imported_modules(importtime_stderr: str) -> set[str]:
    names: set[str] = set()
    for line in importtime_stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip().split(".")[0])
    return names


@pytest.mark.claim("design-hook-light-imports")
def test_hook_imports_no_heavy_library(lab: Any, tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "repo")
    outside = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "zodyssey", "hook", "pre-tool"],
        cwd=repo,
        input=bash_payload(repo, "ls"),
        capture_output=True,
        text=True,
        env=clean_env(CLAUDE_PROJECT_DIR=str(repo)),
        timeout=60,
    )
    assert outside.returncode == 0
    start_run(lab, repo)
    inside = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "zodyssey", "hook", "pre-tool"],
        cwd=repo,
        input=bash_payload(repo, "cat README.md | grep x > /dev/null"),
        capture_output=True,
        text=True,
        env=clean_env(CLAUDE_PROJECT_DIR=str(repo)),
        timeout=60,
    )
    assert inside.returncode == 0, inside.stderr[-2000:]
    for done in (outside, inside):
        modules = _imported_modules(done.stderr)
        assert "zodyssey" in modules, "importtime output not parsed"
        assert not modules & set(HEAVY_MODULES), modules & set(HEAVY_MODULES)


# ---------------------------------------------------------------- state model


_WRITER = """
import sys
from zodyssey.core.atomic import write_atomic
target, size = sys.argv[1], int(sys.argv[2])
print("ready", flush=True)
n = 0
while True:
    write_atomic(target, (b"a" if n % 2 else b"b") * size)
    n += 1
"""


@pytest.mark.claim("design-atomic-writes")
def test_killed_writer_leaves_old_or_new_never_torn(tmp_path: Path) -> None:
    size = 4 * 1024 * 1024
    target = tmp_path / "anchors.lock.json"
    target.write_bytes(b"a" * size)
    for attempt in range(12):
        writer = subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(target), str(size)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert writer.stdout is not None
        assert writer.stdout.readline().strip() == "ready"
        time.sleep(0.01 + 0.013 * attempt)
        writer.send_signal(signal.SIGKILL)
        writer.wait()
        data = target.read_bytes()
        assert data in (b"a" * size, b"b" * size), f"torn file: {len(data)} bytes"
    # A real command's write goes through the same path: init's lock is complete JSON.
    repo = git_repo(tmp_path / "repo")
    assert zodyssey("init", cwd=repo).returncode == 0
    json.loads((repo / "anchors/anchors.lock.json").read_text(encoding="utf-8"))
    leftovers = [p.name for p in (repo / "anchors").iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []


# ---------------------------------------------------------------- limits kept on purpose


@pytest.mark.claim("design-lock-proves-unchanged")
def test_lock_passes_a_false_sentence_and_fails_a_changed_line(tmp_path: Path) -> None:
    repo = initialised_repo(tmp_path)
    doc = repo / "docs/zodyssey.md"
    text = doc.read_text(encoding="utf-8")
    assert "(where the citation lock lives)" in text
    doc.write_text(
        text.replace("(where the citation lock lives)", "(the production database password)"),
        encoding="utf-8",
    )
    assert check_anchors(cwd=repo).returncode == 0, "the lock judged the prose"
    path, line = cited_line(repo)
    original = path.read_text(encoding="utf-8").split("\n")[line - 1]
    edit_line(path, line, original + "  # changed")
    assert check_anchors(cwd=repo).returncode == 9


INTERPRETER_COMMANDS = (
    "python3 -c \"open('src/app.py', 'w').write('x')\"",
    "node -e \"require('fs').writeFileSync('src/app.py', 'x')\"",
    "perl -e 'open(F, \">src/app.py\")'",
    "frobnicate-the-tree src/app.py",
)


@pytest.mark.claim("design-interpreters-blocked")
def test_interpreters_and_unknown_commands_are_write_capable(lab: Any, tmp_path: Path) -> None:
    lines = "".join(json.dumps({"command": c}) + "\n" for c in INTERPRETER_COMMANDS)
    done = zodyssey("gate", "classify", "--jsonl", cwd=tmp_path, stdin=lines)
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [a["command"] for a in answers] == list(INTERPRETER_COMMANDS)
    for answer in answers:
        assert answer["class"] == "write", answer
        assert answer["targets"] == [], answer

    # Through the real hook after review, with `src/` in scope: a plain write to
    # src/ passes, the same write through an interpreter does not.
    repo = git_repo(tmp_path / "repo")
    start_run(lab, repo, approved=True)
    allowed = hook(repo, bash_payload(repo, "touch src/app.py"))
    assert allowed.returncode == 0, allowed.stderr
    for command in INTERPRETER_COMMANDS:
        blocked = hook(repo, bash_payload(repo, command))
        assert blocked.returncode == 2, (command, blocked.stdout, blocked.stderr)


@pytest.mark.claim("design-ungate-recorded")
def test_ungate_hatch_is_recorded(lab: Any, tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "repo")
    start_run(lab, repo)
    command = "tee src/app.py < /dev/null"
    assert hook(repo, bash_payload(repo, command)).returncode == 2
    ledger = repo / ".zcode/state/demo.ungated.jsonl"
    assert not ledger.exists()
    opened = hook(repo, bash_payload(repo, command), ZODYSSEY_UNGATE_BASH="1")
    assert opened.returncode == 0, opened.stderr
    records = [json.loads(line) for line in ledger.read_text(encoding="utf-8").splitlines()]
    assert len(records) == 1
    assert command in json.dumps(records[0])


def test_design_doc_markers_match_these_tests() -> None:
    """Every design claim in docs/DESIGN.md has a test here, and no test names a stale id."""
    import re

    repo = Path(__file__).resolve().parents[1]
    doc_ids = set(
        re.findall(r"<!-- claim: (design-[a-z0-9-]+) -->", (repo / "docs/DESIGN.md").read_text())
    )
    test_ids = set(re.findall(r'claim\("(design-[a-z0-9-]+)"\)', Path(__file__).read_text()))
    assert doc_ids == test_ids


@pytest.mark.slow
@pytest.mark.claim("design-claims-trust-tests")
def test_an_empty_linked_test_satisfies_the_ledger(tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "repo")
    (repo / "README.md").write_text(
        "# Demo\n\nThe service never loses data. <!-- claim: never-loses-data -->\n",
        encoding="utf-8",
    )
    (repo / "tests").mkdir()
    (repo / "tests/test_demo.py").write_text(
        'import pytest\n\n\n@pytest.mark.claim("never-loses-data")\n'
        "def test_nothing_at_all() -> None:\n    pass\n",
        encoding="utf-8",
    )
    (repo / ".zodyssey.toml").write_text(
        'claims_documents = ["README.md"]\nclaims_tests = ["tests"]\n', encoding="utf-8"
    )
    assert zodyssey("claims", "check", cwd=repo).returncode == 9  # unlocked until recorded
    assert zodyssey("claims", "update", cwd=repo).returncode == 0
    done = zodyssey("claims", "check", cwd=repo)
    assert done.returncode == 0, done.stdout + done.stderr
    # What it does check: the link. Remove the marker and the claim is uncovered.
    test_file = repo / "tests/test_demo.py"
    test_file.write_text(
        test_file.read_text().replace('@pytest.mark.claim("never-loses-data")\n', "")
    )
    assert zodyssey("claims", "check", cwd=repo).returncode == 9


_NO_NETWORK = """
import socket


def _refuse(*args, **kwargs):
    raise OSError("zodyssey test: network access attempted")


class _NoSocket(socket.socket):
    def __init__(self, *args, **kwargs):
        _refuse()


socket.socket = _NoSocket
socket.create_connection = _refuse
socket.getaddrinfo = _refuse
"""


@pytest.mark.claim("design-no-network")
def test_check_opens_no_network_connection(tmp_path: Path) -> None:
    repo = initialised_repo(tmp_path)
    subprocess.run(
        ["git", "-C", str(repo), "remote", "add", "origin", "https://github.com/example/demo.git"],
        check=True,
    )
    doc = repo / "docs/zodyssey.md"
    doc.write_text(
        doc.read_text(encoding="utf-8")
        + "\nThe same line on GitHub: "
        + "https://github.com/example/demo/blob/main/.zodyssey.toml#L9\n",
        encoding="utf-8",
    )
    assert check_anchors("--update", cwd=repo).returncode == 0
    # Every Python process started under this PYTHONPATH refuses sockets.
    guard = tmp_path / "guard"
    guard.mkdir()
    (guard / "sitecustomize.py").write_text(_NO_NETWORK, encoding="utf-8")
    env = clean_env(PYTHONPATH=str(guard))
    probe = subprocess.run(
        [sys.executable, "-c", "import socket; socket.create_connection(('example.com', 443))"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert "network access attempted" in probe.stderr, "the guard is not active"
    for argv in (["anchors", "check"], ["check"]):
        done = zodyssey(*argv, cwd=repo, env=env)
        assert "network access attempted" not in done.stdout + done.stderr, argv
        assert "Traceback" not in done.stderr, argv
        assert done.returncode in ({0} if argv[0] == "anchors" else {0, 4}), (argv, done.stderr)
    # The blob URL was read as a citation of our own remote, offline.
    lock = json.loads((repo / "anchors/anchors.lock.json").read_text(encoding="utf-8"))
    assert ".zodyssey.toml:9" in lock["citations"]
