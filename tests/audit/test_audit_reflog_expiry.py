"""The evidence anchor outlives its reflog (issue 35, item 9).

`git gc` expires reflog entries after 90 days; `git reflog expire
--expire=now --all` does it at once. The anchor refs stay: an honest run
still audits as it did (a note says what the reflog can no longer show), and
a chain cut after the expiry is still caught against the ref itself.
"""

from __future__ import annotations

from pathlib import Path

from tests.audit.test_audit_evidence_bound import rewrite_chain
from tests.helpers.real_runs import approved, audit, evidence, finish, plan_of, rules
from tests.helpers.runs import Repo

PLAN = plan_of("    - `grep -q hello g.txt` exits 0\n")


def _expire(repo: Repo) -> None:
    repo.git("reflog", "expire", "--expire=now", "--all")
    repo.git("gc", "-q", "--prune=now")  # packs the anchor refs too
    logs = repo.root / ".git" / "logs" / "refs" / "zodyssey"
    assert not any(p.stat().st_size for p in logs.rglob("*") if p.is_file()), "reflog kept"


def _honest(tmp_path: Path) -> Repo:
    repo = approved(tmp_path, PLAN)
    repo.write("g.txt", "hello\n")
    results = finish(repo)
    assert [r.code for r in results] == [0, 0, 0], [r.text for r in results]
    return repo


def test_an_honest_run_audits_the_same_after_its_reflog_expired(tmp_path: Path) -> None:
    repo = _honest(tmp_path)
    code, before = audit(repo, "demo", "--strict", "--require-complete")
    assert code == 0, before["findings"]
    _expire(repo)
    code, after = audit(repo, "demo", "--strict", "--require-complete")
    assert code == 0, after["findings"]
    assert after["run"]["chain_intact"] is True
    notes = [f["message"] for f in after["findings"] if f["severity"] == "note"]
    assert any("reflog has expired" in n and "can no longer be checked" in n for n in notes), notes


def test_the_run_commands_go_on_after_the_reflog_expired(tmp_path: Path) -> None:
    repo = approved(tmp_path, PLAN)
    repo.write("g.txt", "hello\n")
    assert repo.run("verify", "demo", "1").code == 0
    _expire(repo)
    assert repo.run("verify", "demo", "1").code == 0
    assert repo.run("todo", "demo", "1", "done").code == 0
    _, payload = audit(repo, "demo")
    assert "chain-broken" not in rules(payload), payload["findings"]


def test_a_chain_cut_after_the_reflog_expired_is_still_caught(tmp_path: Path) -> None:
    """The ref names the head: cutting the failing tail and fixing the state's head
    to match is caught, reflog or not."""
    repo = approved(tmp_path, PLAN)
    repo.write("g.txt", "hello\n")
    assert repo.run("verify", "demo", "1").code == 0
    repo.write("g.txt", "bye\n")
    assert repo.run("verify", "demo", "1").code == 1
    _expire(repo)
    rewrite_chain(repo, evidence(repo)[:1])
    assert repo.run("todo", "demo", "1", "done").code == 11
    code, payload = audit(repo, "demo", "--strict")
    assert code == 1 and "chain-broken" in rules(payload), payload["findings"]
