"""The audit's advice about stale evidence can always be followed (issue 36 item 4).

`run phase done` accepted evidence the audit then called stale ("verify again"),
while `run verify` is refused in phase `done`; and a report written into the
work tree (`zodyssey audit ... -o report.json`) made the next audit of the same
run stale. Real runs made with `zodyssey run` in temporary git repositories.
"""

from __future__ import annotations

from pathlib import Path

from tests.helpers import run_zodyssey
from tests.helpers.real_runs import approved, audit, plan_of, rules

PLAN = plan_of("    - `grep -q hello g.txt` exits 0\n")


def test_done_refuses_stale_evidence_and_its_advice_works(tmp_path: Path) -> None:
    """Fails on the old code: `phase done` exited 0 and the audit then failed (stale)."""
    repo = approved(tmp_path, PLAN)
    repo.write("g.txt", "hello\n")
    assert repo.run("verify", "demo", "1").code == 0
    assert repo.run("todo", "demo", "1", "done").code == 0
    repo.write("g.txt", "hello, edited after the verify\n")
    refused = repo.run("phase", "demo", "done")
    assert refused.code == 11, refused.text
    assert "run verify demo 1" in refused.err, refused.err
    # Following it: verify again, then done; the audit finds nothing stale.
    assert repo.run("verify", "demo", "1").code == 0
    assert repo.run("phase", "demo", "done").code == 0, repo.run("status", "demo").text
    code, payload = audit(repo, "demo", "--strict", "--require-complete")
    assert code == 0, payload["findings"]


def test_reports_the_audit_writes_into_the_work_tree_never_make_it_stale(tmp_path: Path) -> None:
    """Fails on the old code: the second audit found the first's report and said stale."""
    repo = approved(tmp_path, PLAN)
    repo.write("g.txt", "hello\n")
    assert repo.run("verify", "demo", "1").code == 0
    assert repo.run("todo", "demo", "1", "done").code == 0
    assert repo.run("phase", "demo", "done").code == 0
    for name in ("report.json", "reports/audit.html"):
        (repo.root / name).parent.mkdir(exist_ok=True)
        fmt = "json" if name.endswith(".json") else "html"
        done = run_zodyssey("audit", "demo", "--format", fmt, "-o", name, "--strict", cwd=repo.root)
        assert done.returncode == 0, done.stdout + done.stderr
        assert (repo.root / name).is_file()
    code, payload = audit(repo, "demo", "--strict", "--require-complete")
    assert code == 0, payload["findings"]
    # A report edited afterwards is the person's file, not the audit's: it counts.
    (repo.root / "report.json").write_text("{}\n")
    code, payload = audit(repo, "demo")
    assert code == 1 and "evidence-stale" in rules(payload)


def test_stale_after_done_says_what_a_done_run_can_do(tmp_path: Path) -> None:
    """Fails on the old code: it said "verify again", which a done run refuses."""
    repo = approved(tmp_path, PLAN)
    repo.write("g.txt", "hello\n")
    assert repo.run("verify", "demo", "1").code == 0
    assert repo.run("todo", "demo", "1", "done").code == 0
    assert repo.run("phase", "demo", "done").code == 0
    repo.write("g.txt", "goodbye\n")
    code, payload = audit(repo, "demo")
    stale = [f for f in payload["findings"] if f["rule"] == "evidence-stale"]
    assert code == 1 and stale
    assert "; verify again" not in stale[0]["message"]
    assert repo.run("verify", "demo", "1").code == 11  # what the old advice asked for
    assert "put the files changed since back" in stale[0]["message"]
    # Following it: the file as it was verified; the audit passes.
    repo.write("g.txt", "hello\n")
    code, payload = audit(repo, "demo", "--strict", "--require-complete")
    assert code == 0, payload["findings"]
