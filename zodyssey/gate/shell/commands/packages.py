"""Package managers: their query forms read, everything else can run code."""

from __future__ import annotations

from zodyssey.gate.shell.commands import HANDLERS
from zodyssey.gate.shell.records import Arg

TYPE_CHECKING = False  # mypy treats this as typing.TYPE_CHECKING; no runtime import
if TYPE_CHECKING:
    from zodyssey.gate.shell.commands import Handler
    from zodyssey.gate.shell.walker import Walker


_PACKAGE_QUERIES: dict[str, frozenset[str]] = {
    "pip": frozenset({"list", "show", "freeze", "check", "--version", "-V", "help"}),
    "pip3": frozenset({"list", "show", "freeze", "check", "--version", "-V", "help"}),
    "npm": frozenset({"ls", "list", "view", "info", "outdated", "--version", "-v", "help"}),
    "yarn": frozenset({"--version", "-v", "info", "list", "why"}),
    "pnpm": frozenset({"--version", "-v", "list", "ls", "why"}),
    "cargo": frozenset({"--version", "-V", "tree", "metadata"}),
    "go": frozenset({"version", "env", "help"}),
    "uv": frozenset({"--version", "version", "tree"}),
}


def _package_query(name: str) -> Handler:
    queries = _PACKAGE_QUERIES[name]

    def handler(w: Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
        first = args[0].value if args else None
        if first is not None and first in queries and all(a.value is not None for a in args):
            w.read(text)
        else:
            w.unknown(text, f"{name} {first or ''} can install, build or run code")
        return cwd

    return handler


for _name in _PACKAGE_QUERIES:
    HANDLERS[_name] = _package_query(_name)
