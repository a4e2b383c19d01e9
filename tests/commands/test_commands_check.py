"""`zodyssey check` runs its parts in-process and merges their reports, as real processes.

The oracle is each part run alone: `zodyssey anchors check --format F` and
`zodyssey claims check --format F` as their own processes, and the gate wiring's
report rendered by the formats. Their outputs, merged by reading the rendered
text back (what `zodyssey check` did when the citation check was a subprocess),
must equal what `zodyssey check --format F` writes, for every format but html.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.helpers import assert_one_line_error, make_repo, run_zodyssey, write
from zodyssey.formats import FORMATS

README = """# demo

See `src/m.py:1` and `src/gone.py:3`.

The gate blocks writes before review. <!-- claim: gate-blocks -->
"""

TESTS = """
import pytest

@pytest.mark.claim("gate-blocks")
def test_gate():
    pass
"""

PYPROJECT = """\
[tool.pytest.ini_options]
testpaths = ["tests"]

[tool.zodyssey]
documents = ["README.md"]

[tool.zodyssey.gate]
harnesses = ["claude-code"]
"""


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Problems in every part: an unresolved citation, an unlocked claim, wiring missing."""
    root = make_repo(
        tmp_path_factory.mktemp("check") / "repo",
        {
            "pyproject.toml": PYPROJECT,
            "README.md": README,
            "src/m.py": "x = 1\n",
            "tests/test_demo.py": TESTS,
        },
    )
    assert run_zodyssey("anchors", "check", "--update", cwd=root).returncode in (0, 9)
    return root


def _gate_alone(root: Path, fmt: str) -> str:
    from zodyssey.formats import render
    from zodyssey.gate.wiring import wiring_report

    report, _ = wiring_report(root)
    return render(report, fmt, colour=False)


def _merged_from_text(fmt: str, outs: dict[str, tuple[int, str]], code: int) -> str:
    """The parts' rendered outputs merged by reading them back (the oracle)."""
    if fmt == "json":
        document: dict[str, object] = {"tool": "check", "ok": code == 0, "exit_code": code}
        for name, (part_code, out) in outs.items():
            document[name] = {"exit_code": part_code, "report": json.loads(out), "stderr": ""}
        return json.dumps(document, indent=2) + "\n"
    if fmt == "sarif":
        runs = [run for _, out in outs.values() for run in json.loads(out)["runs"]]
        log = {
            "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
            "version": "2.1.0",
            "runs": runs,
        }
        return json.dumps(log, indent=2) + "\n"
    if fmt == "junit":
        root = ET.Element("testsuites")
        for _, out in outs.values():
            root.extend(ET.fromstring(out.encode()).iter("testsuite"))
        ET.indent(root)
        return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, "unicode") + "\n"
    if fmt == "codeclimate":
        issues = [issue for _, out in outs.values() for issue in json.loads(out)]
        return json.dumps(issues, indent=2) + "\n"
    if fmt == "rdjson":
        parsed = [json.loads(out) for _, out in outs.values()]
        document = {
            "source": {"name": "zodyssey check", "url": parsed[0]["source"]["url"]},
            "diagnostics": [d for p in parsed for d in p["diagnostics"]],
        }
        levels = [p["severity"] for p in parsed if "severity" in p]
        for level in ("ERROR", "WARNING", "INFO"):
            if level in levels:
                document["severity"] = level
                break
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    names = ", ".join(f"{name} exit {c}" for name, (c, _) in outs.items())
    tail = f"zodyssey check: exit {code} ({names})\n"
    if fmt == "markdown":
        tail = f"**zodyssey check: exit {code}** ({names})\n"
    return "".join(out for _, out in outs.values()) + tail


@pytest.mark.slow
@pytest.mark.parametrize("fmt", [f for f in FORMATS if f != "html"])
def test_check_equals_its_parts_run_alone(repo: Path, fmt: str) -> None:
    env = {"NO_COLOR": "1"}
    anchors = run_zodyssey("anchors", "check", "--format", fmt, cwd=repo, env=env)
    claims = run_zodyssey("claims", "check", "--format", fmt, cwd=repo, env=env)
    assert (anchors.returncode, claims.returncode) == (9, 9), anchors.stderr + claims.stderr
    outs = {
        "anchors": (anchors.returncode, anchors.stdout),
        "claims": (claims.returncode, claims.stdout),
        "gate": (9, _gate_alone(repo, fmt)),
    }
    done = run_zodyssey("check", "--format", fmt, cwd=repo, env=env)
    assert done.returncode == 9, done.stderr
    assert done.stdout == _merged_from_text(fmt, outs, 9)
    assert "Traceback" not in done.stderr


def test_html_is_one_page_of_every_part(repo: Path) -> None:
    done = run_zodyssey("check", "--format", "html", cwd=repo)
    assert done.returncode == 9, done.stderr
    page = done.stdout
    assert page.count("<html") == 1 and page.rstrip().endswith("</html>")
    for text in ("src/gone.py", "gate-blocks", "claude-code", "anchors exit 9"):
        assert text in page, text


SPY = """\
import os, sys
with open(os.environ["SPY_LOG"], "a") as log:
    log.write(repr(sys.argv) + "\\n")
"""


