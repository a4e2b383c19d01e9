"""The repository every client scenario runs in, and the payload fixtures recorded from them.

Kept apart from the client drivers so that the npm-free replay tests
(tests/gate/test_client_payloads.py) build the same repository and run
without importing anything that installs or starts a client.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.helpers import REPO_ROOT, commit, make_repo, plan, run_zodyssey
from zodyssey.core.atomic import write_atomic

SLUG = "demo"
PLAN = plan(
    "Change the greeting",
    [("Edit the app", ["src/app.py"], ["`grep -q hello src/app.py`"])],
)
FILES = {
    "src/app.py": "GREETING = 'hi'\n",
    "src/other.py": "OTHER = 1\n",
    "docs/notes.md": "notes\n",
    "README.md": "demo\n",
    ".gitignore": ".zcode/\n",
}
PAYLOADS = REPO_ROOT / "tests" / "data" / "client_payloads"
RECORD_ENV = "ZODYSSEY_RECORD_PAYLOADS"


def make_user_repo(base: Path, harnesses: Iterable[str]) -> Path:
    """A repository with the scenario files and the hook wired for `harnesses`, committed."""
    repo = make_repo(base / "repo", FILES)
    for harness in harnesses:
        done = run_zodyssey("hook", "install", "--harness", harness, cwd=repo)
        assert done.returncode == 0, done.stderr
    commit(repo, "wire the gate")
    return repo.resolve()


def start_run(repo: Path, *, okay: bool = False) -> None:
    """`zodyssey run start` in phase plan; with `okay`, a person's OKAY from their own terminal."""
    plan_file = repo.parent / "plan.md"
    plan_file.write_text(PLAN, encoding="utf-8")
    argv = ("run", "start", SLUG, "--plan", str(plan_file))
    env: dict[str, str] = {}
    if (repo / ".codex" / "hooks.json").is_file():
        # Codex never started on this test's machine: `run start` refuses and prints the
        # trust records for a new Codex home; write them as a person would (the session's
        # own Codex home is configured, trusted, by the driver).
        env["CODEX_HOME"] = str(repo.parent / "start-codex-home")
        refused = run_zodyssey(*argv, cwd=repo, env=env)
        assert refused.returncode == 11, refused.stderr
        script = refused.stderr[refused.stderr.index("mkdir -p ") :]
        script = script[: script.index("\nEOF") + len("\nEOF")] + "\n"
        subprocess.run(["sh", "-c", script], check=True)
    done = run_zodyssey(*argv, cwd=repo, env=env)
    assert done.returncode == 0, done.stderr
    if okay:
        # A person's verdict from their own terminal: the trusted review path today.
        done = run_zodyssey("run", "review", SLUG, "--human", "OKAY", "--by", "tester", cwd=repo)
        assert done.returncode == 0, done.stderr


def run_state(repo: Path) -> dict[str, Any]:
    value: dict[str, Any] = json.loads((repo / ".zcode" / "state" / f"{SLUG}.json").read_text())
    return value


# -- payload fixtures


@dataclass(frozen=True)
class Op:
    """One tool call of a scenario: what it is, a text its payload holds, the decision it must get."""

    name: str
    key: str
    expect: str  # "block" or "allow"
    xfail: str | None = None  # a known gate defect (issue item), for the replay test


def _generic(value: Any, swaps: Sequence[tuple[str, str]]) -> Any:
    if isinstance(value, str):
        for real, token in swaps:
            value = value.replace(real, token)
        return value
    if isinstance(value, list):
        return [_generic(v, swaps) for v in value]
    if isinstance(value, dict):
        return {_generic(k, swaps): _generic(v, swaps) for k, v in value.items()}
    return value


def _concrete(value: Any, swaps: Sequence[tuple[str, str]]) -> Any:
    return _generic(value, [(token, real) for real, token in swaps])


def swaps_for(repo: Path, home: Path) -> list[tuple[str, str]]:
    # Longest first: the repository and the home folder share the temp dir.
    pairs = [(str(repo), "$REPO"), (str(home), "$HOME"), (str(repo.parent), "$BASE")]
    return sorted(pairs, key=lambda p: -len(p[0]))


def fixture_path(label: str, scenario: str) -> Path:
    return PAYLOADS / label / f"{scenario}.json"


def save_payloads(
    *,
    label: str,
    harness: str,
    scenario: str,
    run: str | None,
    ops: Sequence[Op],
    records: Sequence[dict[str, Any]],
    repo: Path,
    home: Path,
) -> Path | None:
    """Write the scenario's recorded hook payloads as a fixture, when $ZODYSSEY_RECORD_PAYLOADS=1.

    The n-th pre-tool payload belongs to the n-th op (the clients call tools in
    order and every call reaches the hook); each must hold its op's key.
    """
    if os.environ.get(RECORD_ENV) != "1":
        return None
    swaps = swaps_for(repo, home)
    pre = [r for r in records if r["event"] == "pre-tool"]
    post = [r for r in records if r["event"] == "post-tool"]
    assert len(pre) == len(ops), f"{len(pre)} pre-tool payloads for {len(ops)} calls"
    calls = []
    for op, record in zip(ops, pre, strict=True):
        text = json.dumps(record["payload"], ensure_ascii=False)
        assert op.key in text, f"{op.name}: {op.key!r} not in {text[:300]}"
        calls.append(
            {
                "op": op.name,
                "expect": op.expect,
                "xfail": op.xfail,
                "payload": _generic(record["payload"], swaps),
                "env": _generic(record["env"], swaps),
            }
        )
    document = {
        "label": label,
        "harness": harness,
        "scenario": scenario,
        "run": run,
        "calls": calls,
        "post": [
            {"payload": _generic(r["payload"], swaps), "env": _generic(r["env"], swaps)}
            for r in post
        ],
    }
    path = fixture_path(label, scenario)
    write_atomic(path, json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    return path


def save_records(
    *,
    label: str,
    harness: str,
    scenario: str,
    records: Sequence[dict[str, Any]],
    repo: Path,
    home: Path,
) -> Path | None:
    """Every hook record of a session (all events, in order), when $ZODYSSEY_RECORD_PAYLOADS=1:
    the shapes of sessions whose decisions depend on the order of calls (a review), kept as
    data for adapter tests; the replay test feeds only `calls`."""
    if os.environ.get(RECORD_ENV) != "1":
        return None
    swaps = swaps_for(repo, home)
    document = {
        "label": label,
        "harness": harness,
        "scenario": scenario,
        "run": "plan",
        "calls": [],
        "post": [],
        "records": [_generic(dict(r), swaps) for r in records],
    }
    path = fixture_path(label, scenario)
    write_atomic(path, json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    return path


def load_fixtures() -> list[tuple[Path, dict[str, Any]]]:
    found = []
    for path in sorted(PAYLOADS.glob("*/*.json")):
        found.append((path, json.loads(path.read_text(encoding="utf-8"))))
    return found


def concrete(value: Any, repo: Path, home: Path) -> Any:
    return _concrete(value, swaps_for(repo, home))
