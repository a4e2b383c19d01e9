"""Every problem kind, exit code and output format, through the real command."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.helpers.anchors import (
    SOURCE,
    check_json,
    kinds,
    make_repo,
    reference_hash,
    run_cli,
    write,
)


def test_clean_repository_passes_after_update(repo: Path) -> None:
    write(repo, "docs/a.md", "`src/app.py:3` and app.py:4-6,8\n")
    assert run_cli(repo, "--update").returncode == 0
    proc = run_cli(repo)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "3 citation sites (3 spans) in 1 of 1 document:" in proc.stdout
    lock = json.loads((repo / "anchors/anchors.lock.json").read_text())
    assert lock["citations"]["src/app.py:3"] == reference_hash(["def step_3():  return 3"])
    assert set(lock["spans"]) == {"src/app.py:4-6"}  # per-line pins for ranges only
    assert lock["spans"]["src/app.py:4-6"].split() == [
        reference_hash([f"def step_{i}():  return {i}"]) for i in (4, 5, 6)
    ]


def test_every_structural_problem_kind(repo: Path) -> None:
    write(repo, "src/blank.py", "x = 1\n\n   //\n")
    write(repo, "one/dup.py", SOURCE)
    write(repo, "two/dup.py", SOURCE)
    write(
        repo,
        "docs/a.md",
        "range app.py:29-40 and app.py:0\n"
        "backwards app.py:9-4\n"
        "blank blank.py:2-3\n"
        "missing nowhere.py:3\n"
        "ambiguous dup.py:2\n"
        "unlocked app.py:5\n",
    )
    code, payload = check_json(repo)
    assert code == 9
    found = kinds(payload)
    assert sorted(found["out-of-range"]) == ["src/app.py:0", "src/app.py:29-40"]
    assert found["backwards-range"] == ["src/app.py:9-4"]
    assert found["contentless"] == ["src/blank.py:2-3"]
    assert found["unresolved"] == ["?nowhere.py:3"]
    assert found["ambiguous"] == ["?dup.py:2"]
    assert found["unlocked"] == ["src/app.py:5"]
    problem = next(p for p in payload["problems"] if p["kind"] == "ambiguous")
    assert problem["sites"] == [{"doc": "docs/a.md", "line": 5, "cited_as": "dup.py:2"}]
    assert problem["cited_as"] == "dup.py:2"
    assert "one/dup.py" in problem["detail"] and "two/dup.py" in problem["detail"]
    # --update refuses to pin problem citations and says so (exit 9), pins the rest.
    proc = run_cli(repo, "--update")
    assert proc.returncode == 9
    assert "could NOT be pinned" in proc.stdout
    lock = json.loads((repo / "anchors/anchors.lock.json").read_text())
    assert list(lock["citations"]) == ["src/app.py:5"]


def test_unreadable_target(repo: Path) -> None:
    """A cited file that cannot be read when it is checked (here: removed after the walk)."""
    from zodyssey.anchors.check import Checker
    from zodyssey.anchors.discover import discover
    from zodyssey.anchors.lock import read_lock
    from zodyssey.config import load_config

    write(repo, "docs/a.md", "app.py:3\n")
    config = load_config(repo)
    discovery = discover(repo, config)
    (repo / "src/app.py").unlink()
    result = Checker(repo, config, discovery, read_lock(repo / config.lock)).run()
    assert [(p.kind, p.key) for p in result.problems] == [("unreadable", "src/app.py:3")]
    assert "cannot read src/app.py" in result.problems[0].detail


def test_fifo_is_not_a_citable_file(repo: Path) -> None:
    # A dangling symlink is not walked; a FIFO is a file we cannot read as text.
    fifo = repo / "src/pipe.py"
    os.mkfifo(fifo)
    write(repo, "docs/a.md", "src/app.py:3 and src/pipe.py:1\n")
    code, payload = check_json(repo)
    assert code == 9
    # FIFOs are not regular files: the index leaves them out, and the citation of
    # one is `unreadable` saying what it is (never opened, so never a hang).
    assert kinds(payload)["unreadable"] == ["?src/pipe.py:1"]
    assert "unresolved" not in kinds(payload)
    details = [p["detail"] for p in payload["problems"] if p["kind"] == "unreadable"]
    assert "is a FIFO (named pipe)" in details[0]


def test_drift_names_the_line_and_what_it_says_now(repo: Path) -> None:
    write(repo, "docs/a.md", "see app.py:3\n")
    assert run_cli(repo, "--update").returncode == 0
    text = SOURCE.replace("return 3\n", "return 333\n")
    write(repo, "src/app.py", text)
    proc = run_cli(repo)
    assert proc.returncode == 9
    assert "drift (1)" in proc.stdout
    assert "docs/a.md:1" in proc.stdout and "src/app.py:3" in proc.stdout
    assert "now reads: def step_3():  return 333" in proc.stdout


def test_stale_entries_need_strict(repo: Path) -> None:
    write(repo, "docs/a.md", "app.py:3 and app.py:4\n")
    assert run_cli(repo, "--update").returncode == 0
    write(repo, "docs/a.md", "app.py:3\n")
    assert run_cli(repo).returncode == 0
    code, payload = check_json(repo, "--strict")
    assert code == 9
    assert kinds(payload) == {"stale": ["src/app.py:4"]}
    proc = run_cli(repo, "--update")
    assert proc.returncode == 0
    assert "1 entry dropped (1 stale" in proc.stdout
    assert run_cli(repo, "--strict").returncode == 0


def test_exempt_lists_skip_citations_as_written(repo: Path) -> None:
    write(repo, "docs/a.md", "missing.py:3 and app.py:3\n")
    write(repo, "pyproject.toml", '[tool.zodyssey]\nexempt = ["missing.py:3"]\n')
    assert run_cli(repo, "--update").returncode == 0
    assert run_cli(repo).returncode == 0
    write(repo, "pyproject.toml", "")
    lock_path = repo / "anchors/anchors.lock.json"
    lock = json.loads(lock_path.read_text())
    lock["exempt"] = ["missing.py:3"]
    lock_path.write_text(json.dumps(lock))
    assert run_cli(repo).returncode == 0


def test_javascript_lock_verifies_unchanged(tmp_path: Path) -> None:
    """A lock written by the JS checker (reference format) reads with zero problems."""
    sources = {
        "skills/hooks/pre-tool.mjs": "".join(
            f"const v{i} = {i};  // line {i}\n" for i in range(1, 41)
        ),
        "scripts/run.sh": "#!/bin/sh\n  echo   one\n\techo two\n",
        ".zcode-plugin/plugin.json": '{\n  "name": "x",\n  "version": "1"\n}\n',
    }
    docs = {
        "docs/design.md": "Gate at pre-tool.mjs:12-14 and :20, chain hooks/pre-tool.mjs:3,5/:7\n"
        "Run scripts/run.sh:2 \u2013 3 and .zcode-plugin/plugin.json:2\n",
        "CHANGELOG.md": "## [Unreleased]\n- fixed pre-tool.mjs:30\n## [1.0]\n- old pre-tool.mjs:31\n",
    }
    root = make_repo(tmp_path / "js", {**sources, **docs})
    lines = {p: t.split("\n") for p, t in sources.items()}

    def pin(path: str, a: int, b: int | None = None) -> tuple[str, str]:
        key = f"{path}:{a}" + (f"-{b}" if b else "")
        return key, reference_hash(lines[path][a - 1 : (b or a)])

    hook = "skills/hooks/pre-tool.mjs"
    citations = dict(
        [
            pin(hook, 12, 14),
            pin(hook, 20),
            pin(hook, 3),
            pin(hook, 5),
            pin(hook, 7),
            pin(hook, 30),
            pin("scripts/run.sh", 2, 3),
            pin(".zcode-plugin/plugin.json", 2),
        ]
    )
    lock = {"_comment": "js", "exempt": [], "citations": dict(sorted(citations.items()))}
    write(root, "scripts/anchors.lock.json", json.dumps(lock, indent=2) + "\n")
    proc = run_cli(root, "--lock", "scripts/anchors.lock.json", "--strict")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "(8 spans) in 2 of 2 documents:" in proc.stdout
    # Without --lock the default lock is missing: a hint names the JS lock.
    proc = run_cli(root)
    assert proc.returncode == 9
    assert "--lock" in proc.stdout


def test_formats(repo: Path, tmp_path: Path) -> None:
    write(repo, "docs/a.md", "app.py:3 and gone.py:1\n")
    summary = tmp_path / "summary.md"
    env_proc = run_cli(repo, "--format", "sarif")
    sarif = json.loads(env_proc.stdout)
    assert sarif["version"] == "2.1.0"
    rule_ids = {r["ruleId"] for r in sarif["runs"][0]["results"]}
    assert rule_ids == {"anchors/unlocked", "anchors/unresolved"}
    assert all(r["partialFingerprints"] for r in sarif["runs"][0]["results"])
    github = run_cli(repo, "--format", "github")
    assert "::error file=docs/a.md,line=1," in github.stdout
    junit = run_cli(repo, "--format", "junit")
    assert junit.stdout.startswith("<?xml") and 'failures="2"' in junit.stdout
    markdown = run_cli(repo, "--format", "markdown", "-o", str(summary))
    assert markdown.returncode == 9 and markdown.stdout == ""
    assert "| unresolved |" in summary.read_text()
    code, payload = check_json(repo)
    assert code == 9
    assert set(payload) >= {"checked", "documents", "problems", "counts", "ok"}
    assert payload["checked"] == 2 and payload["documents"] == 1
    for problem in payload["problems"]:
        assert set(problem) >= {"kind", "key", "cited_as", "sites", "detail", "moved_to"}


def test_github_step_summary(repo: Path, tmp_path: Path) -> None:
    import subprocess
    import sys

    write(repo, "docs/a.md", "gone.py:1\n")
    summary = tmp_path / "step.md"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "zodyssey",
            "anchors",
            "check",
            "--root",
            str(repo),
            "--format",
            "github",
        ],
        env={**os.environ, "GITHUB_STEP_SUMMARY": str(summary)},
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 9
    assert "unresolved" in summary.read_text()
