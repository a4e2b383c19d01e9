"""Exact defenders of the README's drilled claims, written for the operator mutants.

Drilling the README's claims with operator mutants (issue 37: `+`->`-`, `<`->`<=`,
constants +-1, strings emptied, keyword arguments dropped, ...) left 47 of 142
mutants alive: the end-to-end tests checked that the gate blocks, that the audit
fails, that `todo done` is refused, but not the reason given, the file named,
the record written or the line reported. Each test here pins what the claimed
code returns or writes exactly; most call that code in this process (the drill's
warm process then kills a mutant in a fraction of a second), the rest go through
the real commands.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

# Each test imports what it needs itself: the drill keys a claim's cached verdict by
# the modules its tests import, so one claim's tests do not import another's code.

SCOPE_TAIL = (
    "outside the plan's scope; only files listed under a todo's Files: (or inside a "
    "listed dir/) may be written"
)


def _root(tmp_path: Path) -> Path:
    from tests.gate import test_gate_policy_redteam as redteam

    root: Path = redteam.root.__wrapped__(tmp_path)  # type: ignore[attr-defined]
    return root


def _gate() -> Any:
    """The gate's decision, a tool call and the red-team run context (tests/gate)."""
    from tests.gate import test_gate_policy_redteam as redteam
    from tests.helpers.gate import call
    from zodyssey.gate.policy import decide

    return decide, call, redteam.ctx


# ------------------------------------------------------------------ review gate, plan tamper


@pytest.mark.claim("review-gate")
def test_the_review_block_names_the_first_file_written(tmp_path: Path) -> None:
    decide, call, ctx = _gate()
    root = _root(tmp_path)
    command = call("Bash", {"command": "touch src/ok.py pkg/a.py"}, root)
    decision = decide(command, ctx(root, verdict=None))
    assert not decision.allow and decision.rule == "review-gate", decision
    assert decision.reason.startswith("writing src/ok.py is product code and "), decision.reason


@pytest.mark.claim("plan-tamper")
def test_a_changed_plan_is_blocked_as_plan_tamper_with_both_hashes(tmp_path: Path) -> None:
    decide, call, ctx = _gate()
    root = _root(tmp_path)
    decision = decide(call("Write", {"file_path": "src/ok.py"}, root), ctx(root, bound="ab" * 32))
    assert not decision.allow and decision.rule == "plan-tamper", decision
    assert decision.reason.startswith(
        "the plan .zcode/plans/demo.md changed after review: expected sha256 abababababab, actual "
    ), decision.reason


# ------------------------------------------------------------------ scope lock


@pytest.mark.claim("scope-lock")
def test_a_scope_block_names_at_most_five_files(tmp_path: Path) -> None:
    decide, call, ctx = _gate()
    root = _root(tmp_path)
    context = ctx(root)
    many = decide(call("Bash", {"command": "touch a1 a2 a3 a4 a5 a6 a7"}, root), context)
    assert many.rule == "scope" and many.reason == f"a1, a2, a3, a4, a5 are {SCOPE_TAIL}", many
    one = decide(call("Write", {"file_path": "README.md"}, root), context)
    assert one.rule == "scope" and one.reason == f"README.md is {SCOPE_TAIL}", one


@pytest.mark.claim("scope-lock")
def test_in_scope_answers_true_or_false(tmp_path: Path) -> None:
    from zodyssey.gate.policy import in_scope

    root = str(tmp_path.resolve())
    files = frozenset({f"{root}/src/ok.py", "/elsewhere/x.py"})
    dirs = frozenset({f"{root}/pkg", "/odir"})
    cases = {
        f"{root}/pkg/a.py": True,
        f"{root}/src/ok.py": True,
        "/elsewhere/x.py": True,
        f"{root}/pkg/.git": False,  # a gitfile: git metadata even without a slash after it
        f"{root}/pkg/.git/config": False,
        f"{root}/pkg/HEAD": False,
        f"{root}/pkg/sub/HEAD": False,
        "/odir/f.py": False,  # outside the repository only exact declarations count
        f"{root}/other.py": False,
    }
    for path, expected in cases.items():
        assert in_scope(path, files, dirs, root) is expected, path


# ------------------------------------------------------------------ shell classifier


@pytest.mark.claim("bash-gate")
def test_what_cannot_be_classified_is_write_capable_and_says_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from zodyssey.gate.shell import Part, classify

    deep = "(" * 500 + "echo" + ")" * 500
    assert classify(deep).parts == (Part(deep, True, (), True, "nested too deeply to classify"),)
    from zodyssey.gate.shell import walker

    # The walker's step limit, made small: a real command then goes over it.
    monkeypatch.setattr(walker, "MAX_STEPS", 5)
    big = "echo $a; echo $b; echo $c; echo $d; echo $e; echo $f"
    assert classify(big).parts == (Part(big, True, (), True, "too large to classify"),)


