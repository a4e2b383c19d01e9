"""Concurrent writers never lose an update: real processes racing on one run."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.helpers.runs import Repo
from zodyssey.core import paths
from zodyssey.runs import evidence as chain

WORKERS = 8


def many_todo_plan(count: int) -> str:
    rows = ["# Many todos", "## Todos"]
    for n in range(1, count + 1):
        rows += [
            f"- [ ] {n}. Todo {n}",
            f"  - Files: [`file{n}.txt`]",
            "  - Acceptance criteria:",
            f"    - `test -d . && echo todo{n}` exits 0",
        ]
    return "\n".join(rows) + "\n"


def race(repo: Repo, commands: list[list[str]]) -> list[subprocess.CompletedProcess[bytes]]:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "zodyssey", "run", *args],
            cwd=repo.root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        for args in commands
    ]
    results = []
    for process in processes:
        out, err = process.communicate(timeout=120)
        results.append(subprocess.CompletedProcess(process.args, process.returncode, out, err))
    return results


def setup_run(repo: Repo) -> None:
    plan = repo.root.parent / "many.md"
    plan.write_text(many_todo_plan(WORKERS), encoding="utf-8")
    assert repo.run("start", "demo", "--plan", str(plan)).code == 0
    repo.approve()


def test_parallel_todo_updates_are_all_kept(repo: Repo) -> None:
    setup_run(repo)
    results = race(
        repo,
        [
            ["todo", "demo", str(n), "in_flight", "--owner", f"agent-{n}"]
            for n in range(1, WORKERS + 1)
        ],
    )
    assert all(r.returncode == 0 for r in results), [r.stderr for r in results]
    state = repo.state()
    for n in range(1, WORKERS + 1):
        assert state["todos"][str(n)]["status"] == "in_flight"
        assert state["todos"][str(n)]["attempts"] == 1
        assert state["active_todos"][f"agent-{n}"] == str(n)
    todo_entries = [e for e in state["gate_log"] if e["command"] == "todo"]
    assert len(todo_entries) == WORKERS


def test_parallel_verifies_extend_one_intact_chain(repo: Repo) -> None:
    setup_run(repo)
    results = race(repo, [["verify", "demo", str(n)] for n in range(1, WORKERS + 1)])
    assert all(r.returncode == 0 for r in results), [r.stderr for r in results]
    read = chain.read_evidence(paths.evidence_path(repo.root, "demo"))
    state = repo.state()
    assert len(read.records) == WORKERS
    assert (
        chain.verify_chain(
            read.records,
            expected_count=state["evidence"]["count"],
            expected_head=state["evidence"]["head"],
        )
        == []
    )
    assert sorted(r["todo"] for r in read.records) == sorted(str(n) for n in range(1, WORKERS + 1))
    assert state["verify"]["total"] == WORKERS and state["verify"]["passed"] == WORKERS
    assert set(state["acceptance"]) == {str(n) for n in range(1, WORKERS + 1)}
    # And then every todo can be marked done in parallel too.
    results = race(repo, [["todo", "demo", str(n), "done"] for n in range(1, WORKERS + 1)])
    assert all(r.returncode == 0 for r in results), [r.stderr for r in results]
    assert all(t["status"] == "done" for t in repo.state()["todos"].values())
