"""Text and listing tools whose options can write: sort, shuf, uniq, xxd, rg, tree."""

from zodyssey.gate.shell.commands import handles
from zodyssey.gate.shell.records import Arg
from zodyssey.gate.shell.words import (
    has_option,
    option_values,
    split_options,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from zodyssey.gate.shell.commands import Walker


# -- read-only tools with writing options


@handles("sort")
def _sort(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    options, _ = split_options(
        args,
        "okStT",
        (
            "--output",
            "--key",
            "--field-separator",
            "--buffer-size",
            "--temporary-directory",
            "--parallel",
            "--batch-size",
            "--files0-from",
            "--compress-program",
            "--random-source",
            "--sort",
        ),
    )
    if has_option(options, "--compress-program"):
        w.unknown(text, "sort --compress-program runs a program")
        return cwd
    outputs = option_values(options, "-o", "--output")
    if outputs:
        w.write(text, cwd, [Arg(v) for v in outputs], "sort -o writes a file")
    else:
        w.read(text)
    return cwd


@handles("shuf")
def _shuf(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    options, _ = split_options(
        args, "oni", ("--output", "--head-count", "--input-range", "--random-source")
    )
    outputs = option_values(options, "-o", "--output")
    if outputs:
        w.write(text, cwd, [Arg(v) for v in outputs], "shuf -o writes a file")
    else:
        w.read(text)
    return cwd


@handles("uniq")
def _uniq(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    _, operands = split_options(
        # --group[=M] and --all-repeated[=M] take their value only attached
        args,
        "fsw",
        ("--skip-fields", "--skip-chars", "--check-chars"),
    )
    if len(operands) >= 2:
        w.write(text, cwd, operands[1:2], "uniq writes its second operand")
    else:
        w.read(text)
    return cwd


@handles("xxd")
def _xxd(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    _, operands = split_options(args, "cglnosC", ("-cols", "-len", "-seek", "-name"))
    if len(operands) >= 2:
        w.write(text, cwd, operands[1:2], "xxd writes its second operand")
    else:
        w.read(text)
    return cwd


@handles("rg")
def _rg(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    if any(
        a.value is not None
        and (
            a.value in ("--pre", "--hostname-bin")
            or a.value.startswith(("--pre=", "--hostname-bin="))
        )
        for a in args
    ):
        w.unknown(text, "rg --pre/--hostname-bin runs a program")
    else:
        w.read(text)
    return cwd


@handles("tree")
def _tree(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    options, _ = split_options(
        args, "oLPIH", ("--filelimit", "--timefmt", "--charset", "--sort", "--fromfile")
    )
    outputs = option_values(options, "-o")
    if has_option(options, "-R"):
        w.unknown(text, "tree -R writes 00Tree.html in every directory")
    elif outputs:
        w.write(text, cwd, [Arg(v) for v in outputs], "tree -o writes a file")
    else:
        w.read(text)
    return cwd
