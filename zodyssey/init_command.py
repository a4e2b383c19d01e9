"""`zodyssey init` (placeholder until implemented)."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "init", help="Write a starter configuration, an empty lock and a CI workflow."
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    print("zodyssey init: not implemented yet", file=sys.stderr)
    return 2
