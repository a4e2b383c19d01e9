"""What trusted zodyssey code executes for the agent runs inside the run's sandbox.

`zodyssey run verify` executes the plan's acceptance criteria and the
configured quality checks (and `run phase ... done` the checks): commands that
import product code the agent edits after OKAY. The trusted process itself
writes run state and evidence; the commands it starts may not. So each runs
under `zodyssey sandbox` with every active run of the repository whose start
recorded a Landlock ABI (one layer per run, as for the agent's own shell
calls): `contained` gives the argv.

The wiring probe of `zodyssey check` and `zodyssey run start` runs a command
read from a harness configuration file; it runs in a Landlock domain that
may write only its scratch folder and the terminals
(`probe_preexec`), wherever that file came from.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from zodyssey.core.vocabulary import STATE, is_active, is_slug


def landlocked_runs(root: Path) -> list[str]:
    """The active runs of `root` whose start recorded a Landlock ABI (sorted), and
    every unreadable state file's name too (the runner then refuses: fail closed)."""
    from zodyssey.gate.discovery import read_states, state_files

    if not (root / STATE).is_dir():
        return []
    found = []
    for slug, state in read_states(str(root), state_files(str(root))).runs:
        if isinstance(state, str):
            found.append(slug)  # unreadable: the runner refuses, so nothing runs unsandboxed
        elif is_active(state.get("phase")) and _landlocked(state):
            found.append(slug)
    return sorted(s for s in found if is_slug(s))


def _landlocked(state: dict[str, Any]) -> bool:
    recorded = state.get("sandbox")
    abi = recorded.get("landlock_abi") if isinstance(recorded, dict) else None
    return isinstance(abi, int) and not isinstance(abi, bool) and abi >= 1


def contained(root: Path, command: str) -> str | list[str]:
    """`command` (a `sh -c` string) as it is to be executed for the agent: the argv
    that runs it inside the sandbox of every Landlocked active run of `root`, or
    the string itself when no active run recorded Landlock (the run was started
    where Landlock is missing, or by another tool: nothing to contain it with)."""
    slugs = landlocked_runs(root)
    if not slugs:
        return command
    from zodyssey.sandbox.native import available
    from zodyssey.sandbox.wrap import ENTRY

    helper = available(str(root))
    argv = [helper] if helper else []
    argv += [sys.executable, "-S", "-P", ENTRY, "sandbox"]
    for slug in slugs:
        argv += ["--run", slug]
    return [*argv, "--repo", str(root), "--", "/bin/sh", "-c", command]


def probe_grants(scratch: str) -> list[tuple[str, int]]:
    """Where a wiring probe may write: its scratch folder (its TMPDIR too: the shared
    temporary folders may hold repositories) and the terminals. No cache: a cache
    can hold hard links to the gate's own files (`zodyssey/sandbox/aliases.py`)."""
    from zodyssey.sandbox import grants as g
    from zodyssey.sandbox import landlock as ll

    return [(os.path.realpath(scratch), ll.ALL_WRITES)] + [(d, ll.DEVICES) for d in g.DEVICE_PATHS]


def probe_preexec(scratch: str) -> Any:
    """A `preexec_fn` restricting the probe's process to `probe_grants`, or None
    where Landlock is missing. A refusal by the kernel ends the child before it
    runs anything (exit 125 through `os._exit`)."""
    from zodyssey.sandbox import landlock as ll

    abi = ll.abi_version()
    if abi < 1:
        return None
    grants = probe_grants(scratch)
    ll._libc()  # loaded before the fork: the child only makes the calls

    def restrict() -> None:
        try:
            ll.restrict_writes(grants, abi)
        except OSError:
            os._exit(125)

    return restrict


def planted_root(root: Path) -> str | None:
    """Why `zodyssey run start` must not take `root` (it would read and run files
    there), or None. Refused: a folder inside any `.zcode/` (run bookkeeping,
    which an agent writes in every phase), and a folder inside a repository
    above it that has an active run (a folder that run's agent can fill: its
    wiring probe, its git configuration). Decided from the path and the state
    files above it alone: nothing in `root` is read or run first."""
    from zodyssey.core.vocabulary import ZCODE
    from zodyssey.gate.discovery import read_states, state_files

    real = Path(os.path.realpath(root))
    if ZCODE in real.parts:
        return f"{real} lies inside a {ZCODE}/ folder (run bookkeeping an agent writes)"
    for above in real.parents:
        if not (above / STATE).is_dir():
            continue
        for slug, state in read_states(str(above), state_files(str(above))).runs:
            if isinstance(state, str) or is_active(state.get("phase")):
                return (
                    f"{real} lies inside {above}, whose run {slug} is active: a folder "
                    "that run's agent can fill"
                )
    return None


def containment(harnesses: list[str], abi: int, prefixed: bool) -> list[str]:
    """What `zodyssey run start` says, per harness, of the calls the kernel contains
    on this machine (docs/gate.md, "Enforcement: the write sandbox"); `prefixed`:
    the repository's Claude Code shell prefix is configured (`shell_prefix.configured`)."""
    import platform

    where = f"{platform.system()} {platform.release()}"
    if abi < 1:
        return [
            f"contained by the kernel ({where}, no Landlock): no call; every harness's shell "
            "calls are judged by the classifier, and the post-call check undoes what it finds"
        ]
    lines = [
        f"contained by the kernel ({where}, Landlock ABI {abi}), for every harness: the "
        "criteria and quality checks `zodyssey run verify` and `run phase ... done` execute"
    ]
    for harness in harnesses:
        if harness == "claude-code" and prefixed:
            lines.append(
                "claude-code: every Bash call of the run, reads included, in every permission "
                "mode (CLAUDE_CODE_SHELL_PREFIX from .claude/settings.local.json; a session "
                "started before `hook install` set it gets the rewritten calls below)"
            )
        elif harness == "claude-code":
            lines.append(
                "claude-code: with permissions bypassed every Bash call; in other modes the "
                "write-capable ones, which you confirm; reads run as they are (`zodyssey hook "
                "install --harness claude-code` sets the shell prefix that contains them all)"
            )
        else:
            lines.append(
                f"{harness}: no shell call (the harness cannot rewrite a call): the classifier "
                "judges each and the post-call check undoes what it finds"
            )
    return lines
