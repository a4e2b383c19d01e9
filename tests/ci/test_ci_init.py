"""`zodyssey init` on real git repositories, checked with the real commands."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.helpers import make_repo, run_zodyssey
from zodyssey.commands.init import empty_lock_text, template_text
from zodyssey.config import Config, load_config

REPO = Path(__file__).resolve().parents[2]
STARTER = ("docs/zodyssey.md", ".zodyssey.toml", "anchors/anchors.lock.json")
WORKFLOW = ".github/workflows/zodyssey.yml"


def drift_lock_line(repo: Path) -> None:
    """Edit the line the starter page cites, as a careless change would."""
    config = repo / ".zodyssey.toml"
    text = config.read_text(encoding="utf-8")
    assert 'lock = "anchors/anchors.lock.json"' in text
    config.write_text(
        text.replace(
            'lock = "anchors/anchors.lock.json"', 'lock = "anchors/anchors.lock.json" # moved?'
        ),
        encoding="utf-8",
    )


def test_init_then_check_passes_and_drift_fails(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", commit=False)
    done = run_zodyssey("init", cwd=repo, env={"NO_COLOR": "1"})
    assert done.returncode == 0, done.stderr
    for rel in (*STARTER, WORKFLOW):
        assert (repo / rel).is_file(), rel
        assert rel in done.stdout, f"init does not say it wrote {rel}"

    check = run_zodyssey("check", cwd=repo, env={"NO_COLOR": "1"})
    assert check.returncode == 0, check.stdout + check.stderr

    drift_lock_line(repo)
    check = run_zodyssey("check", cwd=repo, env={"NO_COLOR": "1"})
    assert check.returncode == 9, check.stdout + check.stderr
    assert "docs/zodyssey.md" in check.stdout + check.stderr


def test_init_then_check_anchors_passes_and_drift_fails(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", commit=False)
    assert run_zodyssey("init", cwd=repo, env={"NO_COLOR": "1"}).returncode == 0
    assert run_zodyssey("anchors", "check", cwd=repo, env={"NO_COLOR": "1"}).returncode == 0
    drift_lock_line(repo)
    done = run_zodyssey("anchors", "check", cwd=repo, env={"NO_COLOR": "1"})
    assert done.returncode == 9, done.stdout + done.stderr


def test_lock_has_the_javascript_shape(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", commit=False)
    assert run_zodyssey("init", cwd=repo, env={"NO_COLOR": "1"}).returncode == 0
    raw = (repo / "anchors/anchors.lock.json").read_text(encoding="utf-8")
    lock = json.loads(raw)
    assert list(lock) == ["_comment", "exempt", "citations"]
    assert lock["exempt"] == []
    assert list(lock["citations"]) == [".zodyssey.toml:12"]
    assert raw == json.dumps(lock, indent=2) + "\n"
    # The pin is the one the checker computes for that line, not a constant.
    from zodyssey.anchors.fingerprint import fingerprint

    lines = (repo / ".zodyssey.toml").read_text(encoding="utf-8").split("\n")
    assert lines[11].startswith("lock = ")
    assert lock["citations"][".zodyssey.toml:12"] == fingerprint(lines, 12, 12)


def test_empty_lock_text_is_stable() -> None:
    assert empty_lock_text() == (
        "{\n"
        '  "_comment": "Citation lock written by zodyssey: one fingerprint per cited span. '
        'Re-baseline deliberately with `check-anchors --update`.",\n'
        '  "exempt": [],\n'
        '  "citations": {}\n'
        "}\n"
    )


def test_init_keeps_existing_files_unless_forced(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", commit=False)
    assert run_zodyssey("init", cwd=repo, env={"NO_COLOR": "1"}).returncode == 0
    mine = "# my own config\n"
    (repo / ".zodyssey.toml").write_text(mine, encoding="utf-8")
    (repo / WORKFLOW).write_text("name: mine\n", encoding="utf-8")

    again = run_zodyssey("init", cwd=repo, env={"NO_COLOR": "1"})
    assert again.returncode == 0
    assert (repo / ".zodyssey.toml").read_text(encoding="utf-8") == mine
    assert (repo / WORKFLOW).read_text(encoding="utf-8") == "name: mine\n"
    assert again.stdout.count("kept") == 4

    forced = run_zodyssey("init", "--force", cwd=repo, env={"NO_COLOR": "1"})
    assert forced.returncode == 0
    assert (repo / ".zodyssey.toml").read_text(encoding="utf-8") == template_text("zodyssey.toml")
    assert (repo / WORKFLOW).read_text(encoding="utf-8") == template_text("github-workflow.yml")
    assert forced.stdout.count("overwrote") == 4


def test_init_respects_tool_zodyssey_in_pyproject(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", commit=False)
    pyproject = '[project]\nname = "x"\n\n[tool.zodyssey]\ndocuments = ["docs/**/*.md"]\n'
    (repo / "pyproject.toml").write_text(pyproject, encoding="utf-8")
    done = run_zodyssey("init", cwd=repo, env={"NO_COLOR": "1"})
    assert done.returncode == 0, done.stderr
    assert not (repo / ".zodyssey.toml").exists(), "would shadow [tool.zodyssey]"
    assert (repo / "pyproject.toml").read_text(encoding="utf-8") == pyproject
    # With no config of ours to cite, the starter page cites the workflow's check step.
    lock = json.loads((repo / "anchors/anchors.lock.json").read_text(encoding="utf-8"))
    (key,) = lock["citations"]
    assert key.startswith(WORKFLOW + ":")
    line = int(key.rsplit(":", 1)[1])
    cited = (repo / WORKFLOW).read_text(encoding="utf-8").split("\n")[line - 1]
    assert cited.strip().startswith("zodyssey check --format github --report "), cited
    assert run_zodyssey("anchors", "check", cwd=repo, env={"NO_COLOR": "1"}).returncode == 0


def test_init_writes_config_beside_pyproject_without_a_table(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", commit=False)
    (repo / "pyproject.toml").write_text('[project]\nname = "x"\n', encoding="utf-8")
    done = run_zodyssey("init", cwd=repo, env={"NO_COLOR": "1"})
    assert done.returncode == 0
    assert (repo / ".zodyssey.toml").is_file()
    assert "[tool.zodyssey]" in done.stdout


def test_init_follows_a_configured_lock_path(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", commit=False)
    (repo / "pyproject.toml").write_text(
        '[tool.zodyssey]\nlock = "scripts/anchors.lock.json"\n', encoding="utf-8"
    )
    assert run_zodyssey("init", cwd=repo, env={"NO_COLOR": "1"}).returncode == 0
    assert (repo / "scripts/anchors.lock.json").is_file()
    assert not (repo / "anchors/anchors.lock.json").exists()


def test_starter_config_spells_out_the_defaults(tmp_path: Path) -> None:
    (tmp_path / ".zodyssey.toml").write_text(template_text("zodyssey.toml"), encoding="utf-8")
    written = load_config(tmp_path)
    defaults = Config(root=tmp_path)
    for key in (
        "documents",
        "exclude",
        "lock",
        "windows",
        "exempt",
        "claims_lock",
        "claims_documents",
    ):
        assert getattr(written, key) == getattr(defaults, key), key


def test_bad_root_is_one_line_exit_2(tmp_path: Path) -> None:
    done = run_zodyssey(
        "init", "--root", str(tmp_path / "nowhere"), cwd=tmp_path, env={"NO_COLOR": "1"}
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "not a directory" in done.stderr
    assert "Traceback" not in done.stderr


def test_broken_pyproject_is_exit_2(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", commit=False)
    (repo / "pyproject.toml").write_text("[tool.zodyssey\n", encoding="utf-8")
    done = run_zodyssey("init", cwd=repo, env={"NO_COLOR": "1"})
    assert done.returncode == 2
    assert "pyproject.toml" in done.stderr and "Traceback" not in done.stderr
    assert not (repo / WORKFLOW).exists()


def test_init_from_a_subdirectory_warns_about_workflows(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", commit=False)
    (repo / "sub").mkdir()
    done = run_zodyssey("init", "--root", "sub", cwd=repo, env={"NO_COLOR": "1"})
    assert done.returncode == 0
    assert "GitHub reads workflows only from" in done.stdout


def test_nox_example_session_passes_then_fails(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", commit=False)
    assert run_zodyssey("init", cwd=repo, env={"NO_COLOR": "1"}).returncode == 0
    # Copied as users do (nox runs sessions from the noxfile's directory);
    # --no-venv --no-install: run the session with this interpreter's zodyssey.
    shutil.copyfile(REPO / "ci/noxfile_example.py", repo / "noxfile.py")
    nox = [sys.executable, "-m", "nox", "-f", str(repo / "noxfile.py")]
    passed = subprocess.run(
        [*nox, "-s", "anchors", "--no-venv", "--no-install"],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert passed.returncode == 0, passed.stdout + passed.stderr
    drift_lock_line(repo)
    failed = subprocess.run(
        [*nox, "-s", "anchors", "--no-venv", "--no-install"],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert failed.returncode != 0


@pytest.mark.slow
def test_templates_ship_in_the_wheel(zodyssey_wheel: Path) -> None:
    wheel = zodyssey_wheel  # built once per session (tests/conftest.py)
    names = set(zipfile.ZipFile(wheel).namelist())
    for template in ("zodyssey.toml", "github-workflow.yml", "starter-doc.md"):
        assert f"zodyssey/templates/{template}" in names


def test_init_names_existing_citations_it_did_not_pin(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", commit=False)
    (repo / "a.py").write_text("x = 1\n", encoding="utf-8")
    (repo / "README.md").write_text("# R\n\nSee a.py:1.\n", encoding="utf-8")
    done = run_zodyssey("init", cwd=repo, env={"NO_COLOR": "1"})
    assert done.returncode == 0
    assert "1 citation(s) in your other documents are not pinned" in done.stdout
    # Pinning them stays a deliberate step: the check reports them until then.
    assert run_zodyssey("anchors", "check", cwd=repo, env={"NO_COLOR": "1"}).returncode == 9
    assert (
        run_zodyssey("anchors", "check", "--update", cwd=repo, env={"NO_COLOR": "1"}).returncode
        == 0
    )
    assert run_zodyssey("anchors", "check", cwd=repo, env={"NO_COLOR": "1"}).returncode == 0
    fresh = make_repo(tmp_path / "fresh", commit=False)
    assert "not pinned" not in run_zodyssey("init", cwd=fresh, env={"NO_COLOR": "1"}).stdout


def test_broken_existing_config_stops_before_writing(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", commit=False)
    (repo / ".zodyssey.toml").write_text("documents = [\n", encoding="utf-8")
    done = run_zodyssey("init", cwd=repo, env={"NO_COLOR": "1"})
    assert done.returncode == 2
    assert ".zodyssey.toml" in done.stderr and "Traceback" not in done.stderr
    assert sorted(p.name for p in repo.iterdir()) == [".git", ".zodyssey.toml"]
