"""One module per harness: every harness fact lives in zodyssey/gate/harness/<name>.py.

Adding a harness is one module and one line in `HARNESSES`: in a copy of the
package holding exactly that change (the test diffs the copy against the tree
to prove nothing else moved), `hook install` writes the new harness's own file,
events, matcher and timeout, `zodyssey check` judges and probes that wiring,
and the hook answers in the new harness's protocol.

How this could pass while broken: a loop that still named the five harnesses
somewhere (install, wiring, probe, the CLI's choices) would refuse or skip
`toy`; a copy the subprocesses did not import would test the tree instead
(the test asserts the copy's path is the one imported).
"""

from __future__ import annotations

import difflib
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from tests.helpers import REPO_ROOT, clean_env, git
from zodyssey.gate.harness import HARNESSES, adapters, get_harness
from zodyssey.gate.install import our_entries

if TYPE_CHECKING:
    from zodyssey.gate.harness import Harness

TOY = '''"""Toy: a harness made up for the registry test."""

from zodyssey.gate.harness import Reply, pre_tool_probe

TYPE_CHECKING = False


class Toy:
    name = "toy"
    reviewer_tools = frozenset()
    config_files = (".toy/hooks.json",)
    layout = "grouped"
    pre_events = ("BeforeCall",)
    post_events = ("AfterCall",)
    matcher = "*"
    matcher_regex = False
    timeout = 20
    timeout_unit = "s"
    min_timeout = 5
    project_vars = ("TOY_PROJECT_DIR",)
    command_var = "TOY_PROJECT_DIR"
    config_defaults = (("toyVersion", 3),)
    probe_tools = ("toy_shell", "toy_write", "toy_future")
    shell_keys = (("script",), ())

    def probe_payload(self, scratch, target):
        return pre_tool_probe("BeforeCall", "Write", scratch, target)

    def to_call(self, payload):
        from zodyssey.gate.toolcall import build_call

        return build_call(self.name, payload.get("tool_name"), payload.get("tool_input"), payload, shell_keys=self.shell_keys)

    def report(self, payload):
        return None

    def block(self, reason, slug):
        return Reply(2, "", f"toy says no ({slug}): {reason}\\n")


ADAPTER = Toy()
'''


