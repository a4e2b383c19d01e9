"""A new user's first steps, run as written (`nox -s journey`, which `.ci/run` runs).

- `readme`: the README's set-up command (`... pip install . && zodyssey check`),
  copied out of README.md, run in a fresh clone of this repository's HEAD, in a
  shell whose PATH has no virtual environment on it, so the command's own
  `python3 -m venv .venv` is the only environment it gets.
- `getting-started`: every `sh` block of docs/getting-started.md, in order, in
  one shell in a scratch directory; each `zodyssey check; echo "exit $?"` must
  print the exit code the page's prose says next ("Exit 9, ..."). The page's
  `git+https://github.com/zodyssey/zodyssey@TAG` install runs verbatim: git is
  pointed from that URL to a fresh clone (`url.<clone>.insteadOf`), where TAG
  is made at HEAD when the clone lacks it (CI has no network, or the release is
  not out yet).
- `test-command`: prints the README's test command, which `.ci/run` runs in
  its own fresh clone (it is the whole test suite; running it twice would
  double CI time).

Standard library only: it runs before anything is installed.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SETUP_HEADING = "## Set up on a fresh machine"
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.DOTALL | re.MULTILINE)
_EXIT_PROSE = re.compile(r"^Exit (\d+)\b", re.MULTILINE)
_GIT_URL = re.compile(r"git\+(https://[^\s\"'@]+)@([\w.\-]+)")


def readme_commands(readme: str) -> dict[str, str]:
    """The set-up section's two `sh` commands: `check` and `test`."""
    start = readme.index(SETUP_HEADING)
    end = readme.find("\n## ", start + len(SETUP_HEADING))
    section = readme[start : end if end != -1 else len(readme)]
    found: dict[str, str] = {}
    for lang, body in _FENCE.findall(section):
        if lang != "sh":
            continue
        command = body.strip()
        key = "test" if "pytest" in command else "check" if "zodyssey check" in command else None
        if key is None or key in found:
            raise SystemExit(f"README.md: unexpected set-up block: {command!r}")
        found[key] = command
    if set(found) != {"check", "test"}:
        raise SystemExit(f"README.md: expected a check and a test command, found {sorted(found)}")
    return found


@dataclass(frozen=True)
class Step:
    script: str
    expect: int | None  # the exit code the block prints, as the prose after it says


def getting_started_steps(page: str) -> list[Step]:
    """Each `sh` block; a block printing `exit $?` expects the next "Exit N" of the prose."""
    blocks = list(_FENCE.finditer(page))
    steps: list[Step] = []
    for block in blocks:
        if block.group(1) != "sh":
            continue
        script = block.group(2)
        expect = None
        if 'echo "exit $?"' in script:
            said = _EXIT_PROSE.search(_prose_after(page, block.end(), blocks))
            if said is None:
                raise SystemExit(f"getting-started: no 'Exit N' after block {script!r}")
            expect = int(said.group(1))
        steps.append(Step(script, expect))
    return steps


def _prose_after(page: str, offset: int, blocks: list[re.Match[str]]) -> str:
    """The page's text after `offset` with every fenced block taken out."""
    text, at = [], offset
    for block in blocks:
        if block.start() >= at:
            text.append(page[at : block.start()])
            at = block.end()
    text.append(page[at:])
    return "".join(text)


