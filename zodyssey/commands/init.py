"""`zodyssey init`: set a repository up so `zodyssey check` passes from the first commit.

It writes four files and asks nothing:

- `.zodyssey.toml`, the starter configuration (the defaults spelled out). When
  `pyproject.toml` already has a `[tool.zodyssey]` table that table is the
  configuration and no `.zodyssey.toml` is written, because it would shadow it.
- `docs/zodyssey.md`, a short page with one real citation. A repository with
  zero citations fails the check (exit 4, an empty set is not a pass), so the
  starter page gives the lock something true to pin.
- the citation lock (JS-compatible shape) with that one citation pinned.
- `.github/workflows/zodyssey.yml`, the CI workflow. Its install line is the
  release (`zodyssey==X.Y.Z`) when this zodyssey came from a package index;
  otherwise the source this zodyssey was installed from, when CI can install
  from it too (a git URL at the installed commit, read from the installation's
  record or the checkout's remote, or a wheel URL). `install_source` decides,
  and init prints which.

An existing file is kept unless `--force` is given. Templates ship inside the
package (`zodyssey/templates/`) and are read with importlib.resources, so this
works the same from a wheel.
"""

from __future__ import annotations

import argparse
import json
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from zodyssey import __version__, git
from zodyssey.core.files import NotRegularFile, read_regular_text, require_regular_target
from zodyssey.errors import UsageError

CONFIG_PATH = ".zodyssey.toml"
# Where the JavaScript checker keeps its lock; a repository adopting zodyssey from it
# keeps that lock (every pin and the exempt list), configured as ours.
JS_LOCK_PATH = "scripts/anchors.lock.json"
STARTER_DOC_PATH = "docs/zodyssey.md"
WORKFLOW_PATH = ".github/workflows/zodyssey.yml"

LOCK_COMMENT = (
    "Citation lock written by zodyssey: one fingerprint per cited span. "
    "Re-baseline deliberately with `check-anchors --update`."
)

# Candidate targets for the starter page's citation, in order of preference:
# (file, text its cited line starts with, what the line is).
_CITATION_TARGETS = (
    (CONFIG_PATH, "lock = ", "where the citation lock lives"),
    (WORKFLOW_PATH, "zodyssey check --format github", "the CI step that runs the check"),
)

EPILOG = """\
files written (each kept when it exists, unless --force):
  .zodyssey.toml                  starter configuration; skipped when pyproject.toml
                                  already has [tool.zodyssey]
  docs/zodyssey.md                a starter page with one real citation
  anchors/anchors.lock.json       the citation lock, that citation pinned
                                  (the path follows `lock` in the configuration)
  .github/workflows/zodyssey.yml  the CI workflow running `zodyssey check` and,
                                  when the repository uses claims, the tests
                                  under `pytest --claims-strict`

When a harness configuration (.claude/settings.json, .codex/hooks.json, ...)
already runs the zodyssey hook, the harness is declared in [gate] harnesses of
.zodyssey.toml, so `zodyssey check` fails if that wiring is deleted later.

--gate HARNESS (repeatable) also installs the gate for that coding agent in
the same step, exactly as `zodyssey hook install --harness HARNESS` does: the
hook entries, the shipped workflow (the reviewer, a planner and the run
command or skill) and the harness declared in [gate] harnesses. A plan is then
approved by the reviewer agent or by a person in their own terminal
(`zodyssey run review SLUG --human OKAY|REJECT --by NAME`).

exit codes:
  0   files written (or kept); what happened to each is printed
  2   bad arguments, an unreadable root or configuration

examples:
  zodyssey init                   set up the current directory
  zodyssey init --root ../other   set up another repository
  zodyssey init --force           rewrite all four files from the templates
  zodyssey init --gate claude-code   the same, and the gate for Claude Code
"""


# The workflow template's default install line; init replaces it with `install_source()`.
TEMPLATE_INSTALL = f"zodyssey=={__version__}"


@dataclass(frozen=True)
class InstallSource:
    """What the written workflow installs as zodyssey, and how that was decided."""

    spec: str
    why: str


def _https(url: str) -> str:
    """A remote URL CI can fetch anonymously: ssh forms become https."""
    if url.startswith("git@") and ":" in url:
        host, path = url[len("git@") :].split(":", 1)
        return f"https://{host}/{path}"
    if url.startswith("ssh://"):
        rest = url[len("ssh://") :]
        rest = rest.split("@", 1)[1] if "@" in rest.split("/", 1)[0] else rest
        host, _, path = rest.partition("/")
        return f"https://{host.split(':', 1)[0]}/{path}"
    return url