def _tree(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
        for p in root.rglob("*.py")
        if "__pycache__" not in p.parts
    }


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the package with the toy harness: one new module, one registry line."""
    base = tmp_path_factory.mktemp("with-toy")
    copy = base / "zodyssey"
    shutil.copytree(REPO_ROOT / "zodyssey", copy, ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "gate" / "harness" / "toy.py").write_text(TOY, encoding="utf-8")
    registry = copy / "gate" / "harness" / "__init__.py"
    text = registry.read_text(encoding="utf-8")
    line = '    "cursor": "cursor",\n'
    assert text.count(line) == 1
    registry.write_text(text.replace(line, line + '    "toy": "toy",\n'), encoding="utf-8")
    before, after = _tree(REPO_ROOT / "zodyssey"), _tree(copy)
    assert set(after) - set(before) == {"gate/harness/toy.py"}
    changed = [rel for rel in before if before[rel] != after[rel]]
    assert changed == ["gate/harness/__init__.py"]
    diff = [
        d
        for d in difflib.unified_diff(
            before[changed[0]].splitlines(), after[changed[0]].splitlines(), lineterm="", n=0
        )
        if d[:1] in "+-" and not d.startswith(("+++", "---"))
    ]
    assert diff == ['+    "toy": "toy",']
    return base


def _env(package: Path, **extra: str) -> dict[str, str]:
    return clean_env(PYTHONPATH=str(package), NO_COLOR="1", **extra)


def _zodyssey(package: Path, repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "zodyssey", *args],
        cwd=repo,
        env=_env(package),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _repo(tmp_path: Path, package: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    assert _zodyssey(package, repo, "init").returncode == 0
    return repo


def _commit(repo: Path) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", "wiring")


def _gate(package: Path, repo: Path) -> tuple[int, dict[str, Any], str]:
    done = _zodyssey(package, repo, "check", "--format", "json")
    return done.returncode, json.loads(done.stdout)["gate"]["report"], done.stdout + done.stderr


def test_the_copy_is_what_the_subprocesses_import(package: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import zodyssey.gate.harness.toy as t; print(t.__file__)"],
        cwd=package.parent,
        env=_env(package),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.stdout.strip() == str(package / "zodyssey" / "gate" / "harness" / "toy.py"), done


def test_a_new_harness_is_installed_checked_and_probed(tmp_path: Path, package: Path) -> None:
    repo = _repo(tmp_path, package)
    command = f"{sys.executable} -m zodyssey"
    done = _zodyssey(package, repo, "hook", "install", "--harness", "toy", "--command", command)
    assert done.returncode == 0, done.stdout + done.stderr
    config = json.loads((repo / ".toy" / "hooks.json").read_text(encoding="utf-8"))
    assert config["toyVersion"] == 3
    (pre,) = config["hooks"]["BeforeCall"]
    (post,) = config["hooks"]["AfterCall"]
    assert pre["matcher"] == "*" and pre["hooks"][0]["timeout"] == 20
    assert pre["hooks"][0]["command"] == f"{command} hook pre-tool --harness toy"
    assert post["hooks"][0]["command"] == f"{command} hook post-tool --harness toy"
    assert '"toy"' in (repo / ".zodyssey.toml").read_text(encoding="utf-8")
    _commit(repo)

    code, report, text = _gate(package, repo)
    assert code == 0, text
    assert report["declared"] == ["toy"] and report["checked"] == {"toy": ".toy/hooks.json"}

    # The probe ran the toy command: one that starts but lets the write through fails.
    config["hooks"]["BeforeCall"][0]["hooks"][0]["command"] = "true zodyssey hook pre-tool"
    (repo / ".toy" / "hooks.json").write_text(json.dumps(config), encoding="utf-8")
    _commit(repo)
    code, report, text = _gate(package, repo)
    assert code == 9, text
    found = {(f["rule"], f["file"], f["extra"].get("harness")) for f in report["findings"]}
    assert ("hook-not-holding", ".toy/hooks.json", "toy") in found, report

    # The toy's own facts judge the wiring: its matcher and its minimum timeout.
    config["hooks"]["BeforeCall"][0]["hooks"][0]["command"] = (
        f"{command} hook pre-tool --harness toy"
    )
    config["hooks"]["BeforeCall"][0]["matcher"] = "toy_shell"
    config["hooks"]["BeforeCall"][0]["hooks"][0]["timeout"] = 1
    (repo / ".toy" / "hooks.json").write_text(json.dumps(config), encoding="utf-8")
    _commit(repo)
    code, report, text = _gate(package, repo)
    assert code == 9, text
    rules = {f["rule"]: f for f in report["findings"]}
    assert rules["matcher-narrowed"]["extra"]["skipped"] == ["toy_write", "toy_future"]
    assert "1 s (at least 5 s)" in rules["timeout-too-short"]["message"]


def test_the_hook_speaks_the_new_harness(tmp_path: Path, package: Path) -> None:
    """In a run an out-of-scope write is blocked in the toy's own protocol, the project
    found through the toy's own project variable."""
    from tests.helpers.gate import make_run_repo

    run = make_run_repo(tmp_path)
    payload = {"tool_name": "Write", "tool_input": {"file_path": "vendor/lib.py", "content": "x"}}
    env = {k: v for k, v in _env(package).items() if not k.endswith("_PROJECT_DIR")}
    done = subprocess.run(
        [sys.executable, "-m", "zodyssey", "hook", "pre-tool", "--harness", "toy"],
        input=json.dumps(payload),
        cwd=tmp_path,
        env={**env, "TOY_PROJECT_DIR": str(run.root)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2 and done.stderr.startswith("toy says no (demo): "), done


def test_every_registered_module_holds_its_facts() -> None:
    """The registry names each module once; each module's ADAPTER answers to its name and
    says where its hooks live and which events announce a call."""
    assert len(set(HARNESSES.values())) == len(HARNESSES)
    for harness in adapters():
        assert get_harness(harness.name) is harness
        assert harness.config_files and harness.pre_events and harness.post_events
        assert harness.layout in ("grouped", "flat")
        wired: dict[str, Any] = {
            "hooks": {
                e: [{"matcher": "*", "hooks": [{"command": "zodyssey hook pre-tool"}]}]
                if harness.layout == "grouped"
                else [{"command": "zodyssey hook pre-tool"}]
                for e in harness.pre_events
            }
        }
        assert len(our_entries(wired, harness)) == len(harness.pre_events)
        payload = harness.probe_payload("/scratch", "/scratch/src/probe.py")
        call = harness.to_call(payload)
        assert call.targets and call.targets[0].path == "/scratch/src/probe.py", (harness, call)


def _row(harness: Harness) -> str:
    def words(values: tuple[str, ...]) -> str:
        return ", ".join(f"`{v}`" for v in values) or "none"

    timeout = f"{harness.timeout} {harness.timeout_unit}" if harness.timeout else "none"
    shown = f"`{harness.command_var}`" if harness.command_var else "PATH `zodyssey`"
    cells = [
        f"`{harness.name}`",
        f"`{HARNESSES[harness.name]}.py`",
        words(harness.config_files),
        words(harness.pre_events),
        words(harness.post_events),
        f"`{harness.matcher}`" if harness.matcher else "none",
        timeout,
        f"{words(harness.project_vars)} ({shown})",
    ]
    return "| " + " | ".join(cells) + " |"


def test_adapt_md_table_is_the_modules() -> None:
    """docs/ADAPT.md's table of harnesses says what each module holds, row for row."""
    text = (REPO_ROOT / "docs" / "ADAPT.md").read_text(encoding="utf-8")
    table = text.split("### The harnesses at a glance", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    assert rows == [_row(h) for h in adapters()]
