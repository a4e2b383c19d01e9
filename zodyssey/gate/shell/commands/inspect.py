"""Tools an agent reads with whose other forms write: compressors to stdout,
`docker` queries, `yq` without in-place, `man`, `mktemp -u`, `ar t`."""

from zodyssey.gate.shell.commands import handles, register
from zodyssey.gate.shell.records import Arg
from zodyssey.gate.shell.words import has_option, option_values, split_options

TYPE_CHECKING = False
if TYPE_CHECKING:
    from zodyssey.gate.shell.commands import Walker


def _shorts(args: "list[Arg]") -> str:
    return "".join(
        (a.value or "")[1:]
        for a in args
        if (a.value or "").startswith("-") and (a.value or "")[1:2] != "-"
    )


# compressor -> (its long options that only read or print, its short ones)
_STDOUT_LONG = frozenset(["--stdout", "--to-stdout", "--list", "--test"])


def _compressor(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    """gzip/xz/bzip2/zstd/lz4 write next to their input unless told to write
    to stdout (-c), list (-l) or test (-t); zstd's -o names its output."""
    if any(a.value is None for a in args):
        w.unknown(text, "a compressor with a non-static argument")
        return cwd
    options, _ = split_options(args, "oSTLbB", ("--output", "--suffix", "--threads"))
    outputs = option_values(options, "-o", "--output")
    if outputs:
        w.write(text, cwd, [Arg(v) for v in outputs], "the compressor writes its -o file")
    elif _to_stdout(text, args):
        w.read(text)
    else:
        w.unknown(text, "the compressor writes files next to its input")
    return cwd


def _to_stdout(text: str, args: "list[Arg]") -> bool:
    """Told to write to stdout, list or test (lz4's -l is its legacy format, not a listing)."""
    letters = set("ct" if text.startswith("lz4") else "clt")
    longs = {a.value for a in args if (a.value or "").startswith("--")}
    return bool(set(_shorts(args)) & letters or longs & _STDOUT_LONG)


register(_compressor, "gzip", "gunzip", "xz", "unxz", "bzip2", "bunzip2", "zstd", "unzstd", "lz4")


_DOCKER_READS = frozenset(
    [
        "ps",
        "images",
        "version",
        "info",
        "inspect",
        "logs",
        "top",
        "port",
        "diff",
        "history",
        "search",
        "stats",
    ]
)
_DOCKER_GROUPS = {
    "image": ("ls", "list", "inspect", "history"),
    "container": ("ls", "list", "ps", "inspect", "logs", "top", "port", "diff", "stats"),
    "network": ("ls", "list", "inspect"),
    "volume": ("ls", "list", "inspect"),
    "context": ("ls", "list", "inspect", "show"),
    "system": ("df", "info"),
    "compose": ("ps", "ls", "images", "logs", "config", "top", "version"),
    "buildx": ("ls", "version"),
}


@handles("docker", "podman")
def _docker(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    values = [a.value for a in args]
    if values in (["--version"], ["-v"]):
        w.read(text)
        return cwd
    words = _docker_command(values)
    if words is None:
        # global options (--host, --config, --context, ...) change whom it talks to
        w.unknown(text, "docker with global options or no command")
    elif words[0] in _DOCKER_READS or (
        len(words) > 1 and words[1] in _DOCKER_GROUPS.get(words[0], ())
    ):
        w.read(text)
    else:
        w.unknown(text, f"docker {words[0]} can change containers, images or files")
    return cwd


def _docker_command(values: "list[str | None]") -> "list[str] | None":
    """docker's command words (`ps`, `image ls`); None when one is not static
    or a global option comes first."""
    words = [v for v in values if v is not None and not v.startswith("-")]
    if any(v is None for v in values) or not words or values[0] != words[0]:
        return None
    return words


@handles("yq")
def _yq(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    """yq prints unless told to edit in place (-i) or split into files (-s)."""
    options, _ = split_options(
        args,
        "opIsf",
        (
            "--output-format",
            "--input-format",
            "--indent",
            "--split-exp",
            "--from-file",
            "--expression",
        ),
    )
    if any(a.value is None and a.text.startswith("-") for a in args) or has_option(
        options, "-i", "--inplace", "--in-place", "-s", "--split-exp", "--split-exp-file"
    ):
        w.unknown(text, "yq edits files in place or writes split files")
    else:
        w.read(text)
    return cwd


@handles("man")
def _man(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    options, _ = split_options(
        args,
        "MSLmeREPHCpTXr",
        (
            "--manpath",
            "--sections",
            "--locale",
            "--systems",
            "--extension",
            "--recode",
            "--encoding",
            "--pager",
            "--html",
            "--config-file",
            "--preprocessor",
            "--troff-device",
            "--gxditview",
            "--prompt",
        ),
    )
    risky = ("-P", "--pager", "-H", "--html", "-C", "--config-file", "-p", "--preprocessor")
    if has_option(options, *risky, "-X", "--gxditview", "-M", "--manpath"):
        w.unknown(text, "man is told to run a program or read another configuration")
    else:
        w.read(text)
    return cwd


@handles("mktemp")
def _mktemp(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    options, _ = split_options(args, "pt", ("--tmpdir", "--suffix"))
    if has_option(options, "-u", "--dry-run"):
        w.read(text)  # prints a name, creates nothing
    else:
        w.unknown(text, "mktemp creates a file or directory")
    return cwd


@handles("ar")
def _ar(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    """`ar t` lists and `ar p` prints members; every other operation writes."""
    first = args[0].value if args else None
    letters = (first or "").lstrip("-")
    if (
        first is not None
        and (set(letters) & set("tp"))
        and not set(letters) & set("dmqrsx")
        and not any((a.value or "").startswith("--plugin") for a in args)
    ):
        w.read(text)
    else:
        w.unknown(text, "ar changes or extracts archives")
    return cwd
