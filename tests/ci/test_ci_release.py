"""A release that installs: one version, pinned everywhere, built, tested and tagged.

The release workflow's `run:` steps are run here in order, job by job, in a
copy of this repository made into its own git repository with a bare origin:
the commands, not GitHub (`uses:` steps are GitHub's; artifacts stay in the
working directory). The pre-commit hooks are installed by pre-commit itself
from a local clone at a tag.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.helpers import GIT_IDENTITY, REPO_ROOT, CheckoutRepos, git, make_repo, run_zodyssey
from zodyssey import HOMEPAGE, __version__

RELEASE = REPO_ROOT / ".github" / "workflows" / "release.yml"
MAJOR = __version__.split(".", 1)[0]

# Every file a user copies or includes, and the docs that show them.
PINNED = [
    "ci/github/zodyssey.yml",
    "ci/github/zodyssey-shards.yml",
    "ci/github/zodyssey-drill-matrix.yml",
    "ci/gitlab/zodyssey.gitlab-ci.yml",
    "ci/gitlab/zodyssey-shards.gitlab-ci.yml",
    "ci/noxfile_example.py",
    "action.yml",
    ".pre-commit-hooks.yaml",
    "zodyssey/templates/github-workflow.yml",
    "docs/ci.md",
    "docs/getting-started.md",
]

PIN_PATTERNS = {
    # pattern: what its group must equal
    r"zodyssey==(\d[\w.]*)": __version__,
    r"\brev: v(\d[\w.]*)": __version__,
    r"zodyssey/zodyssey/v(\d[\w.]*)/": __version__,
    r"zodyssey/zodyssey@v(\d+\.\d+\.\d+)\b": __version__,
    r"zodyssey/zodyssey@v(\d+)\b(?!\.)": MAJOR,
    r"zodyssey-(\d+\.\d+\.\d+)-py3-none-any\.whl": __version__,
}


def load(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def test_every_template_pins_the_one_version() -> None:
    pyproject = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["project"]["dynamic"] == ["version"]
    assert pyproject["tool"]["hatch"]["version"]["path"] == "zodyssey/__init__.py"
    assert "version" not in pyproject["project"]
    for rel in PINNED:
        text = (REPO_ROOT / rel).read_text(encoding="utf-8")
        pins = 0
        for pattern, expected in PIN_PATTERNS.items():
            for match in re.finditer(pattern, text):
                assert match.group(1) == expected, (
                    f"{rel}: {match.group(0)} (version {__version__})"
                )
                pins += 1
        assert pins, f"{rel} pins no version"
        assert "@main" not in text, f"{rel} installs a moving branch"


def test_project_urls_name_the_public_home() -> None:
    pyproject = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    urls = pyproject["project"]["urls"]
    assert urls["Homepage"] == HOMEPAGE == urls["Repository"]
    assert all(url.startswith(HOMEPAGE) for url in urls.values())
    # The docs and templates install from the same home (other projects' links aside).
    for rel in PINNED:
        text = (REPO_ROOT / rel).read_text(encoding="utf-8")
        for url in re.findall(r"https://github\.com/[\w.-]+/zodyssey\b", text):
            assert url == HOMEPAGE, (rel, url)


def test_changelog_has_the_version() -> None:
    text = (REPO_ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"^## \[{re.escape(__version__)}\]", text, re.MULTILINE)


def test_release_workflow_shape() -> None:
    workflow = load(RELEASE)
    jobs = workflow["jobs"]
    assert list(jobs) == ["build", "verify", "publish", "tag"]
    assert jobs["verify"]["needs"] == "build"
    assert jobs["publish"]["needs"] == "verify"
    assert jobs["tag"]["needs"] == "publish"
    assert workflow["permissions"] == {"contents": "read"}
    # Trusted publishing: an OIDC token, no secret anywhere.
    assert jobs["publish"]["permissions"] == {"id-token": "write"}
    assert jobs["publish"]["environment"]["name"] == "pypi"
    uses = [s.get("uses", "") for s in jobs["publish"]["steps"]]
    assert uses[-1].startswith("pypa/gh-action-pypi-publish@")  # pinned: test_ci_hardened.py
    assert "secrets." not in RELEASE.read_text(encoding="utf-8")
    assert jobs["tag"]["permissions"] == {"contents": "write"}
    for job in jobs.values():
        for step in job["steps"]:
            assert "${{" not in step.get("run", ""), step["run"]


# ---------------------------------------------------------------- running the commands


class Runner:
    """Runs a workflow job's `run:` steps as the runner would: bash, GITHUB_ENV and PATH."""

    def __init__(self, work: Path, temp: Path, base_env: dict[str, str]) -> None:
        self.work = work
        self.temp = temp
        self.base = base_env
        self.log: list[tuple[str, str, int]] = []

    def job(self, workflow: dict[str, Any], name: str, overrides: dict[str, str]) -> list[int]:
        job = workflow["jobs"][name]
        github_env = self.temp / f"{name}.env"
        github_path = self.temp / f"{name}.path"
        github_env.write_text("")
        github_path.write_text("")
        codes: list[int] = []
        for step in job["steps"]:
            if "run" not in step:
                continue
            env = dict(self.base)
            env.update({k: str(v) for k, v in job.get("env", {}).items()})
            env.update(overrides)
            for line in github_env.read_text().splitlines():
                key, _, value = line.partition("=")
                env[key] = value
            extra = [p for p in github_path.read_text().splitlines() if p]
            env["PATH"] = os.pathsep.join([*reversed(extra), env["PATH"]])
            env.update(
                {
                    "GITHUB_ENV": str(github_env),
                    "GITHUB_PATH": str(github_path),
                    "RUNNER_TEMP": str(self.temp),
                }
            )
            done = subprocess.run(
                ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
                cwd=self.work,
                env=env,
                capture_output=True,
                text=True,
                timeout=900,
            )
            self.log.append((f"{name}: {step['name']}", done.stdout + done.stderr, done.returncode))
            codes.append(done.returncode)
            if done.returncode != 0:
                break
        return codes

    def failure(self) -> str:
        return "\n".join(f"== {n} (exit {c})\n{out[-3000:]}" for n, out, c in self.log)


