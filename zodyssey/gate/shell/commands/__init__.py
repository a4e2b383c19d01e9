"""Per-command rules, one module per family, loaded only when a command line uses one.

A handler is `handler(walker, text, args, cwd) -> cwd after`: `walker` records
what the command can write (`walker.read(text)`, `walker.write(text, cwd,
paths, why)`, `walker.unknown(text, why)`, or `walker.nested(...)` for the
command a wrapper runs), `text` is the command as written, `args` the words
after the command name (`Arg`), `cwd` the directory it runs in ("" the call's
own, None unknown); it returns the directory the shell is in afterwards.

A family module registers its handlers with `@handles("name", ...)` (or
`register(handler, "name", ...)`), and `MODULES` below maps every command
name to the family that registers it: that map is how `handler_for` finds a
handler without importing the other families (a test checks that the map and
the registrations agree).
"""

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, Protocol

    from zodyssey.gate.shell.records import Arg, Part, Target

    class Walker(Protocol):
        """What a handler may use of the walker (`simple.Commands` is one): the
        families depend on this, never on `simple`, so imports point one way."""

        parts: list[Part]
        functions: dict[str, tuple[Any, str | None]]
        safe_vars: set[str]
        physical: bool
        cdpath: bool

        def __init__(self, read_only: tuple[tuple[str, ...], ...]) -> None: ...
        def read(self, text: str) -> None: ...
        def unknown(self, text: str, why: str, targets: Sequence[Target] = ()) -> None: ...
        def write(
            self, text: str, cwd: str | None, paths: Sequence[Arg], why: str, append: bool = False
        ) -> None: ...
        def nested(
            self, text: str, args: list[Arg], cwd: str | None, extra_unknown: bool = False
        ) -> str | None: ...
        def reparse(self, text: str, code: str | None, cwd: str | None) -> None: ...

    Handler = Callable[[Walker, str, list[Arg], "str | None"], "str | None"]

HANDLERS: "dict[str, Handler]" = {}


def register(handler: "Handler", *names: str) -> "Handler":
    for name in names:
        HANDLERS[name] = handler
    return handler


def handles(*names: str) -> "Callable[[Handler], Handler]":
    """Decorator: the function handles the commands `names`."""

    def decorate(handler: "Handler") -> "Handler":
        return register(handler, *names)

    return decorate


def _family(module: str, names: str) -> dict[str, str]:
    return dict.fromkeys(names.split(), module)


# command name -> the module under `commands/` that registers its handler
MODULES: dict[str, str] = {
    **_family("archives", "tar gtar bsdtar unzip"),
    **_family(
        "builtins",
        "cd pushd popd export declare typeset local readonly read mapfile readarray getopts wait "
        "let printf set unset trap alias history shopt eval source . hash",
    ),
    **_family(
        "files",
        "cp gcp mv install ln rm rmdir unlink shred truncate touch mkdir mkfifo chown chgrp "
        "chmod tee dd vi vim nvim view nano pico emacs ed ex micro joe kak hx",
    ),
    **_family("find", "find"),
    **_family("git", "git"),
    **_family(
        "interpreters",
        "bash sh zsh dash ksh mksh ash busybox perl ruby python python3 python2 node deno bun "
        "php lua Rscript osascript pwsh tclsh",
    ),
    **_family(
        "inspect",
        "gzip gunzip xz unxz bzip2 bunzip2 zstd unzstd lz4 docker podman yq man mktemp ar",
    ),
    **_family("network", "curl wget"),
    **_family("packages", "pip pip3 npm yarn pnpm cargo go uv poetry"),
    **_family("sed_awk", "sed gsed awk gawk mawk nawk"),
    **_family("system", "date file hostname crontab"),
    **_family("text", "sort shuf uniq xxd rg tree"),
    **_family("zodyssey", "zodyssey"),
    **_family(
        "wrappers",
        "env nice nohup timeout stdbuf builtin exec time command sudo doas su runuser pkexec xargs",
    ),
}


def handler_for(name: str) -> "Handler | None":
    """The handler of command `name`, importing its family on first use."""
    handler = HANDLERS.get(name)
    if handler is None:
        module = MODULES.get(name)
        if module is None:
            return None
        __import__(f"{__name__}.{module}")
        handler = HANDLERS.get(name)
    return handler