@pytest.mark.claim("bash-gate")
def test_a_malformed_allowlist_is_an_error_never_a_verdict() -> None:
    """Only "too deep" and "too large" become a write-capable verdict; a broken
    read-only allowlist (a configuration error) raises."""
    from zodyssey.gate.shell import classify

    with pytest.raises(TypeError):
        classify("ls", [None])  # type: ignore[list-item]


# ------------------------------------------------------------------ gate wiring


@pytest.mark.claim("gate-wiring-checked")
def test_the_wiring_check_reports_its_declaration_and_committed_hatches_only(lab: Any) -> None:
    from invariants.test_promise_wiring import wired_repo
    from zodyssey.gate.wiring import check_wiring

    repo = wired_repo(lab)
    wiring = check_wiring(repo)
    assert wiring.declared == ["claude-code"] and wiring.source, wiring
    assert wiring.findings == []
    (repo / ".env").write_text("ZODYSSEY_UNGATE_BASH=1\n", encoding="utf-8")
    assert check_wiring(repo).findings == []  # not committed: not the repository's
    lab.commit(repo, "the hatch, committed")
    found = check_wiring(repo).findings
    assert [(f.file, f.severity) for f in found] == [(".env", "error")], found


@pytest.mark.claim("gate-wiring-checked")
def test_outside_git_every_hatch_counts(lab: Any) -> None:
    from zodyssey.gate.wiring import check_wiring

    repo = lab.repo(git=False)
    assert lab.zodyssey("init", cwd=repo).returncode == 0
    done = lab.zodyssey("hook", "install", "--command", "zodyssey", cwd=repo)
    assert done.returncode == 0, done.stderr
    (repo / ".env").write_text("ZODYSSEY_UNGATE_BASH=1\n", encoding="utf-8")
    found = check_wiring(repo).findings
    assert [(f.file, f.severity) for f in found if f.file == ".env"] == [(".env", "error")], found


@pytest.mark.claim("gate-wiring-checked")
def test_a_gate_wired_for_an_undeclared_harness_is_named(lab: Any) -> None:
    from invariants.test_promise_wiring import wired_repo
    from zodyssey.gate.wiring import check_wiring

    repo = wired_repo(lab)
    source = repo / check_wiring(repo).source  # type: ignore[operator]
    text = source.read_text(encoding="utf-8")
    source.write_text(text.replace('"claude-code"', ""), encoding="utf-8")
    wiring = check_wiring(repo)
    assert wiring.declared == []
    assert [(f.rule, f.file) for f in wiring.findings] == [("undeclared", ".claude/settings.json")]


# ------------------------------------------------------------------ evidence chain


def _chain(count: int) -> list[dict[str, Any]]:
    from zodyssey.core.vocabulary import GENESIS_HASH
    from zodyssey.runs.evidence import record_hash

    records: list[dict[str, Any]] = []
    previous = GENESIS_HASH
    for seq in range(1, count + 1):
        record: dict[str, Any] = {"seq": seq, "kind": "criterion", "prev": previous, "n": seq}
        record["hash"] = record_hash(record)
        previous = record["hash"]
        records.append(record)
    return records


@pytest.mark.claim("evidence-chain")
def test_an_intact_chain_and_an_empty_one_have_no_problem() -> None:
    from zodyssey.core.vocabulary import GENESIS_HASH
    from zodyssey.runs.evidence import record_hash, verify_chain

    records = _chain(3)
    assert record_hash(records[0]) == records[0]["hash"]  # the hash leaves itself out
    assert verify_chain(records, expected_count=3, expected_head=records[-1]["hash"]) == []
    assert verify_chain([], expected_count=0, expected_head=GENESIS_HASH) == []
    [short] = verify_chain([], expected_count=1)
    assert short.message == "the chain has 0 records but the run state recorded 1"


@pytest.mark.claim("evidence-chain")
@pytest.mark.parametrize(("lines", "line"), [(None, 2), ([5, 9, 14], 9), ([5, 9], 9), ([5], 2)])
def test_an_edited_record_is_one_problem_at_its_line(lines: list[int] | None, line: int) -> None:
    """The edit is reported once, on the edited record's line of the file (its
    position when `lines` does not reach it); the next record still follows the
    hash the edited one states, so it is not blamed too."""
    from zodyssey.runs.evidence import ChainProblem, verify_chain

    records = _chain(3)
    records[1]["n"] = 99  # edited; its stated hash kept
    problems = verify_chain(records, lines=lines)
    message = "record seq 2 was altered (hash does not match its content)"
    assert problems == [ChainProblem(line, 2, message)], problems


# ------------------------------------------------------------------ todo done needs evidence