def _checkout_source(path: Path) -> InstallSource | None:
    """A git URL at HEAD for a checkout zodyssey was installed from, if it has a remote."""
    remote = git.output(path, "remote", "get-url", "origin")
    urls = [remote.decode("utf-8", "replace").strip()] if remote else git.remote_urls(path)
    # Only a remote CI can reach: a local path or file:// URL is this machine's.
    urls = [u for u in urls if u.startswith(("https://", "http://", "ssh://", "git@"))]
    head = git.output(path, "rev-parse", "HEAD")
    if not urls or not head:
        return None
    commit = head.decode("ascii", "replace").strip()
    return InstallSource(
        f"git+{_https(urls[0])}@{commit}",
        f"a git URL: the remote of the checkout zodyssey was installed from ({path}), "
        f"at its HEAD {commit[:12]}; push that commit",
    )


def _direct_url() -> object:
    """PEP 610's `direct_url.json` of this installation, parsed (None: none or unreadable)."""
    from importlib import metadata

    try:
        raw = metadata.distribution("zodyssey").read_text("direct_url.json")
        return json.loads(raw) if raw else None
    except (metadata.PackageNotFoundError, ValueError, OSError):
        return None


def install_source() -> InstallSource:
    """What CI should install so it runs the zodyssey that runs init.

    PEP 610's `direct_url.json` says where an installation came from; without one
    it came from a package index, where the release is.
    """
    from urllib.parse import unquote, urlparse

    release = InstallSource(
        TEMPLATE_INSTALL, f"the release zodyssey {__version__} from the package index"
    )
    info = _direct_url()
    if not isinstance(info, dict) or not isinstance(info.get("url"), str):
        return release
    url: str = info["url"]
    vcs = info.get("vcs_info")
    if isinstance(vcs, dict) and vcs.get("vcs") == "git" and vcs.get("commit_id"):
        commit = str(vcs["commit_id"])
        return InstallSource(
            f"git+{_https(url)}@{commit}",
            f"a git URL: the repository this zodyssey was installed from, at {commit[:12]}",
        )
    parsed = urlparse(url)
    if parsed.scheme != "file":
        return InstallSource(
            f"zodyssey @ {url}", "the URL this zodyssey was installed from (a wheel or archive)"
        )
    local = Path(unquote(parsed.path))
    found = _checkout_source(local) if local.is_dir() else None
    if found is not None:
        return found
    return InstallSource(
        TEMPLATE_INSTALL,
        f"the release zodyssey {__version__}: this zodyssey was installed from {local}, "
        "which CI cannot reach; until that release is on the package index set the "
        "repository variable ZODYSSEY_INSTALL to a git URL or a wheel URL",
    )


