"""`zodyssey anchors check` (also installed as `check-anchors`): the citation lock.

The handler wires the pipeline: discover -> check against the lock -> report,
or --update (re-pin), or --fix (rewrite moved citations, re-pin them). Heavy
imports (markdown-it, git) happen inside the handler, never at import time.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zodyssey.commands import add_format, verbs
from zodyssey.core.exits import Exit
from zodyssey.errors import UsageError, ZodysseyError

if TYPE_CHECKING:
    from collections.abc import Callable

    from zodyssey.anchors.check import CheckResult
    from zodyssey.anchors.discover import Discovery
    from zodyssey.anchors.lock import LockFile
    from zodyssey.anchors.model import Citation
    from zodyssey.config import Config
    from zodyssey.findings import Report

# The program name the check's help and errors show: `check-anchors` sets it when it
# is the command invoked (zodyssey.cli.check_anchors_main); None: `zodyssey anchors check`.
PROG: str | None = None
DEFAULT_JOBS = 2

CHECK_DESCRIPTION = """\
Verify every file:line citation in the repository's documents against the
citation lock: each cited span must still hash to what was pinned. Citations
are `path:N`, `path:N-M`, chains (`a.py:3,9-12`, `CHANGELOG.md:5/:9`), bare
continuations (`... :40` after a path on the same line), Markdown links with
`#L10` / `#L10-L20` fragments, blob URLs of the repository's own remote, and
symbol citations (`src/app.py::Class.method`, found by name wherever it is).
"""

CHECK_EPILOG = """\
problem kinds:
  drift            the pinned lines changed in place
  moved            the pinned content is certainly elsewhere (or in the file git renamed
                   it to); --fix rewrites the citation. Not certain: drift, with the
                   places the content possibly is now
  contentless      the cited lines are blank or bare comment markers
  out-of-range     the span is outside the file
  backwards-range  a range written b < a
  gone             the cited file was deleted (git names the commit)
  unresolved       no file matches the cited path (or: git renamed it, "now X")
  ambiguous        several files match the cited path
  unlocked         a valid citation not in the lock (run --update)
  unreadable       the cited file cannot be read
  unverifiable     a commit-sha permalink whose commit (or file there) this clone lacks
                   (shallow clone, no git): never compared with the work tree instead
  unscanned        a pin still written in a document the scan leaves out (hidden folder,
                   exclude, outside documents): include it or remove the citation
  stale            a lock entry nothing cites (with --strict, and reported by --update)

history verdicts (--history):
  ok               the cited lines hold the text they held when the citation was written
  moved, drift, gone, contentless   as above, judged against that commit
  unknown          history cannot judge it (untracked, uncommitted, shallow clone, ...);
                   fails unless --allow-unknown

exit codes:
  0  clean (or: lock written, everything pinned)
  2  bad arguments, unreadable configuration, a document or folder that cannot be read,
     malformed lock or baseline, an ignore-begin without ignore-end (the message says how
     to recover)
  4  zero citations discovered: an empty check is a failure, not a pass
     (--history: every citation unknown, nothing proven)
  9  problems found (or: --update could not pin some citations)

examples:
  check-anchors                               check this repository
  check-anchors --update                      re-baseline the lock deliberately
  check-anchors --update --baseline           adopt an existing repository: pin what can be
                                              pinned, record the rest in the reviewed baseline
                                              (anchors/anchors.baseline.json); fail only on new
  check-anchors --fix --dry-run               show how moved citations would be rewritten
  check-anchors --fix                         rewrite them and re-pin those keys
  check-anchors --lock scripts/anchors.lock.json   verify a lock of the JavaScript checker
  check-anchors --format github               annotations for GitHub Actions
  check-anchors --json -o anchors.json        the JSON report (schema: docs/citation-lock.md)
  check-anchors --history                     check citations against the content at the
                                              commit that wrote them (git blame); a citation
                                              history cannot judge fails unless --allow-unknown
  check-anchors --update --from-history       seed the lock from history instead of the tree
  check-anchors --suggest-symbols             line citations that name one definition, and the
                                              symbol citation (`path.py::Class.method`) to use
  check-anchors --fix --to-symbols            rewrite them as symbol citations, pin them
