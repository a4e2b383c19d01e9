"""The shipped workflow in the real clients: one install command, one run command or skill.

The repository is wired the way a new user does it (`zodyssey hook install
--harness H`, committed), which also writes the reviewer, the planner and the
run command (Claude Code `.claude/commands/zodyssey-run.md`, Gemini CLI
`.gemini/commands/zodyssey-run.toml`, Codex the `zodyssey-run` skill in
`.agents/skills/`). The client is started with the command (`/zodyssey-run
TASK`, `$zodyssey-run TASK`) and the scripted model plays an orchestrator that
follows it: start the run, write the plan, lint it, have it reviewed, execute
within scope, verify, finish. The tests check what the client really did with
the shipped files: the command's text reached the model, the reviewer the
client started carries the shipped instructions, and the run ended `done`
with its evidence, the product file changed and nothing else.

On Gemini CLI the reviewer comes from the shipped extension
(`zodyssey/workflow/gemini-extension`, installed with `gemini extensions
install --consent` into the session's home): project agents need a person's
acknowledgement in an interactive session first. Codex reports no subagent's
answer, so there a person approves the plan (`zodyssey run review --human`)
between two sessions of the skill.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.clients.drivers import _NO_SERVER, Client, Result, run_client
from tests.clients.modelserver import Call, Script, Turn, turn
from tests.clients.scenarios import PLAN, SLUG, make_user_repo, run_state
from tests.helpers import run_zodyssey
from zodyssey import workflow

TASK = "change the greeting to hello"
BRIEF = f"Review the plan of run {SLUG}."
DIGEST = hashlib.sha256(PLAN.encode("utf-8")).hexdigest()
REVIEWER_TEXT = "You are the plan reviewer of a zodyssey run."


def plan_write(client: Client, repo: Path) -> Call:
    """The orchestrator writes the plan (the run's template replaced)."""
    if client.name == "codex":
        return client.shell(f"cat > .zcode/plans/{SLUG}.md <<'EOF'\n{PLAN}EOF")
    return client.write(repo, f".zcode/plans/{SLUG}.md", PLAN)


def review_dispatch(client: Client) -> Call:
    if client.name == "claude-code":
        body = {
            "subagent_type": "momus",
            "description": "review the plan",
            "prompt": BRIEF,
            "run_in_background": False,
        }
        return Call("Agent", body)
    return Call("invoke_agent", {"agent_name": "momus", "prompt": BRIEF})


def reviewer_turns(client: Client) -> list[Turn]:
    answer = f"The plan is sound.\nPLAN-SHA256: {DIGEST}\nVERDICT: OKAY"
    last = (
        turn(Call("complete_task", {"result": answer}))
        if client.name == "gemini"
        else turn(text=answer)
    )
    return [turn(client.shell(f"sha256sum .zcode/plans/{SLUG}.md")), last]


def execute(client: Client, repo: Path) -> list[Turn]:
    return [
        turn(client.shell(f"zodyssey run todo {SLUG} 1 in_flight")),
        turn(client.edit(repo, "src/app.py", "GREETING = 'hi'", "GREETING = 'hello'")),
        turn(client.shell(f"zodyssey run verify {SLUG} 1")),
        turn(client.shell(f"zodyssey run todo {SLUG} 1 done")),
        turn(client.shell(f"zodyssey run phase {SLUG} done")),
    ]


def start_and_plan(client: Client, repo: Path) -> list[Turn]:
    return [
        turn(client.shell(f"zodyssey run start {SLUG} --title 'Change the greeting'")),
        turn(plan_write(client, repo)),
        turn(client.shell(f"zodyssey run lint {SLUG}")),
    ]


def install_extension(client: Client, home: Path) -> None:
    """`gemini extensions install DIR --consent`, the real command, into the session's home,
    answering its trust question as the person would."""
    env = {**client.env(home, _NO_SERVER), "HOME": str(home)}
    done = subprocess.run(
        [
            str(client.binary()),
            "extensions",
            "install",
            str(workflow.ASSETS / "gemini-extension"),
            "--consent",
        ],
        env=env,
        cwd=home,
        input="y\n",  # the person's answer to "Do you trust the files in this folder?"
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    # (it exits 0 also when the trust question is refused: the files say whether it installed)
    assert (home / ".gemini/extensions/zodyssey/agents/momus.md").is_file(), (
        done.stderr + done.stdout
    )


def assert_finished(result: Result, source: str) -> None:
    state = run_state(result.repo)
    assert state["phase"] == "done", result.describe()
    assert state["review"]["verdict"] == "OKAY"
    assert state["review"]["history"][-1]["source"] == source
    assert state["todos"]["1"]["status"] == "done"
    assert result.text("src/app.py") == "GREETING = 'hello'\n"
    assert result.status().strip() == "M src/app.py", result.status()


def acknowledge_agents(home: Path, repo: Path) -> None:
    """What Gemini CLI records when a person acknowledges the project's agents at an
    interactive start (`~/.gemini/acknowledgments/agents.json`: the sha256 of each
    agent file, per project); it loads no unacknowledged project agent."""
    agents = {
        path.stem: hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted((repo / ".gemini" / "agents").glob("*.md"))
    }
    target = home / ".gemini" / "acknowledgments" / "agents.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps({str(repo): agents}), encoding="utf-8")


# (client, how the session gets the workflow, the command the user types)
FORMS = [
    ("claude-code", "project", "/zodyssey-run"),
    ("gemini", "project", "/zodyssey-run"),
    # The extension beside the project's own files: Gemini CLI renames both commands.
    ("gemini", "extension", "/zodyssey:zodyssey-run"),
]


@pytest.mark.parametrize(("name", "form", "command"), FORMS)
def test_a_whole_run_through_the_shipped_command(
    name: str, form: str, command: str, tmp_path: Path
) -> None:
    from tests.clients.conftest import installed

    client = installed(name)
    repo = make_user_repo(tmp_path, [client.name])
    turns = [
        *start_and_plan(client, repo),
        turn(review_dispatch(client)),
        turn(client.shell(f"zodyssey run status {SLUG}")),
        *execute(client, repo),
    ]
    script = Script(turns, agents={BRIEF: reviewer_turns(client)})

    def before(home: Path, _server: object) -> None:
        if form == "extension":
            install_extension(client, home)
        elif client.name == "gemini":
            acknowledge_agents(home, repo)

    result = run_client(
        client, repo, tmp_path / "home", script, prompt=f"{command} {TASK}", before=before
    )
    shown = result.server.shown()
    # The command the user typed reached the model as the shipped text, with the task in it.
    assert f"Carry out this task as a guarded zodyssey run: {TASK}" in shown, result.describe()
    # The reviewer the client started is the shipped one: its instructions were the system prompt.
    reviewer = [
        r for r in result.server.loop_requests() if BRIEF in json.dumps(r.body, ensure_ascii=False)
    ]
    assert reviewer, result.describe()
    assert any(REVIEWER_TEXT in json.dumps(r.body) for r in reviewer), result.describe()
    if client.name == "claude-code":
        # Claude Code lets the hook rewrite the dispatch: the reviewer's prompt is the
        # gate's brief, naming the plan's digest, the orchestrator's words as context.
        first = json.dumps(reviewer[0].body, ensure_ascii=False)
        assert "[zodyssey reviewer brief: written by the zodyssey gate" in first, first[:3000]
        assert DIGEST in first
    assert_finished(result, "agent")
    assert run_state(result.repo)["review"]["history"][-1]["by"] == "momus"


def login_path(home: Path, _server: object) -> None:
    """Codex runs its shell as `bash -lc`, whose /etc/profile resets PATH: the session's
    `~/.profile` puts zodyssey back on it, as a user's (`pipx`, a virtualenv) does."""
    venv_bin = Path(sys.executable).parent
    (home / ".profile").write_text(f'export PATH="{venv_bin}:$PATH"\n', encoding="utf-8")


def test_a_whole_run_through_the_codex_skill_with_a_person_approving(
    codex: Client, tmp_path: Path
) -> None:
    repo = make_user_repo(tmp_path, [codex.name])
    first = run_client(
        codex,
        repo,
        tmp_path / "home",
        Script(
            [*start_and_plan(codex, repo), turn(codex.shell(f"sha256sum .zcode/plans/{SLUG}.md"))],
            final=f"Plan ready: ask the user to run zodyssey run review {SLUG} --human OKAY",
        ),
        prompt=f"$zodyssey-run {TASK}",
        before=login_path,
    )
    shown = first.server.shown()
    # Codex listed the shipped skill to the model, from the repository's .agents/skills/.
    assert "zodyssey-run" in shown and ".agents/skills/zodyssey-run/SKILL.md" in shown, (
        first.describe()
    )
    assert (repo / ".zcode/state" / f"{SLUG}.json").is_file(), first.describe()
    assert run_state(repo)["phase"] == "plan"
    # Before the person's OKAY the product stays closed.
    assert first.text("src/app.py") == "GREETING = 'hi'\n"
    # The person approves in their own terminal.
    approved = run_zodyssey("run", "review", SLUG, "--human", "OKAY", "--by", "tester", cwd=repo)
    assert approved.returncode == 0, approved.stderr
    second = run_client(
        codex,
        repo,
        tmp_path / "home2",
        Script(execute(codex, repo)),
        prompt=f"$zodyssey-run the plan of run {SLUG} is approved: carry it out",
        before=login_path,
    )
    assert_finished(second, "human")
