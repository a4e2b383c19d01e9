"""The CI files users copy parse, and every command they run exists.

Each command line a manifest runs is taken out of its shell text and handed to
the real `zodyssey` argument parser, so a renamed subcommand or a dropped flag
fails here instead of in a user's CI.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from zodyssey import __version__
from zodyssey.cli import build_parser

REPO = Path(__file__).resolve().parents[2]
WORKFLOW = REPO / "ci" / "github" / "zodyssey.yml"
ACTION = REPO / "action.yml"
PRE_COMMIT = REPO / ".pre-commit-hooks.yaml"
GITLAB = REPO / "ci" / "gitlab" / "zodyssey.gitlab-ci.yml"
NOX_EXAMPLE = REPO / "ci" / "noxfile_example.py"
PACKAGED_WORKFLOW = REPO / "zodyssey" / "templates" / "github-workflow.yml"
SHARDS_WORKFLOW = REPO / "ci" / "github" / "zodyssey-shards.yml"
GITLAB_SHARDS = REPO / "ci" / "gitlab" / "zodyssey-shards.gitlab-ci.yml"
INSTALL_STEP = "Install the project, its test dependencies and zodyssey"
CHECK_STEP = (
    "mkdir -p zodyssey-reports\n"
    "zodyssey check --format github --report junit=zodyssey-reports/check.junit.xml "
    "--report sarif=zodyssey-reports/check.sarif\n"
)

# Values substituted for shell variables before a command line is parsed.
SHELL_VALUES = {
    "RUN_SLUG": "demo-run",
    "ZODYSSEY_RUN_SLUG": "demo-run",
    "ZODYSSEY_ARGS": "",
    "ZODYSSEY_DRILL": "--drill",
}


def load_yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def console_scripts() -> set[str]:
    data = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return set(data["project"]["scripts"])


def zodyssey_commands(script: str) -> list[list[str]]:
    """The argv of every `zodyssey ...` / `check-anchors ...` command in a shell script."""
    found: list[list[str]] = []
    for raw in script.splitlines():
        line = raw.strip()
        if line.startswith("- "):
            line = line[2:]
        if not re.match(r"(zodyssey|check-anchors)(\s|$)", line):
            continue
        if line.split("#", 1)[0].split() == ["zodyssey", "--version"]:
            continue  # argparse's own action, nothing to run
        for name, value in SHELL_VALUES.items():
            line = line.replace(f'"${name}"', value).replace(f"${name}", value)
        words = shlex.split(line, comments=True)
        argv: list[str] = []
        for word in words:
            # Everything from a redirection or a list operator on is shell, not argv.
            if word in {">", ">>", "||", "&&", "|", "2>&1"} or word.startswith(">"):
                break
            argv.append(word)
        found.append(argv)
    return found


def assert_parses(argv: list[str]) -> None:
    """The real parser accepts the command (exit 2 from argparse fails the test)."""
    assert argv[0] in console_scripts(), f"{argv[0]} is not a console script in pyproject.toml"
    rest = argv[1:]
    if argv[0] == "check-anchors":
        rest = ["anchors", "check", *rest]
    try:
        namespace = build_parser().parse_args(rest)
    except SystemExit as exc:  # argparse reports bad arguments by exiting
        pytest.fail(f"`{' '.join(argv)}` is rejected by the zodyssey parser (exit {exc.code})")
    assert getattr(namespace, "handler", None) is not None, f"`{' '.join(argv)}` runs nothing"


def workflow_scripts(workflow: dict[str, Any]) -> list[str]:
    return [
        step["run"] for job in workflow["jobs"].values() for step in job["steps"] if "run" in step
    ]


# ---------------------------------------------------------------- GitHub workflow


def test_workflow_has_check_and_audit_jobs() -> None:
    workflow = load_yaml(WORKFLOW)
    # YAML 1.1 reads the bare key `on` as the boolean true.
    triggers = workflow.get("on", workflow.get(True))
    assert "pull_request" in triggers and "push" in triggers
    assert set(workflow["jobs"]) == {"check", "audit"}
    check_runs = [s.get("run", "") for s in workflow["jobs"]["check"]["steps"]]
    assert [r for r in check_runs if "zodyssey check" in r] == [CHECK_STEP]
    # One run of the parts writes the annotations and both files the later steps use.
    (argv,) = zodyssey_commands(CHECK_STEP)
    assert argv[:4] == ["zodyssey", "check", "--format", "github"]
    assert_parses(argv)
    reports = dict(a.split("=", 1) for a in argv[4:] if a != "--report")
    assert reports == {
        "junit": "zodyssey-reports/check.junit.xml",
        "sarif": "zodyssey-reports/check.sarif",
    }
    sarif_step = next(s for s in workflow["jobs"]["check"]["steps"] if "upload-sarif" in str(s))
    assert sarif_step["with"]["sarif_file"] == reports["sarif"]
    uses = [s.get("uses", "") for s in workflow["jobs"]["check"]["steps"]]
    assert any(u.startswith("github/codeql-action/upload-sarif@") for u in uses)
    assert any(u.startswith("actions/upload-artifact@") for u in uses)
    audit_runs = "\n".join(s.get("run", "") for s in workflow["jobs"]["audit"]["steps"])
    assert '--format markdown >> "$GITHUB_STEP_SUMMARY"' in audit_runs
    assert "--format junit" in audit_runs and "--format html" in audit_runs


def test_workflow_runs_the_strict_claims_check() -> None:
    # The static check never runs a test: a claim whose only test is skipped stays
    # green unless the workflow also runs the tests strictly.
    for path in (WORKFLOW, PACKAGED_WORKFLOW):
        steps = load_yaml(path)["jobs"]["check"]["steps"]
        runs = [s.get("run", "") for s in steps]
        assert "zodyssey claims test" in runs, path
        assert runs.index("zodyssey claims test") > runs.index(CHECK_STEP)


def _pip_lines(scripts: list[str]) -> list[str]:
    return [
        line
        for script in scripts
        for line in script.splitlines()
        if "pip install" in line and not line.lstrip().startswith("#")
    ]


def _gitlab_scripts(template: dict[str, Any]) -> list[str]:
    return [
        line
        for job in template.values()
        if isinstance(job, dict)
        for key in ("before_script", "script")
        for line in job.get(key, [])
    ]


def test_install_line_is_one_setting_defaulting_to_the_release() -> None:
    """Every pip install of zodyssey in a shipped file goes through ZODYSSEY_INSTALL."""
    pinned = f"zodyssey=={__version__}"
    workflow = load_yaml(WORKFLOW)
    assert workflow["env"]["ZODYSSEY_INSTALL"] == f"${{{{ vars.ZODYSSEY_INSTALL || '{pinned}' }}}}"
    assert workflow["env"]["ZODYSSEY_TEST_INSTALL"] == "${{ vars.ZODYSSEY_TEST_INSTALL || 'auto' }}"
    gitlab = load_yaml(GITLAB)
    assert "variables" not in gitlab, "top-level variables are global for the whole pipeline"
    assert gitlab[".zodyssey-base"]["variables"]["ZODYSSEY_INSTALL"] == pinned
    assert gitlab[".zodyssey-base"]["variables"]["ZODYSSEY_TEST_INSTALL"] == "auto"
    action = load_yaml(ACTION)
    assert action["inputs"]["install"]["default"] == "auto"
    assert action["inputs"]["zodyssey"]["default"] == ""
    install_step = next(s for s in action["runs"]["steps"] if s.get("name") == INSTALL_STEP)
    assert install_step["env"]["ZODYSSEY_INPUT"] == "${{ inputs.zodyssey }}"
    assert install_step["env"]["ZODYSSEY_TEST_INSTALL"] == "${{ inputs.install }}"
    shipped = {
        WORKFLOW: workflow_scripts(workflow),
        GITLAB: _gitlab_scripts(gitlab),
        ACTION: [s["run"] for s in action["runs"]["steps"] if "run" in s],
    }
    for path, scripts in shipped.items():
        lines = [line for line in _pip_lines(scripts) if "ZODYSSEY_TEST_INSTALL=" not in line]
        assert lines, path
        for line in lines:
            assert '"$ZODYSSEY_INSTALL"' in line, (path, line)
            assert not re.search(
                r"pip install[^\n]*\bzodyssey\b(?!_)", line.replace("$ZODYSSEY_INSTALL", "")
            ), (
                path,
                line,
            )


def install_script(text: str) -> str:
    """The shared install script of a shipped file, without indentation or its preamble."""
    start = text.index('if [ "$ZODYSSEY_TEST_INSTALL" = auto ]')
    indent = text.rfind("\n", 0, start) + 1
    width = start - indent
    lines = []
    for line in text[indent:].splitlines():
        if line.strip() and not line.startswith(" " * width):
            break
        lines.append(line[width:])
    return "\n".join(lines).rstrip().replace("pytest pytest-split", "pytest")


def test_every_file_installs_the_project_with_one_script() -> None:
    scripts = {
        path: install_script(path.read_text(encoding="utf-8"))
        for path in (WORKFLOW, SHARDS_WORKFLOW, ACTION, GITLAB, GITLAB_SHARDS, PACKAGED_WORKFLOW)
    }
    first = scripts[WORKFLOW]
    assert first.endswith("zodyssey --version")
    for path, script in scripts.items():
        assert script == first, path


def run_install(
    tmp_path: Path, files: dict[str, str], env: dict[str, str], *, with_pip: bool = True
) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """The action's install step in a project with `files`, stub python/uv/poetry logging."""
    import os

    steps = load_yaml(ACTION)["runs"]["steps"]
    script = next(s for s in steps if s.get("name") == INSTALL_STEP)["run"]
    project = tmp_path / "project"
    shutil.rmtree(project, ignore_errors=True)
    project.mkdir()
    for rel, text in files.items():
        (project / rel).write_text(text)
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    log = tmp_path / "calls.log"
    log.unlink(missing_ok=True)
    pip_check = (
        "" if with_pip else 'if [ "$1 $2" = "-m pip" ] && [ "$3" = --version ]; then exit 1; fi\n'
    )
    for name in ("python", "uv", "poetry", "zodyssey"):
        stub = bindir / name
        stub.write_text(
            f'#!/bin/sh\n{pip_check if name == "python" else ""}echo "{name} $*" >> "{log}"\n'
        )
        stub.chmod(0o755)
    full = {
        **os.environ,
        "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}",
        "GITHUB_ACTION_PATH": "/actions/zodyssey/v0",
        "GITHUB_PATH": str(tmp_path / "github_path"),
        "ZODYSSEY_TEST_INSTALL": "auto",
        "ZODYSSEY_INPUT": "",
        "ZODYSSEY_VERSION": "",
        **env,
    }
    done = subprocess.run(
        ["bash", "-e", "-c", script], cwd=project, env=full, capture_output=True, text=True
    )
    calls = log.read_text().splitlines() if log.exists() else []
    return done, [c for c in calls if not c.endswith("-m pip --version")]