"""


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "anchors",
        help="Citation lock: check file:line citations in docs against the lock.",
        description="Citation lock for file:line citations in documents.",
        epilog="examples:\n  zodyssey anchors check\n  zodyssey anchors check --update",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = verbs(parser, "anchors_command", "ACTION")
    named: dict[str, Any] = {"prog": PROG} if PROG else {}
    check = actions.add_parser(
        "check",
        **named,
        help="verify citations against the lock (also: --update, --fix)",
        description=CHECK_DESCRIPTION,
        epilog=CHECK_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_check_arguments(check)
    check.set_defaults(handler=run)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def add_check_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--root", metavar="DIR", default=".", help="repository to check (default: .)"
    )
    parser.add_argument(
        "--lock",
        metavar="PATH",
        help="lock file (default: `lock` of [tool.zodyssey], anchors/anchors.lock.json); "
        "a relative PATH is taken from the current directory",
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--update", action="store_true", help="re-baseline: pin every valid citation")
    parser.add_argument(
        "--baseline",
        action="store_true",
        help="with --update: record every citation that cannot be pinned in the adoption "
        "baseline beside the lock (anchors.baseline.json); the check then fails only on new ones",
    )
    mode.add_argument(
        "--fix",
        action="store_true",
        help="rewrite the line numbers of moved citations, re-pin them",
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="with --fix: print the diff, write nothing"
    )
    parser.add_argument(
        "--strict", action="store_true", help="also fail on stale lock entries nothing cites"
    )
    parser.add_argument(
        "--suggest-symbols",
        action="store_true",
        help="list line citations that name exactly one definition, with the symbol form to use",
    )
    parser.add_argument(
        "--to-symbols",
        action="store_true",
        help="with --fix: rewrite those line citations as symbol citations, pin them",
    )
    add_format(parser, default=None, json_flag=False)
    parser.add_argument("--json", action="store_true", help="same as --format json")
    parser.add_argument(
        "-o", "--output", metavar="FILE", help="write the report to FILE instead of stdout"
    )
    parser.add_argument(
        "--history",
        action="store_true",
        help="compare each citation with the content at the commit that wrote its line",
    )
    parser.add_argument(
        "--from-history",
        action="store_true",
        help="with --update: pin content as it was when each citation was written",
    )
    parser.add_argument(
        "--allow-unknown",
        action="store_true",
        help="with --history: citations history cannot judge do not fail the check",
    )
    parser.add_argument(
        "--jobs",
        type=_positive,
        default=None,
        metavar="N",
        help=f"parallel git jobs for --history and --from-history (default: {DEFAULT_JOBS})",
    )


# Options that only mean something with others: (applies?, the error when it does not),
# checked in this order (the first that fails is the one error).
_OPTION_RULES: tuple[tuple[Callable[[argparse.Namespace, str], bool], str], ...] = (
    (
        lambda a, f: not a.dry_run or a.fix,
        "--dry-run only applies to --fix (try: check-anchors --fix --dry-run)",
    ),
    (
        lambda a, f: not a.baseline or (a.update and not a.from_history),
        "--baseline only applies to --update (try: check-anchors --update --baseline)",
    ),
    (
        lambda a, f: not a.from_history or a.update,
        "--from-history only applies to --update (try: check-anchors --update --from-history)",
    ),
    (
        lambda a, f: not (a.history and a.update),
        "--history checks; to seed the lock from history use --update --from-history",
    ),
    (
        lambda a, f: not a.to_symbols or a.fix,
        "--to-symbols only applies to --fix (try: check-anchors --fix --to-symbols)",
    ),
    (
        lambda a, f: (
            not a.suggest_symbols or not (a.update or a.fix or a.history or a.from_history)
        ),
        "--suggest-symbols only lists; run it without --update, --fix, --history",
    ),
    (
        lambda a, f: not a.suggest_symbols or f in ("text", "json"),
        "--suggest-symbols writes text or json",
    ),
    (lambda a, f: not a.allow_unknown or a.history, "--allow-unknown only applies to --history"),
    (
        lambda a, f: a.jobs is None or a.history or a.from_history,
        "--jobs only applies to --history and --from-history",
    ),
)


def _validate(args: argparse.Namespace) -> str:
    if args.json and args.format not in (None, "json"):
        raise UsageError("--json conflicts with --format " + args.format)
    fmt: str = "json" if args.json else (args.format or "text")
    for applies, error in _OPTION_RULES:
        if not applies(args, fmt):
            raise UsageError(error)
    return fmt


def _emit(text: str, output: str | None) -> None:
    from zodyssey.formats import write_report

    write_report(text, output)


def _render(report: Report, fmt: str, output: str | None) -> None:
    from zodyssey.formats import render

    _emit(render(report, fmt, colour=False if output else None), output)


def _lock_path(args: argparse.Namespace, root: Path, config: Config) -> Path:
    if args.lock:
        return Path(args.lock)
    return root / config.lock


def run(args: argparse.Namespace) -> int:
    import gc

    # The checker allocates millions of small, acyclic objects; the cyclic collector
    # would re-scan the growing heap again and again (measured: a quarter of the run).
    gc.disable()
    try:
        return _run(args)
    finally:
        gc.enable()


def check_report(root: Path, fmt: str = "text") -> tuple[Report, int]:
    """`check-anchors --root ROOT --format FMT` in-process, writing nothing: its report
    and exit code (`zodyssey check` merges it with the other parts). Whatever the
    command would exit with an error for is raised as that ZodysseyError."""
    import gc

    gc.disable()  # as in run()
    try:
        config = _config(root)
        lock_path = root / config.lock
        lock, discovery = _discover(root, config, lock_path)
        return _check_report(root, config, discovery, lock, lock_path, fmt, strict=False)
    finally:
        gc.enable()


def adoption_preview(root: Path) -> tuple[int, dict[str, int], Path] | None:
    """For `zodyssey init`: (spans --update can pin, spans it cannot by kind, the baseline).

    A check against the lock as it is, writing nothing; None when it cannot run
    (no citations, a broken configuration or lock): init then says less.
    """
    try:
        config = _config(root)
        lock_path = root / config.lock
        lock, discovery = _discover(root, config, lock_path)
        result = _check(root, config, discovery, lock, lock_path)
    except ZodysseyError:
        return None
    from zodyssey.anchors import baseline

    can = sum(1 for p in result.problems if p.kind in ("unlocked", "drift"))
    cannot: dict[str, int] = {}
    for p in result.problems:
        if p.kind not in ("unlocked", "drift"):
            cannot[p.kind] = cannot.get(p.kind, 0) + 1
    return can, cannot, baseline.path_for(lock_path)


def _config(root: Path) -> Config:
    from zodyssey.config import load_config

    return load_config(root)


def _discover(root: Path, config: Config, lock_path: Path) -> tuple[LockFile, Discovery]:
    from zodyssey.anchors.baseline import known_paths
    from zodyssey.anchors.discover import discover
    from zodyssey.anchors.lock import check_foreign_rewrite, read_lock

    lock = read_lock(lock_path)
    check_foreign_rewrite(lock_path, lock)
    lock.known_paths = known_paths(lock_path)
    discovery = discover(root, config, lock=lock)
    if not discovery.citations:
        raise ZodysseyError(
            f"zero citations discovered under {root} ({len(discovery.documents)} document(s) "
            "scanned): an empty check is a failure, not a pass; check `documents` and "
            "`exclude` in [tool.zodyssey]",
            Exit.EMPTY,
        )
    return lock, discovery


def _run(args: argparse.Namespace) -> int:
    fmt = _validate(args)
    root = Path(args.root)
    if not root.is_dir():
        raise UsageError(f"--root {args.root}: no such directory")
    config = _config(root)
    lock_path = _lock_path(args, root, config)
    lock, discovery = _discover(root, config, lock_path)
    if args.history or args.from_history:
        return _run_history(args, root, config, discovery, lock_path, fmt)
    if args.update:
        return _run_update(args, root, config, discovery, lock, lock_path, fmt)
    if args.suggest_symbols or args.to_symbols:
        return _run_symbols(args, root, config, discovery, lock, lock_path, fmt)
    if args.fix:
        return _run_fix(args, root, config, discovery, lock, lock_path, fmt)
    return _run_check(args, root, config, discovery, lock, lock_path, fmt)


def _check(
    root: Path,
    config: Config,
    discovery: Discovery,
    lock: LockFile,
    lock_path: Path,
    *,
    pinning: bool = False,
) -> CheckResult:
    from zodyssey.anchors import ambiguous
    from zodyssey.anchors.check import (
        Checker,
        find_stale_writing,
        find_unscanned,
        set_aside_unseen,
    )
    from zodyssey.anchors.discover import left_out_documents

    result = Checker(root, config, discovery, lock, lock_path=lock_path, pinning=pinning).run()
    find_unscanned(result, left_out_documents(root, config, discovery), root)
    find_stale_writing(result, discovery, root)
    ambiguous.suggest_files(root, discovery, result.problems)
    # --update writes our lock, which pins every dialect: there, every problem counts.
    if lock.legacy and not pinning:
        from zodyssey.anchors.lock import last_own_pins

        own_before = last_own_pins(lock_path) if lock.exists and result.problems else None
        set_aside_unseen(result, discovery, root, own_before)
    if not pinning:  # --update applies it to what it cannot pin (_run_update)
        _apply_baseline(result, lock_path, root, discovery)
    return result


def _apply_baseline(result: CheckResult, lock_path: Path, root: Path, discovery: Discovery) -> None:
    from zodyssey.anchors import baseline

    path = baseline.path_for(lock_path)
    entries = baseline.read(path)
    if entries is not None:
        read = {(c.site.doc, c.cited_as) for c in discovery.citations}
        result.baseline = baseline.apply(result, entries, path, root=root, read=read)


ADVICE = {
    "moved": "`check-anchors --fix` rewrites their line numbers (and the path after a rename)",
    "drift": "read each one: correct the citation if it is wrong, the code if the citation "
    "was right; re-pin with `check-anchors --update` only when the change is intended "
    '("possibly now at" places are not certain, so --fix leaves them to you)',
    "gone": "cite where that code lives now, or remove the citation",
    "unresolved": "cite the file that exists now, or remove the citation; an illustrative "
    "example is no citation: list it in `exempt` or mark its line "
    "`<!-- anchor-lock: ignore-line -->`",
    "ambiguous": "write more of the path, so it names one file",
    "contentless": "point the citation at the lines that carry the claim",
    "out-of-range": "point the citation at lines the file has",
    "backwards-range": "write the smaller line number first",
    "unreadable": "make the file readable, or stop citing it",
    "unverifiable": "check with the history that holds the commit (`git fetch --unshallow`, "
    "or actions/checkout with fetch-depth: 0), or cite the line at a branch instead",
    "unlocked": "verify each new citation, then pin them with `check-anchors --update`",
    "stale": "`check-anchors --update` drops lock entries nothing cites",
}
ADOPT_ADVICE = (
    "adopting the lock: `check-anchors --update --from-history` pins each citation as it was "
    "when its line was written, so citations that are already stale show up instead of "
    "being blessed as they are now"
)


def _advice(kinds: list[str], *, adopting: bool) -> str:
    """One line of advice per kind present, in display order."""
    from zodyssey.anchors.check import KIND_ORDER

    lines = []
    for kind in KIND_ORDER:
        if kind not in kinds:
            continue
        text = ADOPT_ADVICE if kind == "unlocked" and adopting else ADVICE.get(kind)
        if text:
            lines.append(f"  {kind}: {text}")
    return "\n".join(lines)


def _summary(
    result: CheckResult, problems: int, *, strict: bool = False, adopting: bool = False
) -> str:
    counted = result.tally.text() if result.tally is not None else f"{result.checked} spans"
    head = f"check-anchors: {counted}"
    if problems == 0:
        unproven = []
        if result.exempted:
            unproven.append(f"{result.exempted} exempt")
        if result.notes:
            unproven.append(f"{len(result.notes)} reported as notes (see below)")
        if result.skipped_documents:
            unproven.append(f"{result.skipped_documents} document(s) skipped by the ignore marker")
        if result.baseline is not None and result.baseline.baselined:
            unproven.append(f"{len(result.baseline.baselined)} baselined (see below)")
        if not unproven:
            return head + ": all resolve and match the lock"
        checked = result.checked - result.exempted - len(result.notes)
        checked -= len(result.baseline.baselined) if result.baseline is not None else 0
        return f"{head}: the {checked} checked match the lock; not checked: " + ", ".join(unproven)
    counts = result.by_kind()
    if strict and result.stale:
        counts["stale"] = len(result.stale)
    kinds = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
    return (
        f"check-anchors: {problems} problem(s) across {counted} ({kinds}). What to do:\n"
        + _advice(list(counts), adopting=adopting)
    )


def _baseline_summary(result: CheckResult, root: Path) -> str:
    from zodyssey.anchors import baseline

    return baseline.summary(result.baseline, root) if result.baseline is not None else ""


def _notes_summary(result: CheckResult) -> str:
    left = result.left_out.summary() if result.left_out is not None else ""
    left = f"\n({left})" if left else ""
    if not result.notes:
        return left
    return left + (
        f"\n({len(result.notes)} citation(s) the JavaScript checker could not see (other "
        "extensions, Markdown links, blob URLs, documents it skipped) are not in its lock; "
        "reported as notes, not failures. `check-anchors --update` writes our lock, which "
        "pins and checks them)"
    )


def _run_check(
    args: argparse.Namespace,
    root: Path,
    config: Config,
    discovery: Discovery,
    lock: LockFile,
    lock_path: Path,
    fmt: str,
) -> int:
    report, code = _check_report(root, config, discovery, lock, lock_path, fmt, args.strict)
    _render(report, fmt, args.output)
    return code


def _check_report(
    root: Path,
    config: Config,
    discovery: Discovery,
    lock: LockFile,
    lock_path: Path,
    fmt: str,
    strict: bool,
) -> tuple[Report, int]:
    from zodyssey.anchors.report import build_report

    result = _check(root, config, discovery, lock, lock_path)
    count = len(result.problems) + (len(result.stale) if strict else 0)
    summary = _summary(result, count, strict=strict, adopting=not lock.citations)
    if not lock.exists:
        summary += f"\nno lock at {lock_path}: create one with `check-anchors --update`"
        legacy = root / "scripts" / "anchors.lock.json"
        if legacy.is_file() and legacy.resolve() != lock_path.resolve():
            summary += f" (or verify the JavaScript checker's lock: --lock {legacy})"
    elif result.stale and not strict:
        summary += f"\n({len(result.stale)} stale lock entries; --strict fails on them, --update drops them)"
        for key, where in list(result.stale_written.items())[:5]:
            summary += (
                f"\n(stale {key} is still written at {where}, where it is not read as a citation)"
            )
    summary += _notes_summary(result) + _baseline_summary(result, root)
    report = build_report(result, mode="check", strict=strict, summary=summary, fmt=fmt)
    return report, Exit.PROBLEMS if count else Exit.OK


def _run_update(
    args: argparse.Namespace,
    root: Path,
    config: Config,
    discovery: Discovery,
    lock: LockFile,
    lock_path: Path,
    fmt: str,
) -> int:
    from zodyssey.anchors import said
    from zodyssey.anchors.lock import LockFile, write_lock
    from zodyssey.anchors.report import build_report

    result = _check(root, config, discovery, lock, lock_path, pinning=True)
    # Re-pinning drift and unlocked citations is what --update is for; the rest are refused.
    refused = [p for p in result.problems if p.kind not in ("drift", "unlocked")]
    read = {(c.site.doc, c.cited_as) for c in discovery.citations}
    accepted, baseline_words = _update_baseline(
        result, refused, lock_path, (root, read), args.baseline
    )
    new_lock = LockFile(
        citations=dict(result.pins),
        exempt=list(lock.exempt),
        spans=dict(result.spans),
        evidence=dict(result.evidence),
        said=dict(lock.said),
        comment=lock.comment,
        exists=True,
        extra=lock.extra,
    )
    kept_moved, kept_cited = _keep_refused_pins(lock, new_lock, refused)
    said.refresh(root, new_lock)  # what each pinned span says, for drift reports
    dropped = sorted(k for k in lock.citations if k not in new_lock.citations)
    try:
        write_lock(lock_path, new_lock)
    except OSError as exc:
        raise UsageError(f"cannot write lock {lock_path}: {exc.strerror}") from exc
    written = f"check-anchors: wrote {len(new_lock.citations)} citation fingerprints to {lock_path}"
    counted = (
        (
            sum(1 for p in result.problems if p.kind == "drift"),
            "drifted citation(s) re-pinned to their current content",
        ),
        (kept_moved, "moved citation(s) kept at their old pin (run --fix)"),
        (kept_cited, "pin(s) of problem citations kept, as documents still cite them"),
        (len(accepted), "citation(s) could NOT be pinned (listed above)"),
    )
    parts = [written, *_dropped_words(dropped, result), *(f"{n} {w}" for n, w in counted if n)]
    summary = "; ".join(parts) + baseline_words
    result.problems = accepted
    report = build_report(result, mode="update", strict=False, summary=summary, fmt=fmt)
    # Dropped stale entries are reported, but they are the point of --update, not a failure.
    report.findings += [_note(key, detail) for key, detail in _dropped_notes(result, dropped)]
    _render(report, fmt, args.output)
    return Exit.PROBLEMS if accepted else Exit.OK


def _update_baseline(
    result: CheckResult,
    refused: list[Any],
    lock_path: Path,
    where: tuple[Path, set[tuple[str, str]]],
    rewrite: bool,
) -> tuple[list[Any], str]:
    """(the refused problems that still fail, what the summary adds) for --update.

    With --baseline the baseline is written anew from every refused problem it may
    hold (a `moved` one is left to --fix); without, an existing baseline covers
    the refused problems it lists, as in a check.
    """
    from zodyssey.anchors import baseline

    root, read = where  # the root, and each (document, spelling) read as a citation
    path = baseline.path_for(lock_path)
    if not rewrite:
        entries = baseline.read(path)
        if entries is None:
            return refused, ""
        result.problems = refused
        result.baseline = baseline.apply(result, entries, path, root=root, read=read)
        return result.problems, baseline.summary(result.baseline, root)
    entries = baseline.entries_of(refused)
    held = [p for p in refused if p.kind not in baseline.NOT_BASELINED]
    if entries or path.exists():
        baseline.write(path, entries)
    result.baseline = baseline.BaselineState(path, entries, baselined=held)
    if not entries:
        return refused, f"\nbaseline {path}: every citation could be pinned, nothing to record"
    return [p for p in refused if p.kind in baseline.NOT_BASELINED], (
        f"\nbaseline {path}: {len(held)} problem(s) at {len(entries)} citing site(s) that "
        "cannot be pinned are recorded there (listed above as `baselined`): review it and "
        "commit it with the lock; `zodyssey check` passes over them and fails on any other "
        "problem; fix them over time and run this again to drop them"
    )


def _dropped_words(dropped: list[str], result: CheckResult) -> list[str]:
    """`N entries dropped (S stale, R no longer pinnable)`, when any were."""
    if not dropped:
        return []
    stale = sum(1 for k in dropped if k not in result.cited_keys)
    return [
        f"{len(dropped)} entr{'y' if len(dropped) == 1 else 'ies'} dropped "
        f"({stale} stale, {len(dropped) - stale} no longer pinnable)"
    ]


def _keep_refused_pins(lock: LockFile, new_lock: LockFile, refused: list[Any]) -> tuple[int, int]:
    """Keep the old pins of refused citations; (moved kept, others kept).

    A moved one keeps its pin so `check` keeps saying where the content went
    and --fix can still rewrite it; any other (its file deleted or renamed, out
    of range now) because a document still cites it, and dropping the pin
    would forget what it said. Re-pinning the old numbers would bless wrong content.
    """
    kept_moved = kept_cited = 0
    for p in refused:
        if p.key not in lock.citations or p.key in new_lock.citations:
            continue
        new_lock.citations[p.key] = lock.citations[p.key]
        if p.key in lock.spans:
            new_lock.spans[p.key] = lock.spans[p.key]
        if p.key in lock.evidence:
            new_lock.evidence[p.key] = lock.evidence[p.key]
        kept_moved += p.kind == "moved"
        kept_cited += p.kind != "moved"
    return kept_moved, kept_cited


def _dropped_notes(result: CheckResult, dropped: list[str]) -> list[tuple[str, str]]:
    """(key, detail) of each stale entry --update dropped."""
    notes = []
    for key in dropped:
        if key in result.cited_keys:
            continue
        where = result.stale_written.get(key)
        detail = "dropped from the lock: nothing cites it"
        if where is not None:
            detail = (
                f"dropped from the lock: no citation reads it, but {where} still writes it "
                "(in a comment, an ignored line or region, or outside the scanned window); "
                "restore the citation there if a reader relies on it"
            )
        notes.append((key, detail))
    return notes


def _note(key: str, detail: str) -> Any:
    from zodyssey.findings import Finding

    return Finding(
        tool="anchors",
        rule="stale",
        severity="note",
        message=f"{key}: {detail}",
        extra={"key": key},
    )


def _run_fix(
    args: argparse.Namespace,
    root: Path,
    config: Config,
    discovery: Discovery,
    lock: LockFile,
    lock_path: Path,
    fmt: str,
) -> int:
    from zodyssey.anchors.fix import apply_moves
    from zodyssey.anchors.report import build_report
    from zodyssey.anchors.rewrite import moves_of

    result = _check(root, config, discovery, lock, lock_path)
    before = {(p.kind, p.key) for p in result.problems}
    moved = [p for p in result.problems if p.kind == "moved"]
    moves, new_paths = moves_of(moved, discovery.index)
    rewritten: dict[str, tuple[list[str], list[str]]] = {}
    applied: list[Citation] = []
    diff = apply_moves(
        root, moves, args.dry_run, new_paths=new_paths, changed=rewritten, applied=applied
    )
    if args.dry_run:
        return _dry_run_done(args, result, diff, applied, moved)
    repinned_docs = 0
    if moved:
        discovery, repinned_docs = _repin_after_fix(root, config, lock, lock_path, moved, rewritten)
        result = _check(root, config, discovery, lock, lock_path)
    if diff:
        sys.stderr.write(diff)
    moved_keys = {p.key for p in moved} | {str(p.moved_to["key"]) for p in moved if p.moved_to}
    created = [
        p for p in result.problems if (p.kind, p.key) not in before and p.key not in moved_keys
    ]
    count = len(result.problems) + (len(result.stale) if args.strict else 0)
    summary = _fix_head(applied, moved) + _repinned_words(repinned_docs)
    summary += ". " + _summary(result, count, strict=args.strict) + _notes_summary(result)
    summary += _baseline_summary(result, root)
    if created:
        summary += (
            f"\n--fix created {len(created)} new problem(s) (listed above); this is a defect "
            "of --fix: restore the documents and the lock from version control and report it"
        )
        count = max(count, 1)
    report = build_report(result, mode="fix", strict=args.strict, summary=summary, fmt=fmt)
    _render(report, fmt, args.output)
    return Exit.PROBLEMS if count else Exit.OK


def _dry_run_done(
    args: argparse.Namespace,
    result: CheckResult,
    diff: str,
    applied: list[Citation],
    moved: list[Any],
) -> int:
    """`--fix --dry-run`: the diff on stdout, what would change on stderr, --fix's exit."""
    sys.stdout.write(diff)
    summary = (
        f"check-anchors --fix --dry-run: {_rewrite_count(applied, moved)} would be "
        "rewritten; nothing written"
    )
    print(summary, file=sys.stderr)
    # The same exit as --fix would give with nothing rewritten: --strict counts stale too.
    stale = len(result.stale) if args.strict else 0
    return Exit.PROBLEMS if result.problems or stale else Exit.OK


