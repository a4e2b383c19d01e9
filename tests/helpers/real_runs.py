"""Real runs for the audit tests: `zodyssey run` in temporary git repositories, then audited."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.helpers import REPO_ROOT, run_zodyssey
from tests.helpers.runs import Repo, Result, make_repo


def plan_of(criteria: str, *, files: str = "`g.txt`", final: str = "") -> str:
    """A one-todo plan whose criteria list is `criteria` (indented lines, as written)."""
    text = (
        "# Round three\n## Todos\n- [ ] 1. Write g.txt\n"
        f"  - Files: [{files}]\n  - Acceptance criteria:\n{criteria}"
    )
    if final:
        text += "## Final verification wave\n" + final
    return text


def started(tmp_path: Path, plan: str, slug: str = "demo", name: str = "repo") -> Repo:
    repo = make_repo(tmp_path / name)
    source = tmp_path / f"{name}-plan.md"
    source.write_text(plan, encoding="utf-8")
    result = repo.run("start", slug, "--plan", str(source))
    assert result.code == 0, result.text
    return repo


def approved(tmp_path: Path, plan: str, slug: str = "demo", name: str = "repo") -> Repo:
    repo = started(tmp_path, plan, slug, name)
    repo.approve(slug)
    return repo


def audit(repo: Repo, slug: str = "demo", *args: str) -> tuple[int, dict[str, Any]]:
    done = run_zodyssey(
        "audit", "--repo", str(repo.root), slug, "--format", "json", *args, cwd=REPO_ROOT
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode in (0, 1, 4), (done.returncode, done.stderr)
    return done.returncode, json.loads(done.stdout)


def rules(payload: dict[str, Any], severity: str = "error") -> set[str]:
    return {f["rule"] for f in payload["findings"] if f["severity"] == severity}


def finish(repo: Repo, slug: str = "demo", todos: tuple[str, ...] = ("1",)) -> list[Result]:
    """verify, todo done for each todo, then phase done: the results, in order."""
    out: list[Result] = []
    for todo in todos:
        out.append(repo.run("verify", slug, todo))
        out.append(repo.run("todo", slug, todo, "done"))
    out.append(repo.run("phase", slug, "done"))
    return out


def evidence(repo: Repo, slug: str = "demo") -> list[dict[str, Any]]:
    path = repo.root / ".zcode" / "verify" / slug / "evidence.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
