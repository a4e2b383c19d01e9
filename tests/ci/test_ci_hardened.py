"""The shipped CI files meet what their users' scanners expect (issue 36 item 6).

Actions pinned by commit (the tag in a comment, for people and for update bots),
checkouts that keep no credentials, a time limit on every job; and zizmor, the
GitHub Actions security linter, run offline, finds nothing that is not justified
inline (`# zizmor: ignore[...]` with the reason next to it).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
WORKFLOWS = [
    "ci/github/zodyssey.yml",
    "ci/github/zodyssey-shards.yml",
    "zodyssey/templates/github-workflow.yml",  # what `zodyssey init` writes
    ".github/workflows/release.yml",
]
ACTIONS = ["action.yml"]
PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+\b")


def _steps(path: str) -> list[tuple[str, dict[str, Any]]]:
    data: Any = yaml.safe_load((REPO / path).read_text(encoding="utf-8"))
    if "jobs" in data:
        return [(job, step) for job, body in data["jobs"].items() for step in body["steps"]]
    return [("action", step) for step in data["runs"]["steps"]]


def _uses_lines(path: str) -> list[str]:
    lines = (REPO / path).read_text(encoding="utf-8").splitlines()
    return [ln.split("uses:", 1)[1].strip() for ln in lines if re.match(r"^\s*(- )?uses:", ln)]


@pytest.mark.parametrize("path", WORKFLOWS + ACTIONS)
def test_every_action_is_pinned_by_commit_with_its_tag(path: str) -> None:
    """Fails on the old files: `actions/checkout@v4`, a tag that can be moved."""
    uses = _uses_lines(path)
    assert uses, path
    assert [u for u in uses if not PINNED.match(u)] == []


@pytest.mark.parametrize("path", WORKFLOWS)
def test_checkouts_keep_no_credentials_and_jobs_have_a_time_limit(path: str) -> None:
    data: Any = yaml.safe_load((REPO / path).read_text(encoding="utf-8"))
    for name, job in data["jobs"].items():
        assert isinstance(job.get("timeout-minutes"), int), f"{path}: job {name}"
    text = (REPO / path).read_text(encoding="utf-8")
    for job, step in _steps(path):
        if not str(step.get("uses", "")).startswith("actions/checkout@"):
            continue
        kept = step.get("with", {}).get("persist-credentials")
        if kept is False:
            continue
        # Only the release's tag job pushes, and says so next to the setting.
        assert (path, job) == (".github/workflows/release.yml", "tag"), (path, job, kept)
        assert "persist-credentials: true # this job pushes" in text


def test_zizmor_finds_nothing_unjustified() -> None:
    """Offline (no network in tests): the audits that need GitHub's API are left out.
    Fails on the old files (unpinned-uses, artipacked)."""
    zizmor = shutil.which("zizmor", path=str(Path(sys.executable).parent))
    assert zizmor, "zizmor is a test dependency (pyproject.toml [test])"
    done = subprocess.run(
        [zizmor, "--offline", "--no-progress", *WORKFLOWS, *ACTIONS],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "No findings to report" in done.stdout + done.stderr
    # Each ignore says why, on the lines above it.
    for path in WORKFLOWS + ACTIONS:
        lines = (REPO / path).read_text(encoding="utf-8").splitlines()
        for i, line in enumerate(lines):
            if "zizmor: ignore[" in line and line.strip().startswith(("run:", "uses:")):
                assert "--" in lines[i - 3] or "--" in lines[i - 2] or "--" in lines[i - 1]
