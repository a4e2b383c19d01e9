"""Self-contained HTML page (Jinja2, autoescaped: finding text is untrusted)."""

from __future__ import annotations

from functools import cache

from jinja2 import Environment, PackageLoader, select_autoescape

from zodyssey.findings import Report


@cache  # compiling a template costs ~80 ms; one environment per process keeps it compiled
def environment() -> Environment:
    return Environment(
        loader=PackageLoader("zodyssey", "formats/templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
    )


def render(report: Report) -> str:
    template = environment().get_template(report.html_template or "report.html.j2")
    return template.render(report=report, **report.html_context)
