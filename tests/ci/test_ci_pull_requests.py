"""CI that speaks pull requests: annotations, one job summary, rdjson with suggestions.

Real repositories, the real `zodyssey` command; the GitHub output is checked
against the workflow-command grammar GitHub documents, rdjson against a
schema written from the Reviewdog Diagnostic Format's documented fields
(tests/ci/schemas/rdjson.schema.json).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import jsonschema

from tests.helpers import commit, git, make_repo, run_zodyssey, write

SCHEMA = json.loads((Path(__file__).parent / "schemas" / "rdjson.schema.json").read_text())
# `::level prop=value,prop=value::message`, the properties GitHub reads for annotations.
COMMAND = re.compile(r"^::(error|warning|notice) ((?:[a-zA-Z]+=[^,:]*)(?:,[a-zA-Z]+=[^,:]*)*)::.*$")
PROPS = {"file", "line", "endLine", "col", "endColumn", "title"}


def workflow_annotations(stdout: str) -> list[dict[str, str]]:
    found: list[dict[str, str]] = []
    for line in stdout.splitlines():
        if not line.startswith("::"):
            continue
        match = COMMAND.match(line)
        assert match, f"not a workflow command GitHub reads: {line}"
        props = dict(p.split("=", 1) for p in match.group(2).split(","))
        assert set(props) <= PROPS, props
        found.append({"level": match.group(1), **props})
    return found


def pinned_repo(root: Path, doc: str, files: dict[str, str]) -> Path:
    repo = make_repo(root, {**files, "docs/a.md": doc}, commit=False)
    done = run_zodyssey("anchors", "check", "--update", cwd=repo)
    assert done.returncode == 0, done.stdout + done.stderr
    commit(repo, "pinned")
    return repo


CODE = "def one():\n    return 1\n\n\ndef two():\n    return 2\n"


def test_drift_is_annotated_on_the_citing_line_and_on_the_changed_cited_line(
    tmp_path: Path,
) -> None:
    repo = pinned_repo(tmp_path / "r", "# A\n\nTwo returns at `src/m.py:6`.\n", {"src/m.py": CODE})
    git(repo, "checkout", "-q", "-b", "change")
    write(repo, "src/m.py", CODE.replace("return 2", "return 3"))
    commit(repo, "change two")
    env = {"ZODYSSEY_DIFF_BASE": "main", "GITHUB_STEP_SUMMARY": str(tmp_path / "s.md")}
    done = run_zodyssey("anchors", "check", "--format", "github", cwd=repo, env=env)
    assert done.returncode == 9, done.stdout + done.stderr
    found = workflow_annotations(done.stdout)
    assert [(a["file"], a["line"]) for a in found] == [("docs/a.md", "3"), ("src/m.py", "6")]
    assert all(a["level"] == "error" for a in found)
    assert "::docs/a.md:3 cites these lines" in done.stdout  # names the citing place

    # Not in the diff (the change is committed on the base too): one annotation only.
    other = tmp_path / "other"
    shutil.copytree(repo, other)
    done = run_zodyssey(
        "anchors",
        "check",
        "--format",
        "github",
        cwd=other,
        env={**env, "ZODYSSEY_DIFF_BASE": "HEAD"},
    )
    assert [(a["file"], a["line"]) for a in workflow_annotations(done.stdout)] == [
        ("docs/a.md", "3")
    ]


def test_at_most_fifty_annotations_and_the_rest_counted_in_the_summary(tmp_path: Path) -> None:
    doc = "# A\n\n" + "".join(f"Missing `gone{i}.py:1`.\n" for i in range(60))
    repo = make_repo(tmp_path / "r", {"docs/a.md": doc}, commit=True)
    summary = tmp_path / "summary.md"
    done = run_zodyssey(
        "check", "--format", "github", cwd=repo, env={"GITHUB_STEP_SUMMARY": str(summary)}
    )
    assert done.returncode == 9
    assert len(workflow_annotations(done.stdout)) == 50
    text = summary.read_text()
    assert "10 finding(s) not annotated" in text
    assert text.count("gone") >= 60  # the table still lists every finding


def test_one_summary_section_per_report_replaced_not_appended(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"docs/a.md": "# A\n\nSee `gone.py:1`.\n"}, commit=True)
    summary = tmp_path / "summary.md"
    summary.write_text("## the user's own notes\n\nkept\n")
    env = {"GITHUB_STEP_SUMMARY": str(summary)}
    for _ in range(3):
        assert run_zodyssey("check", "--format", "github", cwd=repo, env=env).returncode == 9
    text = summary.read_text()
    assert text.startswith("## the user's own notes\n\nkept\n")
    assert text.count("<!-- zodyssey:anchors:") == 1
    assert text.count("**zodyssey anchors: failed**") == 1
    # Fixed: the same section now says passed, and still only once.
    write(repo, "gone.py", "x = 1\n")
    assert run_zodyssey("anchors", "check", "--update", cwd=repo).returncode == 0
    assert run_zodyssey("check", "--format", "github", cwd=repo, env=env).returncode == 0
    text = summary.read_text()
    assert text.count("**zodyssey anchors: passed**") == 1 and "failed**" not in text


def test_nothing_to_judge_is_failed_never_neutral(tmp_path: Path) -> None:
    """An audit with nothing executed exits 4; its summary says failed, like the step."""
    from tests.helpers.audit import OursRun

    run = OursRun(tmp_path / "run")
    run.review("OKAY")
    run.write()
    summary = tmp_path / "summary.md"
    done = run_zodyssey(
        "audit",
        run.slug,
        "--format",
        "github",
        cwd=run.root,
        env={"GITHUB_STEP_SUMMARY": str(summary)},
    )
    assert done.returncode == 4, done.stdout + done.stderr
    text = summary.read_text()
    assert "**zodyssey audit: failed**" in text and "passed**" not in text
    assert "neutral" not in (text + done.stdout).lower()
    rd = run_zodyssey("audit", run.slug, "--format", "rdjson", cwd=run.root)
    assert rd.returncode == 4, rd.stderr
    document = json.loads(rd.stdout)
    jsonschema.validate(document, SCHEMA)
    assert document["severity"] == "ERROR"
    # Zero citations: the one-line error and exit 4, nothing that reads as a pass.
    repo = make_repo(tmp_path / "r", {"docs/a.md": "# no citations\n"}, commit=True)
    empty = run_zodyssey("anchors", "check", "--format", "github", cwd=repo)
    assert empty.returncode == 4 and "passed" not in empty.stdout + empty.stderr


def rdjson(repo: Path, *args: str) -> tuple[int, dict[str, Any]]:
    done = run_zodyssey(*args, "--format", "rdjson", cwd=repo)
    document = json.loads(done.stdout)
    jsonschema.validate(document, SCHEMA)
    return done.returncode, document


def apply(text: str, suggestions: list[dict[str, Any]]) -> str:
    """Apply rdjson suggestions as reviewdog does: UTF-8 byte columns, exclusive ends."""
    lines = text.split("\n")
    for s in sorted(suggestions, key=lambda s: s["range"]["start"]["column"], reverse=True):
        start, end = s["range"]["start"], s["range"]["end"]
        assert start["line"] == end["line"]
        raw = lines[start["line"] - 1].encode("utf-8")
        raw = raw[: start["column"] - 1] + s["text"].encode("utf-8") + raw[end["column"] - 1 :]
        lines[start["line"] - 1] = raw.decode("utf-8")
    return "\n".join(lines)


def test_moved_citation_carries_the_fix_as_a_suggestion(tmp_path: Path) -> None:
    # Non-ASCII before the citation: columns are UTF-8 bytes, not characters.
    doc = "# A\n\nZwei – «two» returns at `src/m.py:5-6`; drift here `src/m.py:2`.\n"
    repo = pinned_repo(tmp_path / "r", doc, {"src/m.py": CODE})
    write(repo, "src/m.py", "# a new first line\n" + CODE.replace("return 1", "return 11"))
    code, document = rdjson(repo, "anchors", "check")
    assert code == 9
    by_rule = {d["code"]["value"]: d for d in document["diagnostics"]}
    assert set(by_rule) == {"moved", "drift"}
    assert "suggestions" not in by_rule["drift"], "drift is for a person to judge"
    moved = by_rule["moved"]
    assert moved["location"] == {"path": "docs/a.md", "range": {"start": {"line": 3}}}
    assert moved["severity"] == "ERROR" and document["severity"] == "ERROR"
    assert moved["code"]["url"].endswith("/docs/citation-lock.md")
    applied = apply(doc, moved["suggestions"])
    assert "`src/m.py:6-7`" in applied

    # The suggestion is exactly what `check-anchors --fix` writes.
    fixed = tmp_path / "fixed"
    shutil.copytree(repo, fixed)
    run_zodyssey("anchors", "check", "--fix", cwd=fixed)
    assert (fixed / "docs/a.md").read_text() == applied

    # A document edited since the check read it gets no suggestion, never a wrong one.
    (repo / "docs/a.md").write_text(doc.replace("`src/m.py:5-6`", "`src/m.py:5-6` "))
    finding = {"rule": "moved"}
    from zodyssey.findings import Finding
    from zodyssey.formats.rdjson_format import suggestions

    stale = Finding(
        "anchors", "moved", "error", "m", "docs/a.md", 3, {"edits": [[3, 0, 1, "9", "8"]]}
    )
    assert finding and suggestions(stale, {}) == []


def test_check_rdjson_is_one_document_over_every_part(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "r",
        {"docs/a.md": "# A\n\nSee `gone.py:1`. <!-- claim: nothing-defends-me -->\n"},
        commit=True,
    )
    code, document = rdjson(repo, "check")
    assert code == 9
    tools = {d["source"]["name"] for d in document["diagnostics"]}
    assert tools == {"zodyssey anchors", "zodyssey claims"}, tools
    assert document["source"]["name"] == "zodyssey check"
