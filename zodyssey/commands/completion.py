"""`zodyssey completion SHELL`: the shell's tab completion for every command, on stdout.

Generated from the same argparse parser the command line uses (shtab), so it
never lists a command or option that does not exist. Install it once:

    zodyssey completion bash > ~/.local/share/bash-completion/completions/zodyssey
    zodyssey completion zsh > "${fpath[1]}/_zodyssey"
"""

from __future__ import annotations

import argparse
from typing import Any

SHELLS = ("bash", "zsh", "tcsh")

EPILOG = """\
exit codes:
  0  the completion script was printed
  2  bad arguments (an unknown shell)

examples:
  zodyssey completion bash > ~/.local/share/bash-completion/completions/zodyssey
  zodyssey completion zsh > "${fpath[1]}/_zodyssey"
  eval "$(zodyssey completion bash)"    this shell only
"""


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "completion",
        help="Print the shell's tab completion for zodyssey (bash, zsh, tcsh).",
        description=__doc__.split("\n\n", 1)[0] if __doc__ else None,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("shell", choices=SHELLS, help="the shell to complete in")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import shtab

    from zodyssey.cli import build_parser

    print(shtab.complete(build_parser(), shell=args.shell), end="")
    return 0