def test_action_install_step_installs_what_the_inputs_say(tmp_path: Path) -> None:
    """The composite action's install script, run with stub tools: the inputs decide."""
    pyproject = {"pyproject.toml": "[project]\nname = 'x'\n"}
    done, calls = run_install(tmp_path, pyproject, {})
    assert done.returncode == 0, done.stderr
    assert calls == [
        "python -m pip install -e .[test]",
        "python -m pip install /actions/zodyssey/v0 pytest",
        "zodyssey --version",
    ]
    wheel = "dist/zodyssey-0.1.0-py3-none-any.whl"
    _, calls = run_install(tmp_path, pyproject, {"ZODYSSEY_INPUT": wheel})
    assert f"python -m pip install {wheel} pytest" in calls
    _, calls = run_install(tmp_path, pyproject, {"ZODYSSEY_VERSION": __version__})
    assert f"python -m pip install zodyssey=={__version__} pytest" in calls
    # The project's own command, verbatim; "true" installs nothing of the project.
    _, calls = run_install(
        tmp_path, pyproject, {"ZODYSSEY_TEST_INSTALL": "python -m pip install -r req.txt"}
    )
    assert calls[0] == "python -m pip install -r req.txt"
    _, calls = run_install(tmp_path, pyproject, {"ZODYSSEY_TEST_INSTALL": "true"})
    assert calls[0] == "python -m pip install /actions/zodyssey/v0 pytest"
    # auto: by the files found; a bare directory installs nothing of the project.
    _, calls = run_install(tmp_path, {}, {})
    assert calls[0] == "python -m pip install /actions/zodyssey/v0 pytest"
    _, calls = run_install(tmp_path, {**pyproject, "poetry.lock": ""}, {})
    assert calls[:4] == [
        "python -m pip install poetry",
        "poetry config virtualenvs.in-project true",
        "poetry install --all-extras",
        "python -m pip install /actions/zodyssey/v0 pytest",
    ]
    # uv: its .venv has no pip; zodyssey goes in with `uv pip`, into that environment.
    venv_python = "project/.venv/bin/python"
    (tmp_path / "project").mkdir(exist_ok=True)
    done, calls = run_install(tmp_path, {**pyproject, "uv.lock": ""}, {}, with_pip=False)
    assert calls[:2] == ["python -m pip install uv", "uv sync --all-extras"], calls
    assert calls[2].startswith("uv pip install --python ") and venv_python not in calls[2]
    empty = run_install(tmp_path, pyproject, {"ZODYSSEY_TEST_INSTALL": ""})[0]
    assert empty.returncode == 2 and "install input is empty" in empty.stderr


