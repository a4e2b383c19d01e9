"""System queries with a setting form: date, file, hostname, crontab."""

from __future__ import annotations

from zodyssey.gate.shell.commands import handles
from zodyssey.gate.shell.records import Arg

TYPE_CHECKING = False  # mypy treats this as typing.TYPE_CHECKING; no runtime import
if TYPE_CHECKING:
    from zodyssey.gate.shell.walker import Walker


@handles("date")
def _date(w: Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    if any(
        a.value is not None and (a.value in ("-s", "--set") or a.value.startswith("--set="))
        for a in args
    ):
        w.unknown(text, "date --set changes the clock")
    else:
        w.read(text)
    return cwd


@handles("file")
def _file(w: Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    if any(a.value in ("-C", "--compile") for a in args):
        w.unknown(text, "file -C writes a magic database")
    else:
        w.read(text)
    return cwd


@handles("hostname")
def _hostname(w: Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    if any(not (a.value or "x").startswith("-") for a in args) or any(
        a.value in ("-F", "--file") for a in args
    ):
        w.unknown(text, "hostname NAME changes the host name")
    else:
        w.read(text)
    return cwd


@handles("crontab")
def _crontab(w: Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    if [a.value for a in args] == ["-l"]:
        w.read(text)
    else:
        w.unknown(text, "crontab installs commands to run later")
    return cwd
