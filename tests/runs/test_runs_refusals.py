"""Every refusal of `zodyssey run`: its exit code and its one clear message."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import run_zodyssey
from tests.helpers.runs import PLAN, Repo, Result
from zodyssey.core import paths
from zodyssey.core.plan import plan_sha256
from zodyssey.core.store import RunStore
from zodyssey.runs import evidence as chain


def refused(result: Result, code: int, *fragments: str) -> None:
    assert result.code == code, result.text
    assert "Traceback" not in result.text
    error_lines = [line for line in result.err.splitlines() if line.startswith("zodyssey")]
    assert len(error_lines) == 1, result.err
    for fragment in fragments:
        assert fragment in result.err, result.err


def last_gate(repo: Repo) -> dict[str, object]:
    entry: dict[str, object] = repo.state()["gate_log"][-1]
    return entry


# ------------------------------------------------------------------ start


def test_start_refuses_an_active_run(started: Repo) -> None:
    refused(started.run("start", "demo"), 11, "already active (phase plan)")


def test_start_refuses_a_bad_slug_and_an_unreadable_plan(repo: Repo) -> None:
    refused(repo.run("start", "Bad_Slug"), 2, "invalid run slug")
    refused(repo.run("start", "demo", "--plan", "missing.md"), 2, "cannot read --plan")


def test_start_after_a_finished_run_archives_it(started: Repo) -> None:
    repo = started
    assert repo.run("phase", "demo", "abandoned", "--reason", "wrong idea").code == 0
    again = repo.run("start", "demo")
    assert again.code == 0, again.text
    assert "archived" in again.out
    assert repo.state()["phase"] == "plan"
    assert list((repo.root / ".zcode/archive").iterdir())


def test_status_of_a_missing_run(repo: Repo) -> None:
    refused(repo.run("status", "nothing"), 2, "no run 'nothing'")


# ------------------------------------------------------------------ lint


def test_lint_reports_one_line_per_problem(repo: Repo) -> None:
    plan = repo.root.parent / "bad-plan.md"
    plan.write_text(
        """# Bad
## Todos
- [ ] 1. No files, prose criterion
  - Acceptance criteria:
    - the page looks right
- [ ] 2. Delegates
  - Files: [`a.py`]
  - Acceptance criteria:
    - the user manually verifies the output
- [ ] 3. No criteria
  - Files: [`b.py`]
- [ ] 4. Misses the test suite
  - Files: [`c.py`]
  - Acceptance criteria:
    - `grep -q x c.py`
