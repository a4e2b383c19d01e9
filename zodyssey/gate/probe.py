"""Does the wired hook command start and block? Run it, with a probe, against a scratch run.

A configuration can name the gate and still not hold it: the command names an
interpreter that exists only on the installer's machine, or a script that
moved, and a harness that cannot start a hook runs the tool call anyway. So
`zodyssey check` and `zodyssey run start` run each declared harness's wired
pre-tool command the way the harness would (`sh -c COMMAND`, in the project,
with the harness's project variable set), hand it a product-code write inside
a scratch repository whose run is in phase `plan`, and require a block in that
harness's protocol.

The probe executes a command read from a file, so it runs only committed
wiring (the file's bytes are HEAD's blob: `uncommitted`), and it runs it in a
Landlock domain that may write only the scratch folder (its TMPDIR) and the
terminals (`zodyssey/sandbox/contain.py`):
whatever the command does, it cannot change a repository, its run state or
the gate.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any

# Seconds the probe waits: the harnesses' own timeout, which `hook install` writes.
PROBE_TIMEOUT = 30


def _scratch_run(base: Path) -> Path:
    """A repository with run `probe` in phase plan (no verdict): a product write must block."""
    root = base / "probe-repo"
    (root / ".git").mkdir(parents=True)
    (root / "src").mkdir()
    (root / ".zcode" / "plans").mkdir(parents=True)
    (root / ".zcode" / "state").mkdir(parents=True)
    plan = root / ".zcode" / "plans" / "probe.md"
    plan.write_text(
        "# Probe\n## Todos\n- [ ] 1. Probe\n  - Files: [`src/probe.py`]\n"
        "  - Acceptance criteria:\n    - `true`\n",
        encoding="utf-8",
    )
    state = {
        "slug": "probe",
        "title": "zodyssey wiring probe",
        "phase": "plan",
        "started_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-01T00:00:00Z",
        "run_start_sha": "",
        "plan_path": str(plan),
        "review": {"round": 0, "max_rounds": 3, "verdict": None, "history": []},
        "todos": {},
        "file_locks": {},
        "active_todos": {},
    }
    (root / ".zcode" / "state" / "probe.json").write_text(json.dumps(state), encoding="utf-8")
    return root


def _payload(harness: str, scratch: Path) -> dict[str, Any]:
    """The harness's own probe payload: a product-code write in the scratch run."""
    from zodyssey.gate.harness import get_harness

    return get_harness(harness).probe_payload(str(scratch), str(scratch / "src" / "probe.py"))


def _env(root: Path, harness: str) -> dict[str, str]:
    """This environment without zodyssey's variables or any harness's project
    variable, with `harness`'s own set to `root` (as the harness runs its hooks)."""
    from zodyssey.gate.harness import adapters, get_harness

    every = {name for a in adapters() for name in a.project_vars}
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZODYSSEY_") and k not in every}
    for name in get_harness(harness).project_vars:
        env[name] = str(root)
    return env


def _blocked(done: subprocess.CompletedProcess[str]) -> bool:
    if done.returncode == 2:
        return True
    if done.returncode != 0:
        return False
    text = done.stdout.lower()
    return '"deny"' in text or '"block"' in text


def probe(root: Path, harness: str, command: str) -> str | None:
    """None when `command` starts and blocks the probe; otherwise what went wrong."""
    env = _env(root, harness)
    with tempfile.TemporaryDirectory(prefix="zodyssey-probe-") as base:
        env["TMPDIR"] = base
        scratch = _scratch_run(Path(base))
        from zodyssey.sandbox.contain import probe_preexec

        try:
            done = subprocess.run(
                ["sh", "-c", command],
                preexec_fn=probe_preexec(base),
                input=json.dumps(_payload(harness, scratch)),
                capture_output=True,
                text=True,
                cwd=root,
                env=env,
                timeout=PROBE_TIMEOUT,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return f"it did not answer within {PROBE_TIMEOUT} s (the harness would run the call)"
        except OSError as exc:
            return f"it could not be run ({exc.strerror})"
        if (scratch / "src" / "probe.py").exists():
            return "it let the probe write a file"
    if _blocked(done):
        return None
    said = (done.stderr.strip() or done.stdout.strip()).splitlines()
    tail = said[-1][:200] if said else "no output"
    if done.returncode in (126, 127):
        return f"it does not start (exit {done.returncode}: {tail})"
    if done.returncode == 0:
        return "it started but did not block a product-code write in phase plan"
    return f"it failed with exit {done.returncode} ({tail}); the harness would run the call"


def uncommitted(root: Path, rel: str) -> str | None:
    """Why `rel` is not the committed wiring (not tracked at HEAD, or its bytes differ
    from HEAD's blob), or None: the probe runs only what is committed."""
    from zodyssey.git import output

    committed = output(root, "rev-parse", "--verify", "-q", f"HEAD:{rel}")
    if not committed or not committed.strip():
        return "it is not committed"
    here = output(root, "hash-object", "--no-filters", "--", rel)
    if here is None or here.strip() != committed.strip():
        return "it differs from the committed file"
    return None


def wired_commands(harness: str, value: Any) -> list[str]:
    """The pre-tool commands of ours in a parsed harness configuration."""
    from zodyssey.gate.harness import get_harness
    from zodyssey.gate.install import our_entries

    commands = [str(e["entry"]["command"]) for e in our_entries(value, get_harness(harness))]
    return list(dict.fromkeys(commands))
