"""Output formats: one small module per format, each with `render(report) -> str`."""

from __future__ import annotations

import importlib
from typing import Protocol

from zodyssey.errors import UsageError
from zodyssey.findings import Report

FORMATS = (
    "text",
    "json",
    "github",
    "sarif",
    "junit",
    "markdown",
    "html",
    "rdjson",
    "codeclimate",
)


class Format(Protocol):
    def render(self, report: Report) -> str: ...


def get_format(name: str) -> Format:
    if name not in FORMATS:
        raise UsageError(f"unknown format {name!r}; choose one of: {', '.join(FORMATS)}")
    module: Format = importlib.import_module(f"zodyssey.formats.{name}_format")
    return module


def render(report: Report, name: str, *, colour: bool | None = None) -> str:
    """`report` in format `name`; `colour` False keeps text plain (e.g. a report
    written to a file from a terminal), None lets the text format ask the terminal."""
    if name == "text":
        from zodyssey.formats import text_format

        return text_format.render(report, colour=colour)
    return get_format(name).render(report)


def write_report(text: str, output: str | None) -> None:
    """Write a rendered report to `output` atomically, or to stdout when None."""
    if output is None:
        import sys

        sys.stdout.write(text)
        sys.stdout.flush()
        return
    from zodyssey.core.atomic import write_atomic
    from zodyssey.core.files import require_regular_target

    require_regular_target(output, "report output")
    try:
        write_atomic(output, text)
    except OSError as exc:
        raise UsageError(f"cannot write report to {output}: {exc.strerror}") from exc
