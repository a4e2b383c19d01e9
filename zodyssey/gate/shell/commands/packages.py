"""Package managers: their query forms read, everything else can run code.

Each tool has a function from its words to "read", "write" (can install,
build or run code: unknown) or, for pip's log file, the files it writes.
Some queries that look harmless are not: `cargo tree`/`cargo metadata` may
rewrite Cargo.lock and run build configuration, `uv tree` locks the project
unless told `--frozen`/`--locked`, `go env -w` writes Go's settings file, and
every pip command writes its `--log FILE`.
"""

from zodyssey.gate.shell.commands import register
from zodyssey.gate.shell.records import Arg

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from zodyssey.gate.shell.commands import Walker


def _handler(name: str, judge: "Callable[[list[str]], bool]") -> None:
    def handler(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
        if any(a.value is None for a in args):
            w.unknown(text, f"{name} with a non-static argument")
        elif judge([a.value or "" for a in args]):
            w.read(text)
        else:
            first = next((a.value for a in args if not (a.value or "-").startswith("-")), "")
            w.unknown(text, f"{name} {first} can install, build or run code")
        return cwd

    register(handler, name)


def _positionals(words: list[str]) -> list[str]:
    return [v for v in words if not v.startswith("-")]


def _only(words: list[str], flags: "tuple[str, ...]") -> bool:
    """The tool is given nothing but one of `flags` (`--version`)."""
    return len(words) == 1 and words[0] in flags


def _second_in(rest: list[str], choices: "tuple[str, ...]") -> bool:
    """The subcommand's own subcommand (`config get`) is one of `choices`."""
    return len(rest) > 1 and rest[1] in choices


def _first_is(
    reads: frozenset[str], flags: frozenset[str] = frozenset()
) -> "Callable[[list[str]], bool]":
    def judge(words: list[str]) -> bool:
        if len(words) == 1 and words[0] in flags:
            return True
        rest = _positionals(words)
        return bool(rest) and rest[0] in reads

    return judge


# -- pip

# options naming where pip writes (its log; its cache, used by queries that
# reach the index, such as `pip list --outdated`)
_PIP_LOGS = ("--log", "--log-file", "--local-log", "--cache-dir")
_PIP_READS = frozenset(["list", "show", "freeze", "check", "help", "inspect", "debug"])
_PIP_SUBREADS = {
    "config": ("list", "get", "debug"),
    "cache": ("list", "dir", "info"),
    "index": ("versions",),
}


def _pip(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    found = _pip_words(w, text, args)
    if found is None:
        return cwd
    words, logs = found
    rest = _positionals(words)
    if not _pip_reads(words, rest):
        w.unknown(text, f"pip {rest[0] if rest else ''} can install, build or run code")
    elif logs:
        w.write(text, cwd, logs, "pip writes its --log file or --cache-dir")
    else:
        w.read(text)
    return cwd


def _pip_words(w: "Walker", text: str, args: "list[Arg]") -> "tuple[list[str], list[Arg]] | None":
    """(pip's words without its log and cache options, the files those name),
    or None once decided."""
    logs: list[Arg] = []
    words: list[str] = []
    k = 0
    while k < len(args):
        value = args[k].value
        k += 1
        if value is None:
            w.unknown(text, "pip with a non-static argument")
            return None
        name, eq, attached = value.partition("=")
        if name in _PIP_LOGS:
            if eq:
                logs.append(Arg(attached))
            else:
                logs.append(args[k] if k < len(args) else Arg(None))
                k += 1
        elif _abbreviates_log(name):
            w.unknown(text, f"pip {name} abbreviates --log or --python")
            return None
        else:
            words.append(value)
    return words, logs


def _abbreviates_log(name: str) -> bool:
    """pip accepts any unambiguous prefix of a long option (`--lo` is `--log`)."""
    return (
        name.startswith("--")
        and name not in ("--local", "--no-cache-dir")
        and any(o.startswith(name) for o in (*_PIP_LOGS, "--python"))
    )


def _pip_reads(words: list[str], rest: list[str]) -> bool:
    if _only(words, ("--version", "-V")):
        return True
    return bool(rest) and (
        rest[0] in _PIP_READS or _second_in(rest, _PIP_SUBREADS.get(rest[0], ()))
    )


register(_pip, "pip", "pip3")


# -- node

_NPM_READS = frozenset(
    [
        "ls",
        "list",
        "la",
        "ll",
        "view",
        "info",
        "show",
        "v",
        "outdated",
        "help",
        "explain",
        "why",
        "search",
        "root",
        "prefix",
        "fund",
        "query",
    ]
)


# npm options naming where it writes its log or cache, or another configuration
_NPM_ELSEWHERE = ("--logs-dir", "--cache", "--userconfig", "--globalconfig")
# npm subcommand -> its subcommands that read
_NPM_SECOND = {"config": ("get", "list", "ls"), "c": ("get", "list", "ls"), "pkg": ("get",)}


def _npm(words: list[str]) -> bool:
    if any(v.split("=", 1)[0] in _NPM_ELSEWHERE for v in words):
        return False  # writes its log or cache there, or reads another configuration
    rest = _positionals(words)
    if _only(words, ("--version", "-v")):
        return True
    if not rest:
        return False
    sub = rest[0]
    if sub in _NPM_SECOND:
        return _second_in(rest, _NPM_SECOND[sub])
    if sub == "audit":
        return "fix" not in rest
    if sub == "version":
        return len(rest) == 1
    return sub in _NPM_READS


def _yarn_like(reads: frozenset[str]) -> "Callable[[list[str]], bool]":
    def judge(words: list[str]) -> bool:
        rest = _positionals(words)
        if len(words) == 1 and words[0] in ("--version", "-v"):
            return True
        if rest and rest[0] == "config":
            return len(rest) > 1 and rest[1] in ("get", "list")
        if rest and rest[0] == "audit":
            return "--fix" not in words
        return bool(rest) and rest[0] in reads

    return judge


# -- rust, go, python project tools


def _cargo(words: list[str]) -> bool:
    return words in (["--version"], ["-V"], ["--list"], ["version"])


def _go(words: list[str]) -> bool:
    rest = _positionals(words)
    if not rest:
        return False
    if rest[0] == "env":
        return not any(v in ("-w", "-u") or v.startswith(("-w=", "-u=")) for v in words)
    return rest[0] in ("version", "help")


# uv subcommand -> its subcommands that read
_UV_SECOND = {
    "pip": ("list", "show", "freeze", "tree", "check"),
    "python": ("list", "find", "dir"),
    "tool": ("list", "find", "dir"),
    "cache": ("list", "find", "dir"),
    "self": ("version",),
}


def _uv_elsewhere(words: list[str]) -> bool:
    """uv is given an interpreter to run, or another cache or configuration."""
    return any(
        v in ("--python", "-p", "--cache-dir", "--config-file")
        or v.startswith(("--python=", "--cache-dir=", "--config-file="))
        for v in words
    )


def _uv(words: list[str]) -> bool:
    if _uv_elsewhere(words):
        return False  # runs the interpreter it is given
    rest = _positionals(words)
    if _only(words, ("--version", "-V", "--help")):
        return True
    if not rest:
        return False
    sub = rest[0]
    if sub in _UV_SECOND:
        return _second_in(rest, _UV_SECOND[sub])
    if sub == "tree":
        return any(v in ("--frozen", "--locked") for v in words)
    if sub == "version":
        return len(rest) == 1 and not any(v.startswith("--bump") for v in words)
    return sub == "help"


def _poetry(words: list[str]) -> bool:
    rest = _positionals(words)
    if len(words) == 1 and words[0] in ("--version", "-V"):
        return True
    if not rest:
        return False
    sub = rest[0]
    if sub == "env":
        return rest[1:2] in (["info"], ["list"])
    if sub == "config":
        return "--list" in words
    if sub == "version":
        return len(rest) == 1
    return sub in ("show", "check", "search", "about", "help", "list")


_handler("npm", _npm)
_handler("yarn", _yarn_like(frozenset(["info", "list", "why"])))
_handler("pnpm", _yarn_like(frozenset(["list", "ls", "why", "outdated"])))
_handler("cargo", _cargo)
_handler("go", _go)
_handler("uv", _uv)
_handler("poetry", _poetry)