def base_env(venv_bin: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PYTEST_", "VIRTUAL_ENV", "GITHUB_", "PYTHON", "COV_"))
    }
    env.update(GIT_IDENTITY)
    env["PATH"] = f"{venv_bin}{os.pathsep}{env['PATH']}"
    env["NO_COLOR"] = "1"
    return env


@pytest.mark.slow
def test_release_steps_run_in_order_in_a_fresh_venv(
    tmp_path: Path, checkout_repo: CheckoutRepos
) -> None:
    work = checkout_repo(tmp_path / "zodyssey")
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", str(origin))
    git(work, "remote", "add", "origin", str(origin))
    git(work, "push", "-q", "origin", "main")
    # The runner's Python: a fresh environment with pip and nothing else. virtualenv
    # (nox's dependency) seeds pip from its cache: 0.4 s of CPU where the stdlib venv's
    # ensurepip takes 7 s; the workflow's own `python -m venv` below is unchanged.
    seed = ("-q", "--no-setuptools", "--no-wheel")
    subprocess.run(
        [sys.executable, "-m", "virtualenv", *seed, str(tmp_path / "runner")], check=True
    )
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    runner = Runner(work, temp, base_env(tmp_path / "runner" / "bin"))
    workflow = load(work / ".github/workflows/release.yml")

    # A few tests stand in for the suite: the full run is the release's, not this test's.
    subset = {"RELEASE_PYTEST_ARGS": "tests/ci/test_ci_help.py tests/ci/test_ci_manifests.py"}
    assert set(runner.job(workflow, "build", {})) == {0}, runner.failure()
    wheel = work / "dist" / f"zodyssey-{__version__}-py3-none-any.whl"
    assert wheel.is_file() and (work / "dist" / f"zodyssey-{__version__}.tar.gz").is_file()
    assert set(runner.job(workflow, "verify", subset)) == {0}, runner.failure()
    out = runner.failure()
    assert str(temp / "release-venv") in out, "zodyssey was not imported from the fresh venv"
    assert re.search(r"\d+ passed", out), out[-2000:]
    # publish is GitHub's (an action and an OIDC token); tagging is ours.
    assert set(runner.job(workflow, "tag", {})) == {0}, runner.failure()
    head = git(work, "rev-parse", "HEAD").strip()
    tags = git(origin, "for-each-ref", "--format=%(refname:short) %(*objectname)", "refs/tags")
    assert f"v{__version__} {head}" in tags and f"v{MAJOR} {head}" in tags, tags

    # A released version is refused before anything is built.
    git(work, "fetch", "-q", "--tags", "origin")
    shutil.rmtree(work / "dist")
    assert runner.job(workflow, "build", {})[-1] == 1
    assert "tagged already" in runner.log[-1][1]
    assert not (work / "dist").exists()

    # The next release: v0.x.y is new, the major tag moves, the old tag stays.
    bumped = __version__.rsplit(".", 1)[0] + "." + str(int(__version__.rsplit(".", 1)[1]) + 1)
    init = work / "zodyssey" / "__init__.py"
    init.write_text(init.read_text().replace(f'"{__version__}"', f'"{bumped}"'))
    git(work, "commit", "-qam", f"Release {bumped}")
    assert set(runner.job(workflow, "tag", {})) == {0}, runner.failure()
    new_head = git(work, "rev-parse", "HEAD").strip()
    tags = git(origin, "for-each-ref", "--format=%(refname:short) %(*objectname)", "refs/tags")
    assert f"v{__version__} {head}" in tags, tags
    assert f"v{bumped} {new_head}" in tags and f"v{MAJOR} {new_head}" in tags, tags