def _repinned_words(repinned_docs: int) -> str:
    if not repinned_docs:
        return ""
    return (
        f"; {repinned_docs} citation(s) of the rewritten documents re-pinned to the rewritten lines"
    )


def _run_symbols(
    args: argparse.Namespace,
    root: Path,
    config: Config,
    discovery: Discovery,
    lock: LockFile,
    lock_path: Path,
    fmt: str,
) -> int:
    """--suggest-symbols (a listing) and --fix --to-symbols (anchors/symbols/suggest.py)."""
    from zodyssey.anchors.lock import write_lock
    from zodyssey.anchors.symbols import suggest

    result = _check(root, config, discovery, lock, lock_path)
    found = suggest.suggestions(root, discovery.citations, {p.key for p in result.problems})
    if args.suggest_symbols:
        _emit(suggest.render(found, fmt), args.output)
        return Exit.OK
    if lock.legacy:
        raise UsageError(
            "--to-symbols: a JavaScript checker's lock cannot hold symbol citations; "
            "write our lock first (check-anchors --update)"
        )
    applied, changed = suggest.rewrite_documents(root, found, dry_run=args.dry_run)
    diff = suggest.diff_of(changed)
    done = f"check-anchors --fix --to-symbols: {len(applied)} of {len(found)} line citation(s) "
    if args.dry_run:
        sys.stdout.write(diff)
        print(done + "would be rewritten; nothing written", file=sys.stderr)
        return Exit.OK
    if applied:
        discovery = suggest.pin_rewritten(root, config, lock, lock_path, applied)
        _follow_rewrites(lock, changed, set())
        from zodyssey.anchors.said import refresh

        refresh(root, lock)
        try:
            write_lock(lock_path, lock)
        except OSError as exc:
            raise UsageError(f"cannot write lock {lock_path}: {exc.strerror}") from exc
    sys.stderr.write(diff)
    print(done + "rewritten as symbol citations and pinned", file=sys.stderr)
    for s in found:
        if s.why_not is not None:
            print("  " + s.line(), file=sys.stderr)
    return _run_check(args, root, config, discovery, lock, lock_path, fmt)


