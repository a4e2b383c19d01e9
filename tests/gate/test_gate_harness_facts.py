"""The harness facts the gate's safety rests on (issue 33): each adapter declares
its tool names by kind, its protected configuration paths and whether it can
rewrite a call, and the one rule (zodyssey/core/allowance.py) protects the
union of their paths.

- `PROTECTED_CONFIG` stays a literal (the hook imports one adapter, not five)
  and equals the union of every adapter's `protected`: a new adapter whose
  paths are missing from it fails here, before any run.
- Each adapter's `tool_kinds` agrees with the shared sets where a name is in
  them (declaring a kind changes nothing for today's harnesses).
- `WRAP_HARNESSES` (the shell calls run wrapped) is exactly the adapters that
  can rewrite a call.
- Conformance, in a copy of the package with a sixth harness added (its module,
  its registry line, its paths in the literal): its hook file is blocked as the
  installed gate after OKAY although the plan declares it, and its own shell
  tool name is judged as a shell call (an out-of-scope `rm` blocks; read as an
  unknown tool it would pass).

How this could pass while broken: a copy the hook did not import (the hook's
block comes in the toy's own words, "toy says no"), a shell call allowed for
another reason (the in-scope control passes, the out-of-scope one blocks).
"""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import REPO_ROOT, clean_env, plan
from tests.helpers.gate import make_run_repo
from zodyssey.core import allowance
from zodyssey.gate.harness import adapters
from zodyssey.gate.toolcall import _kind
from zodyssey.sandbox.wrap import WRAP_HARNESSES

TOY = '''"""Toy: a sixth harness, made up for the conformance test."""

from zodyssey.gate.harness import Reply, pre_tool_probe

TYPE_CHECKING = False


class Toy:
    name = "toy"
    reviewer_tools = frozenset()
    config_files = (".toy/hooks.json",)
    layout = "grouped"
    pre_events = ("BeforeCall",)
    post_events = ("AfterCall",)
    stop_events = ()
    matcher = "*"
    matcher_regex = False
    timeout = 20
    timeout_unit = "s"
    min_timeout = 5
    project_vars = ("TOY_PROJECT_DIR",)
    command_var = "TOY_PROJECT_DIR"
    config_defaults = ()
    probe_tools = ("toy_sh", "toy_put", "toy_future")
    shell_keys = (("script",), ())
    tool_kinds = {"toy_sh": "shell", "toy_put": "edit", "toy_look": "read"}
    protected = (".toy/hooks.json", ".toy/agents")
    rewrites_calls = False

    def probe_payload(self, scratch, target):
        return pre_tool_probe("BeforeCall", "toy_put", scratch, target)

    def to_call(self, payload):
        from zodyssey.gate.toolcall import build_call

        return build_call(
            self.name,
            payload.get("tool_name"),
            payload.get("tool_input"),
            payload,
            shell_keys=self.shell_keys,
            kinds=self.tool_kinds,
        )

    def report(self, payload):
        return None

    def block(self, reason, slug):
        return Reply(2, "", f"toy says no ({slug}): {reason}\\n")


ADAPTER = Toy()
'''


def missing(literal: tuple[str, ...], declared: list[tuple[str, ...]]) -> set[str]:
    """The adapters' protected paths the literal leaves out, and the literal's extras."""
    union = {path for paths in declared for path in paths}
    return union ^ set(literal)


def test_protected_config_is_the_union_of_the_adapters() -> None:
    assert missing(allowance.PROTECTED_CONFIG, [a.protected for a in adapters()]) == set()
    # a new adapter's path missing from the literal is found
    assert missing(allowance.PROTECTED_CONFIG, [(".toy/hooks.json",)]) >= {".toy/hooks.json"}


def test_protected_config_is_a_literal() -> None:
    """Read from the source: two tuples of string constants (no import, no loop)."""
    tree = ast.parse(Path(allowance.__file__).read_text(encoding="utf-8"))
    values = {
        node.targets[0].id: node.value
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
    }
    for name in ("GATE_CONFIG_FILES", "HARNESS_CONFIG_PATHS"):
        value = values[name]
        assert isinstance(value, ast.Tuple), name
        assert all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts)


def test_each_adapter_declares_its_facts_and_its_kinds_agree_with_the_shared_sets() -> None:
    for adapter in adapters():
        assert adapter.protected, adapter.name
        assert isinstance(adapter.rewrites_calls, bool), adapter.name
        assert set(adapter.tool_kinds.values()) <= {"shell", "edit", "patch", "dispatch", "read"}
        for name, kind in adapter.tool_kinds.items():
            shared = _kind(name, {})
            assert shared in (kind, "other"), (adapter.name, name, kind, shared)
        assert "shell" in adapter.tool_kinds.values(), adapter.name
        for path in adapter.config_files:
            assert path in adapter.protected, (adapter.name, path)


def test_the_wrapped_harnesses_are_those_that_rewrite_calls() -> None:
    assert set(WRAP_HARNESSES) == {a.name for a in adapters() if a.rewrites_calls}


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the package with the sixth harness: its module, its registry line and
    its paths in the literal (the test above fails until they are there)."""
    base = tmp_path_factory.mktemp("with-toy")
    copy = base / "zodyssey"
    shutil.copytree(REPO_ROOT / "zodyssey", copy, ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "gate" / "harness" / "toy.py").write_text(TOY, encoding="utf-8")
    registry = copy / "gate" / "harness" / "__init__.py"
    text = registry.read_text(encoding="utf-8")
    line = '    "cursor": "cursor",\n'
    assert text.count(line) == 1
    registry.write_text(text.replace(line, line + '    "toy": "toy",\n'), encoding="utf-8")
    rules = copy / "core" / "allowance.py"
    text = rules.read_text(encoding="utf-8")
    line = '    ".zcode/cli/config.json",\n'
    assert text.count(line) == 1
    rules.write_text(
        text.replace(line, line + '    ".toy/hooks.json",\n    ".toy/agents",\n'), encoding="utf-8"
    )
    return base


def _hook(package: Path, root: Path, tool: str, tool_input: dict[str, str]) -> tuple[int, str]:
    body = {
        "session_id": "toy-session",
        "cwd": str(root),
        "hook_event_name": "BeforeCall",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "toy-1",
    }
    done = subprocess.run(
        [sys.executable, "-m", "zodyssey", "hook", "pre-tool", "--harness", "toy"],
        cwd=root,
        env=clean_env(PYTHONPATH=str(package), TOY_PROJECT_DIR=str(root)),
        input=json.dumps(body),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return done.returncode, done.stdout + done.stderr


def test_a_sixth_harness_is_protected_by_adding_its_module(tmp_path: Path, package: Path) -> None:
    declared = plan("Toy", [("Wire and code", [".toy/hooks.json", "src/"], ["`true`"])])
    root = make_run_repo(tmp_path, plan=declared).root  # after OKAY, phase execute
    (root / ".toy").mkdir()
    (root / ".toy" / "hooks.json").write_text("{}\n")
    code, text = _hook(package, root, "toy_put", {"file_path": ".toy/hooks.json", "content": "{}"})
    assert code == 2 and "toy says no" in text, text
    assert "part of the installed gate" in text, text
    # its shell tool is judged as a shell call: in scope passes, out of scope blocks
    code, text = _hook(package, root, "toy_sh", {"script": "rm -f src/server.py"})
    assert code == 0, text
    code, text = _hook(package, root, "toy_sh", {"script": "rm -f README.md"})
    assert code == 2 and "outside the plan's scope" in text, text