PRE_COMMIT_CONFIG = """repos:
  - repo: {repo}
    rev: v{version}
    hooks:
      - id: check-anchors
      - id: zodyssey-claims
"""

README = "# demo\n\nThe answer is kept. <!-- claim: answer-kept -->\n"
TEST = (
    "import pytest\n\n\n@pytest.mark.claim('answer-kept')\ndef test_answer():\n"
    "    assert 42 == 42\n"
)


@pytest.mark.slow
def test_pre_commit_hooks_install_from_a_clone_at_the_tag(
    tmp_path: Path, checkout_repo: CheckoutRepos
) -> None:
    pre_commit = shutil.which("pre-commit", path=str(Path(sys.executable).parent))
    assert pre_commit, "pre-commit is a test dependency (pyproject.toml [test])"
    clone = checkout_repo(tmp_path / "zodyssey")
    git(clone, "tag", f"v{__version__}")
    # What a user's .pre-commit-config.yaml says, with the clone as the repository.
    user = make_repo(tmp_path / "user", commit=False)
    assert run_zodyssey("init", cwd=user).returncode == 0
    (user / "README.md").write_text(README, encoding="utf-8")
    (user / "tests").mkdir()
    (user / "tests" / "test_answer.py").write_text(TEST, encoding="utf-8")
    assert run_zodyssey("claims", "update", cwd=user).returncode == 0
    (user / ".pre-commit-config.yaml").write_text(
        PRE_COMMIT_CONFIG.format(repo=clone, version=__version__), encoding="utf-8"
    )
    git(user, "add", "-A")
    git(user, "commit", "-qm", "set up")
    env = base_env(Path(sys.executable).parent)
    env["PRE_COMMIT_HOME"] = str(tmp_path / "pre-commit-home")

    def pre_commit_run() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [pre_commit, "run", "--all-files"],
            cwd=user,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )

    passed = pre_commit_run()
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert re.search(r"citation lock \(check-anchors\)\.+Passed", passed.stdout), passed.stdout
    assert re.search(r"claims ledger .*\.+Passed", passed.stdout), passed.stdout
    config = user / ".zodyssey.toml"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace('.lock.json"\n', '.lock.json" # moved?\n', 1), encoding="utf-8")
    failed = pre_commit_run()
    assert failed.returncode != 0
    assert re.search(r"citation lock \(check-anchors\)\.+Failed", failed.stdout), failed.stdout
