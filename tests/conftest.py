"""Makes `tests.helpers` importable for every test below (see tests/helpers/__init__.py).

The repository is appended to sys.path, never put first: an installed or
PYTHONPATH copy of `zodyssey` keeps precedence over this working tree. Only
tests/ gets this; invariants/ stays self-contained.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[1])
if ROOT not in sys.path:
    sys.path.append(ROOT)