def test_only_modules() -> set[str]:
    """Top-level modules installed only because of zodyssey's `test` extra."""
    from importlib import metadata

    from packaging.requirements import Requirement

    def closure(roots: list[str]) -> set[str]:
        seen: set[str] = set()
        todo = list(roots)
        while todo:
            name = _canonical(todo.pop())
            if name in seen:
                continue
            seen.add(name)
            try:
                requires = metadata.requires(name) or []
            except metadata.PackageNotFoundError:
                continue
            for line in requires:
                req = Requirement(line)
                if req.marker is None or req.marker.evaluate({"extra": ""}):
                    todo.append(req.name)
        return seen

    own = [Requirement(r) for r in metadata.requires("zodyssey") or []]
    base = closure(["zodyssey"])
    extra = [r.name for r in own if r.marker and r.marker.evaluate({"extra": "test"})]
    only = closure(extra) - base
    modules: set[str] = set()
    for module, dists in metadata.packages_distributions().items():
        if all(_canonical(d) in only for d in dists):
            modules.add(module)
    return modules


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _clean_env(home: Path) -> dict[str, str]:
    """This environment without any virtual environment on PATH, git configured for a user."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "NOX_"))}
    venv = env.pop("VIRTUAL_ENV", None)
    env.pop("PYTHONPATH", None)
    entries = env.get("PATH", "").split(os.pathsep)
    env["PATH"] = os.pathsep.join(
        e
        for e in entries
        if not (venv and e.startswith(venv)) and not (Path(e) / "activate").is_file()
    )
    gitconfig = home / "gitconfig"
    gitconfig.write_text("[user]\n\tname = New User\n\temail = new.user@example.invalid\n")
    env["GIT_CONFIG_GLOBAL"] = str(gitconfig)
    env["GIT_CONFIG_NOSYSTEM"] = "1"
    return env


def _run(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    print(f"$ (in {cwd})\n{script}", flush=True)
    done = subprocess.run(
        # No `-e`: a user's interactive shell goes on after a failing command, and
        # the page's `zodyssey check; echo "exit $?"` relies on that.
        ["bash", "-c", script],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        check=False,
    )
    print(done.stdout, flush=True)
    return done


def _clone(into: Path, env: dict[str, str]) -> Path:
    clone = into / "zodyssey"
    subprocess.run(["git", "clone", "--quiet", str(REPO), str(clone)], env=env, check=True)
    return clone


def run_readme(scratch: Path) -> int:
    env = _clean_env(scratch)
    command = readme_commands((REPO / "README.md").read_text(encoding="utf-8"))["check"]
    done = _run(command, _clone(scratch, env), env)
    print(f"journey readme: exit {done.returncode}")
    return done.returncode


def run_getting_started(scratch: Path) -> int:
    env = _clean_env(scratch)
    page = (REPO / "docs/getting-started.md").read_text(encoding="utf-8")
    steps = getting_started_steps(page)
    clone = _clone(scratch, env)
    for url, tag in set(_GIT_URL.findall(page)):
        with Path(env["GIT_CONFIG_GLOBAL"]).open("a") as config:
            config.write(f'[url "{clone}"]\n\tinsteadOf = {url}\n')
        known = subprocess.run(
            ["git", "-C", str(clone), "rev-parse", "-q", "--verify", tag],
            env=env,
            capture_output=True,
            check=False,
        )
        if known.returncode != 0:
            subprocess.run(["git", "-C", str(clone), "tag", tag], env=env, check=True)
    user = scratch / "user"
    user.mkdir()
    script = "\n".join(step.script for step in steps)
    done = _run(script, user, env)
    printed = [int(n) for n in re.findall(r"^exit (\d+)$", done.stdout, re.MULTILINE)]
    expected = [step.expect for step in steps if step.expect is not None]
    ok = done.returncode == 0 and printed == expected
    print(
        f"journey getting-started: exit {done.returncode}, printed {printed}, page says {expected}"
    )
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("what", choices=["readme", "getting-started", "test-command", "all"])
    args = parser.parse_args(argv)
    if args.what == "test-command":
        print(readme_commands((REPO / "README.md").read_text(encoding="utf-8"))["test"])
        return 0
    failed = 0
    for what in ("readme", "getting-started") if args.what == "all" else (args.what,):
        with tempfile.TemporaryDirectory(prefix=f"zodyssey-journey-{what}-") as tmp:
            run = run_readme if what == "readme" else run_getting_started
            failed |= run(Path(tmp)) != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
