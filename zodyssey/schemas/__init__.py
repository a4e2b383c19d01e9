"""JSON Schema files shipped with zodyssey.

Two kinds live here:
- `js-*.schema.json`, `ungated-call.schema.json`: hand-written schemas of the
  JavaScript ZOdyssey pipeline's artifacts, permissive (unknown fields allowed)
  but typed, used by `zodyssey audit` to validate foreign runs;
- `runs-*.schema.json`: exported from our own pydantic models
  (`zodyssey/runs/models.py`) by `python -m zodyssey.schemas.export`; a test
  fails when the shipped copies are stale.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any


def schema_names() -> list[str]:
    """Every shipped schema, by file name."""
    folder = resources.files(__name__)
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".schema.json"))


@cache
def load_schema(name: str) -> dict[str, Any]:
    """The parsed schema `name` (e.g. "js-state.schema.json")."""
    text = resources.files(__name__).joinpath(name).read_text(encoding="utf-8")
    value: dict[str, Any] = json.loads(text)
    return value
