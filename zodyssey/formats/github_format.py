"""GitHub Actions workflow commands: annotations a pull request shows, and one job summary.

- Each finding is annotated on the line that has the problem: for a citation,
  the citing line in the document. A drifted citation gets a second annotation
  on the cited line when the pull request changes that file (the change that
  broke it is in front of the reviewer there).
- At most `MAX_ANNOTATIONS` per process, which is one CI step (GitHub shows no
  more): errors first. The job summary counts the ones left out.
- When `$GITHUB_STEP_SUMMARY` is set, each report's Markdown table goes there
  in a section of its own, replaced on the next write of the same report, so
  a summary written twice in a job shows each report once.
- The result is the exit code's: a summary says "passed" or "failed", never
  anything in between.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

from zodyssey.findings import Finding, Report
from zodyssey.formats import markdown_format

MAX_ANNOTATIONS = 50  # GitHub's limit per step
_LEVEL = {"error": "error", "warning": "warning", "note": "notice"}
_ORDER = {"error": 0, "warning": 1, "note": 2}
# Annotations this process may still write (a CI step runs one zodyssey process;
# `zodyssey check` renders several reports in it, sharing the budget).
_budget = {"left": MAX_ANNOTATIONS}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_prop(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _command(
    level: str, file: str | None, line: int | None, title: str, message: str, end: int | None
) -> str:
    props = []
    if file:
        props.append(f"file={_escape_prop(file)}")
        if line:
            props.append(f"line={line}")
            if end and end > line:
                props.append(f"endLine={end}")
    props.append(f"title={_escape_prop(title)}")
    return f"::{level} {','.join(props)}::{_escape_data(message)}"


def _annotation(finding: Finding) -> str:
    return _command(
        _LEVEL[finding.severity],
        finding.file,
        finding.line,
        f"{finding.tool} {finding.rule}",
        finding.message,
        None,
    )


def cited_span(finding: Finding) -> tuple[str, int, int] | None:
    """(path, first, last) of the lines a citation finding cites, from its lock key."""
    key = finding.extra.get("key")
    if not isinstance(key, str) or ":" not in key:
        return None
    path, _, span = key.rpartition(":")
    first, _, last = span.partition("-")
    if not path or not first.isdigit() or (last and not last.isdigit()):
        return None
    return path, int(first), int(last or first)


@cache
def changed_files() -> frozenset[str] | None:
    """Files the pull request changes (against `$ZODYSSEY_DIFF_BASE`, else
    `origin/$GITHUB_BASE_REF`); None outside a pull request or when git cannot say."""
    from zodyssey import git

    base = os.environ.get("ZODYSSEY_DIFF_BASE") or (
        f"origin/{os.environ['GITHUB_BASE_REF']}" if os.environ.get("GITHUB_BASE_REF") else ""
    )
    if not base:
        return None
    out = git.output(Path.cwd(), "diff", "--name-only", "-z", f"{base}...HEAD", "--")
    if out is None:
        return None
    return frozenset(name for name in out.decode("utf-8", "surrogateescape").split("\0") if name)


def _cited_annotation(finding: Finding) -> str | None:
    """The drift annotation on the cited line, when the pull request changes that file."""
    if finding.tool != "anchors" or finding.rule != "drift":
        return None
    span = cited_span(finding)
    changed = changed_files()
    if span is None or changed is None or span[0] not in changed:
        return None
    path, first, last = span
    cited_as = finding.extra.get("cited_as") or f"{path}:{first}"
    where = f"{finding.file}:{finding.line}" if finding.file else "a document"
    message = (
        f"{where} cites these lines as `{cited_as}`, and this change altered them: re-read "
        "that sentence, then fix the citation or re-pin it (`check-anchors --update`)."
    )
    was, now = finding.extra.get("was_reads"), finding.extra.get("now_reads")
    if isinstance(was, str) and isinstance(now, str):
        message += f"\nWhen pinned it read: {was}\nNow it reads: {now}"
    return _command(
        _LEVEL[finding.severity], path, first, "anchors drift (cited line)", message, last
    )


def status(report: Report) -> str:
    """ "passed" or "failed", as the exit code says: an empty set is a failure."""
    payload = report.payload or {}
    verdict = payload.get("verdict")
    ok = payload.get("ok")
    if report.failed or ok is False or verdict not in (None, "passed"):
        return "failed"
    return "passed"


def summary_section(report: Report, left_out: int) -> str:
    body = markdown_format.render(report)
    lines = [f"**zodyssey {report.tool}: {status(report)}**", "", body.rstrip("\n"), ""]
    if left_out:
        lines += [
            f"{left_out} finding(s) not annotated: GitHub shows at most {MAX_ANNOTATIONS} "
            "annotations per step; every finding is in the table above and in the report.",
            "",
        ]
    return "\n".join(lines)


def write_summary(path: str, report: Report, section: str) -> None:
    """Put `section` into the summary file, replacing this report's earlier section."""
    from zodyssey.core.atomic import write_atomic

    begin = f"<!-- zodyssey:{report.tool}:{report.title} -->"
    end = f"<!-- /zodyssey:{report.tool}:{report.title} -->"
    block = f"{begin}\n{section}\n{end}\n"
    try:
        current = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        current = ""
    except (OSError, UnicodeDecodeError):
        return  # a summary we cannot read is never worth failing the check for
    start = current.find(begin)
    stop = current.find(end, start + 1) if start >= 0 else -1
    if start >= 0 and stop >= 0:
        updated = current[:start] + block + current[stop + len(end) :].lstrip("\n")
    else:
        updated = current + ("\n" if current and not current.endswith("\n") else "") + block
    try:
        write_atomic(path, updated)
    except OSError:
        return


def render(report: Report) -> str:
    lines: list[str] = []
    ordered = sorted(report.findings, key=lambda f: _ORDER.get(f.severity, 3))
    left_out = 0
    for finding in ordered:
        commands = [_annotation(finding)]
        cited = _cited_annotation(finding)
        if cited is not None:
            commands.append(cited)
        for command in commands:
            if _budget["left"] > 0:
                lines.append(command)
                _budget["left"] -= 1
            elif command is commands[0]:
                left_out += 1
    if left_out:
        # Plain text, not a notice: a notice would be one annotation over the limit.
        lines.append(
            f"zodyssey {report.tool}: {left_out} more finding(s) not annotated "
            f"(at most {MAX_ANNOTATIONS} per step); see the job summary"
        )
    lines.append(report.summary or f"{report.title}: {len(report.findings)} finding(s)")
    summary_path = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary_path:
        write_summary(summary_path, report, summary_section(report, left_out))
    return "\n".join(lines) + "\n"
