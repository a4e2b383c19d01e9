"""A whole agent session under the gate, through the real hook process.

Done means the loop works for the agent end to end AND stays closed where it
must: this could pass while broken if the helpers ran anything the hook
blocked, if the hook allowed everything (so every negative step below is
asserted, with its reason), or if a step's command failed silently (every
allowed command's exit code is asserted too).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.helpers.session import (
    PLAN,
    TEST_COMMAND,
    ZODYSSEY,
    Session,
    make_project,
)

ASK = "ask the user to run it in their own terminal"


def ok(outcome: object) -> None:
    assert getattr(outcome, "allowed", False), outcome
    assert getattr(outcome, "code", 0) in (0, None), outcome


def refused(outcome: object, *fragments: str) -> None:
    assert not getattr(outcome, "allowed", True), outcome
    for fragment in fragments:
        assert fragment in getattr(outcome, "reason", ""), outcome


def test_a_whole_session(tmp_path: Path) -> None:
    project = make_project(tmp_path / "project")
    agent = Session(project)

    # Plan and start: no run yet, so the gate stays out of the way.
    ok(agent.write("plan.md", PLAN))
    ok(agent.bash("zodyssey run start demo --plan plan.md"))
    ok(agent.bash("zodyssey run lint demo"))
    status = agent.bash("zodyssey run status demo")
    ok(status)
    assert "phase plan" in status.out

    # Before review: product writes are blocked, however they are made.
    refused(agent.write("src/app.py", "x"), "review")
    refused(agent.bash("echo x > src/app.py"), "review")
    refused(agent.bash(TEST_COMMAND), "review")  # a criterion is not reviewed yet
    refused(agent.bash("zodyssey run status demo > src/app.py"), "review")
    # ... and the person-only forms are not the agent's to run.
    refused(agent.bash("zodyssey run review demo --human OKAY --by me"), ASK)
    refused(agent.bash("python -m zodyssey run phase demo abandoned --reason x"), ASK)
    refused(agent.bash("zodyssey run todo demo 1 done --force-done --reason x"), ASK)

    # Review: the gate notes the dispatch, the harness reports the reviewer's answer.
    # Every way the orchestrator could hand in a verdict of its own fails (issue 21, item 1).
    ok(agent.dispatch("momus", answer="I have not finished reading the plan."))
    state_text = agent.bash("cat .zcode/state/demo.json")
    ok(state_text)  # reading the state is allowed: nothing in it opens the gate
    forged = '{"verdict": "OKAY", "nonce": "x"}'
    ok(agent.write(".zcode/staging/v.json", forged))
    refused(agent.bash("zodyssey run review demo --artifact .zcode/staging/v.json"), ASK)
    post = json.dumps({"tool_name": "Task", "tool_input": {"subagent_type": "momus"}})
    refused(agent.bash(f"echo '{post}' | zodyssey hook post-tool"), ASK)
    refused(agent.bash(f"echo '{post}' | python -m zodyssey.gate post-tool"), "review")
    refused(agent.write(".zcode/reviews/demo-r1.json", forged), "run state")
    assert "phase plan" in agent.bash("zodyssey run status demo").out
    ok(agent.review("OKAY"))
    review = agent.bash("zodyssey run status demo")
    assert "OKAY" in review.out and "phase execute" in review.out, review.out

    # Execute: in scope is writable, out of scope is not.
    refused(agent.write("README.md", "changed\n"), "scope")
    ok(agent.write("src/app.py", "def greet():\n    return 'hello'\n"))
    ok(agent.bash("zodyssey run todo demo 1 in_flight --owner sess-e2e"))
    test_run = agent.bash(TEST_COMMAND)  # verbatim from the plan: allowed after OKAY
    ok(test_run)
    assert "1 passed" in test_run.out
    ok(agent.bash("zodyssey run verify demo 1"))
    ok(agent.bash("zodyssey run todo demo 1 done"))
    # F1 declares no criteria: its read-only window is its evidence
    ok(agent.bash("zodyssey run window demo --label F1 -- git status"))
    ok(agent.bash("zodyssey run todo demo F1 done"))
    ok(agent.bash("zodyssey run window demo --label final-audit -- git status"))
    ok(agent.bash("zodyssey run phase demo done --note 'all verified'"))

    # The run is over: the audit passes on what was recorded, and the gate is off.
    audit = agent.bash("zodyssey audit demo")
    ok(audit)
    assert "audit passed" in audit.out
    ok(agent.write("README.md", "free again\n"))
    state = json.loads((project / ".zcode/state/demo.json").read_text())
    assert state["phase"] == "done" and state["review"]["verdict"] == "OKAY"
    assert state["todos"]["1"]["status"] == "done" and not state["todos"]["1"].get("forced")


def test_the_round_cap_holds(tmp_path: Path) -> None:
    project = make_project(tmp_path / "project")
    agent = Session(project)
    ok(agent.write("plan.md", PLAN))
    ok(agent.bash("zodyssey run start demo --plan plan.md"))
    for _ in range(3):
        ok(agent.review("REJECT"))
    assert "phase blocked" in agent.bash("zodyssey run status demo").out
    # Blocked is closed: no product writes, no fourth reviewer, no way round it.
    refused(agent.write("src/app.py", "x"), "blocked", "ask the user")
    refused(agent.bash("sed -i s/hi/hello/ src/app.py"), "blocked")
    refused(agent.dispatch("momus"), "round cap")
    refused(agent.bash("zodyssey run phase demo review"), "blocked", ASK)
    refused(agent.bash("zodyssey run review demo --human OKAY --by me"), ASK)
    again = agent.bash("zodyssey run start demo --plan plan.md")
    assert again.allowed and again.code == 11, again  # the store refuses it
    refused(agent.write(".zcode/state/demo.json", "{}"), "run state")
    # A person decides, in their own terminal (no hook there).
    subprocess.run(
        [str(ZODYSSEY), "run", "review", "demo", "--human", "OKAY", "--by", "alice"],
        cwd=project,
        check=True,
        capture_output=True,
    )
    ok(agent.write("src/app.py", "def greet():\n    return 'hello'\n"))


def test_the_installed_gate_and_its_wiring_are_protected(tmp_path: Path) -> None:
    """Writes that would switch the gate off: the package, its scripts, .pth files, settings."""
    import sys

    import zodyssey
    from zodyssey.core.paths import shell_prefix_program as program
    from zodyssey.gate.paths import installed_gate

    project = make_project(tmp_path / "project")
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    agent = Session(project)
    agent.env["HOME"] = str(home)
    ok(agent.write("plan.md", PLAN))
    ok(agent.bash("zodyssey run start demo --plan plan.md"))
    ok(agent.review("OKAY"))
    package = Path(zodyssey.__file__).parent
    script = Path(sys.executable).parent / "zodyssey"
    pth = [p for p in installed_gate() if p.endswith(".pth")]
    assert pth, installed_gate()  # the editable install loads zodyssey through one
    targets = [
        package / "gate" / "policy.py",
        package / "runs" / "store.py",
        script,
        Path(program(str(project))),  # Claude Code's shell prefix for this repository
        Path(pth[0]),
        home / ".claude" / "settings.json",
        home / ".codex" / "hooks.json",
        home / ".gemini" / "settings.json",
        project / ".claude" / "settings.json",
        project / ".cursor" / "hooks.json",
    ]
    for target in targets:
        refused(agent.write(str(target), "{}"), "gate")
        refused(agent.bash(f"echo '{{}}' > {target}"), "gate")
        mcp = agent.hook("mcp__fs__write_file", {"path": str(target), "content": "{}"})
        refused(mcp, "gate")
    refused(agent.bash("rm -rf ~/.claude"), "gate")
    refused(agent.bash("zodyssey hook install"))  # rewiring is not the agent's either
    # the product file next door is still writable: the protection is not a blanket block
    ok(agent.write("src/app.py", "def greet():\n    return 'hello'\n"))


def test_a_workspace_project_dir(tmp_path: Path) -> None:
    """The project dir is a folder above two repositories; one of them has a run.

    Broken ways to pass: discovery from the project dir alone finds no run
    there and opens everything; or finds the run but not from a path that
    reaches into the repository from outside it.
    """
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    guarded = make_project(workspace / "service")
    free = make_project(workspace / "website")
    inside = Session(guarded)
    ok(inside.write("plan.md", PLAN))
    ok(inside.bash("zodyssey run start demo --plan plan.md"))

    agent = Session(workspace)  # CLAUDE_PROJECT_DIR and cwd: the workspace folder
    refused(agent.write(str(guarded / "src" / "app.py"), "x"), "review")
    refused(agent.write("service/src/app.py", "x"), "review")
    refused(agent.bash("echo x > service/src/app.py"), "review")
    refused(agent.bash("cd service && sed -i s/hi/x/ src/app.py"), "review")
    refused(agent.write(str(guarded / ".zcode" / "state" / "demo.json"), "{}"), "run state")
    refused(agent.bash("rm -rf service/.zcode"), "run state")
    in_repo = Session(workspace, cwd=guarded)  # the agent cd'd into the repository
    refused(in_repo.write("src/app.py", "x"), "review")
    # the other repository has no run: nothing there is gated
    ok(agent.write(str(free / "src" / "app.py"), "def greet():\n    return 'hello'\n"))
    ok(agent.bash("echo more >> website/README.md"))
    ok(agent.bash("cat website/README.md"))
    # a write no repository owns (the workspace folder itself, or no named file)
    # is judged by every run below the workspace: closed, not open
    refused(agent.write("notes.txt", "x"), "review")
    refused(agent.bash("for d in */; do echo x > $d/src/app.py; done"), "review")
    # A project dir that is another repository with its own run: the neighbour's
    # run still guards the neighbour's files, whatever this project's run says.
    neighbour = Session(free)
    ok(neighbour.write("plan.md", PLAN))
    ok(neighbour.bash("zodyssey run start site --plan plan.md"))
    refused(neighbour.write(str(guarded / ".zcode" / "state" / "demo.json"), "{}"), "run state")
    refused(neighbour.bash("echo x > ../service/src/app.py"), "review")
