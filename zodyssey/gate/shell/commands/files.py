"""Commands that write the files they name: copy, link, remove, create, modes, tee, dd, editors."""

from zodyssey.gate.shell.commands import HANDLERS, handles
from zodyssey.gate.shell.records import Arg, Part
from zodyssey.gate.shell.words import (
    has_option,
    option_values,
    split_options,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from zodyssey.gate.shell.commands import Handler, Walker


# -- write-capable tools with parseable targets


# cp options that make links or copy symlinks as symlinks
_CP_LINK_OPTIONS = frozenset(
    [
        "-s",
        "-l",
        "-P",
        "-d",
        "-a",
        "-r",
        "-R",
        "--symbolic-link",
        "--link",
        "--no-dereference",
        "--archive",
        "--recursive",
    ]
)


def _ends(
    kind: str, options: "list[tuple[str, str | None]]", operands: "list[Arg]"
) -> "tuple[list[Arg], list[Arg], bool]":
    """(destinations, sources, whether the destinations are directories)."""
    directories = option_values(options, "-t", "--target-directory")
    if directories:
        return [Arg(v) for v in directories], operands, True
    if kind == "ln" and len(operands) == 1 and operands[0].value is not None:
        return [Arg(operands[0].value.rstrip("/").rsplit("/", 1)[-1] or None)], operands, False
    return operands[-1:], operands[:-1], False


def _links(
    kind: str,
    options: "list[tuple[str, str | None]]",
    sources: "list[Arg]",
    destinations: "list[Arg]",
    into_directory: bool,
) -> "tuple[bool, list[Arg]]":
    """(whether the copy makes or keeps links, what the links point at)."""
    if kind == "ln" or (kind == "cp" and has_option(options, "-l", "--link", "-s")):
        return True, _pointed_at(kind, options, sources, destinations, into_directory)
    return kind == "cp" and _cp_keeps_links(options), []


def _pointed_at(
    kind: str,
    options: "list[tuple[str, str | None]]",
    sources: "list[Arg]",
    destinations: "list[Arg]",
    into_directory: bool,
) -> "list[Arg]":
    """Writing through a link writes what it points at, so that must be in
    scope too: a hard link's source as named, a symlink's source as seen from
    the link's directory (the destination itself, if it is a directory)."""
    if not (kind == "ln" and has_option(options, "-s", "--symbolic", "--symbolic-link")):
        return list(sources)
    linked: list[Arg] = []
    for source in sources:
        linked.extend(_link_sources(source, destinations, into_directory))
    return linked


def _cp_keeps_links(options: "list[tuple[str, str | None]]") -> bool:
    """cp copies symlinks as symlinks (-P, -d, -a, -r, --preserve=links, ...)."""
    return any(name in _CP_LINK_OPTIONS for name, _ in options) or any(
        name == "--preserve" and value is not None and ("links" in value or "all" in value)
        for name, value in options
    )


def _mark_links(w: "Walker", text: str, cwd: str | None, linked: "list[Arg]") -> None:
    """The part just written makes links: what they point at is written too."""
    probe = type(w)(())
    if linked:
        probe.write(text, cwd, linked, "linked")
    pointed = probe.parts[0] if probe.parts else Part(text, False)
    w.parts[-1] = w.parts[-1]._replace(
        links=True,
        linked=pointed.targets,
        unbounded=w.parts[-1].unbounded or (pointed.write and pointed.unbounded),
    )


def _install_special(
    w: "Walker",
    text: str,
    options: "list[tuple[str, str | None]]",
    operands: "list[Arg]",
    cwd: str | None,
) -> bool:
    """`install --strip-program` and `install -d`: answered here (True) or not."""
    if has_option(options, "--strip-program"):
        w.unknown(text, "install --strip-program runs the program it names")
        return True
    if has_option(options, "-d", "--directory"):
        w.write(text, cwd, operands, "install -d creates directories")
        return True
    return False


def _copy_like(kind: str) -> "Handler":
    short = {"cp": "tS", "mv": "tS", "install": "tSmogf", "ln": "tS"}[kind]
    long_values = ("--target-directory", "--suffix", "--mode", "--owner", "--group")

    def handler(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
        options, operands = split_options(args, short, long_values)
        if kind == "install" and _install_special(w, text, options, operands, cwd):
            return cwd
        destinations, sources, into_directory = _ends(kind, options, operands)
        targets = [*sources, *destinations] if kind == "mv" else list(destinations)
        if has_option(options, "-b", "--backup", "-S", "--suffix"):
            targets.extend(_backups(options, sources, destinations, into_directory))
        links, linked = _links(kind, options, sources, destinations, into_directory)
        before = len(w.parts)
        w.write(text, cwd, targets, f"{kind} writes its destination")
        if links and len(w.parts) > before:
            _mark_links(w, text, cwd, linked)
        return cwd

    return handler


def _backups(
    options: list[tuple[str, str | None]],
    sources: "list[Arg]",
    destinations: "list[Arg]",
    into_directory: bool,
) -> "list[Arg]":
    """The backups `-b`/`--backup[=CONTROL]`/`-S SUFFIX` keep of what is replaced.

    Only a simple backup with its suffix given here has a name known now
    (`dest` + suffix, or inside a destination directory); numbered backups
    (`dest.~N~`, also what the default `existing` may choose) and suffixes
    from the environment are named at run time: unbounded."""
    controls = [v for n, v in options if n == "--backup" and v]
    control = controls[-1] if controls else None
    if control in ("none", "off"):
        return []
    suffixes = option_values(options, "-S", "--suffix")
    suffix = suffixes[-1] if suffixes else None
    if control not in ("simple", "never") or not suffix:
        return [Arg(None)]
    named = _simple_backups(suffix, sources, destinations, into_directory)
    return [Arg(None)] if named is None else named


def _simple_backups(
    suffix: str, sources: "list[Arg]", destinations: "list[Arg]", into_directory: bool
) -> "list[Arg] | None":
    """Each destination's backup (dest + suffix), or each source's inside a
    destination directory; None when a name is not known now."""
    out: list[Arg] = []
    for destination in destinations:
        where = destination.value
        if where is None:
            return None
        if not into_directory and not where.endswith("/"):
            out.append(Arg(where + suffix))
        for source in sources:
            if source.value is None or source.multi:
                return None
            base = source.value.rstrip("/").rsplit("/", 1)[-1]
            out.append(Arg(where.rstrip("/") + "/" + base + suffix))
    return out


def _link_sources(source: "Arg", destinations: "list[Arg]", into_directory: bool) -> "list[Arg]":
    value = source.value
    if value is None or source.multi:
        return [Arg(None, False, source.text)]
    if value.startswith(("/", "~")):
        return [source]
    out: list[Arg] = []
    for destination in destinations:
        where = destination.value
        if where is None:
            return [Arg(None, False, source.text)]
        for base in _link_directories(where, into_directory):
            out.append(Arg((base.rstrip("/") + "/" + value) if base else value))
    return out


def _link_directories(where: str, into_directory: bool) -> list[str]:
    """Where a link to `where` is made: inside it for -t DIR or `dir/`; else
    beside it, or inside it when it is an existing directory."""
    if into_directory or where.endswith("/"):
        return [where]
    parent = where.rsplit("/", 1)[0] if "/" in where else ""
    return [parent, where]


for _name in ("cp", "mv", "install", "ln"):
    HANDLERS[_name] = _copy_like(_name)
HANDLERS["gcp"] = HANDLERS["cp"]


def _every_operand(
    short: str, long_values: "Iterable[str]", why: str, skip_first: bool = False
) -> "Handler":
    long_set = tuple(long_values)

    def handler(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
        options, operands = split_options(args, short, long_set)
        if skip_first and not any(name == "--reference" for name, _ in options):
            operands = operands[1:]
        w.write(text, cwd, operands, why)
        return cwd

    return handler


HANDLERS["rm"] = _every_operand("", (), "rm removes files")
HANDLERS["rmdir"] = _every_operand("", (), "rmdir removes directories")
HANDLERS["unlink"] = _every_operand("", (), "unlink removes a file")
HANDLERS["shred"] = _every_operand(
    "ns", ("--iterations", "--size", "--random-source"), "shred overwrites files"
)
HANDLERS["truncate"] = _every_operand("sr", ("--size", "--reference"), "truncate resizes files")
HANDLERS["touch"] = _every_operand(
    "drt", ("--date", "--reference", "--time"), "touch creates or stamps files"
)
HANDLERS["mkdir"] = _every_operand("m", ("--mode",), "mkdir creates directories")
HANDLERS["mkfifo"] = _every_operand("m", ("--mode",), "mkfifo creates files")
HANDLERS["chown"] = _every_operand(
    "", ("--from", "--reference"), "chown changes owners", skip_first=True
)
HANDLERS["chgrp"] = _every_operand("", ("--reference",), "chgrp changes groups", skip_first=True)


_CHMOD_MODE = r"^[ugoa]*[-+=][rwxXstugo]*([,][ugoa]*[-+=][rwxXstugo]*)*$|^[0-7]{1,4}$"


@handles("chmod")
def _chmod(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    mode_seen = any((a.value or "").startswith("--reference") for a in args)
    targets: list[Arg] = []
    only = False  # after `--`
    for arg in args:
        kind = "file" if arg.value is None else _chmod_word(arg.value, only, mode_seen)
        only = only or kind == "end"
        mode_seen = mode_seen or kind == "mode"
        if kind == "file":
            targets.append(arg)
    w.write(text, cwd, targets, "chmod changes file modes")
    return cwd


def _chmod_word(value: str, only: bool, mode_seen: bool) -> str:
    """What one word of chmod is: "end" (`--`), "mode" (the first mode, `u+x`
    or `644`, even after `--`), "option" or "file"."""
    import re  # lazily: the hot path (plain words) needs no regex

    if only and mode_seen:
        return "file"
    if value == "--" and not only:
        return "end"
    if not mode_seen and re.match(_CHMOD_MODE, value):
        return "mode"
    if value.startswith("-") and not only:
        return "option"
    return "file"


@handles("tee")
def _tee(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    options, operands = split_options(args, "", ())
    append = has_option(options, "-a", "--append")
    if not operands:
        w.read(text)
        return cwd
    w.write(text, cwd, operands, "tee writes its files", append=append)
    return cwd


@handles("dd")
def _dd(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    outputs: list[Arg] = []
    for arg in args:
        if arg.value is None:
            w.unknown(text, "dd with a non-static operand")
            return cwd
        if arg.value.startswith("of="):
            outputs.append(Arg(arg.value[3:], arg.multi))
    if outputs:
        w.write(text, cwd, outputs, "dd of= writes a file")
    else:
        w.read(text)
    return cwd


@handles(
    "vi", "vim", "nvim", "view", "nano", "pico", "emacs", "ed", "ex", "micro", "joe", "kak", "hx"
)
def _editor(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    if [a.value for a in args] == ["--version"]:
        w.read(text)
        return cwd
    operands: list[Arg] = []
    for arg in args:
        value = arg.value
        if value is not None and value.startswith(("-", "+")):
            if value.startswith(("-c", "--cmd", "-S", "+")) and value not in ("+",):
                w.unknown(text, "the editor is told to run commands")
                return cwd
            continue
        operands.append(arg)
    if not operands:
        w.unknown(text, "an editor without a file")
        return cwd
    w.write(text, cwd, operands, "an editor writes its files")
    return cwd
