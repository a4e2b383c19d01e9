"""`zodyssey sandbox --run SLUG [--repo DIR] [--explain] -- CMD...`

Routed by zodyssey/cli.py straight to `zodyssey.sandbox.runner.main` without
argparse (the gate puts it in front of every shell command of a run); the
parser below exists for `zodyssey --help` and `zodyssey sandbox --help`.
"""

from __future__ import annotations

import argparse
from typing import Any

DESCRIPTION = """\
Run CMD under a Landlock write sandbox built from run SLUG's state now: it may
write only where the run's policy allows at this moment (bookkeeping folders,
temporary folders and caches outside the repository, ignored build folders;
after the review said OKAY also the plan's declared files and directories),
never run state, evidence, reviews, the gate's configuration or hook wiring,
`.git`, or the plan after OKAY. Reads are not restricted. `--explain` prints
the Landlock ABI and the grants instead of running anything."""

EPILOG = """\
exit codes:
  CMD's own exit status when it ran
  125  cannot sandbox: bad arguments, no such active run, unreadable state,
       Landlock not available (the command is never run unrestricted)
  126  CMD cannot be executed
  127  CMD not found

example:
  zodyssey sandbox --run my-run -- bash -c 'pytest -q'
"""


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "sandbox",
        help="Run a command under the run's Landlock write sandbox.",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--run", metavar="SLUG", required=True)
    parser.add_argument("--repo", metavar="DIR")
    parser.add_argument("--explain", action="store_true")
    parser.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CMD")
    parser.set_defaults(handler=_handler)


def _handler(args: argparse.Namespace) -> int:  # pragma: no cover - cli.py routes around it
    from zodyssey.sandbox.runner import main

    argv = ["--run", args.run]
    if args.repo:
        argv += ["--repo", args.repo]
    if args.explain:
        argv.append("--explain")
    command = list(args.command)
    if command[:1] == ["--"]:
        command = command[1:]
    if command:
        argv += ["--", *command]
    return main(argv)