def _fix_head(applied: list[Citation], moved: list[Any]) -> str:
    if applied:
        return f"check-anchors --fix: rewrote {_rewrite_count(applied, moved)} and re-pinned them"
    return "check-anchors --fix: nothing rewritten (" + (
        "no moved citations; drift is never rewritten)"
        if not moved
        else f"{len(moved)} moved citation key(s), but their text changed since it was read)"
    )


def _repin_after_fix(
    root: Path,
    config: Config,
    lock: LockFile,
    lock_path: Path,
    moved: list[Any],
    rewritten: dict[str, tuple[list[str], list[str]]],
) -> tuple[Discovery, int]:
    """Re-pin from what the documents cite now, write the lock; (fresh discovery, re-pinned).

    A move whose text could not be rewritten keeps its old key. Every old pin
    is read before any is written, since one move's new key is often another's
    old key.
    """
    from zodyssey.anchors.discover import discover
    from zodyssey.anchors.lock import write_lock

    fresh = discover(root, config, lock=lock)
    cited_now = {c.key for c in fresh.citations if c.key is not None}
    pins: dict[str, str] = {}
    per_line: dict[str, list[str]] = {}
    touched: set[str] = set()
    for p in moved:
        assert p.moved_to is not None
        new_key = str(p.moved_to["key"])
        if new_key in cited_now and p.key in lock.citations:
            pins[new_key] = lock.citations[p.key]
            touched.add(new_key)
            if p.key in lock.spans:
                per_line[new_key] = lock.spans[p.key]
    for p in moved:
        if p.key not in cited_now:
            lock.citations.pop(p.key, None)
            lock.spans.pop(p.key, None)
            lock.evidence.pop(p.key, None)
    lock.citations.update(pins)
    lock.spans.update(per_line)
    # The fix rewrote documents that other documents may cite: their pins follow
    # the fix's own edits (and only those), so the fix never creates a drift.
    repinned_docs = _follow_rewrites(lock, rewritten, touched)
    if not lock.legacy:
        pinned = _check(root, config, fresh, lock, lock_path, pinning=True)
        for key in touched:
            if key in pinned.evidence:
                lock.evidence[key] = pinned.evidence[key]
    from zodyssey.anchors.said import refresh

    refresh(root, lock)
    try:
        write_lock(lock_path, lock)
    except OSError as exc:
        raise UsageError(f"cannot write lock {lock_path}: {exc.strerror}") from exc
    return fresh, repinned_docs


