"""Write the JSON Schemas of our run artifacts next to this file.

    python -m zodyssey.schemas.export          # rewrite the shipped files
    python -m zodyssey.schemas.export --check  # exit 1 when a shipped file is stale

The source of truth is the pydantic models in `zodyssey/runs/models.py`; the
files are shipped so that tools without zodyssey (or without pydantic) can
validate our artifacts too. `tests/audit/test_audit_schemas.py` fails when
they drift from the models.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent


def exported() -> dict[str, str]:
    """File name -> exact file text for every model schema."""
    from zodyssey.runs.models import json_schemas

    out: dict[str, str] = {}
    for name, schema in sorted(json_schemas().items()):
        document = {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}
        out[f"runs-{name}.schema.json"] = json.dumps(document, indent=2, sort_keys=True) + "\n"
    return out


def stale(folder: Path = HERE) -> list[str]:
    """Names of shipped files that differ from the models (or are missing)."""
    problems: list[str] = []
    for name, text in exported().items():
        path = folder / name
        try:
            current = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            current = None
        if current != text:
            problems.append(name)
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["--check"]:
        names = stale()
        for name in names:
            print(f"stale: zodyssey/schemas/{name} (run python -m zodyssey.schemas.export)")
        return 1 if names else 0
    if args:
        print("usage: python -m zodyssey.schemas.export [--check]", file=sys.stderr)
        return 2
    from zodyssey.core.atomic import write_atomic

    for name, text in exported().items():
        write_atomic(HERE / name, text)
        print(f"wrote zodyssey/schemas/{name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
