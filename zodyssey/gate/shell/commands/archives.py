"""Archives: listing forms read, everything else extracts or creates."""

from zodyssey.gate.shell.commands import handles
from zodyssey.gate.shell.records import Arg

TYPE_CHECKING = False
if TYPE_CHECKING:
    from zodyssey.gate.shell.commands import Walker


# -- archives and package managers: their query forms only read


_TAR_LIST_LETTERS = "tvfzjJZaO"
_TAR_LIST_OPTIONS = frozenset(
    [
        "--list",
        "--file",
        "--verbose",
        "--gzip",
        "--gunzip",
        "--ungzip",
        "--bzip2",
        "--xz",
        "--zstd",
        "--lzma",
        "--lzip",
        "--auto-compress",
        "--numeric-owner",
        "--wildcards",
        "--no-wildcards",
        "--anchored",
        "--no-anchored",
        "--ignore-case",
        "--utc",
        "--full-time",
        "--quoting-style",
        "--exclude",
        "--to-stdout",
        "--null",
        "--totals",
        "--occurrence",
    ]
)


_TAR_LONG_MODES = frozenset(
    [
        "--list",
        "--extract",
        "--get",
        "--create",
        "--append",
        "--update",
        "--delete",
        "--concatenate",
    ]
)


def _tar_letters(words: "list[str]") -> str:
    """Every short option letter, the old style's bundle (`tar tzf x.tgz`) first."""
    first = words[0] if words else ""
    letters = first if first and not first.startswith("-") else ""
    return letters + "".join(v[1:] for v in words if v.startswith("-") and not v.startswith("--"))


# (mode letters, long mode options) -> the mode; any other mix is "" (several
# modes, or one that writes)
_TAR_MODES = {
    (frozenset("t"), frozenset()): "list",
    (frozenset(), frozenset(["--list"])): "list",
    (frozenset("x"), frozenset()): "extract",
    (frozenset(), frozenset(["--extract"])): "extract",
    (frozenset(), frozenset(["--get"])): "extract",
}


def _tar_mode(words: "list[str]", letters: str) -> str:
    """ "list", "extract" or "" (any other or more than one mode)."""
    modes = frozenset(letters) & frozenset("txcruA")
    long_modes = frozenset(v for v in words if v in _TAR_LONG_MODES)
    return _TAR_MODES.get((modes, long_modes), "")


def _tar_reads(words: "list[str]") -> bool:
    """tar only lists (or extracts to stdout), with options known to be inert."""
    letters = _tar_letters(words)
    mode = _tar_mode(words, letters)
    # extracting to stdout (-xO, --to-stdout) writes no file
    to_stdout = "O" in letters or "--to-stdout" in words
    if not (mode == "list" or (mode == "extract" and to_stdout)):
        return False
    # A listing still runs programs through options such as --to-command,
    # --checkpoint-action=exec=, -I or -F (and GNU accepts any unambiguous
    # abbreviation of them), so only options known to be inert keep it read-only.
    inert = _TAR_LIST_LETTERS + ("x" if mode == "extract" else "")
    return not set(letters) - set(inert) and not any(
        v.startswith("--") and v.split("=", 1)[0] not in _TAR_LIST_OPTIONS for v in words
    )


@handles("tar", "gtar", "bsdtar")
def _tar(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    values = [a.value for a in args]
    if any(v is None for v in values):
        w.unknown(text, "tar with a non-static argument")
        return cwd
    if _tar_reads([v for v in values if v is not None]):
        w.read(text)
    else:
        w.unknown(text, "tar writes files it does not name")
    return cwd


@handles("unzip")
def _unzip(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    """unzip extracts, except in its listing, testing and printing modes, given
    as the first option (-l -Z -t -z list or test, -p and -c print members;
    -v lists only as the first letter: later it makes extraction verbose)."""
    if any(a.value is None for a in args):
        w.unknown(text, "unzip with a non-static argument")
        return cwd
    first = next((a.value for a in args if (a.value or "").startswith("-")), None) or ""
    letters = first.lstrip("-")
    if set(letters) & set("lZtzpc") or letters.startswith("v"):
        w.read(text)
    else:
        w.unknown(text, "unzip extracts files it does not name")
    return cwd
