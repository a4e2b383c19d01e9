"""`zodyssey.core.exits` is the one table of exit codes: `zodyssey --help`, the
README and docs/ci.md give every code with the same meaning, and no module
keeps a table of its own.

How this could pass while broken: a check of the codes alone would let a
meaning drift in one place; so each row's text is compared, and the help is
read from the installed command, not from the string the test could import.
"""

from __future__ import annotations

import ast
import re

from tests.helpers import REPO_ROOT, run_zodyssey
from zodyssey.core.exits import MEANINGS, VERDICT_CODES, Exit, codes

PACKAGE = REPO_ROOT / "zodyssey"


def _rows(text: str) -> dict[int, str]:
    """`| code | meaning |...` rows of the "Exit codes" section."""
    section = text.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    return {
        int(m.group(1)): m.group(2).strip()
        for m in re.finditer(r"^\| (\d+) \| ([^|]+)\|", section, re.MULTILINE)
    }


def test_codes_are_distinct_and_meanings_cover_each_once() -> None:
    table = codes()
    assert len(set(table.values())) == len(table)
    assert [code for code, _ in MEANINGS] == sorted(table.values())
    assert table["USAGE"] == 2 and table["REFUSED_STATE"] == 11
    assert set(VERDICT_CODES.values()) <= set(table.values())


def test_help_prints_every_meaning() -> None:
    done = run_zodyssey("--help", cwd=REPO_ROOT)
    assert done.returncode == 0, done.stderr
    printed = {
        int(m.group(1)): m.group(2).strip()
        for m in re.finditer(r"^  (\d+)\s+(.+)$", done.stdout.split("examples:")[0], re.MULTILINE)
    }
    assert printed == dict(MEANINGS)


def test_readme_and_ci_guide_tables_match() -> None:
    for doc in (REPO_ROOT / "README.md", REPO_ROOT / "docs" / "ci.md"):
        assert _rows(doc.read_text(encoding="utf-8")) == dict(MEANINGS), doc


def test_no_module_defines_exit_constants_of_its_own() -> None:
    """A module-level `EXIT_...` or `..._CODES` int table outside core/exits.py is a shadow."""
    shadows = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PACKAGE / "core" / "exits.py":
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            targets = node.targets if isinstance(node, ast.Assign) else []
            for target in targets:
                name = getattr(target, "id", "")
                if name.startswith("EXIT_") and name not in _ALLOWED:
                    shadows.append(f"{path.relative_to(REPO_ROOT)}:{node.lineno} {name}")
                if name.endswith("EXIT_CODES"):
                    shadows.append(f"{path.relative_to(REPO_ROOT)}:{node.lineno} {name}")
    assert not shadows, shadows


# The sandbox runner's own codes are those of `env`/`timeout` for a program it
# could not start (125-127), which no zodyssey command returns.
_ALLOWED = {"EXIT_SANDBOX", "EXIT_CANNOT_EXEC", "EXIT_NOT_FOUND"}


def test_exit_is_plain_ints() -> None:
    assert all(type(value) is int for value in codes().values())
    assert Exit.OK == 0
