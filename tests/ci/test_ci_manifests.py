"""The CI files users copy parse, and every command they run exists.

Each command line a manifest runs is taken out of its shell text and handed to
the real `zodyssey` argument parser, so a renamed subcommand or a dropped flag
fails here instead of in a user's CI.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from zodyssey.cli import build_parser

REPO = Path(__file__).resolve().parents[2]
WORKFLOW = REPO / "ci" / "github" / "zodyssey.yml"
ACTION = REPO / "action.yml"
PRE_COMMIT = REPO / ".pre-commit-hooks.yaml"
GITLAB = REPO / "ci" / "gitlab" / "zodyssey.gitlab-ci.yml"
NOX_EXAMPLE = REPO / "ci" / "noxfile_example.py"
PACKAGED_WORKFLOW = REPO / "zodyssey" / "templates" / "github-workflow.yml"

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
    assert "zodyssey check --format github" in check_runs
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
        assert runs.index("zodyssey claims test") > runs.index("zodyssey check --format github")


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


def test_install_line_is_one_setting_defaulting_to_the_package() -> None:
    """Every pip install of zodyssey in a shipped file goes through ZODYSSEY_INSTALL."""
    workflow = load_yaml(WORKFLOW)
    assert workflow["env"]["ZODYSSEY_INSTALL"] == "${{ vars.ZODYSSEY_INSTALL || 'zodyssey' }}"
    gitlab = load_yaml(GITLAB)
    assert gitlab["variables"]["ZODYSSEY_INSTALL"] == "zodyssey"
    action = load_yaml(ACTION)
    assert action["inputs"]["install"]["default"] == "zodyssey"
    install_step = next(s for s in action["runs"]["steps"] if s.get("name") == "Install zodyssey")
    assert install_step["env"]["ZODYSSEY_INSTALL"] == "${{ inputs.install }}"
    shipped = {
        WORKFLOW: workflow_scripts(workflow),
        GITLAB: _gitlab_scripts(gitlab),
        ACTION: [s["run"] for s in action["runs"]["steps"] if "run" in s],
    }
    for path, scripts in shipped.items():
        lines = _pip_lines(scripts)
        assert lines, path
        for line in lines:
            assert '"$ZODYSSEY_INSTALL"' in line, (path, line)
            assert not re.search(
                r"pip install[^\n]*\bzodyssey\b(?!_)", line.replace("$ZODYSSEY_INSTALL", "")
            ), (
                path,
                line,
            )


def test_action_install_step_installs_what_the_input_says(tmp_path: Path) -> None:
    """The composite action's install script, run with a stub pip: the input decides."""
    steps = load_yaml(ACTION)["runs"]["steps"]
    script = next(s for s in steps if s.get("name") == "Install zodyssey")["run"]
    bindir = tmp_path / "bin"
    bindir.mkdir()
    log = tmp_path / "pip.log"
    (bindir / "python").write_text(f'#!/bin/sh\necho "$@" >> "{log}"\n')
    (bindir / "zodyssey").write_text("#!/bin/sh\necho zodyssey stub\n")
    for stub in bindir.iterdir():
        stub.chmod(0o755)
    import os

    def run(install: str, version: str) -> subprocess.CompletedProcess[str]:
        log.unlink(missing_ok=True)
        env = {
            **os.environ,
            "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}",
            "ZODYSSEY_INSTALL": install,
            "ZODYSSEY_VERSION": version,
        }
        return subprocess.run(["bash", "-e", "-c", script], env=env, capture_output=True, text=True)

    assert run("zodyssey", "").returncode == 0
    assert log.read_text().split()[-1] == "zodyssey"
    wheel = "dist/zodyssey-0.1.0-py3-none-any.whl"
    assert run(wheel, "").returncode == 0
    assert log.read_text().split()[-1] == wheel
    assert run("zodyssey", "0.1.0").returncode == 0
    assert log.read_text().split()[-1] == "zodyssey==0.1.0"
    empty = run("", "")
    assert empty.returncode == 2 and not log.exists()


def test_workflow_commands_exist() -> None:
    commands = [c for s in workflow_scripts(load_yaml(WORKFLOW)) for c in zodyssey_commands(s)]
    assert len(commands) >= 6
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
    runs = [s.get("run", "") for s in steps]
    check = next(i for i, r in enumerate(runs) if r.startswith("zodyssey check --format github"))
    # The static check never runs a test; the strict claims step after it does.
    assert runs[check + 1 :] == ["zodyssey claims test"]
    assert action["inputs"]["claims-test"]["default"] == "true"


def test_action_commands_exist() -> None:
    steps = load_yaml(ACTION)["runs"]["steps"]
    commands = [c for s in steps if "run" in s for c in zodyssey_commands(s["run"])]
    assert len(commands) >= 3
    for argv in commands:
        if argv[1:] == ["--version"]:
            continue
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


def test_gitlab_template_reports_junit() -> None:
    template = load_yaml(GITLAB)
    check = template["zodyssey-check"]
    assert check["artifacts"]["when"] == "always"
    report = check["artifacts"]["reports"]["junit"]
    assert any(f"> {report}" in line for line in check["script"])
    assert template["variables"]["GIT_DEPTH"] == "0"
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
