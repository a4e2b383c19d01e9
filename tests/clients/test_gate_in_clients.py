"""The gate in the real clients: what a session leaves on disk, and what the model was shown.

Each scenario is one real client session (fixtures below, one per client and
module), wired by `zodyssey hook install` in a real git repository; the tests
read the repository afterwards (`git status`, file contents) and the model
server's record of every request (the tool results the client sent back).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.clients.drivers import Client, Result, run_client
from tests.clients.modelserver import Call, Script, turn
from tests.clients.scenarios import SLUG, Op, make_user_repo, save_payloads, start_run

GATE = f"zodyssey gate (run {SLUG})"


def session(
    client: Client, base: Path, scenario: str, run: str | None, steps: list[tuple[Op, Call]]
) -> Result:
    repo = make_user_repo(base, [client.name])
    if run is not None:
        start_run(repo, okay=(run == "okay"))
    script = Script([turn(call) for _, call in steps])
    result = run_client(client, repo, base / "home", script)
    assert result.proc.returncode == 0, result.describe()
    save_payloads(
        label=client.label,
        harness=client.name,
        scenario=scenario,
        run=run,
        ops=[op for op, _ in steps],
        records=result.hook_records,
        repo=repo,
        home=base / "home",
    )
    return result


def blocked(result: Result, needle: str) -> list[str]:
    return [o for o in result.outputs() if GATE in o and needle in o]


# -- no run: the gate is not in the way


@pytest.fixture(scope="module")
def no_run(client: Client, tmp_path_factory: pytest.TempPathFactory) -> Result:
    base = tmp_path_factory.mktemp(f"norun-{client.name}")
    repo = (base / "repo").resolve()
    steps = [
        (Op("read-product", "src/app.py", "allow"), client.read(repo, "src/app.py")),
        (
            Op("edit-product", "src/app.py", "allow"),
            client.edit(repo, "src/app.py", "GREETING = 'hi'", "GREETING = 'hello'"),
        ),
        (Op("write-product", "src/new.py", "allow"), client.write(repo, "src/new.py", "NEW = 1\n")),
        (
            Op("shell-sed-product", "sed -i", "allow"),
            client.shell("sed -i s/OTHER/CHANGED/ src/other.py"),
        ),
    ]
    return session(client, base, "no-run", None, steps)


def test_no_run_every_write_lands(no_run: Result) -> None:
    assert no_run.text("src/app.py") == "GREETING = 'hello'\n", no_run.describe()
    assert no_run.text("src/new.py") == "NEW = 1\n", no_run.describe()
    assert no_run.text("src/other.py") == "CHANGED = 1\n", no_run.describe()
    assert sorted(no_run.status().split("\n")) == sorted(
        ["", " M src/app.py", " M src/other.py", "?? src/new.py"]
    ), no_run.describe()


def test_no_run_the_gate_says_nothing(no_run: Result) -> None:
    assert not any("zodyssey" in o for o in no_run.outputs()), no_run.describe()


# -- phase plan: product writes blocked on disk, reads pass, the model told why


@pytest.fixture(scope="module")
def plan_phase(client: Client, tmp_path_factory: pytest.TempPathFactory) -> Result:
    base = tmp_path_factory.mktemp(f"plan-{client.name}")
    repo = (base / "repo").resolve()
    steps = [
        (Op("read-product", "src/app.py", "allow"), client.read(repo, "src/app.py")),
        (Op("shell-read", "git log", "allow"), client.shell("git log --oneline -1")),
        (
            Op("edit-product", "src/app.py", "block"),
            client.edit(repo, "src/app.py", "GREETING = 'hi'", "GREETING = 'hello'"),
        ),
        (Op("write-product", "src/new.py", "block"), client.write(repo, "src/new.py", "NEW = 1\n")),
        (
            Op("shell-sed-product", "sed -i", "block"),
            client.shell("sed -i s/OTHER/CHANGED/ src/other.py"),
        ),
    ]
    return session(client, base, "plan", "plan", steps)


def test_plan_phase_product_writes_blocked_on_disk(plan_phase: Result) -> None:
    assert plan_phase.status() == "", plan_phase.describe()
    assert plan_phase.text("src/app.py") == "GREETING = 'hi'\n"
    assert plan_phase.text("src/other.py") == "OTHER = 1\n"
    assert plan_phase.text("src/new.py") is None


@pytest.mark.parametrize("target", ["src/app.py", "src/new.py", "src/other.py"])
def test_plan_phase_model_shown_the_reason(plan_phase: Result, target: str) -> None:
    """Each blocked call comes back to the model as a tool result holding the gate's reason."""
    reasons = blocked(plan_phase, target)
    assert reasons, plan_phase.describe()
    assert all("review verdict is none yet" in r for r in reasons), reasons


def test_plan_phase_reads_allowed(plan_phase: Result) -> None:
    outputs = plan_phase.outputs()
    assert any("GREETING = 'hi'" in o and GATE not in o for o in outputs), plan_phase.describe()
    assert any("wire the gate" in o for o in outputs), plan_phase.describe()


# -- after the reviewer's OKAY: in scope lands, out of scope blocked


@pytest.fixture(scope="module")
def after_okay(client: Client, tmp_path_factory: pytest.TempPathFactory) -> Result:
    base = tmp_path_factory.mktemp(f"okay-{client.name}")
    repo = (base / "repo").resolve()
    steps = [
        (Op("read-product", "src/app.py", "allow"), client.read(repo, "src/app.py")),
        (
            Op("edit-in-scope", "src/app.py", "allow"),
            client.edit(repo, "src/app.py", "GREETING = 'hi'", "GREETING = 'hello'"),
        ),
        (
            Op("shell-sed-in-scope", "sed -i", "allow"),
            client.shell("sed -i s/hello/hey/ src/app.py"),
        ),
        (
            Op("write-out-of-scope", "src/extra.py", "block"),
            client.write(repo, "src/extra.py", "EXTRA = 1\n"),
        ),
        (
            Op("shell-sed-out-of-scope", "sed -i", "block"),
            client.shell("sed -i s/notes/changed/ docs/notes.md"),
        ),
    ]
    return session(client, base, "after-okay", "okay", steps)


def test_after_okay_in_scope_writes_land(after_okay: Result) -> None:
    assert after_okay.text("src/app.py") == "GREETING = 'hey'\n", after_okay.describe()


def test_after_okay_out_of_scope_blocked_on_disk(after_okay: Result) -> None:
    assert after_okay.text("src/extra.py") is None, after_okay.describe()
    assert after_okay.text("docs/notes.md") == "notes\n", after_okay.describe()
    assert after_okay.status() == " M src/app.py\n", after_okay.describe()


@pytest.mark.parametrize("target", ["src/extra.py", "docs/notes.md"])
def test_after_okay_model_shown_the_scope_reason(after_okay: Result, target: str) -> None:
    reasons = blocked(after_okay, target)
    assert reasons, after_okay.describe()
    assert all("not in the plan" in r or "scope" in r for r in reasons), reasons


def test_plan_phase_blocked_calls_get_no_post_tool_event(plan_phase: Result) -> None:
    """The post-tool event comes for the calls that ran (the two reads), never for a blocked one
    (the recorder is wired for every tool)."""
    ran = [json.dumps(p["tool_input"]) for p in plan_phase.post_payloads()]
    assert len(ran) == 2, plan_phase.describe()
    assert not any("GREETING = 'hello'" in r or "src/new.py" in r or "sed -i" in r for r in ran)
