"""The one set of test helpers: real git repositories, real processes, real files.

Import them as ``from tests.helpers import ...`` (pytest runs with
``--import-mode=importlib`` and ``pythonpath = ["."]``, see pyproject.toml).
Nothing here mocks git or the file system.

The whole API (arguments always in this order: where, then what):

``run_zodyssey(*args, cwd, env=None, stdin=None, timeout=120)``
    ``python -m zodyssey <args>`` as a real process in ``cwd``, with the
    environment scrubbed by ``clean_env`` (plus ``env`` on top). Returns the
    ``CompletedProcess`` (text mode); never raises on a non-zero exit.
``clean_env(**extra)``
    ``os.environ`` without the variables that would change zodyssey's
    behaviour behind a test's back (project dir, gate overrides, pytest and
    GitHub variables), plus ``extra``.
``git(root, *args)``
    ``git <args>`` in ``root`` with a fixed identity; returns stdout, fails
    the test (AssertionError with git's stderr) on a non-zero exit.
``make_repo(root, files=None, *, commit=True, remote=None)``
    ``git init -b main`` in ``root`` (created), identity configured in the
    repository, ``files`` ({relative path: text}) written and, unless
    ``commit=False``, committed as "initial" (allowed empty). Returns ``root``.
``write(root, rel, text)`` / ``commit(root, message)``
    Write one file (parents created) / stage everything and commit (allowed
    empty), returning the new HEAD sha.
``plan(title, todos, *, final=(), preamble="", epilogue="")``
    A run plan in the reference markdown shape: ``todos`` are
    ``(title, files, criteria)`` triples, criteria written as they appear
    after ``- `` (e.g. ``"`make test` exits 0"``).
``shared_corpus(name="bash-public.jsonl")``
    The shared corpus file found relative to the repository
    (``<repo>/../shared/corpus/``, then ``shared/corpus/`` up to 4 parents
    further up, then ``$ZODYSSEY_SHARED_CORPUS``); skips the test (fails when
    ``CI`` is set) when it cannot be found, saying where it looked.
    ``find_shared_corpus(name)`` is the same search returning None, for
    parametrizing at collection time.
``assert_one_line_error(done, code, *, parts=1)`` and ``DEEP_JSON``
    Bad-input checks: documented exit code, one ``error:`` line, no traceback.
``js_checkout()``
    The JavaScript tool's checkout named by ``$ZODYSSEY_JS_CHECKOUT``, or None
    (comparison tests skip, saying how to set it).
``copy_checkout(dest)``
    A copy of this checkout's source (no git, caches, build output or bench/).
``build_wheel(out)``
    A wheel of this checkout (no build isolation), in ``out/dist``.
``fresh_venv(path)``
    A venv holding zodyssey's dependencies (linked, offline) but not zodyssey;
    returns its bin directory.
``CheckoutRepos``
    What the session fixture ``checkout_repo`` (tests/conftest.py) gives:
    ``checkout_repo(dest)`` clones, to ``dest``, one commit of ``copy_checkout``
    made once per session (no remote, identity configured).

Per-area builders live next to it and use the helpers above:
``tests.helpers.anchors`` (check-anchors), ``tests.helpers.history``
(history citations), ``tests.helpers.runs`` (``zodyssey run`` repos),
``tests.helpers.gate`` (gate ``ctx()``/``call()`` for the policy, hook
payloads and the real hook process), ``tests.helpers.session`` (a whole agent
session through the hook), ``tests.helpers.audit`` (crafted run artifacts).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]

GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
}

# Variables that change what zodyssey does; a test sets them explicitly or not at all.
SCRUBBED = (
    "PYTEST_ADDOPTS",
    "GITHUB_STEP_SUMMARY",
    "CLAUDE_PROJECT_DIR",
    "ZCODE_PROJECT_DIR",
    "ZODYSSEY_UNGATE_BASH",
    "ZODYSSEY_PARALLEL_CAP",
)

DEEP_JSON = "[" * 100_000 + "]" * 100_000


# This interpreter's scripts: a committed hook command runs `zodyssey` from PATH.
SCRIPTS = str(Path(sys.executable).parent)


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in SCRUBBED}
    path = env.get("PATH", "/usr/bin:/bin")
    if SCRIPTS not in path.split(os.pathsep):
        env["PATH"] = SCRIPTS + os.pathsep + path
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(extra)
    return env


def run_zodyssey(
    *args: str,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    stdin: str | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "zodyssey", *args],
        cwd=cwd,
        env=clean_env(**(env or {})),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args],
        cwd=root,
        env={**os.environ, **GIT_IDENTITY},
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {done.stderr}")
    return done.stdout


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def commit(root: Path, message: str = "change") -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()


def make_repo(
    root: Path,
    files: Mapping[str, str] | None = None,
    *,
    commit: bool = True,
    remote: str | None = None,
) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", GIT_IDENTITY["GIT_AUTHOR_EMAIL"])
    git(root, "config", "user.name", GIT_IDENTITY["GIT_AUTHOR_NAME"])
    git(root, "config", "commit.gpgsign", "false")
    if remote:
        git(root, "remote", "add", "origin", remote)
    for rel, text in (files or {}).items():
        write(root, rel, text)
    if commit:
        _commit(root, "initial")
    return root


_commit = commit


def plan(
    title: str,
    todos: Sequence[tuple[str, Sequence[str], Sequence[str]]],
    *,
    final: Sequence[str] = (),
    preamble: str = "",
    epilogue: str = "",
) -> str:
    lines = [f"# {title}"]
    if preamble:
        lines.append(preamble)
    lines.append("## Todos")
    for number, (name, files, criteria) in enumerate(todos, 1):
        lines.append(f"- [ ] {number}. {name}")
        lines.append("  - Files: [" + ", ".join(f"`{f}`" for f in files) + "]")
        lines.append("  - Acceptance criteria:")
        lines.extend(f"    - {criterion}" for criterion in criteria)
    if final:
        lines.append("## Final verification wave")
        lines.extend(f"- [ ] F{number}. {name}" for number, name in enumerate(final, 1))
    if epilogue:
        lines.append(epilogue)
    return "\n".join(lines) + "\n"


def corpus_candidates(name: str, repo: Path = REPO_ROOT, levels: int = 4) -> list[Path]:
    """Where `shared_corpus` looks, in order: `<repo>/../shared/corpus/`, then
    `shared/corpus/` in up to `levels` further parents, then $ZODYSSEY_SHARED_CORPUS
    (a directory holding the file, or the file itself)."""
    found = [repo.parent / "shared" / "corpus" / name]
    found += [parent / "shared" / "corpus" / name for parent in repo.parents[1 : 1 + levels]]
    override = os.environ.get("ZODYSSEY_SHARED_CORPUS")
    if override:
        given = Path(override)
        found.append(given / name if given.is_dir() else given)
    return found


def find_shared_corpus(name: str = "bash-public.jsonl", repo: Path = REPO_ROOT) -> Path | None:
    """The first of `corpus_candidates` that is a file, or None (for collection time)."""
    return next((path for path in corpus_candidates(name, repo) if path.is_file()), None)


def shared_corpus(name: str = "bash-public.jsonl", repo: Path = REPO_ROOT) -> Path:
    found = find_shared_corpus(name, repo)
    if found is not None:
        return found
    candidates = corpus_candidates(name, repo)
    why = f"shared corpus {name} not found (looked in {', '.join(map(str, candidates))}; set ZODYSSEY_SHARED_CORPUS)"
    if os.environ.get("CI"):
        pytest.fail(why)
    pytest.skip(why)


def fifo_at(path: Path) -> Path:
    """A named pipe nobody writes at `path` (replacing a file or symlink there): a
    reader that opens it blocks, so a test of a refusal fails by its timeout."""
    if path.exists() or path.is_symlink():
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return path


def assert_one_line_error(
    done: subprocess.CompletedProcess[str], code: int, *, parts: int = 1
) -> None:
    """The documented exit code and one error line (per part of `zodyssey check`),
    never a traceback."""
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == code, (done.returncode, done.stdout, done.stderr)
    errors = [line for line in done.stderr.splitlines() if "error:" in line]
    assert 1 <= len(errors) <= parts, done.stderr


def js_checkout() -> Path | None:
    """A checkout of the JavaScript tool we replace (github.com/amartinawi/zodyssey), named by
    `ZODYSSEY_JS_CHECKOUT`; None when unset or missing. Tests that compare with it skip then."""
    value = os.environ.get("ZODYSSEY_JS_CHECKOUT") or os.environ.get("ZODYSSEY_JS_PIPELINE")
    if not value:
        return None
    path = Path(value)
    return path if path.is_dir() else None


def fresh_venv(path: Path) -> Path:
    """A venv with zodyssey's dependencies (linked from this one, offline) but no
    zodyssey; returns its bin directory."""
    import site

    own = ("zodyssey", "_zodyssey", "_editable_impl_zodyssey", "__editable__")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    (target,) = path.glob("lib/python3*/site-packages")
    for outer in site.getsitepackages():
        for entry in Path(outer).iterdir():
            if entry.name.startswith(own) or entry.suffix == ".pth":
                continue
            link = target / entry.name
            if not link.exists():
                link.symlink_to(entry)
    return path / "bin"


# What a copy of this checkout leaves out: git, virtualenvs, caches, build output, bench/.
CHECKOUT_LEFT_OUT = (
    ".git",
    ".nox",
    ".venv",
    "*_cache",
    "__pycache__",
    "*.egg-info",
    "build",
    "dist",
    "bench",
)


def copy_checkout(dest: Path) -> Path:
    """A copy of this checkout's source at `dest` (no git, caches or build output)."""
    shutil.copytree(REPO_ROOT, dest, ignore=shutil.ignore_patterns(*CHECKOUT_LEFT_OUT))
    return dest


def build_wheel(out: Path) -> Path:
    """A wheel of this checkout, built without build isolation into `out/dist`."""
    source = copy_checkout(out / "src")
    subprocess.run(
        [
            *(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"),
            *("-w", str(out / "dist"), str(source)),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = (out / "dist").glob("zodyssey-*.whl")
    return wheel


class CheckoutRepos:
    """`checkout_repo(dest)`: this checkout's source (as `copy_checkout` copies it)
    committed in a new git repository at `dest`, with no remote. The copy and its
    commit are made once per session; each call is a local clone of that commit."""

    def __init__(self, template: Path) -> None:
        self.template = template

    def __call__(self, dest: Path) -> Path:
        git(dest.parent, "clone", "-q", str(self.template), str(dest))
        git(dest, "remote", "remove", "origin")
        git(dest, "config", "user.email", GIT_IDENTITY["GIT_AUTHOR_EMAIL"])
        git(dest, "config", "user.name", GIT_IDENTITY["GIT_AUTHOR_NAME"])
        git(dest, "config", "commit.gpgsign", "false")
        return dest
