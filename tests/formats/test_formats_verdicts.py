"""Every format says what the exit code says, and is valid by its own schema (issue 26, item 7).

Real repositories and real `zodyssey check` / `zodyssey audit` processes. Each
format's verdict is read the way its consumer reads it: JUnit by its failure
count, SARIF by its `error` results, rdjson by its `ERROR` diagnostics, the
GitHub format by its `::error` commands, JSON by its `exit_code`, GitLab Code
Quality by its issues of severity major or worse.
"""

from __future__ import annotations

import json
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import jsonschema
import pytest

from tests.helpers import REPO_ROOT, commit, make_repo, run_zodyssey, write
from tests.helpers.real_runs import approved, plan_of
from zodyssey.commands.check import Part, _combine
from zodyssey.findings import Case, Report
from zodyssey.formats import junit_format

SCHEMA = json.loads((Path(__file__).parent / "sarif-schema-2.1.0.json").read_text())
FORMATS = ("junit", "sarif", "rdjson", "github", "json", "text", "markdown", "codeclimate")


def says_failed(fmt: str, text: str) -> bool:
    """The verdict of a report as its consumer reads it."""
    if fmt == "junit":
        root = ET.fromstring(text.encode("utf-8"))
        return sum(int(s.get("failures", "0")) for s in root.iter("testsuite")) > 0
    if fmt == "sarif":
        log = json.loads(text)
        return any(r.get("level") == "error" for run in log["runs"] for r in run["results"])
    if fmt == "rdjson":
        return any(d.get("severity") == "ERROR" for d in json.loads(text)["diagnostics"])
    if fmt == "github":
        return any(line.startswith("::error") for line in text.splitlines())
    if fmt == "json":
        return json.loads(text)["exit_code"] != 0
    if fmt == "codeclimate":  # GitLab: an issue of severity major or worse
        return any(i["severity"] in ("major", "critical", "blocker") for i in json.loads(text))
    return "zodyssey check: exit 0" not in text


def check(root: Path, fmt: str) -> subprocess.CompletedProcess[str]:
    return run_zodyssey("check", "--root", str(root), "--format", fmt, cwd=REPO_ROOT)


def cited_repo(root: Path) -> Path:
    make_repo(root, {"src/a.py": "one\ntwo\nthree\n", "README.md": "See `src/a.py:2`.\n"})
    locked = run_zodyssey("anchors", "check", "--root", str(root), "--update", cwd=root)
    assert locked.returncode == 0, locked.stderr
    commit(root, "lock")
    return root


def zero_citations(root: Path) -> Path:
    return make_repo(root, {"README.md": "no citations here\n"})


def malformed_lock(root: Path) -> Path:
    cited_repo(root)
    write(root, "anchors/anchors.lock.json", "{ not json")
    return root


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(
    ("make", "code"), [(cited_repo, 0), (zero_citations, 4), (malformed_lock, 2)]
)
def test_check_formats_give_the_exit_codes_verdict(
    tmp_path: Path, fmt: str, make: Any, code: int
) -> None:
    root = make(tmp_path / "repo")
    done = check(root, fmt)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == code, (done.returncode, done.stderr)
    assert says_failed(fmt, done.stdout) == (code != 0), done.stdout
    if fmt == "sarif":
        jsonschema.Draft4Validator(SCHEMA, format_checker=jsonschema.FormatChecker()).validate(
            json.loads(done.stdout)
        )


@pytest.mark.parametrize("fmt", ["junit", "sarif", "rdjson", "github", "html", "codeclimate"])
def test_a_failing_part_whose_report_shows_no_failure_still_fails(fmt: str) -> None:
    """Exit 9 with a report of passing cases only (a suite the part could not fill)."""
    quiet = Report(tool="claims", title="t", cases=[Case(name="ran", classname="zodyssey.c")])
    parts = {
        "anchors": Part(0, None),
        "claims": Part(9, quiet, "zodyssey claims: error: the suite could not be parsed\n"),
    }
    text = _combine(fmt, parts, 9)
    if fmt == "html":
        assert "claims ended with exit 9" in text
        return
    assert says_failed(fmt, text), text
    assert "claims ended with exit 9" in text
    assert not says_failed(fmt, _combine(fmt, {"claims": Part(0, quiet)}, 0))


def test_junit_stays_xml_with_control_bytes_in_a_case() -> None:
    nasty = "claim \x00 with \x1b[31m colour \x0c and \ud800 and \ufffe"
    report = Report(
        tool="claims",
        title="t",
        cases=[Case(name=nasty, classname=f"zodyssey.{nasty}", failure=f"why: {nasty}")],
    )
    text = junit_format.render(report)
    root = ET.fromstring(text.encode("utf-8", "surrogatepass"))
    case = next(root.iter("testcase"))
    assert "\\x1b[31m colour" in (case.get("name") or "")
    assert "\\x00" in (case.findtext("failure") or "")


def test_an_audit_junit_report_of_a_criterion_with_control_bytes_parses(tmp_path: Path) -> None:
    repo = approved(tmp_path, plan_of("    - `printf 'a\x1bb' | grep -q b` exits 0\n"))
    assert repo.run("verify", "demo", "1").code == 0
    done = run_zodyssey(
        "audit", "--repo", str(repo.root), "demo", "--format", "junit", cwd=REPO_ROOT
    )
    assert "Traceback" not in done.stderr, done.stderr
    root = ET.fromstring(done.stdout.encode("utf-8"))
    names = [case.get("name") or "" for case in root.iter("testcase")]
    assert any("\\x1b" in name for name in names), names


def test_sarif_uris_are_uri_references_for_spaces_and_accents(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "repo",
        {
            "src/a.py": "one\ntwo\nthree\n",
            "docs/my guide.md": "See `src/a.py:2`.\n",
            "docs/naïve.md": "See `src/a.py:3`.\n",
            "README.md": "readme\n",
        },
    )
    done = check(root, "sarif")
    assert done.returncode == 9, done.stderr  # citations not in the lock
    log = json.loads(done.stdout)
    jsonschema.Draft4Validator(SCHEMA, format_checker=jsonschema.FormatChecker()).validate(log)
    uris = {
        location["physicalLocation"]["artifactLocation"]["uri"]
        for run in log["runs"]
        for result in run["results"]
        for location in result.get("locations", [])
    }
    assert {"docs/my%20guide.md", "docs/na%C3%AFve.md"} <= uris
    assert {unquote(uri) for uri in uris} >= {"docs/my guide.md", "docs/naïve.md"}


def test_a_passed_audit_of_an_unfinished_run_shows_no_red_card(tmp_path: Path) -> None:
    repo = approved(tmp_path, plan_of("    - `test -f g.txt` exits 0\n"))
    repo.write("g.txt", "hello\n")
    assert repo.run("verify", "demo", "1").code == 0  # verified, but the todo is not done
    done = run_zodyssey(
        "audit", "--repo", str(repo.root), "demo", "--format", "html", cwd=REPO_ROOT
    )
    assert done.returncode == 0, done.stderr
    assert 'data-exit="0"' in done.stdout
    assert 'class="card bad"' not in done.stdout, done.stdout