def test_a_venv_left_by_the_install_is_used_by_later_steps(tmp_path: Path) -> None:
    """What uv and poetry do (a .venv): zodyssey is installed there, later steps use it."""
    log = tmp_path / "calls.log"
    make_venv = (
        "mkdir -p .venv/bin && "
        f"printf '#!/bin/sh\\necho \"venv-python $*\" >> {log}\\n' > .venv/bin/python && "
        "chmod +x .venv/bin/python"
    )
    done, calls = run_install(tmp_path, {}, {"ZODYSSEY_TEST_INSTALL": make_venv})
    assert done.returncode == 0, done.stderr
    assert "venv-python -m pip install /actions/zodyssey/v0 pytest" in calls, calls
    project = tmp_path / "project"
    assert (tmp_path / "github_path").read_text().split() == [str(project / ".venv/bin")]


def test_workflow_commands_exist() -> None:
    commands = [c for s in workflow_scripts(load_yaml(WORKFLOW)) for c in zodyssey_commands(s)]
    assert len(commands) >= 5  # check (once), claims test, audit x3
    for argv in commands:
        assert_parses(argv)


def test_workflow_scripts_take_no_expressions() -> None:
    # `${{ ... }}` pasted into a script is a script-injection hole; values come in via env.
    for script in workflow_scripts(load_yaml(WORKFLOW)):
        assert "${{" not in script, script


