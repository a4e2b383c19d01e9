"""Output formats: one small module per format, each with `render(report) -> str`."""

from __future__ import annotations

import importlib
from typing import Protocol

from zodyssey.errors import UsageError
from zodyssey.findings import Report

FORMATS = ("text", "json", "github", "sarif", "junit", "markdown", "html")


class Format(Protocol):
    def render(self, report: Report) -> str: ...


def get_format(name: str) -> Format:
    if name not in FORMATS:
        raise UsageError(f"unknown format {name!r}; choose one of: {', '.join(FORMATS)}")
    module: Format = importlib.import_module(f"zodyssey.formats.{name}_format")
    return module


def render(report: Report, name: str) -> str:
    return get_format(name).render(report)