def _evidence(repo: Path) -> list[dict[str, Any]]:
    log = repo / ".zcode" / "verify" / "demo" / "evidence.jsonl"
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line]


@pytest.mark.claim("done-needs-evidence")
def test_a_refused_done_says_why_exits_refused_and_is_logged(lab: Any) -> None:
    from invariants.test_promise_runs import reviewed_run, run_cmd, state_of
    from zodyssey.core.exits import Exit

    repo = reviewed_run(lab)
    refused = run_cmd(lab, repo, "todo", "demo", "1", "done")
    assert refused.returncode == Exit.REFUSED_STATE, refused.stderr
    assert "todo 1 cannot be done: " in refused.stderr, refused.stderr
    assert "; run `zodyssey run verify demo 1`" in refused.stderr, refused.stderr
    entry = state_of(repo)["gate_log"][-1]
    assert (entry["command"], entry["decision"], entry["subject"]) == ("todo", "refuse", "1")
    assert entry["reason"].startswith("todo 1 cannot be done: "), entry


@pytest.mark.claim("done-needs-evidence")
def test_the_override_record_names_the_todo_and_the_command(lab: Any) -> None:
    from invariants.test_promise_runs import reviewed_run, run_cmd

    repo = reviewed_run(lab)
    forced = run_cmd(lab, repo, "todo", "demo", "1", "done", "--force-done", "--reason", "no net")
    assert forced.returncode == 0, forced.stderr
    [record] = [r for r in _evidence(repo) if r.get("kind") == "override"]
    assert (record["subject"], record["by"], record["reason"]) == (
        "todo 1 done",
        "zodyssey run todo",
        "no net",
    )


@pytest.mark.claim("done-needs-evidence")
def test_a_broken_chain_or_an_open_violation_refuses_done(lab: Any) -> None:
    from invariants.test_promise_runs import reviewed_run, run_cmd, state_of
    from zodyssey.core.exits import Exit
    from zodyssey.runs.evidence import append_record

    repo = reviewed_run(lab)
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("answer = 42\n", encoding="utf-8")
    assert run_cmd(lab, repo, "verify", "demo", "1").returncode == 0
    # An unresolved violation in the evidence: done is refused until a person decides.
    append_record(repo, "demo", {"kind": "violation", "slug": "demo", "paths": ["src/x.py"]})
    refused = run_cmd(lab, repo, "todo", "demo", "1", "done")
    assert refused.returncode == Exit.REFUSED_STATE, refused.stderr
    assert "unresolved violation(s)" in refused.stderr, refused.stderr
    entry = state_of(repo)["gate_log"][-1]
    assert (entry["command"], entry["decision"]) == ("todo", "refuse"), entry
    # A record edited: the broken chain refuses it under the same command.
    log = repo / ".zcode" / "verify" / "demo" / "evidence.jsonl"
    lines = log.read_text(encoding="utf-8").splitlines()
    lines[0] = lines[0].replace('"demo"', '"demo2"', 1)
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    broken = run_cmd(lab, repo, "todo", "demo", "1", "done")
    assert broken.returncode != 0 and "unresolved violation" not in broken.stderr, broken.stderr
    entry = state_of(repo)["gate_log"][-1]
    assert (entry["command"], entry["decision"]) == ("todo", "refuse"), entry


# ------------------------------------------------------------------ audit, anchors


@pytest.mark.claim("window-null-fails")
def test_an_unknown_window_finding_says_so_and_is_keyed_by_its_label(lab: Any) -> None:
    from invariants.test_promise_runs import audit_doc, finish_todo, reviewed_run, run_cmd

    lab.base = lab.base / "nogit"
    repo = reviewed_run(lab, git=False)
    finish_todo(lab, repo)
    run_cmd(lab, repo, "window", "demo", "--label", "auditor", "--", "true")
    _, document = audit_doc(lab, repo)
    [finding] = [f for f in document["findings"] if f["rule"] == "window-unknown"]
    assert finding["severity"] == "error"
    assert finding["message"].startswith("auditor: readOnlyViolation is null (git state could not")
    assert finding["message"].endswith("could not verify is not a pass"), finding
    assert finding["extra"]["key"] == "unknown/auditor", finding


@pytest.mark.claim("zero-citations-fails")
def test_zero_citations_says_an_empty_check_is_a_failure(lab: Any) -> None:
    from invariants.test_promise_anchors import anchors

    repo = lab.repo()
    (repo / "README.md").write_text("# Demo\n\nNothing cited here.\n", encoding="utf-8")
    done = anchors(lab, repo)
    assert done.returncode == 4, done.stdout + done.stderr
    assert "zero citations discovered under" in done.stderr, done.stderr
    assert "an empty check is a failure, not a pass" in done.stderr, done.stderr
