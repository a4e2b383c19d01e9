"""`zodyssey gate` (placeholder until implemented)."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "gate", help="Shell command classifier used by the gate."
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    print("zodyssey gate: not implemented yet", file=sys.stderr)
    return 2
