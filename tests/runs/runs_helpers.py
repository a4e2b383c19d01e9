"""Fixtures for the runs tests: real git repositories and the real CLI in subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zodyssey.runs.store import RunStore

PLAN = """\
# Add a greeting
## Todos
- [ ] 1. Write the greeting
  - Files: [`greeting.txt`]
  - Acceptance criteria:
    - `test -f greeting.txt` exits 0
    - `grep -q hello greeting.txt`
- [ ] 2. Document it
  - Files: [`docs/greeting.md`]
  - Acceptance criteria:
    - `grep -q greeting docs/greeting.md`
## Final verification wave
- [ ] F1. Plan compliance audit
"""


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True)
    return done.stdout


@dataclass
class Result:
    code: int
    out: str
    err: str

    @property
    def text(self) -> str:
        return self.out + self.err


@dataclass
class Repo:
    root: Path

    def write(self, rel: str, text: str) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def git(self, *args: str) -> str:
        return git(self.root, *args)

    def commit(self, message: str = "change") -> None:
        self.git("add", "-A", "--", ".", ":(exclude).zcode")
        self.git("commit", "-q", "-m", message)

    def run(self, *args: str, stdin: str | None = None) -> Result:
        done = subprocess.run(
            [sys.executable, "-m", "zodyssey", "run", *args],
            cwd=self.root,
            capture_output=True,
            text=True,
            input=stdin,
            env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
            timeout=120,
        )
        return Result(done.returncode, done.stdout, done.stderr)

    def state(self, slug: str = "demo") -> dict[str, Any]:
        return RunStore(self.root, slug).read()

    def mint_nonce(self, nonce: str, slug: str = "demo") -> None:
        """What the gate hook does when it dispatches the reviewer agent."""

        def put(state: dict[str, Any]) -> None:
            state["review"]["pending_nonce"] = nonce

        RunStore(self.root, slug).update(put)

    def artifact(self, verdict: str, nonce: str | None, name: str = "review.json") -> Path:
        body: dict[str, Any] = {"verdict": verdict, "blockers": []}
        if nonce is not None:
            body["nonce"] = nonce
        return self.write(f".zcode/staging/{name}", json.dumps(body))

    def approve(self, slug: str = "demo", nonce: str = "nonce-ok") -> Result:
        self.mint_nonce(nonce, slug)
        result = self.run("review", slug, "--artifact", str(self.artifact("OKAY", nonce)))
        assert result.code == 0, result.text
        return result


def make_repo(root: Path) -> Repo:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "runs@example.com")
    git(root, "config", "user.name", "runs tests")
    git(root, "config", "commit.gpgsign", "false")
    repo = Repo(root)
    repo.write("README.md", "demo\n")
    repo.commit("initial")
    return repo
