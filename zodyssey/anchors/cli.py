"""`zodyssey anchors` (placeholder until implemented)."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser('anchors', help='Citation lock: check file:line citations in docs against the lock.')
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    print("zodyssey anchors: not implemented yet", file=sys.stderr)
    return 2