@dataclass
class Outcome:
    """What happened to one file."""

    path: str
    action: str  # "wrote", "overwrote", "kept", "skipped"
    note: str = ""


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "init",
        help="Write a starter configuration, a starter doc, the lock pinning its citation and a CI workflow.",
        description=(
            "Set up the repository so `zodyssey check` passes from the first commit: "
            "a starter configuration, a starter doc with one citation, the citation "
            "lock pinning it, and a GitHub Actions workflow. Asks nothing; prints "
            "what it wrote. Existing files are kept unless --force."
        ),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--root",
        default=".",
        metavar="DIR",
        help="repository to set up (default: the current directory)",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="overwrite files that already exist (never touches pyproject.toml)",
    )
    from zodyssey.gate.harness import HARNESSES

    parser.add_argument(
        "--gate",
        action="append",
        choices=tuple(HARNESSES),
        metavar="HARNESS",
        help="also install the gate for this coding agent, as `zodyssey hook install "
        "--harness HARNESS` does: its hook entries, the shipped workflow (reviewer, planner, "
        "run command) and the harness declared for `zodyssey check` (repeatable; "
        f"{', '.join(HARNESSES)})",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print what was written as one JSON object (root, files with action and "
        "note, unpinned citations elsewhere) instead of text",
    )
    parser.set_defaults(handler=run)


def template_text(name: str) -> str:
    """A template shipped in `zodyssey/templates/`."""
    return resources.files("zodyssey").joinpath("templates", name).read_text(encoding="utf-8")


def empty_lock_text(citations: dict[str, str] | None = None) -> str:
    """The lock in the JavaScript checker's shape: 2-space indent, trailing newline."""
    document = {
        "_comment": LOCK_COMMENT,
        "exempt": [],
        "citations": dict(sorted((citations or {}).items())),
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _pyproject_has_table(root: Path) -> bool:
    pyproject = root / "pyproject.toml"
    if not pyproject.exists() or pyproject.is_dir():
        return False
    try:  # a FIFO or device is refused (exit 2), never waited on
        data = tomllib.loads(read_regular_text(pyproject, "configuration"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"cannot read {pyproject} ({exc}); fix it before `zodyssey init`") from exc
    tool = data.get("tool")
    return isinstance(tool, dict) and isinstance(tool.get("zodyssey"), dict)


def _write(root: Path, rel: str, text: str, force: bool) -> Outcome:
    from zodyssey.core.atomic import write_atomic

    target = root / rel
    require_regular_target(target, "file")  # a FIFO here is refused, never kept or read
    existed = target.exists()
    if existed and not force:
        return Outcome(rel, "kept", "exists; --force overwrites")
    try:
        write_atomic(target, text)
    except OSError as exc:
        raise UsageError(f"cannot write {target}: {exc.strerror or exc}") from exc
    return Outcome(rel, "overwrote" if existed else "wrote")


def workflow_text(source: InstallSource) -> str:
    """The packaged workflow with `source` as its default install line."""
    text = template_text("github-workflow.yml")
    default = f"|| '{TEMPLATE_INSTALL}' }}}}"
    if default not in text:  # pragma: no cover - tests/ci keeps the template in step
        raise UsageError("the packaged workflow has no default install line")
    return text.replace(default, "|| '" + source.spec.replace("'", "''") + "' }}")


def _write_workflow(root: Path, force: bool) -> Outcome:
    source = install_source()
    outcome = _write(root, WORKFLOW_PATH, workflow_text(source), force)
    if outcome.action != "kept":
        outcome.note = f"installs {source.spec}: {source.why}"
    return outcome


def _find_citation(root: Path) -> tuple[str, int, str] | None:
    """The first candidate line that exists on disk: (path, 1-based line, description)."""
    for rel, prefix, what in _CITATION_TARGETS:
        path = root / rel
        try:
            lines = read_regular_text(path, "file").split("\n")
        except (OSError, UnicodeDecodeError, NotRegularFile):
            continue
        for number, line in enumerate(lines, start=1):
            if line.strip().startswith(prefix):
                return rel, number, what
    return None


def _pin(root: Path, rel: str, line: int) -> str:
    from zodyssey.anchors.fingerprint import fingerprint

    lines = read_regular_text(root / rel, "file").split("\n")
    return fingerprint(lines, line, line)


def _js_lock(root: Path) -> tuple[int, int] | None:
    """(pins, exempt entries) of the JavaScript checker's lock, if the repository has one."""
    from zodyssey.anchors.lock import read_lock
    from zodyssey.errors import ZodysseyError

    path = root / JS_LOCK_PATH
    if not path.is_file():
        return None
    try:
        lock = read_lock(path)
    except ZodysseyError:
        return None
    return len(lock.citations), len(lock.exempt)


def _initialise_js(root: Path, force: bool, pins: int, exempt: int) -> list[Outcome]:
    """Adopt a repository that has the JavaScript checker's lock: use that lock as it is.

    No starter page (the documents already cite code, and a new citation would be
    one the JavaScript checker has not pinned) and no second lock; the
    configuration names the existing lock, so every pin and exempt entry counts.
    """
    from zodyssey.config import load_config

    outcomes: list[Outcome] = []
    config_text = template_text("zodyssey.toml").replace(
        'lock = "anchors/anchors.lock.json"', f'lock = "{JS_LOCK_PATH}"'
    )
    if _pyproject_has_table(root) and not (root / CONFIG_PATH).exists():
        table = load_config(root)
        note = "pyproject.toml has [tool.zodyssey]; it stays the configuration"
        if Path(table.lock).as_posix() != JS_LOCK_PATH:
            note += f'; set lock = "{JS_LOCK_PATH}" there to check the existing lock'
        outcomes.append(Outcome(CONFIG_PATH, "skipped", note))
    else:
        outcome = _write(root, CONFIG_PATH, config_text, force)
        if outcome.action != "kept":
            outcome.note = f"lock = {JS_LOCK_PATH} (the JavaScript checker's)"
        outcomes.append(outcome)
    load_config(root)  # a broken configuration stops here, before anything else is written
    workflow = _write_workflow(root, force)
    outcomes.append(
        Outcome(
            STARTER_DOC_PATH,
            "skipped",
            "your documents already cite code; a new citation would be one the "
            "JavaScript checker has not pinned",
        )
    )
    outcomes.append(
        Outcome(
            JS_LOCK_PATH,
            "kept",
            f"the JavaScript checker's lock: {pins} pins and {exempt} exempt entries, "
            "checked as they are",
        )
    )
    outcomes.append(workflow)
    return outcomes


def _config_outcome(root: Path, force: bool) -> Outcome:
    if _pyproject_has_table(root) and not (root / CONFIG_PATH).exists():
        return Outcome(
            CONFIG_PATH,
            "skipped",
            "pyproject.toml has [tool.zodyssey]; it stays the configuration",
        )
    outcome = _write(root, CONFIG_PATH, template_text("zodyssey.toml"), force)
    if outcome.action != "kept" and (root / "pyproject.toml").is_file():
        outcome.note = "pyproject.toml exists: you may move these keys under [tool.zodyssey] there"
    return outcome


def _doc_and_lock(root: Path, force: bool, lock_rel: str) -> list[Outcome]:
    """The starter doc citing one line of ours, and the lock pinning that citation."""
    citation = _find_citation(root)
    pins: dict[str, str] = {}
    if (root / STARTER_DOC_PATH).exists() and not force:
        doc_outcome = Outcome(STARTER_DOC_PATH, "kept", "exists; --force overwrites")
    elif citation is None:
        doc_outcome = Outcome(STARTER_DOC_PATH, "skipped", "no line of ours to cite")
    else:
        rel, line, what = citation
        doc_text = template_text("starter-doc.md").format(citation=f"{rel}:{line}", what=what)
        doc_outcome = _write(root, STARTER_DOC_PATH, doc_text, force)
        if doc_outcome.action != "kept":
            pins[f"{rel}:{line}"] = _pin(root, rel, line)
    lock_outcome = _write(root, lock_rel, empty_lock_text(pins), force)
    if lock_outcome.action == "kept" and pins:
        lock_outcome.note = f"exists; run `check-anchors --update` to pin {STARTER_DOC_PATH}"
    elif lock_outcome.action != "kept":
        lock_outcome.note = f"{len(pins)} citation pinned" if pins else "empty"
        if doc_outcome.action == "kept":
            lock_outcome.note += f"; run `check-anchors --update` to pin {STARTER_DOC_PATH}"
    return [doc_outcome, lock_outcome]


def initialise(root: Path, force: bool) -> list[Outcome]:
    """Write the starter files under `root`; return what happened to each."""
    from zodyssey.config import load_config

    for rel in (CONFIG_PATH, STARTER_DOC_PATH, WORKFLOW_PATH):  # before anything is written
        require_regular_target(root / rel, "file")
    js = _js_lock(root)
    if js is not None:
        return _initialise_js(root, force, *js)
    outcomes = [_config_outcome(root, force)]
    # Read the configuration before writing anything else: a broken one stops here.
    config = load_config(root)
    workflow = _write_workflow(root, force)
    outcomes += [*_doc_and_lock(root, force, Path(config.lock).as_posix()), workflow]
    # The gate already wired for a harness: declare it, so `zodyssey check` guards it.
    from zodyssey.gate.wiring import declare_wired

    for action, note in declare_wired(root):
        outcomes.append(Outcome(CONFIG_PATH, action, note))
    return outcomes


def run(args: argparse.Namespace) -> int:
    root = Path(args.root)
    if not root.is_dir():
        raise UsageError(f"--root {args.root}: not a directory")
    root = root.resolve()
    gates = list(dict.fromkeys(getattr(args, "gate", None) or ()))
    from zodyssey import workflow

    for harness in gates:  # a reviewer file that is not ours refuses before anything is written
        workflow.install(root, harness, dry_run=True)
    outcomes = initialise(root, bool(args.force))
    installed = _install_gates(root, gates)
    if getattr(args, "json", False):
        import json

        files = [{"path": o.path, "action": o.action, "note": o.note} for o in outcomes]
        document = {"root": str(root), "files": files, "unpinned": _unpinned_elsewhere(root)}
        if gates:
            document["gate"] = [{"harness": h, "lines": lines} for h, lines in installed]
        print(json.dumps(document, indent=2))
        return 0
    print(f"zodyssey init: {root}")
    width = max(len(o.path) for o in outcomes)
    for outcome in outcomes:
        note = f"  ({outcome.note})" if outcome.note else ""
        print(f"  {outcome.action:<9} {outcome.path:<{width}}{note}".rstrip())
    for harness, lines in installed:
        print(f"gate for {harness} (as `zodyssey hook install --harness {harness}`):")
        for line in lines:
            print(f"  {line}")
    top = git.toplevel(root)
    if top is not None and top != root:
        print(
            f"note: GitHub reads workflows only from {top}/.github/workflows; "
            "move the workflow there if this is a subdirectory"
        )
    print("next: run `zodyssey check`, then commit these files.")
    unpinned = _unpinned_elsewhere(root)
    if unpinned and _js_lock(root) is not None:
        print(
            f"      {unpinned} citation(s) the JavaScript checker's lock does not pin (other "
            "extensions, Markdown links, documents it skipped) are reported as notes; to pin "
            "them as they were written rather than as they are now: "
            "`check-anchors --update --from-history`."
        )
    elif unpinned:
        print(_unpinned_advice(root, unpinned))
    return 0


def _install_gates(root: Path, harnesses: list[str]) -> list[tuple[str, list[str]]]:
    """`zodyssey hook install --harness H` for each of `harnesses` in `root`: (harness,
    the lines it printed)."""
    import contextlib
    import io

    from zodyssey.commands.hook import run_install

    done = []
    for harness in harnesses:
        said = io.StringIO()
        options = argparse.Namespace(
            project=str(root), harness=harness, base_command=None, dry_run=False, json=False
        )
        with contextlib.redirect_stdout(said):
            run_install(options)
        done.append((harness, said.getvalue().splitlines()))
    return done


def _unpinned_advice(root: Path, unpinned: int) -> str:
    """How many of the other documents' citations can be pinned, and the command to adopt."""
    from zodyssey.commands.anchors import adoption_preview

    preview = adoption_preview(root)
    if preview is None or not preview[1]:
        return (
            f"      {unpinned} citation(s) in your other documents are not pinned yet: "
            "re-read them, then run `check-anchors --update` to pin them deliberately "
            "(or `check-anchors --update --from-history` to pin them as they were written)."
        )
    can, cannot, baseline = preview
    try:
        shown = baseline.relative_to(root).as_posix()
    except ValueError:
        shown = str(baseline)
    kinds = ", ".join(f"{n} {k}" for k, n in sorted(cannot.items()))
    return (
        f"      {unpinned} citation(s) in your other documents are not pinned yet: {can} can "
        f"be pinned, {sum(cannot.values())} cannot ({kinds}). Re-read them, then run "
        "`check-anchors --update --baseline`: it pins the first and records the others in "
        f"{shown}, a baseline to review and commit; `zodyssey check` then passes and fails "
        "only on new problems (`check-anchors --json` lists each site as written)."
    )


def _pinned_and_exempt(lock: object, exempt: list[str]) -> tuple[set[str], set[str]]:
    """The lock's pinned citations, and what it and the configuration exempt."""
    if not isinstance(lock, dict):
        return set(), set(exempt)
    listed = lock.get("exempt")
    extra = {e for e in listed if isinstance(e, str)} if isinstance(listed, list) else set()
    return set(lock.get("citations", {})), set(exempt) | extra


def _unpinned_elsewhere(root: Path) -> int:
    """How many citations outside the starter page the lock does not pin (0 if unknown)."""
    from zodyssey.anchors.discover import collect_citations
    from zodyssey.config import load_config
    from zodyssey.errors import ZodysseyError

    try:
        config = load_config(root)
        lock = json.loads(read_regular_text(root / config.lock, "lock"))
        pinned, exempt = _pinned_and_exempt(lock, config.exempt)
        citations = [c for c in collect_citations(root, config) if c.cited_as not in exempt]
    except (ZodysseyError, OSError, ValueError):
        return 0
    # Counted as the check counts citations: distinct cited spans (lock keys).
    return len(
        {
            c.key if c.key is not None else "?" + c.cited_as
            for c in citations
            if c.site.doc != STARTER_DOC_PATH and (c.key is None or c.key not in pinned)
        }
    )
