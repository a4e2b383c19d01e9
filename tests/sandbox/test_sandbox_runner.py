"""The Landlock write sandbox, with real writes under a real kernel ruleset.

Each test runs `zodyssey sandbox --run demo -- bash -c ...` as a process in a
real git repository holding run `demo`, then compares every file of the
repository (`.git` included) with what it was before: the kernel, not the
parser, decides what was written.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import clean_env, git
from tests.helpers.gate import RunRepo, make_run_repo
from zodyssey.sandbox import grants as grants_module
from zodyssey.sandbox import landlock
from zodyssey.sandbox.runner import EXIT_NOT_FOUND, EXIT_SANDBOX

ABI = landlock.abi_version()
needs_landlock = pytest.mark.skipif(
    ABI < 1 and not os.environ.get("CI"), reason="Landlock is not available on this kernel"
)
BOOKKEEPING = (".zcode/notepads/", ".zcode/staging/")


def sandboxed(repo: RunRepo, script: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "zodyssey", "sandbox", "--run", "demo", "--", "bash", "-c", script],
        cwd=repo.root,
        capture_output=True,
        text=True,
        env=clean_env(**env),
        timeout=60,
        check=False,
    )


def tree(root: Path) -> dict[str, str]:
    """Digest of every file and link below root, `.git` included, bookkeeping left out."""
    out: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if any((rel + "/").startswith(b) for b in BOOKKEEPING):
            continue
        if path.is_symlink():
            out[rel] = "link:" + os.readlink(path)
        elif path.is_file():
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
        elif path.is_dir():
            out[rel] = "dir"
    return out


def committed_repo(tmp_path: Path, **kwargs: object) -> RunRepo:
    repo = make_run_repo(tmp_path, **kwargs)  # type: ignore[arg-type]
    (repo.root / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    git(repo.root, "add", "-A", "--", ".", ":(exclude).zcode")
    git(repo.root, "commit", "-q", "-m", "initial")
    return repo


@needs_landlock
def test_explain_reports_the_abi_and_the_grants(tmp_path: Path) -> None:
    repo = committed_repo(tmp_path, phase="plan", verdict=None)
    done = subprocess.run(
        [sys.executable, "-m", "zodyssey", "sandbox", "--run", "demo", "--explain"],
        cwd=repo.root,
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert f"Landlock ABI {ABI}" in done.stdout
    assert "no product path is writable: the review has not said OKAY" in done.stdout
    assert f"protected: {repo.root / '.zcode' / 'state'}" in done.stdout


@needs_landlock
def test_before_okay_product_is_denied_by_the_kernel_and_bookkeeping_works(
    tmp_path: Path,
) -> None:
    repo = committed_repo(tmp_path, phase="plan", verdict=None)
    before = tree(repo.root)
    done = sandboxed(
        repo,
        "echo pwned > src/server.py; echo pwned > README.md; echo pwned > new.py;"
        "echo note >> .zcode/notepads/n.md; echo draft >> .zcode/plans/demo.md;"
        'echo t > "$TMPDIR/t" && echo temp-ok',
    )
    assert "src/server.py: Permission denied" in done.stderr
    assert "README.md: Permission denied" in done.stderr
    assert "new.py: Permission denied" in done.stderr
    assert "temp-ok" in done.stdout
    after = tree(repo.root)
    changed = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
    assert changed == {".zcode/plans/demo.md"}  # the plan is writable until OKAY
    assert (repo.root / ".zcode/notepads/n.md").read_text() == "note\n"


@pytest.mark.claim("sandbox-protected-never-written")
@needs_landlock
def test_after_okay_declared_files_are_writable_and_protected_paths_are_not(
    tmp_path: Path,
) -> None:
    repo = committed_repo(tmp_path)
    before = tree(repo.root)
    done = sandboxed(
        repo,
        "sed -i s/x/done/ src/server.py && echo sed-ok;"
        "echo api >> docs/api.md && echo append-ok;"
        "echo pwned > README.md; echo pwned > .zcode/plans/demo.md;"
        "echo pwned > .zcode/state/demo.json; echo pwned > pyproject.toml;"
        "echo pwned >> .git/config; rm -f .git/HEAD; mkdir .claude",
    )
    assert "sed-ok" in done.stdout and "append-ok" in done.stdout, done.stderr
    for name in ("README.md", ".zcode/plans/demo.md", ".zcode/state/demo.json", "pyproject.toml"):
        assert f"{name}: Permission denied" in done.stderr
    after = tree(repo.root)
    changed = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
    assert changed == {"src/server.py", "docs/api.md"}
    assert (repo.root / "src/server.py").read_text() == "done\n"


@needs_landlock
def test_the_parent_grant_reaches_undeclared_siblings_which_the_post_call_check_owns(
    tmp_path: Path,
) -> None:
    """The stated limit: a declared file's directory is granted for creating and
    replacing files, so the kernel lets an undeclared sibling be created there."""
    repo = committed_repo(tmp_path)
    done = sandboxed(repo, "echo x > src/undeclared.py && echo made")
    assert "made" in done.stdout
    grants = grants_module.compute(str(repo.root), "demo", repo.state())
    assert (
        str(repo.root / "src"),
        landlock.FILES_IN_DIR,
        f"creating/replacing declared {repo.root / 'src/server.py'}",
    ) in grants.grants


@needs_landlock
@pytest.mark.parametrize(
    "change",
    [
        {"phase": "blocked"},
        {"plan_sha256": "0" * 64},
    ],
    ids=["blocked", "plan-changed"],
)
def test_no_product_grant_when_the_run_is_closed(tmp_path: Path, change: dict[str, str]) -> None:
    repo = committed_repo(tmp_path)
    repo.set(**change)
    before = tree(repo.root)
    done = sandboxed(repo, "echo pwned > src/server.py")
    assert "Permission denied" in done.stderr
    assert tree(repo.root) == before


@needs_landlock
def test_tests_are_frozen_in_verify(tmp_path: Path) -> None:
    repo = committed_repo(tmp_path, phase="verify")
    before = tree(repo.root)
    done = sandboxed(repo, "echo pwned > tests/test_server.py; echo fixed > src/server.py")
    assert "tests/test_server.py: Permission denied" in done.stderr
    after = tree(repo.root)
    assert {k for k in after if before.get(k) != after.get(k)} == {"src/server.py"}


# The red team's categories (issue 22): forms the text classifier misjudges.
# Under the sandbox each may run; none may change product or protected files.
RED_TEAM = [
    "pushd -n .zcode/staging >/dev/null; echo pwned > README.md",
    "pushd -n .zcode/staging >/dev/null; pushd +1 >/dev/null; echo pwned > src/server.py",
    "eval 'cd src'; echo pwned > server.py",
    "trap 'cd src' DEBUG; echo pwned > server.py",
    "cd() { builtin cd src; }; cd .zcode/staging; echo pwned > server.py",
    "cd .zcode/staging && cd ~- && echo pwned > README.md",
    "cd .zcode/staging && cd /proc/self/cwd && echo pwned > ../state/demo.json",
    "compgen -C 'touch pwned-compgen' x",
    "jobs -x touch pwned-jobs",
    "vim -es -u NONE -c '%s/x/pwned/' -c 'wq' src/server.py < /dev/null",
    "printf '1c\\npwned\\n.\\nw\\nq\\n' | ed -s README.md",
    "ex -s -u NONE -c '%s/x/pwned/' -c 'wq' README.md < /dev/null",
    "awk 'BEGIN { x = 4; y = 2; print x / 2; system(\"echo pwned > README.md\"); print y / 1 }'",
    "xxd -cols 16 README.md src/server.py",
    "gzip -- src/server.py -c",
    "zstd -q --rm -- README.md",
    "[[ 'a[$(echo pwned > README.md)]' -eq 0 ]]",
    "x='a[$(touch pwned-arith)]'; echo $(( x ))",
    "python3 -c \"open('src/server.py', 'w').write('pwned')\"",
    "git -c core.fsmonitor='echo pwned > README.md' status",
    "truncate -s 0 .zcode/state/demo.json",
    "rm -rf .zcode/state .zcode/reviews .git",
    "mv .zcode/state/demo.json .zcode/staging/stolen.json",
    "ln -sf /dev/null .zcode/state/demo.json",
    "cp /dev/null pyproject.toml",
    "mkdir -p .claude && echo '{}' > .claude/settings.json",
    'echo \'{"phase": "done"}\' > .zcode/state/demo.json',
    "echo pwned > .zcode/verify/evidence.jsonl",
    "touch -d '2000-01-01' README.md; chmod 600 README.md; echo pwned >> README.md",
]


@pytest.mark.claim("sandbox-protected-never-written")
@needs_landlock
@pytest.mark.parametrize("phase,verdict", [("plan", None), ("execute", "OKAY")])
def test_red_team_forms_change_no_product_or_protected_file(
    tmp_path: Path, phase: str, verdict: str | None
) -> None:
    repo = committed_repo(tmp_path, phase=phase, verdict=verdict)
    (repo.root / ".zcode" / "verify").mkdir()
    before = tree(repo.root)
    state_before = repo.state_path.read_bytes()
    for command in RED_TEAM:
        sandboxed(repo, command)
    after = tree(repo.root)
    changed = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
    # After OKAY the declared file may change (that is scope); nothing else may.
    allowed = {"src/server.py", "src/server.py.gz"} if verdict == "OKAY" else set()
    assert changed <= allowed, sorted(changed - allowed)
    # chmod/utime are not file writes to Landlock: the mode may differ, the bytes do not
    assert repo.state_path.read_bytes() == state_before
    assert not list(repo.root.rglob("pwned*"))


@needs_landlock
def test_a_nested_sandbox_only_narrows(tmp_path: Path) -> None:
    """A command inside the sandbox starting `zodyssey sandbox` again gains nothing."""
    repo = committed_repo(tmp_path, phase="plan", verdict=None)
    inner = f"{sys.executable} -m zodyssey sandbox --run demo -- bash -c 'echo pwned > README.md'"
    done = sandboxed(repo, inner)
    assert "README.md: Permission denied" in done.stderr
    assert (repo.root / "README.md").read_text() == "x\n"


def run_cli(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "zodyssey", "sandbox", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize(
    "args,message",
    [
        (["--run", "nope", "--", "true"], "no run nope found"),
        (["--run", "BAD", "--", "true"], "needs a run slug"),
        (["--run", "demo"], "no command after `--`"),
        (["--run", "demo", "--frobnicate", "--", "true"], "unknown argument"),
    ],
)
def test_bad_input_is_one_line_and_exit_125(tmp_path: Path, args: list[str], message: str) -> None:
    repo = committed_repo(tmp_path)
    done = run_cli(repo.root, *args)
    assert done.returncode == EXIT_SANDBOX
    assert message in done.stderr
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_finished_or_unreadable_run_is_refused(tmp_path: Path) -> None:
    repo = committed_repo(tmp_path)
    repo.set(phase="done")
    done = run_cli(repo.root, "--run", "demo", "--", "true")
    assert done.returncode == EXIT_SANDBOX and "not active" in done.stderr
    repo.state_path.write_text("{not json")
    done = run_cli(repo.root, "--run", "demo", "--", "true")
    assert done.returncode == EXIT_SANDBOX and "unreadable" in done.stderr


@needs_landlock
def test_exit_status_is_the_commands_own(tmp_path: Path) -> None:
    repo = committed_repo(tmp_path)
    assert run_cli(repo.root, "--run", "demo", "--", "bash", "-c", "exit 7").returncode == 7
    missing = run_cli(repo.root, "--run", "demo", "--", "no-such-program-zz")
    assert missing.returncode == EXIT_NOT_FOUND


@pytest.mark.claim("sandbox-protected-never-written")
@pytest.mark.parametrize("phase,verdict", [("plan", None), ("execute", "OKAY"), ("verify", "OKAY")])
def test_no_grant_reaches_a_protected_path(tmp_path: Path, phase: str, verdict: str | None) -> None:
    """The invariant the guarantee rests on, for a plan that declares the root's
    files, `.git`, the plan itself and the state folder."""
    from tests.helpers import plan as make_plan

    text = make_plan(
        "Greedy",
        [
            (
                "Everything",
                ["README.md", ".git/config", ".zcode/state/", ".zcode/plans/demo.md", "./", "src/"],
                ["`true`"],
            )
        ],
    )
    repo = committed_repo(tmp_path, phase=phase, verdict=verdict, plan=text)
    result = grants_module.compute(str(repo.root), "demo", repo.state())
    assert result.grants
    for path, _, why in result.grants:
        for protected in result.protected:
            assert not (path == protected or path.startswith(protected + "/")), (why, path)
            assert not protected.startswith(path.rstrip("/") + "/"), (why, path, protected)
    assert str(repo.root) not in {p for p, _, _ in result.grants}
    assert json.dumps(result.protected)  # plain strings


def test_run_start_says_whether_commands_can_be_sandboxed(tmp_path: Path) -> None:
    from tests.helpers.runs import make_repo as make_runs_repo

    repo = make_runs_repo(tmp_path / "r")
    result = repo.run("start", "demo")
    assert result.code == 0, result.text
    expected = f"Landlock ABI {ABI}" if ABI else "Landlock is not available here"
    assert expected in result.out
