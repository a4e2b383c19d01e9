"""`zodyssey run` helpers: a repository wrapped with the run CLI, its state and reviews."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.helpers import git, plan, run_zodyssey, write
from tests.helpers import make_repo as _make_repo
from zodyssey.core.store import RunStore

PLAN = plan(
    "Add a greeting",
    [
        (
            "Write the greeting",
            ["greeting.txt"],
            ["`test -f greeting.txt` exits 0", "`grep -q hello greeting.txt`"],
        ),
        ("Document it", ["docs/greeting.md"], ["`grep -q greeting docs/greeting.md`"]),
    ],
    final=["Plan compliance audit"],
)


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
        return write(self.root, rel, text)

    def git(self, *args: str) -> str:
        return git(self.root, *args)

    def commit(self, message: str = "change") -> None:
        self.git("add", "-A", "--", ".", ":(exclude).zcode")
        self.git("commit", "-q", "-m", message)

    def run(self, *args: str, stdin: str | None = None) -> Result:
        done = run_zodyssey("run", *args, cwd=self.root, stdin=stdin)
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
    """A repository with one committed README, wrapped for `zodyssey run`."""
    return Repo(_make_repo(root, {"README.md": "demo\n"}))
