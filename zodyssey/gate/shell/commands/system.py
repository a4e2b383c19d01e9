"""System queries with a setting form: date, file, hostname, crontab."""

from zodyssey.gate.shell.commands import handles
from zodyssey.gate.shell.records import Arg
from zodyssey.gate.shell.words import has_option, split_options

TYPE_CHECKING = False
if TYPE_CHECKING:
    from zodyssey.gate.shell.commands import Walker


@handles("date")
def _date(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    options, _ = split_options(
        args, "dfrs", ("--date", "--file", "--reference", "--set"), short_optional="I"
    )
    if has_option(options, "-s", "--set"):
        w.unknown(text, "date --set changes the clock")
    else:
        w.read(text)
    return cwd


@handles("file")
def _file(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    options, _ = split_options(
        args, "efFmP", ("--exclude", "--files-from", "--separator", "--magic-file", "--parameter")
    )
    if has_option(options, "-C", "--compile"):
        w.unknown(text, "file -C writes a magic database")
    else:
        w.read(text)
    return cwd


@handles("hostname")
def _hostname(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    options, operands = split_options(args, "F", ("--file",))
    if operands or has_option(options, "-F", "--file", "-b", "--boot"):
        w.unknown(text, "hostname NAME changes the host name")
    else:
        w.read(text)
    return cwd


@handles("crontab")
def _crontab(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    if [a.value for a in args] == ["-l"]:
        w.read(text)
    else:
        w.unknown(text, "crontab installs commands to run later")
    return cwd