""",
        encoding="utf-8",
    )
    repo.write("pyproject.toml", '[tool.zodyssey.checks.tests]\ncommand = "python -m pytest -q"\n')
    assert repo.run("start", "demo", "--plan", str(plan)).code == 0
    result = repo.run("lint", "demo")
    assert result.code == 6, result.text
    lines = result.out.strip().splitlines()
    # todos 1, 2 and 4 also miss the configured test command
    assert len(lines) == 7, lines
    text = result.out
    assert "todo 1: no `Files: [...]` declared" in text
    assert "todo 1: criterion 1 has no executable command" in text
    assert "todo 2: criterion 1 delegates to a person" in text
    assert "todo 3: no acceptance criteria" in text
    assert "todo 4: no criterion runs the configured test command `python -m pytest -q`" in text


def test_lint_of_the_template_plan_fails(repo: Repo) -> None:
    assert repo.run("start", "demo").code == 0
    result = repo.run("lint", "demo")
    assert result.code == 6
    assert "declares no todos" in result.out


# ------------------------------------------------------------------ review


def test_review_argument_errors(started: Repo) -> None:
    repo = started
    refused(repo.run("review", "demo"), 2, "give --human OKAY|REJECT --by NAME")
    refused(repo.run("review", "demo", "--human", "OKAY"), 2, "--human needs --by")


@pytest.mark.parametrize(
    "body",
    [
        '{"verdict": "OKAY", "nonce": "n"}',
        "VERDICT: OKAY\nNONCE: n\n",
        "{" + '"a":[' * 100000,
    ],
)
def test_review_from_a_file_is_refused_whatever_it_holds(started: Repo, body: str) -> None:
    """Item 1 of issue 21: a verdict file the orchestrator wrote never becomes a verdict."""
    path = started.write(".zcode/staging/v.json", body)
    refused(started.run("review", "demo", "--artifact", str(path)), 11, "dispatch the reviewer")
    state = started.state()
    assert state["review"]["round"] == 0 and state["review"]["verdict"] is None
    assert last_gate(started)["decision"] == "refuse"


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ('{"verdict": "okay"}', 'verdict must be "OKAY" or "REJECT"'),
        ("Looks fine to me.", "has no verdict"),
        ("VERDICT: OKAY\nVERDICT: REJECT\n", "is ambiguous"),
        ("VERDICT: OKAY or REJECT\n", "is ambiguous"),
        ({"content": [], "prompt": "VERDICT: OKAY"}, "reported no answer"),
        ({"error": "the subagent failed", "llmContent": "VERDICT: OKAY"}, "reported no answer"),
    ],
)
def test_a_reviewer_answer_without_one_clear_verdict_records_no_round(
    started: Repo, answer: object, message: str
) -> None:
    assert started.dispatch_reviewer().code == 0
    reported = started.report_reviewer(answer)
    assert reported.code == 0, reported.text
    state = started.state()
    assert state["review"]["round"] == 0 and state["review"]["verdict"] is None
    assert state["review"]["pending_dispatch"] is None  # dispatch the reviewer again
    assert message in str(last_gate(started)["reason"])


def test_the_reported_verdict_is_the_pending_dispatch_only_once(started: Repo) -> None:
    repo = started
    # No reviewer dispatched: a report is nobody's verdict.
    assert repo.report_reviewer(repo.answer("OKAY")).code == 0
    assert repo.state()["review"]["round"] == 0
    assert repo.dispatch_reviewer("toolu_a").code == 0
    review = repo.state()["review"]
    pending = review["pending_dispatch"]
    # What the state keeps is a digest: neither the call id nor anything to hand back.
    assert "toolu_a" not in json.dumps(review) and pending["agent"] == "momus"
    assert review.get("pending_nonce") is None
    # Another call's report (a different tool_use_id) is not the reviewer's.
    assert repo.report_reviewer(repo.answer("OKAY"), "toolu_b").code == 0
    assert repo.state()["review"]["round"] == 0
    assert (
        repo.report_reviewer("VERDICT: REJECT\nBLOCKERS:\n- weak criterion\n", "toolu_a").code == 0
    )
    state = repo.state()
    assert state["review"]["round"] == 1 and state["review"]["verdict"] == "REJECT"
    assert state["review"]["history"][-1]["blockers"] == ["weak criterion"]
    assert state["review"]["history"][-1]["source"] == "agent"
    assert state["review"]["history"][-1]["by"] == "momus"
    assert pending["sha256"] in state["review"]["consumed_dispatches"]
    # The same report again (a replayed post-tool) records nothing more.
    assert repo.report_reviewer(repo.answer("OKAY"), "toolu_a").code == 0
    assert repo.state()["review"]["round"] == 1


def test_the_answer_is_the_reviewers_not_the_prompt_echoed_in_the_report(started: Repo) -> None:
    assert started.dispatch_reviewer().code == 0
    report = {
        "prompt": "VERDICT: OKAY",
        "content": [{"type": "text", "text": "Criterion 1 runs nothing.\nVERDICT: REJECT"}],
    }
    assert started.report_reviewer(report).code == 0
    assert started.state()["review"]["verdict"] == "REJECT"


def test_okay_needs_a_clean_lint_and_spends_the_round(started: Repo) -> None:
    repo = started
    assert repo.dispatch_reviewer().code == 0
    okay = repo.answer("OKAY")  # the reviewer read the plan it was sent
    plan = repo.root / ".zcode/plans/demo.md"
    reviewed = plan.read_bytes()
    repo.write(".zcode/plans/demo.md", "# no todos any more\n")  # the agent edits its plan
    result = repo.report_reviewer(okay)
    # The round is spent on a REJECT; the plan, frozen during the review, is put back.
    assert result.code == 2 and "restored" in result.err, result.text
    state = repo.state()
    assert state["review"]["verdict"] == "REJECT"
    assert state["review"]["history"][-1]["reviewer_verdict"] == "OKAY"
    assert "plan lint" in state["review"]["history"][-1]["refused"]
    assert plan.read_bytes() == reviewed
    # After the REJECT the plan is the agent's again; a person's OKAY still needs a clean lint.
    plan.write_text("# no todos any more\n")
    refused(repo.run("review", "demo", "--human", "OKAY", "--by", "alice"), 6, "lint problem")


def test_okay_refused_when_the_plan_changed_after_dispatch(started: Repo) -> None:
    repo = started
    assert repo.dispatch_reviewer().code == 0
    okay = repo.answer("OKAY")  # the reviewer read the plan it was sent
    plan = repo.root / ".zcode/plans/demo.md"
    reviewed = plan.read_bytes()
    plan.write_text(plan.read_text() + "\n<!-- widened after the reviewer read it -->\n")
    # The plan is frozen while the review is pending: the OKAY is refused, and the
    # check after the report puts the reviewed bytes back and blocks (exit 2).
    result = repo.report_reviewer(okay)
    assert result.code == 2 and "restored" in result.err, result.text
    history = repo.state()["review"]["history"][-1]
    assert history["verdict"] == "REJECT"
    assert "plan changed after the reviewer read it" in history["refused"]
    assert plan.read_bytes() == reviewed


def test_rounds_are_bounded_then_blocked_then_a_human_decides(started: Repo) -> None:
    repo = started
    for round_no in (1, 2, 3):
        result = repo.review_by_reviewer("REJECT", f"toolu_r{round_no}")
        assert result.code == 0, result.text
    state = repo.state()
    assert state["phase"] == "blocked" and state["review"]["round"] == 3
    again = repo.dispatch_reviewer("toolu_r4")  # the gate refuses a fourth reviewer
    assert again.code == 2 and "round cap" in again.err, again.text
    human = repo.run("review", "demo", "--human", "OKAY", "--by", "alice", "--comment", "fine")
    assert human.code == 0, human.text
    assert "human verdict" in human.out
    state = repo.state()
    assert state["phase"] == "execute"
    assert state["review"]["source"] == "human" and state["review"]["by"] == "alice"
    assert state["review"]["history"][-1]["source"] == "human"
    recorded = json.loads((repo.root / ".zcode/reviews/demo-r4.json").read_text())
    assert recorded["source"] == "human" and recorded["nonce"] is None


# ------------------------------------------------------------------ verify


def test_verify_before_okay_and_argument_errors(started: Repo) -> None:
    repo = started
    refused(repo.run("verify", "demo", "1"), 11, "no OKAY review verdict")
    repo.approve()
    refused(repo.run("verify", "demo", "9"), 2, "the plan has no todo '9'")
    refused(repo.run("verify", "demo", "1", "--criterion", "5"), 2, "there is no criterion 5")


def test_verify_refuses_a_changed_plan(approved: Repo) -> None:
    plan = approved.root / approved.state()["plan_path"]
    plan.write_text(PLAN.replace("grep -q hello", "true ||"), encoding="utf-8")
    refused(approved.run("verify", "demo", "1"), 11, "the plan changed since review said OKAY")
    refused(
        approved.run("todo", "demo", "1", "done"), 11, "the plan changed since review said OKAY"
    )


def test_verify_refuses_a_rerun_on_an_identical_failing_tree(approved: Repo) -> None:
    repo = approved
    assert repo.run("verify", "demo", "1").code == 1
    refused(repo.run("verify", "demo", "1"), 10, "byte-identical to its last failure")
    # An untracked file's content counts as a change.
    repo.write("greeting.txt", "nope\n")
    assert repo.run("verify", "demo", "1").code == 1
    refused(repo.run("verify", "demo", "1", "--criterion", "2"), 10, "byte-identical")
    repo.write("greeting.txt", "hello\n")
    assert repo.run("verify", "demo", "1").code == 0


# ------------------------------------------------------------------ todo


def test_todo_done_needs_passing_evidence(approved: Repo) -> None:
    repo = approved
    refused(repo.run("todo", "demo", "1", "done"), 11, "criterion 1 has no executed record")
    assert last_gate(repo)["decision"] == "refuse"
    repo.write("greeting.txt", "hello\n")
    assert repo.run("verify", "demo", "1").code == 0
    repo.write("greeting.txt", "bye\n")
    assert repo.run("verify", "demo", "1", "--criterion", "2").code == 1
    # The latest record of criterion 2 failed: an earlier pass does not count.
    refused(repo.run("todo", "demo", "1", "done"), 11, "criterion 2 last failed")


def test_todo_before_okay_and_unknown_todo(started: Repo) -> None:
    refused(started.run("todo", "demo", "1", "in_flight"), 11, "no OKAY review verdict")
    started.approve()
    refused(started.run("todo", "demo", "7", "done"), 2, "the plan has no todo '7'")


def test_force_done_needs_a_reason_and_is_stamped(approved: Repo) -> None:
    repo = approved
    refused(repo.run("todo", "demo", "1", "done", "--force-done"), 2, "--force-done needs --reason")
    refused(
        repo.run("todo", "demo", "1", "failed", "--force-done", "--reason", "x"), 2, "only applies"
    )
    forced = repo.run(
        "todo", "demo", "1", "done", "--force-done", "--reason", "CI box has no network"
    )
    assert forced.code == 0, forced.text
    assert "FORCED" in forced.out
    state = repo.state()
    todo = state["todos"]["1"]
    assert todo["forced"] is True and todo["forced_reason"] == "CI box has no network"
    assert last_gate(repo)["decision"] == "override"
    assert last_gate(repo)["override_reason"] == "CI box has no network"
    record = chain.read_evidence(paths.evidence_path(repo.root, "demo")).records[-1]
    assert record["kind"] == "override" and record["reason"] == "CI box has no network"
    assert state["evidence"]["head"] == record["hash"]


def test_done_and_failed_release_file_locks(approved: Repo) -> None:
    repo = approved

    def lock(state: dict[str, object]) -> None:
        state["file_locks"] = {
            "greeting.txt": {"session": "s1", "todo": "1", "acquired_at": "2026-01-01T00:00:00Z"},
            "docs/greeting.md": {
                "session": "s2",
                "todo": "2",
                "acquired_at": "2026-01-01T00:00:00Z",
            },
        }
        state["active_todos"] = {"s1": "1", "s2": "2"}

    RunStore(repo.root, "demo").update(lock)
    result = repo.run("todo", "demo", "1", "failed")
    assert result.code == 0 and "released locks: greeting.txt" in result.out
    state = repo.state()
    assert list(state["file_locks"]) == ["docs/greeting.md"]
    assert state["active_todos"] == {"s2": "2"}


# ------------------------------------------------------------------ phase


def test_phase_preconditions(started: Repo) -> None:
    repo = started
    refused(repo.run("phase", "demo", "execute"), 11, "no OKAY review verdict")
    refused(repo.run("phase", "demo", "audited"), 11, "only a done run can become audited")
    refused(repo.run("phase", "demo", "abandoned"), 2, "needs --reason")
    refused(repo.run("phase", "demo", "review", "--force", "--reason", "x"), 2, "--force only")
    assert repo.run("phase", "demo", "review").code == 0
    repo.approve()
    refused(repo.run("phase", "demo", "done"), 11, "todos not done: 1, 2, F1")
    refused(repo.run("phase", "demo", "done", "--force"), 2, "--force needs --reason")


def test_done_blocked_by_a_failing_check_unless_forced(approved: Repo) -> None:
    repo = approved
    repo.write("greeting.txt", "hello\n")
    repo.write("docs/greeting.md", "greeting\n")
    for todo in ("1", "2"):
        assert repo.run("verify", "demo", todo).code == 0
        assert repo.run("todo", "demo", todo, "done").code == 0
    # F1 declares no criteria: a read-only window labelled F1 is its evidence
    assert repo.run("window", "demo", "--label", "F1", "--", "git", "status").code == 0
    assert repo.run("todo", "demo", "F1", "done").code == 0
    repo.write(
        "pyproject.toml",
        "[tool.zodyssey.checks]\n"
        'typecheck = { command = "false", on_failure = "block" }\n'
        'style = { command = "false", on_failure = "warn" }\n'
        'docs = { command = "false", on_failure = "skip" }\n',
    )
    refused(repo.run("phase", "demo", "done"), 11, "blocking quality checks failed: typecheck")
    forced = repo.run("phase", "demo", "done", "--force", "--reason", "typechecker broken upstream")
    assert forced.code == 0, forced.text
    state = repo.state()
    assert state["phase"] == "done"
    assert state["phase_history"][-1]["forced"] is True
    log = state["gate_log"]
    by_check = {(e["by"], e["decision"]) for e in log}
    assert ("check:typecheck", "fail") in by_check
    assert ("check:style", "warn") in by_check
    assert ("check:docs", "skip") in by_check
    assert log[-1]["decision"] == "override"
    assert log[-1]["override_reason"] == "typechecker broken upstream"
    # Terminal now: nothing more can be recorded, and leaving it invalidates the verdict.
    refused(repo.run("verify", "demo", "1"), 11, "terminal phase done")
    back = repo.run("phase", "demo", "remediate")
    refused(back, 11, "invalidates the verdict")
    moved = repo.run("phase", "demo", "review", "--note", "reopen")
    assert moved.code == 0 and "invalidated" in moved.out
    assert repo.state()["review"]["verdict"] is None


def test_window_argument_errors(started: Repo) -> None:
    refused(started.run("window", "demo", "--label", "x"), 2, "after `--`")
    refused(started.run("window", "demo", "--", "true"), 2, "--label is required")
    refused(started.run("window", "demo", "--label", "x", "--"), 2, "give the auditor command")


def test_unreadable_state_is_one_clear_error(started: Repo) -> None:
    (started.root / ".zcode/state/demo.json").write_text("{broken", encoding="utf-8")
    refused(started.run("status", "demo"), 2, "is not valid JSON")
    refused(started.run("verify", "demo", "1"), 2, "is not valid JSON")


def test_plan_outside_the_repository_is_refused(started: Repo, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.md"
    outside.write_text(PLAN, encoding="utf-8")

    def move(state: dict[str, object]) -> None:
        state["plan_path"] = str(outside)

    RunStore(started.root, "demo").update(move)
    refused(started.run("lint", "demo"), 2, "lies outside the repository")
    assert plan_sha256(PLAN)  # the plan itself is fine; only its location is refused


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("[tool.zodyssey.checks.tests]\non_failure = 'block'\n", "needs a non-empty `command`"),
        (
            "[tool.zodyssey.checks]\nx = { command = 'true', on_failure = 'maybe' }\n",
            "on_failure must",
        ),
        ("[tool.zodyssey.checks]\nx = { command = 'true', timeout = -1 }\n", "timeout must"),
        ("[tool.zodyssey.runs]\ntimeout = 'soon'\n", "timeout must be a positive number"),
        ("[tool.zodyssey\n", "is not valid TOML"),
    ],
)
def test_bad_configuration_is_exit_2(approved: Repo, config: str, message: str) -> None:
    approved.write("pyproject.toml", config)
    refused(approved.run("verify", "demo", "1"), 2, message)


def test_repo_flag_from_another_directory(started: Repo, tmp_path: Path) -> None:

    done = run_zodyssey("run", "status", "demo", "--repo", str(started.root), cwd=tmp_path)
    assert done.returncode == 0 and "phase plan" in done.stdout
    missing = run_zodyssey("run", "status", "demo", "--repo", str(tmp_path / "no"), cwd=tmp_path)
    assert missing.returncode == 2 and "not a directory" in missing.stderr
