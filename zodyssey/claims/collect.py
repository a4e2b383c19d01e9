"""Collect the test suite's claim links without running a test.

Runs `python -m pytest --collect-only` in a subprocess (so the project's test
modules are imported in their own interpreter, never in ours) with the claims
plugin exporting every collected test that carries `@pytest.mark.claim`.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from zodyssey.claims.model import LinkedTest
from zodyssey.errors import UsageError

COLLECT_TIMEOUT_S = 300


@dataclass
class Collection:
    links: list[LinkedTest] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # node ids pytest could not collect
    causes: dict[str, str] = field(default_factory=dict)  # node id -> why, from pytest's output


# pytest's heading of one collection error: `____ ERROR collecting tests/test_x.py ____`.
_ERROR_HEADING = re.compile(r"^_+ ERROR collecting (.+?) _+$")


def collection_causes(output: str) -> dict[str, str]:
    """Why each module could not be collected: the first `E   ` line of its section."""
    causes: dict[str, str] = {}
    current: str | None = None
    for line in output.splitlines():
        heading = _ERROR_HEADING.match(line.strip())
        if heading:
            current = heading.group(1)
            continue
        if current is None or current in causes:
            continue
        if line.startswith("E   "):
            causes[current] = line[4:].strip()
        elif line.startswith(("=", "_")):
            current = None
    return causes


def collect_links(root: Path, paths: list[str]) -> Collection:
    """Every collected test of the suite at `root` (or of `paths`) with its claim ids."""
    for path in paths:
        # A test path that does not exist would collect nothing and turn every claim
        # into `uncovered`; that is a bad argument or configuration, not a finding.
        if not (root / path.split("::", 1)[0]).exists():
            raise UsageError(f"test path {path} does not exist under {root}")
    with tempfile.TemporaryDirectory(prefix="zodyssey-claims-") as tmp:
        export = Path(tmp) / "links.json"
        argv = [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
            "--continue-on-collection-errors",
            f"--claims-root={root}",
            f"--claims-export={export}",
            *paths,
        ]
        env = dict(os.environ)
        env.pop("PYTEST_ADDOPTS", None)  # a caller's -x or -k must not shrink the suite
        if env.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
            # The entry point is not loaded then; name the plugin explicitly.
            argv[3:3] = ["-p", "zodyssey.claims.plugin"]
        try:
            done = subprocess.run(
                argv,
                cwd=root,
                env=env,
                capture_output=True,
                text=True,
                timeout=COLLECT_TIMEOUT_S,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise UsageError(
                f"pytest collection under {root} took longer than {COLLECT_TIMEOUT_S} s"
            ) from exc
        if not export.is_file():
            tail = (done.stdout + done.stderr).strip().splitlines()[-5:]
            raise UsageError(
                f"pytest could not collect the tests under {root} (exit {done.returncode}): "
                + " | ".join(tail)
            )
        data = json.loads(export.read_text(encoding="utf-8"))
    result = Collection(errors=[str(e) for e in data.get("collect_errors", [])])
    causes = collection_causes(done.stdout)
    result.causes = {e: causes[e] for e in result.errors if e in causes}
    for link in data.get("links", []):
        result.links.append(
            LinkedTest(
                str(link["nodeid"]), tuple(link["claims"]), link.get("file"), link.get("line")
            )
        )
    return result
