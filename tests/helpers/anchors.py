"""Citation lock (check-anchors) helpers: its CLI, its JSON report, a fixture repo."""

from __future__ import annotations

import hashlib
import json
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tests.helpers import commit, git, make_repo, run_zodyssey, write

__all__ = ["commit", "git", "make_repo", "write"]  # re-exported for the anchors tests


def run_cli(
    root: Path, *args: str, cwd: Path | None = None, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`check-anchors --root root` as a real process, in `cwd` (default: `root`)."""
    return run_zodyssey(
        "anchors",
        "check",
        "--root",
        str(root),
        *args,
        cwd=cwd or root,
        env={"NO_COLOR": "1", **(env or {})},
    )


def check_json(root: Path, *args: str) -> tuple[int, dict[str, Any]]:
    proc = run_cli(root, "--json", *args)
    assert proc.stdout, proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def kinds(payload: dict[str, Any]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for problem in payload["problems"]:
        out.setdefault(problem["kind"], []).append(problem["key"])
    return out


def reference_hash(lines: list[str]) -> str:
    """The reference fingerprint, written independently of zodyssey's code."""
    import re

    normal = [re.sub(r"\s+", " ", line).strip() for line in lines]
    return hashlib.sha256("\n".join(normal).encode("utf-8")).hexdigest()[:12]


SOURCE = "".join(f"def step_{i}():  return {i}\n" for i in range(1, 31))
