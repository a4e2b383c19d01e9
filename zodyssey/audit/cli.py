"""`zodyssey audit` (placeholder until implemented)."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "audit", help="Post-run audit of a run's artifacts."
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    print("zodyssey audit: not implemented yet", file=sys.stderr)
    return 2
