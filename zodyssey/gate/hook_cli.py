"""`zodyssey hook` (placeholder until implemented)."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "hook", help="Gate hook for coding agents (pre-tool, post-tool, install)."
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    print("zodyssey hook: not implemented yet", file=sys.stderr)
    return 2