def test_no_part_runs_as_a_zodyssey_process(repo: Path, tmp_path: Path) -> None:
    """Every Python process started records its argv: none of them is `zodyssey anchors`."""
    spy = write(tmp_path / "spy", "sitecustomize.py", SPY).parent
    log = tmp_path / "argv.log"
    env = {
        "SPY_LOG": str(log),
        "PYTHONPATH": str(spy),
    }
    done = run_zodyssey("check", "--format", "json", cwd=repo, env=env)
    assert done.returncode == 9, done.stderr
    argvs = log.read_text().splitlines()
    assert len(argvs) >= 1  # the spy ran (in `zodyssey check` itself at least)
    assert not [a for a in argvs[1:] if "'anchors'" in a or "'check'" in a], argvs
    assert json.loads(done.stdout)["anchors"]["report"]["tool"] == "anchors"


def test_a_part_that_cannot_run_is_reported_and_the_others_still_run(tmp_path: Path) -> None:
    """Zero citations: the anchors part exits 4 with its own error; claims still report."""
    root = make_repo(
        tmp_path / "r",
        {
            "pyproject.toml": PYPROJECT,
            "README.md": README.replace("See `src/m.py:1` and `src/gone.py:3`.", ""),
            "tests/test_demo.py": TESTS,
        },
    )
    done = run_zodyssey("check", "--format", "json", cwd=root)
    assert done.returncode == 9, done.stderr
    document = json.loads(done.stdout)
    assert document["anchors"]["exit_code"] == 4
    assert document["anchors"]["report"] is None
    assert document["anchors"]["stderr"].startswith("zodyssey: error: zero citations")
    assert document["claims"]["report"]["tool"] == "claims"
    assert "zodyssey: error: zero citations" in done.stderr


def _processes(repo: Path, tmp_path: Path, name: str, *args: str) -> tuple[int, int, str]:
    """(exit code, Python processes started, stdout) of `zodyssey check ARGS` under the spy."""
    spy = write(tmp_path / "spy", "sitecustomize.py", SPY).parent
    log = tmp_path / f"{name}.log"
    env = {"SPY_LOG": str(log), "PYTHONPATH": str(spy), "NO_COLOR": "1"}
    done = run_zodyssey("check", *args, cwd=repo, env=env)
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, len(log.read_text().splitlines()), done.stdout


@pytest.mark.slow
def test_one_run_writes_every_report_format(repo: Path, tmp_path: Path) -> None:
    """`--report FORMAT=FILE` for every format: each file is what `--format FORMAT`
    writes alone, stdout is the --format output, and the parts ran once (as many
    processes as a run with one format: the claims part's collection is one)."""
    out = tmp_path / "reports"
    out.mkdir()
    spelled = [a for fmt in FORMATS for a in ("--report", f"{fmt}={out / fmt}")]
    code, many, stdout = _processes(repo, tmp_path, "many", "--format", "github", *spelled)
    assert code == 9
    single_code, one, alone_github = _processes(repo, tmp_path, "one", "--format", "github")
    assert (single_code, many) == (9, one), (many, one)
    assert stdout == alone_github
    # Compared with a run of their own: the formats a part shows differently (JUnit's
    # cases, the quiet gate note in text) and the ones CI keeps; the rest are written.
    assert all((out / fmt).stat().st_size > 0 for fmt in FORMATS)
    for fmt in ("text", "json", "junit", "sarif", "codeclimate"):
        alone = run_zodyssey("check", "--format", fmt, cwd=repo, env={"NO_COLOR": "1"})
        assert alone.returncode == 9, alone.stderr
        assert (out / fmt).read_text(encoding="utf-8") == alone.stdout, fmt
    # JUnit's per-citation cases are in the JUnit file only (a run without JUnit has none).
    assert "src/m.py:1" in (out / "junit").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("args", "why"),
    [
        (["--report", "sarif"], "expected FORMAT=FILE"),
        (["--report", "sarif="], "expected FORMAT=FILE"),
        (["--report", "yaml=x.yaml"], "unknown format 'yaml'"),
        (["--report", "sarif=a.out", "--report", "junit=a.out"], "named twice"),
        (["-o", "a.out", "--report", "sarif=a.out"], "named twice"),
        (["--report", "sarif=missing/dir/a.sarif"], "its directory does not exist"),
    ],
)
def test_report_arguments_refused_before_anything_runs(
    repo: Path, tmp_path: Path, args: list[str], why: str
) -> None:
    work = tmp_path / "cwd"
    work.mkdir()
    done = run_zodyssey("check", "--root", str(repo), *args, cwd=work)
    assert_one_line_error(done, 2)
    assert why in done.stderr, done.stderr
    assert done.stdout == "" and list(work.iterdir()) == []  # no part ran, nothing written


def test_code_quality_report_has_gitlabs_documented_shape(repo: Path) -> None:
    """Every problem of every part as a GitLab Code Quality issue, valid against the
    documented fields (tests/ci/schemas/gitlab-codequality.schema.json), each
    fingerprint unique, pointing at the citing line."""
    from jsonschema import Draft202012Validator

    schema_path = Path(__file__).resolve().parents[1] / "ci/schemas/gitlab-codequality.schema.json"
    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    done = run_zodyssey("check", "--format", "codeclimate", cwd=repo)
    assert done.returncode == 9, done.stderr
    issues = json.loads(done.stdout)
    Draft202012Validator(schema).validate(issues)
    assert len({issue["fingerprint"] for issue in issues}) == len(issues)
    names = {issue["check_name"] for issue in issues}
    assert {"zodyssey/anchors/unresolved", "zodyssey/claims/unlocked"} <= names, names
    assert any(n.startswith("zodyssey/gate/") for n in names), names
    (gone,) = [i for i in issues if "src/gone.py:3" in i["description"]]
    assert gone["location"] == {"path": "README.md", "lines": {"begin": 3}}
    assert gone["severity"] == "major"
