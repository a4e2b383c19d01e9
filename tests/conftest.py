"""Makes `tests.helpers` importable for every test below (see tests/helpers/__init__.py).

The repository is appended to sys.path, never put first: an installed or
PYTHONPATH copy of `zodyssey` keeps precedence over this working tree. Only
tests/ gets this; invariants/ stays self-contained.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[1])
if ROOT not in sys.path:
    sys.path.append(ROOT)

# The tests never read the developer's own Codex trust records (~/.codex/config.toml):
# without a Codex home the gate's Codex trust check has nothing to judge
# (zodyssey/gate/codex_trust.py). Tests of that check pass their own CODEX_HOME.
os.environ["CODEX_HOME"] = "/nonexistent/zodyssey-tests/codex-home"
