"""The JS-pipeline plan grammar (`zodyssey/audit/js_plan.py`) against the pipeline's own parser.

Two sources of truth: the parses `parse-plan.mjs` wrote for the fixture runs
(committed as `js_runs/*/parse-plan.json`), and, where the pipeline checkout
and Node are present, the plans of the pipeline's own parser tests, parsed by
both parsers now (a differential test).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import js_checkout
from zodyssey.audit.js_plan import commands, parse_js_plan

RUNS = Path(__file__).parent / "js_runs"
PIPELINE = js_checkout() or Path("/nonexistent")
PARSER = PIPELINE / "skills" / "odyssey" / "scripts" / "parse-plan.mjs"
EXAMPLES = PIPELINE / "skills" / "odyssey" / "scripts" / "parse-plan.test.mjs"


def ours(text: str) -> list[dict[str, Any]]:
    """Our parse in the pipeline's JSON terms (ids, files, backtick-free criteria)."""
    return [
        {
            "id": t.id,
            "done": t.checked,
            "files": list(t.files),
            "acceptance": [re.sub(r"`([^`]+)`", r"\1", c.text) for c in t.criteria],
        }
        for t in parse_js_plan(text).todos
    ]


def theirs(parsed: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "id": t["id"],
            "done": t["done"],
            "files": [f.strip("`").strip() for f in t["files"]],
            "acceptance": t["acceptance"],
        }
        for t in parsed["todos"]
    ]


CASES = sorted(p.parent.name for p in RUNS.glob("*/parse-plan.json"))


@pytest.mark.parametrize("case", CASES)
def test_fixture_plans_parse_as_the_pipeline_parsed_them(case: str) -> None:
    text = (RUNS / case / ".zcode" / "plans" / "greet.md").read_text(encoding="utf-8")
    expected = json.loads((RUNS / case / "parse-plan.json").read_text(encoding="utf-8"))
    assert ours(text) == theirs(expected)


def test_column0_wrapped_line_keeps_the_criteria_after_it() -> None:
    plan = (
        "# x\n## Todos\n- [ ] 1. a\n  - Acceptance criteria:\n    - `a` exits 0, wrapped\n"
        "at column 0\n    - `b` exits 0\n\n    - `c` exits 0\n## Final verification wave\n"
        "- [ ] F1. audit\n"
    )
    todos = parse_js_plan(plan).todos
    assert [t.id for t in todos] == ["1", "F1"]
    assert [c.command for c in todos[0].criteria] == ["a", "b", "c"]
    assert todos[1].final


def test_only_the_two_sections_count() -> None:
    plan = (
        "# x\n## Scope\n- [ ] 9. not a todo\n## Todos\n<!-- - [ ] 8. commented -->\n"
        "- [ ] 1. real\n  - Files: [`a.py`, b.py]\n### sub\n- [x] 2. still todos\n"
        "## Notes\n- [ ] 7. not a todo\n"
    )
    todos = parse_js_plan(plan).todos
    assert [(t.id, t.checked, t.files) for t in todos] == [
        ("1", False, ("a.py", "b.py")),
        ("2", True, ()),
    ]


def test_commands_of_a_criterion() -> None:
    assert commands("`A x` and `B y` both exit 0") == ["A x", "B y"]
    assert commands("no command") == []


def _pipeline_examples() -> list[str]:
    """Plans written as template literals in the pipeline's parser tests (no `${}`)."""
    source = EXAMPLES.read_text(encoding="utf-8")
    found = re.findall(r"=\s*`((?:[^`\\]|\\.)*)`;", source)
    plans = []
    for body in found:
        if "${" in body or "## Todos" not in body:
            continue
        plans.append(body.replace("\\`", "`").replace("\\\\", "\\"))
    return plans


def _run_pipeline_parser(plan: str, tmp_path: Path, number: int) -> dict[str, Any]:
    path = tmp_path / f"plan-{number}.md"
    path.write_text(plan, encoding="utf-8")
    done = subprocess.run(
        ["node", str(PARSER), str(path)], capture_output=True, text=True, timeout=60, check=True
    )
    parsed: dict[str, Any] = json.loads(done.stdout)
    return parsed


needs_pipeline = pytest.mark.skipif(
    not (PARSER.exists() and EXAMPLES.exists() and shutil.which("node")),
    reason="the JavaScript pipeline checkout (ZODYSSEY_JS_CHECKOUT) or node is not available",
)


@needs_pipeline
def test_the_pipelines_own_examples_parse_alike(tmp_path: Path) -> None:
    plans = _pipeline_examples()
    assert len(plans) >= 3, "the pipeline's parser tests hold plan examples"
    plans += [p.read_text(encoding="utf-8") for p in sorted((PIPELINE / "examples").glob("*.md"))]
    for number, plan in enumerate(plans):
        assert ours(plan) == theirs(_run_pipeline_parser(plan, tmp_path, number)), plan


LINES = st.sampled_from(
    [
        "## Todos",
        "## Final verification wave",
        "## Notes",
        "- [ ] 1. one",
        "- [x] 2. two",
        "- [ ] F1. final",
        "  - Files: [`a.py`, b.py]",
        "  - Acceptance criteria:",
        "  - QA scenarios:",
        "    - `cmd one` exits 0",
        "      - `deep` exits 0",
        "  - What to do: x",
        "wrapped at column 0",
        "",
        "<!-- c -->",
        "<!--",
        "-->",
        "   - `three spaces`",
        "\t- `tab`",
        "* [ ] 3. star",
        "- [ ] 4. crlf\r",
        "    - `crlf` exits 0\r",
    ]
)


@needs_pipeline
@settings(max_examples=25, deadline=None)
@given(st.lists(LINES, min_size=1, max_size=14))
def test_random_plans_parse_alike(
    tmp_path_factory: pytest.TempPathFactory, lines: list[str]
) -> None:
    plan = "# t\n" + "\n".join(lines) + "\n"
    tmp = tmp_path_factory.mktemp("plans")
    assert ours(plan) == theirs(_run_pipeline_parser(plan, tmp, 0)), plan