def test_packaged_workflow_is_the_published_one() -> None:
    # `zodyssey init` writes the packaged copy; users copy ci/github/. They must not diverge.
    assert PACKAGED_WORKFLOW.read_bytes() == WORKFLOW.read_bytes()


# ---------------------------------------------------------------- composite action


def test_action_is_composite_with_the_documented_inputs() -> None:
    action = load_yaml(ACTION)
    assert {"version", "args", "sarif"} <= set(action["inputs"])
    assert action["runs"]["using"] == "composite"
    steps = action["runs"]["steps"]
    for step in steps:
        if "run" in step:
            assert step.get("shell") == "bash", "composite run steps must name their shell"
            assert "${{" not in step["run"], step["run"]
    uses = [s.get("uses", "") for s in steps]
    assert any(u.startswith("github/codeql-action/upload-sarif@") for u in uses)
    scripts = "\n".join(s.get("run", "") for s in steps)
    assert "pip install" in scripts
    runs = [s["run"] for s in steps if "run" in s]
    checks = [i for i, r in enumerate(runs) if "zodyssey check" in r]
    assert len(checks) == 1, runs  # one run writes the annotations and the SARIF file
    # The static check never runs a test; the strict claims step after it does.
    assert runs[checks[0] + 1 :] == ["zodyssey claims test"]
    assert action["inputs"]["claims-test"]["default"] == "true"


