"""The hook's fast no-run answer (zodyssey/gate/norun.py) is exactly as strict as
the full discovery: on every layout below, the installed command (which asks
norun first) and `python -m zodyssey hook` (the full discovery only) give the
same exit code and output; where a run guards the call both block it, and on
plain layouts without a run the fast answer is really taken (no `os`, no
`zodyssey.gate.hook` imported).

How this could pass while broken: scenarios where both sides exit 0 prove
nothing, so every layout with a reachable run asserts exit 2; a fast path that
never fires would pass the equality checks, so the no-run layouts assert the
fast answer and the imports it avoids; constants copied from the discovery
(separators, variables) are compared with theirs.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import REPO_ROOT as REPO
from tests.helpers import make_repo
from tests.helpers.gate import hook_env, make_run_repo, payload, with_importtime
from zodyssey.gate import hook, norun, workspace
from zodyssey.gate.install import hook_command

OUT_OF_SCOPE = "echo x > src/other.py"


def _installed(event: str = "pre-tool") -> list[str]:
    return shlex.split(hook_command(event, "claude-code"))


def _both(stdin: str, env: dict[str, str], cwd: Path) -> tuple[tuple[int, str], tuple[int, str]]:
    """(exit code, stdout) of the installed command and of the full hook."""
    out = []
    for argv in (_installed(), [sys.executable, "-m", "zodyssey", "hook", "pre-tool"]):
        done = subprocess.run(
            argv, input=stdin, env=env, cwd=cwd, capture_output=True, text=True, timeout=60
        )
        out.append((done.returncode, done.stdout))
    return out[0], out[1]


def _env(project: Path | None, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in hook_env(project).items() if not k.endswith("_PROJECT_DIR")}
    if project is not None:
        env["CLAUDE_PROJECT_DIR"] = str(project)
    env.update(extra)
    return env


def _layout(tmp_path: Path) -> dict[str, Path]:
    """A repository with an active run, one without, and a workspace folder above both."""
    run = make_run_repo(tmp_path / "ws").root
    plain = make_repo(tmp_path / "ws" / "plain", commit=False)
    (plain / "src").mkdir()
    (plain / "src" / "app.py").write_text("x\n")
    return {"run": run, "plain": plain, "ws": tmp_path / "ws"}


def _scenarios(p: dict[str, Path]) -> dict[str, tuple[dict[str, str], dict[str, Any], Path]]:
    run, plain = p["run"], p["plain"]
    (plain / "link").symlink_to(run)
    (plain / "inside").symlink_to(run / "src")  # only the link leads to the run
    (plain / "sub" / "deeper").mkdir(parents=True)
    rel_to_run = os.path.relpath(run, plain)
    cmd = {"command": OUT_OF_SCOPE}
    return {
        "the run's repository": (_env(run), payload("Bash", cmd, cwd=run), run),
        "a folder inside it": (_env(run / "src"), payload("Bash", cmd, cwd=run), run),
        "ZCODE_PROJECT_DIR only": (
            _env(None, ZCODE_PROJECT_DIR=str(run)),
            payload("Bash", cmd, cwd=run),
            run,
        ),
        "no variable, the payload's cwd": (_env(None), payload("Bash", cmd, cwd=run), run),
        "project without a run, cwd in the run": (
            _env(plain),
            payload("Bash", cmd, cwd=run),
            plain,
        ),
        "an absolute path into the run": (
            _env(plain),
            payload("Bash", {"command": f"echo x > {run}/src/other.py"}, cwd=plain),
            plain,
        ),
        "a path through a link into the run": (
            _env(plain),
            payload("Bash", {"command": "echo x > link/src/other.py"}, cwd=plain),
            plain,
        ),
        "a link to a folder inside the run": (
            _env(plain),
            payload("Bash", {"command": "echo x > inside/other.py"}, cwd=plain),
            plain,
        ),
        "a relative path with ..": (
            _env(plain),
            payload("Bash", {"command": f"echo x > {rel_to_run}/src/other.py"}, cwd=plain),
            plain,
        ),
        "a Write into the run": (
            _env(plain),
            payload("Write", {"file_path": f"{run}/src/other.py", "content": "x"}, cwd=plain),
            plain,
        ),
        "a nested list in tool_input": (
            _env(plain),
            payload("mcp__fs__write", {"edits": [{"path": f"{run}/src/other.py"}]}, cwd=plain),
            plain,
        ),
        "Cursor workspace_roots": (
            _env(plain),
            payload("Bash", cmd, cwd=plain, workspace_roots=[str(run)]),
            plain,
        ),
        "the workspace folder": (_env(p["ws"]), payload("Bash", cmd, cwd=p["ws"]), p["ws"]),
        "cd into the run": (
            _env(p["ws"]),
            payload("Bash", {"command": f"cd {run.name} && {OUT_OF_SCOPE}"}, cwd=p["ws"]),
            p["ws"],
        ),
    }


def test_every_reachable_run_still_blocks_and_both_agree(tmp_path: Path) -> None:
    p = _layout(tmp_path)
    for name, (env, body, cwd) in _scenarios(p).items():
        fast, full = _both(json.dumps(body), env, cwd)
        assert fast == full, name
        assert fast[0] == 2, (name, fast)
        assert not _fast_answer(env, body), name


FAST = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from zodyssey.gate.norun import nothing_to_guard; "
    "print(nothing_to_guard(['pre-tool'], sys.stdin.buffer.read()))"
)


def _fast_answer(env: dict[str, str], body: Any) -> bool:
    """norun's answer in a fresh interpreter started with `env` (it reads
    `posix.environ`, the environment the process started with)."""
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    done = subprocess.run(
        [sys.executable, "-S", "-P", "-c", FAST, str(REPO)],
        input=raw,
        env=env,
        capture_output=True,
        check=True,
        timeout=60,
    )
    answer = done.stdout.decode().strip()
    assert answer in ("True", "False"), done.stderr
    return answer == "True"


def test_without_a_run_the_fast_answer_is_taken(tmp_path: Path) -> None:
    p = _layout(tmp_path)
    plain = p["plain"]
    body = payload("Bash", {"command": "git status && echo x > src/app.py"}, cwd=plain)
    assert _fast_answer(_env(plain), body)
    code, err, names = with_importtime(_installed(), json.dumps(body), _env(plain))
    assert (code, err) == (0, "")
    assert "zodyssey.gate.norun" in names
    assert not names & {"os", "zodyssey.gate.hook", "zodyssey.gate.discovery"}, names
    # a finished run's state is not a run, but the fast answer leaves it to the full one
    finished = make_run_repo(tmp_path / "done", phase="done").root
    done_body = payload("Bash", {"command": OUT_OF_SCOPE}, cwd=finished)
    assert not _fast_answer(_env(finished), done_body)
    assert _both(json.dumps(done_body), _env(finished), finished) == ((0, ""), (0, ""))


@pytest.mark.parametrize(
    "why",
    ["relative project dir", "tilde", "link below the repository", "long string", "not json"],
)
def test_what_it_does_not_cover_goes_to_the_full_discovery(tmp_path: Path, why: str) -> None:
    plain = _layout(tmp_path)["plain"]
    env = _env(plain)
    body: Any = payload("Bash", {"command": "ls"}, cwd=plain)
    if why == "relative project dir":
        env = _env(None, CLAUDE_PROJECT_DIR="ws/plain")
    elif why == "tilde":
        body = payload("Bash", {"command": "cat ~/notes"}, cwd=plain)
    elif why == "link below the repository":
        (plain / "elsewhere").symlink_to(tmp_path)
        body = payload("Bash", {"command": "ls elsewhere/x"}, cwd=plain)
    elif why == "long string":
        body = payload("Bash", {"command": "ls " + "a" * 70_000}, cwd=plain)
    else:
        body = b"not json"
    assert not _fast_answer(env, body)
    stdin = body.decode() if isinstance(body, bytes) else json.dumps(body)
    assert _both(stdin, env, plain) == ((0, ""), (0, ""))


def test_its_constants_are_the_discoverys() -> None:
    assert norun.SEPARATORS == workspace._SEPARATORS
    assert tuple(n.decode() for n in norun.PROJECT_ENV) == hook.PROJECT_ENV
    assert norun.MAX_STDIN == hook.MAX_STDIN
