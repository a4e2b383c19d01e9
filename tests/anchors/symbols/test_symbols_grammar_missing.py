"""A grammar package missing from the environment (zodyssey updated without
reinstalling its dependencies) is reported as unreadable with the fix, never
read as a definition-less file.

How this could pass while broken: a check that said `ok` or `unresolved` for a
file whose grammar did not load; the subprocess blocks the real grammar module
and asserts the citation fails with the reinstall advice.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.helpers import REPO_ROOT

SCRIPT = """
import sys
sys.modules["tree_sitter_python"] = None  # as if the package were not installed
from zodyssey.anchors.symbols.resolve import read_definitions
from pathlib import Path
print(read_definitions(Path(sys.argv[1]), "m.py").error)
"""


def test_a_missing_grammar_says_how_to_fix_it(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        cwd=REPO_ROOT,
    )
    assert done.returncode == 0, done.stderr
    message = done.stdout.strip()
    assert "tree-sitter-python" in message, message
    assert "reinstall zodyssey" in message, json.dumps(message)