@pytest.mark.parametrize("sarif", ["true", "false"])
def test_action_check_step_runs_once_and_hands_the_sarif_file_on(
    tmp_path: Path, sarif: str
) -> None:
    """The action's check step in bash, as the runner runs it, in a repository with a
    broken citation: exit 9 either way; with `sarif` the file exists and is the
    step's output the upload step reads."""
    steps = load_yaml(ACTION)["runs"]["steps"]
    step = next(s for s in steps if s.get("id") == "check")
    upload = next(s for s in steps if "upload-sarif" in s.get("uses", ""))
    assert upload["with"]["sarif_file"] == "${{ steps.check.outputs.sarif }}"
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "README.md").write_text("See `gone.py:3`.\n", encoding="utf-8")
    temp, output = tmp_path / "runner-temp", tmp_path / "github-output"
    temp.mkdir()
    output.write_text("")
    env = {
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "RUNNER_TEMP": str(temp),
        "GITHUB_OUTPUT": str(output),
        "ZODYSSEY_ARGS": "",
        "ZODYSSEY_DRILL": "",
        "ZODYSSEY_SARIF": sarif,
    }
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 9, done.stdout + done.stderr
    assert "::error" in done.stdout
    written = temp / "zodyssey-check.sarif"
    if sarif == "true":
        assert output.read_text() == f"sarif={written}\n"
        assert "gone.py" in written.read_text(encoding="utf-8")
    else:
        assert output.read_text() == "" and not written.exists()


def test_action_commands_exist() -> None:
    steps = load_yaml(ACTION)["runs"]["steps"]
    commands = [c for s in steps if "run" in s for c in zodyssey_commands(s["run"])]
    assert len(commands) >= 3
    for argv in commands:
        assert_parses(argv)


def test_pending_flag_shim_still_rejects_unknown_flags() -> None:
    with pytest.raises(pytest.fail.Exception):
        assert_parses(["zodyssey", "audit", "demo", "--require-complete", "--no-such-flag"])


# ---------------------------------------------------------------- pre-commit


def test_pre_commit_hooks_manifest() -> None:
    hooks = {hook["id"]: hook for hook in load_yaml(PRE_COMMIT)}
    assert set(hooks) == {"check-anchors", "zodyssey-claims", "zodyssey-claims-drill"}
    for hook in hooks.values():
        assert hook["language"] == "python"
        assert hook["pass_filenames"] is False
        assert hook["always_run"] is True
        assert hook["name"] and hook["entry"]
        assert_parses(shlex.split(hook["entry"]))


# ---------------------------------------------------------------- GitLab


def test_gitlab_template_reports_junit_and_code_quality_from_one_check() -> None:
    template = load_yaml(GITLAB)
    check = template["zodyssey-check"]
    assert check["artifacts"]["when"] == "always"
    reports = check["artifacts"]["reports"]
    runs = [argv for line in check["script"] for argv in zodyssey_commands(line)]
    checks = [argv for argv in runs if argv[:2] == ["zodyssey", "check"]]
    assert len(checks) == 1, checks  # one run decides the job and writes both reports
    written = dict(a.split("=", 1) for a in checks[0][2:] if a != "--report")
    assert written == {"junit": reports["junit"], "codeclimate": reports["codequality"]}
    assert set(written.values()) <= set(check["artifacts"]["paths"])
    assert template[".zodyssey-base"]["variables"]["GIT_DEPTH"] == "0"
    audit = template["zodyssey-audit"]
    assert audit["rules"][0]["if"] == "$ZODYSSEY_RUN_SLUG"
    base = template[check["extends"]]
    scripts = [*base["before_script"], *check["script"], *audit["script"]]
    commands = [c for line in scripts for c in zodyssey_commands(line)]
    assert len(commands) >= 5
    for argv in commands:
        assert_parses(argv)


# ---------------------------------------------------------------- nox example


def test_nox_example_lists_its_sessions() -> None:
    listed = subprocess.run(
        [sys.executable, "-m", "nox", "-f", str(NOX_EXAMPLE), "--list", "--json"],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    )
    import json

    names = {session["session"] for session in json.loads(listed.stdout)}
    assert names == {"anchors", "claims"}


# ---------------------------------------------------------------- the extractor itself


def test_command_extractor_stops_at_shell_syntax() -> None:
    script = (
        'mkdir -p out\nzodyssey audit "$RUN_SLUG" --format junit > out/a.xml || true\n'
        "  - zodyssey check  # readable log\n"
    )
    assert zodyssey_commands(script) == [
        ["zodyssey", "audit", "demo-run", "--format", "junit"],
        ["zodyssey", "check"],
    ]


def test_unknown_flag_is_caught() -> None:
    with pytest.raises(pytest.fail.Exception):
        assert_parses(["zodyssey", "check", "--no-such-flag"])
