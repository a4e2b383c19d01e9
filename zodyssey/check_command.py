"""`zodyssey check` (placeholder until implemented)."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "check", help="Run the citation check and the claims ledger together, as CI does."
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    print("zodyssey check: not implemented yet", file=sys.stderr)
    return 2
