"""`zodyssey claims` (placeholder until implemented)."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser('claims', help='Claims ledger: promises in docs defended by tests.')
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    print("zodyssey claims: not implemented yet", file=sys.stderr)
    return 2
