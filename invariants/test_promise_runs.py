"""README promises about run evidence and the audit, through `zodyssey run` and `zodyssey audit`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

PLAN = """\
# Demo change
## Todos
- [ ] 1. Add the module
  - Files: [`src/app.py`]
  - Acceptance criteria:
    - `test -f src/app.py`
    - `grep -q answer src/app.py`
"""


def run_cmd(lab: Any, repo: Path, *args: str) -> Any:
    return lab.zodyssey("run", *args, "--repo", str(repo), cwd=repo)


def state_of(repo: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((repo / ".zcode" / "state" / "demo.json").read_text())
    return data


def reviewed_run(lab: Any, *, git: bool = True) -> Path:
    repo: Path = lab.repo(git=git)
    (repo / "README.md").write_text("# demo\n")
    if git:
        lab.commit(repo, "init")
    plan = lab.base / "plan.md"
    plan.write_text(PLAN, encoding="utf-8")
    for argv in (
        ("start", "demo", "--plan", str(plan)),
        ("review", "demo", "--human", "OKAY", "--by", "invariants"),
    ):
        done = run_cmd(lab, repo, *argv)
        assert done.returncode == 0, (argv, done.stdout, done.stderr)
    return repo


def finish_todo(lab: Any, repo: Path) -> None:
    (repo / "src").mkdir(exist_ok=True)
    (repo / "src" / "app.py").write_text("answer = 42\n", encoding="utf-8")
    assert run_cmd(lab, repo, "verify", "demo", "1").returncode == 0
    assert run_cmd(lab, repo, "todo", "demo", "1", "done").returncode == 0


def audit_rules(lab: Any, repo: Path) -> tuple[int, set[str]]:
    done = lab.zodyssey("audit", "demo", "--repo", str(repo), "--format", "json", cwd=repo)
    assert done.returncode in (0, 1), done.stdout + done.stderr
    document = json.loads(done.stdout)
    return done.returncode, {f["rule"] for f in document["findings"] if f["severity"] == "error"}


@pytest.mark.claim("done-needs-evidence")
def test_done_is_refused_until_every_criterion_passed(lab: Any) -> None:
    repo = reviewed_run(lab)
    refused = run_cmd(lab, repo, "todo", "demo", "1", "done")
    assert refused.returncode != 0 and refused.stderr.strip(), refused
    assert state_of(repo)["todos"]["1"]["status"] != "done"
    # One criterion passes, the other fails: still refused.
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("nothing here\n", encoding="utf-8")
    run_cmd(lab, repo, "verify", "demo", "1")
    assert run_cmd(lab, repo, "todo", "demo", "1", "done").returncode != 0
    assert state_of(repo)["todos"]["1"]["status"] != "done"
    # Both pass: done is accepted (the control).
    (repo / "src" / "app.py").write_text("answer = 42\n", encoding="utf-8")
    assert run_cmd(lab, repo, "verify", "demo", "1").returncode == 0
    accepted = run_cmd(lab, repo, "todo", "demo", "1", "done")
    assert accepted.returncode == 0, accepted.stderr
    assert state_of(repo)["todos"]["1"]["status"] == "done"


@pytest.mark.claim("done-needs-evidence")
def test_only_a_persons_stamped_override_marks_done_without_evidence(lab: Any) -> None:
    """The one way past the rule: `--force-done --reason`, stamped into the evidence."""
    repo = reviewed_run(lab)
    forced = run_cmd(lab, repo, "todo", "demo", "1", "done", "--force-done", "--reason", "no net")
    assert forced.returncode == 0, forced.stderr
    assert state_of(repo)["todos"]["1"]["status"] == "done"
    log = repo / ".zcode" / "verify" / "demo" / "evidence.jsonl"
    kinds = [json.loads(line).get("kind") for line in log.read_text().splitlines() if line]
    assert "override" in kinds, kinds


@pytest.mark.claim("evidence-chain")
@pytest.mark.parametrize("tamper", ["edit", "delete", "reorder"])
def test_tampered_evidence_breaks_the_chain(lab: Any, tamper: str) -> None:
    repo = reviewed_run(lab)
    finish_todo(lab, repo)
    code, rules = audit_rules(lab, repo)
    assert code == 0 and "chain-broken" not in rules, rules
    log = repo / ".zcode" / "verify" / "demo" / "evidence.jsonl"
    records = [line for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(records) >= 2
    if tamper == "edit":
        first = json.loads(records[0])
        first["exit_code"] = 0 if first.get("exit_code") else 1
        records[0] = json.dumps(first)
    elif tamper == "delete":
        del records[0]
    else:
        records[0], records[1] = records[1], records[0]
    log.write_text("\n".join(records) + "\n", encoding="utf-8")
    code, rules = audit_rules(lab, repo)
    assert code == 1 and "chain-broken" in rules, rules


@pytest.mark.claim("window-null-fails")
def test_unknown_window_fails_the_audit_like_a_violated_one(lab: Any) -> None:
    clean = reviewed_run(lab)
    finish_todo(lab, clean)
    ok = run_cmd(lab, clean, "window", "demo", "--label", "auditor", "--", "true")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    code, rules = audit_rules(lab, clean)
    assert code == 0 and not rules & {"window-unknown", "window-violated"}, rules

    lab.base = lab.base / "nogit"
    unknown = reviewed_run(lab, git=False)
    finish_todo(lab, unknown)
    window = run_cmd(lab, unknown, "window", "demo", "--label", "auditor", "--", "true")
    assert window.returncode != 0, "an unverifiable window is not a success"
    code, rules = audit_rules(lab, unknown)
    assert code == 1 and "window-unknown" in rules, rules


def audit_doc(lab: Any, repo: Path, *args: str) -> tuple[int, dict[str, Any]]:
    done = lab.zodyssey("audit", "demo", "--repo", str(repo), "--format", "json", *args, cwd=repo)
    assert done.returncode in (0, 1, 4), done.stdout + done.stderr
    document: dict[str, Any] = json.loads(done.stdout)
    return done.returncode, document


@pytest.mark.slow
@pytest.mark.claim("audit-failed-and-empty")
def test_a_failed_or_empty_run_never_passes(lab: Any) -> None:
    empty = reviewed_run(lab)
    for extra in ((), ("--strict",)):
        code, document = audit_doc(lab, empty, *extra)
        assert code == 4 and document["verdict"] == "empty", document["summary"]
    (empty / "src").mkdir()
    (empty / "src" / "app.py").write_text("nothing here\n", encoding="utf-8")
    assert run_cmd(lab, empty, "verify", "demo", "1").returncode != 0
    code, document = audit_doc(lab, empty)  # the todo is still pending
    rules = {f["rule"] for f in document["findings"] if f["severity"] == "error"}
    assert code == 1 and "criterion-failed" in rules, document["summary"]
    # the control: both criteria pass
    (empty / "src" / "app.py").write_text("answer = 42\n", encoding="utf-8")
    assert run_cmd(lab, empty, "verify", "demo", "1").returncode == 0
    assert run_cmd(lab, empty, "todo", "demo", "1", "done").returncode == 0
    code, document = audit_doc(lab, empty)
    assert code == 0, document["findings"]


@pytest.mark.claim("audit-require-complete")
def test_an_unfinished_run_fails_with_require_complete(lab: Any) -> None:
    repo = reviewed_run(lab)
    finish_todo(lab, repo)  # every todo done, the phase never set to done
    code, document = audit_doc(lab, repo)
    unfinished = [f for f in document["findings"] if f["rule"] == "run-unfinished"]
    assert code == 0 and unfinished and unfinished[0]["severity"] == "warning"
    code, document = audit_doc(lab, repo, "--require-complete")
    assert code == 1 and document["verdict"] == "failed", document["summary"]


@pytest.mark.slow
@pytest.mark.claim("audit-formats-agree")
def test_every_format_says_what_the_exit_code_says(lab: Any) -> None:
    repo = reviewed_run(lab)
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("nothing here\n", encoding="utf-8")
    run_cmd(lab, repo, "verify", "demo", "1")
    outputs = {}
    for fmt in ("text", "json", "markdown", "html", "junit", "sarif"):
        done = lab.zodyssey("audit", "demo", "--repo", str(repo), "--format", fmt, cwd=repo)
        assert done.returncode == 1, (fmt, done.stdout, done.stderr)
        outputs[fmt] = done.stdout
    assert "audit FAILED" in outputs["text"]
    assert json.loads(outputs["json"])["ok"] is False
    assert outputs["markdown"].splitlines()[0].endswith(": failed")
    assert 'class="badge failed"' in outputs["html"] and "badge passed" not in outputs["html"]
    assert 'failures="0"' not in outputs["junit"]
    levels = {r["level"] for r in json.loads(outputs["sarif"])["runs"][0]["results"]}
    assert "error" in levels