def _rewrite_count(applied: list[Citation], moved: list[Any]) -> str:
    """`N moved citation(s)` (sites rewritten), with the keys when they differ in number."""
    done = set(applied)
    keys = {p.key for p in moved if any(c in done for c in p.citations)}
    text = f"{len(applied)} moved citation(s)"
    if len(keys) != len(applied):
        text += f" ({len(keys)} lock key(s))"
    return text


def _follow_rewrites(
    lock: LockFile, rewritten: dict[str, tuple[list[str], list[str]]], touched: set[str]
) -> int:
    """Re-pin keys citing rewritten documents whose pin matched the text before the fix.

    --fix changes only numbers inside lines, never the line count, so a span
    keeps its place; where the old text was pinned, the new text is now.
    """
    from zodyssey.anchors.fingerprint import fingerprint, hash_text, normalise

    count = 0
    for key, pin in list(lock.citations.items()):
        path, _, numbers = key.rpartition(":")
        if path not in rewritten:
            continue
        first, _, last = numbers.partition("-")
        if not first.isdigit() or (last and not last.isdigit()):
            continue
        a, b = int(first), int(last or first)
        old, new = rewritten[path]
        if a < 1 or b < a or b > len(old) or len(old) != len(new):
            continue
        if fingerprint(old, a, b) != pin or old[a - 1 : b] == new[a - 1 : b]:
            continue
        lock.citations[key] = fingerprint(new, a, b)
        if key in lock.spans:
            lock.spans[key] = [hash_text(normalise(line)) for line in new[a - 1 : b]]
        touched.add(key)
        count += 1
    return count


def _run_history(
    args: argparse.Namespace,
    root: Path,
    config: Config,
    discovery: Discovery,
    lock_path: Path,
    fmt: str,
) -> int:
    if importlib.util.find_spec("zodyssey.anchors.history") is None:
        raise UsageError(
            "--history and --from-history need zodyssey.anchors.history, which this build lacks"
        )
    from zodyssey.anchors import history

    jobs = args.jobs or DEFAULT_JOBS
    if args.from_history:
        report, code = history.seed_lock_from_history(
            root, config, discovery.citations, lock_path, jobs=jobs
        )
    else:
        report, code = history.history_report(
            root,
            config,
            discovery.citations,
            scanned=len(discovery.documents),
            jobs=jobs,
            fix=args.fix,
            dry_run=args.dry_run,
            allow_unknown=args.allow_unknown,
        )
    _render(report, fmt, args.output)
    return int(code)
