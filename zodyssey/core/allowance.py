"""What a run may write: one rule, asked by the gate before a call, by the
kernel grants for a shell call and by the effect check after it.

`Allowance.of(layout, slug, state, plan)` is one value per run, computed once
per call. It says whether product code is open (the review said OKAY, the run
is not blocked, the plan on disk is the one the review bound) and why not; the
protected paths (run state, every harness's hook and configuration paths, the
gate's configuration, `.git` and the git directory it names, the plan while it
is frozen); the bookkeeping folders (notepads, staging, and the plans until
OKAY); the declared scope; and whether tests are frozen. `judge(path)` is the
one answer for one path: None (the run allows it) or (rule, reason), and
`judge_all` the same for the paths of one call, first rule first (the order
docs/gate.md gives). `gate/policy.py` judges a call's targets with it,
`sandbox/grants.py` translates it into Landlock rights and
`sandbox/violations.py` judges each path a call changed with it: none of them
has a copy of the rule.

The plan is frozen (protected, not bookkeeping) from the reviewer's dispatch
to its report, and from OKAY on: the verdict binds the plan the reviewer was
sent, and the plan the run enforces is the one it reviewed.

Paths: targets are resolved the way the operating system would resolve them
for the call: `~` expanded, joined onto the call's cwd, `..` and symlinks
resolved (`os.path.realpath`, which also resolves the existing prefix of a path
that does not exist yet). Everything is compared as absolute real paths.

Hot path (the import rule of `zodyssey/core/__init__.py`): the plan and the
clock are parsed only when a rule asks.
"""

import os

from zodyssey.core.records import Fields
from zodyssey.core.vocabulary import (
    BLOCKED,
    BOOKKEEPING_DIRS,
    CONFIG_FILES,
    DEFAULT_MAX_ROUNDS,
    PLANS,
    STATE_DIRS,
    TEST_FROZEN_PHASES,
    utc_seconds,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from zodyssey.core.plan import Criterion

# Hook configuration files: the installed gate, never writable during a run.
# The same names count in the repository and in the user's home directory
# (`~/.claude/settings.json` wires the hook for every project). Each harness
# adapter (zodyssey/gate/harness/*) declares its own in `protected`; these
# literals are their union (tests/gate/test_gate_harness_facts.py checks it),
# so the hook never imports the five adapters to know them.
GATE_CONFIG_FILES = (
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".gemini/settings.json",
    ".cursor/hooks.json",
    ".codex/hooks.json",
    ".codex/config.toml",
)
# Harness configuration that changes what runs under the gate (subagents and
# their tools, MCP servers, skills, commands, extensions, ZCode's host hook
# registry), in the project and in the user's home: protected like the gate's
# own wiring, in every phase, whatever the plan declares.
HARNESS_CONFIG_PATHS = (
    ".claude/agents",
    ".claude/commands",
    ".claude/skills",
    ".mcp.json",
    ".gemini/agents",
    ".gemini/commands",
    ".gemini/extensions",
    ".codex/agents",
    ".codex/skills",
    ".codex/prompts",
    ".agents/skills",
    ".cursor/mcp.json",
    ".cursor/agents",
    ".cursor/commands",
    ".cursor/rules",
    ".zcode/cli/config.json",
)
# Everything above: ONE definition, protected by `Allowance` (Layout.gate_paths)
# for the gate, the kernel grants and the effect check alike.
PROTECTED_CONFIG = (*GATE_CONFIG_FILES, *HARNESS_CONFIG_PATHS)
# Settings a machine administrator (or an agent with the rights) can set for every user.
SYSTEM_CONFIG_FILES = (
    "/etc/claude-code/managed-settings.json",
    "/Library/Application Support/ClaudeCode/managed-settings.json",
)
# The whole zodyssey package: the gate and the trusted writers it relies on.
GATE_PACKAGE_DIR = os.path.realpath(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_INSTALLED: list[str] = []


def installed_gate() -> tuple[str, ...]:
    """What runs when the hook runs, besides the package: computed once per process.

    The interpreter's `bin/` entries that start zodyssey (`zodyssey`, the
    `python*` links), and in every site directory on `sys.path` the `.pth`
    files and `sitecustomize`/`usercustomize` modules, which the interpreter
    executes at start-up of every hook process.
    """
    if _INSTALLED:
        return tuple(_INSTALLED)
    import sys

    found: list[str] = []
    bin_dir = os.path.dirname(os.path.abspath(sys.executable))
    for name in ("zodyssey", os.path.basename(sys.executable), "python", "python3"):
        candidate = os.path.join(bin_dir, name)
        if os.path.lexists(candidate):
            found.append(os.path.join(os.path.realpath(bin_dir), name))
    for entry in sys.path:
        if not entry or os.path.basename(entry) not in ("site-packages", "dist-packages"):
            continue
        try:
            names = os.listdir(entry)
        except OSError:
            continue
        real = os.path.realpath(entry)
        found.extend(
            os.path.join(real, name)
            for name in names
            if name.endswith(".pth")
            or name in ("sitecustomize.py", "usercustomize.py")
            or (name.startswith("__editable__") and "zodyssey" in name)
        )
    _INSTALLED.extend(dict.fromkeys(found))
    return tuple(_INSTALLED)


_TEST_NAME = (  # compiled on first use (re's cache): only frozen-test phases ask
    r"(^test_.*\.py$|.*_test\.py$|^tests\.py$|^conftest\.py$|.*_test\.go$|.*\.(test|spec)\.[cm]?[jt]sx?$"
    r"|.*_spec\.rb$|.*Tests?\.(?:java|kt|cs|swift)$|.*_test\.rs$)"
)
# Compared lower-cased (Swift and .NET projects use `Tests/`); `testdata/` holds
# Go's golden files, `__snapshots__/` and `__mocks__/` Jest's expected outputs.
_TEST_DIRS = frozenset(
    {
        "tests",
        "test",
        "__tests__",
        "spec",
        "specs",
        "testing",
        "testdata",
        "__snapshots__",
        "__mocks__",
    }
)


MAX_PATH = 4095  # PATH_MAX less its NUL: the system resolves no longer path


class PathTooLong(ValueError):
    """A path too long to judge: the gate blocks it (in milliseconds, unresolved)."""


def resolve(path: str, cwd: str, home: str) -> str:
    """The real path the system would write; PathTooLong past MAX_PATH characters.

    `os.path.realpath` costs a system call per component and grows with the
    length it has already resolved: bounding the input bounds the hook's time.
    """
    return os.path.realpath(_absolute(path, cwd, home))


def written(path: str, cwd: str, home: str) -> str:
    """The path as the call names it: its directory resolved, its last part kept.

    A symlink's own name (what a later `git checkout` or `rm` acts on) may be
    in scope while its target is not, or the other way round: the gate judges both.
    """
    path = os.path.normpath(_absolute(path, cwd, home))
    head, tail = os.path.split(path)
    if not tail or tail in (".", ".."):
        return os.path.realpath(path)
    return os.path.join(os.path.realpath(head), tail)


def _absolute(path: str, cwd: str, home: str) -> str:
    """`~` expanded and joined onto `cwd`; PathTooLong past MAX_PATH characters."""
    if path == "~" or path.startswith("~/"):
        path = home + path[1:]
    if not os.path.isabs(path):
        path = os.path.join(cwd, path)
    if len(path) > MAX_PATH:
        raise PathTooLong(
            f"blocks: too large to judge (a path of {len(path)} characters, over {MAX_PATH})"
        )
    return path


def within(path: str, directory: str) -> bool:
    if directory == "/":
        return True
    return path == directory or path.startswith(directory + "/")


def relative(path: str, root: str) -> str | None:
    """Repository-relative posix path, None when outside the repository."""
    if path == root:
        return "."
    if within(path, root):
        return path[len(root) + 1 :] if root != "/" else path[1:]
    return None


def is_test_file(rel: str) -> bool:
    parts = rel.split("/")
    if any(part.lower() in _TEST_DIRS for part in parts[:-1]):
        return True
    import re  # only frozen-test phases ask; the hook's write path does not load re

    return bool(re.match(_TEST_NAME, parts[-1]))


NOWHERE = "\x00not-a-directory"  # matches no path


def _real_dir(root: str, rel: str) -> str:
    """`root/rel` when every part of it below the root is a real directory (or
    absent); NOWHERE when a link is on the way (`.zcode/staging -> ..` would make
    every path bookkeeping)."""
    current = root
    for part in rel.split("/"):
        current = os.path.join(current, part)
        if os.path.islink(current):
            return NOWHERE
        if os.path.lexists(current) and not os.path.isdir(current):
            return NOWHERE
    return current


def _shell_prefix_program(root: str) -> str:
    """This repository's Claude Code shell prefix program (`sandbox/shell_prefix.py`):
    it decides whether a shell call runs in the sandbox, so it is the gate's own."""
    from zodyssey.core.paths import shell_prefix_program

    return os.path.realpath(shell_prefix_program(root))


class Layout:
    """The resolved locations of one repository's run layout."""

    def __init__(self, root: str, home: str | None = None) -> None:
        self.root = os.path.realpath(root)
        home = home if home is not None else os.path.expanduser("~")
        self.state_dirs = tuple(os.path.realpath(os.path.join(self.root, d)) for d in STATE_DIRS)
        self.plans_dir, self.notepads_dir, self.staging_dir = (
            _real_dir(self.root, d) for d in BOOKKEEPING_DIRS
        )
        wiring = PROTECTED_CONFIG
        user = (
            tuple(os.path.realpath(os.path.join(home, f)) for f in wiring)
            if home and home != "/"
            else ()
        )
        self.gate_paths = (
            *(os.path.realpath(os.path.join(self.root, f)) for f in wiring),
            *user,
            *SYSTEM_CONFIG_FILES,
            GATE_PACKAGE_DIR,
            *installed_gate(),
            _shell_prefix_program(self.root),
        )

    def configuration(self, path: str) -> str | None:
        """The gate wiring or harness configuration of the repository (PROTECTED_CONFIG)
        that `path` is or lies in, else None."""
        for rel in PROTECTED_CONFIG:
            if within(path, os.path.join(self.root, rel)):
                return rel
        return None

    def run_state(self, path: str) -> str | None:
        """The run-state location `path` is in (or contains), else None; letter case
        is ignored (a case-insensitive file system reaches `.ZCODE/STATE` as well)."""
        lowered = path.lower()
        for directory in self.state_dirs:
            if within(lowered, directory.lower()) or within(directory.lower(), lowered):
                return directory
        return None

    def gate(self, path: str) -> str | None:
        for protected in self.gate_paths:
            if within(path, protected) or within(protected, path):
                return protected
        return None

    def bookkeeping(self, path: str) -> str | None:
        for directory in (self.plans_dir, self.notepads_dir, self.staging_dir):
            if within(path, directory):
                return directory
        return None

    def show(self, path: str) -> str:
        rel = relative(path, self.root)
        return rel if rel is not None else path


# ---------------------------------------------------------------- the plan


# The most of a plan the gate reads, and the most Files entries it resolves: a
# hook that outlives the harness's timeout lets the call through, so a plan
# over either bound grants nothing and blocks with the reason (docs/gate.md).
MAX_PLAN_BYTES = 256 * 1024
MAX_PLAN_FILES = 2048


class PlanView(Fields):
    path: str  # resolved plan path
    text: bytes | None
    error: str | None  # why the plan grants nothing
    sha256: str | None
    files: frozenset[str] = frozenset()  # resolved declared files
    dirs: frozenset[str] = frozenset()  # resolved declared directories
    todo_of: tuple[tuple[str, str], ...] = ()  # (resolved path, todo id), files and dirs
    criteria: frozenset[str] = frozenset()  # every acceptance criterion's command, verbatim


def plan_view(path: str, text: bytes | None, root: str, error: str | None = None) -> "PlanView":
    """Scope of a plan text, with every declared path resolved against the root."""
    if text is None:
        return PlanView(path, None, error or "the plan is unreadable", None)
    from zodyssey.core.plan import parse_plan, plan_sha256

    sha = plan_sha256(text)
    try:
        plan = parse_plan(text.decode("utf-8"))
    except UnicodeDecodeError:
        return PlanView(path, text, "the plan is not UTF-8 text", sha)
    files: set[str] = set()
    dirs: set[str] = set()
    owners: list[tuple[str, str]] = []
    criteria = frozenset(
        command for todo in plan.todos for c in todo.criteria for command in _commands(c)
    )
    entries = sum(len(todo.files) for todo in plan.todos)
    if entries > MAX_PLAN_FILES:
        return PlanView(
            path,
            None,
            f"blocks: too large to judge (the plan declares {entries} Files entries, over "
            f"the {MAX_PLAN_FILES} the gate resolves; declare directories instead)",
            None,
        )
    for todo in plan.todos:
        for declared in todo.files:
            is_dir = declared.endswith("/")
            bare = declared.rstrip("/") or "/"
            home = os.path.expanduser("~")
            try:
                resolved = resolve(bare, root, home)
                named = written(bare, root, home)
            except ValueError:
                continue  # too long to be a path: grants nothing
            lexical = os.path.normpath(os.path.join(root, os.path.expanduser(bare)))
            if within(lexical, root) and not (within(resolved, root) and within(named, root)):
                # declared inside the repository but a symlink leads out: grants nothing
                continue
            # The declared name grants itself, not what a link there points at:
            # every write is judged on its name AND its target (policy._targets).
            (dirs if is_dir else files).add(named)
            owners.append((named, todo.id))
    if not files and not dirs:
        return PlanView(path, text, "the plan declares no Files", sha, criteria=criteria)
    return PlanView(
        path, text, None, sha, frozenset(files), frozenset(dirs), tuple(owners), criteria
    )


def _commands(criterion: "Criterion") -> "list[str]":
    """Every command a criterion names (`run verify` runs them all), verbatim."""
    if criterion.text.count("`") <= 2:
        return [criterion.command.strip()] if criterion.command else []
    # Several backticked spans: the criteria grammar tells commands from printed
    # text. Imported only for such plans (it loads `re`).
    from zodyssey.runs.criteria import parse_criterion

    spec = parse_criterion(criterion.text)
    if spec.problem is not None:
        return [criterion.command.strip()] if criterion.command else []
    return [step.command.strip() for step in spec.steps]


def load_plan(layout: "Layout", slug: str, state: "dict[str, Any]") -> "PlanView":
    from zodyssey.core.paths import plan_location

    try:
        raw = plan_location(state, layout.root, slug)
    except ValueError as exc:
        return PlanView("", None, str(exc), None)
    path = resolve(raw, layout.root, os.path.expanduser("~"))
    if layout.bookkeeping(path) is None and not path.startswith(layout.root + "/"):
        return PlanView(path, None, f"plan_path {raw} lies outside the repository", None)
    from zodyssey.core.files import NotRegularFile, open_regular

    try:
        with os.fdopen(open_regular(path, "the plan"), "rb") as handle:
            text = handle.read(MAX_PLAN_BYTES + 1)
    except OSError as exc:
        return PlanView(
            path, None, f"the plan {layout.show(path)} is unreadable ({exc.strerror})", None
        )
    except NotRegularFile as exc:  # a FIFO is never waited on, a device never read
        return PlanView(path, None, f"the plan is unreadable: {exc.message}", None)
    if len(text) > MAX_PLAN_BYTES:
        return PlanView(
            path,
            None,
            f"blocks: too large to judge (the plan {layout.show(path)} is over "
            f"{MAX_PLAN_BYTES // 1024} KiB, more than the gate reads; shorten it)",
            None,
        )
    return plan_view(path, text, layout.root)


class ConfigChanged(Exception):
    """The configuration differs from what the run's start (or a person) hashed."""


def check_config(root: str, state: "dict[str, Any]") -> None:
    """Raise ConfigChanged when `[tool.zodyssey]` is not what `run start` hashed.

    Runs that recorded no hash (started by another tool) are judged by the
    configuration as it is; its files are write-protected all the same.
    """
    recorded = state.get("gate_config")
    if recorded is None:
        return
    expected = recorded.get("sha256") if isinstance(recorded, dict) else None
    if not isinstance(expected, str):
        raise ConfigChanged("the run state's gate_config holds no sha256")
    from zodyssey.config import config_digest

    digest, _ = config_digest(root)
    if digest != expected:
        raise ConfigChanged(
            f"the gate's configuration ([tool.zodyssey.gate] in .zodyssey.toml or pyproject.toml) "
            f"changed since the run started (sha256 {expected[:12]} -> {digest[:12]}); "
            "restore it, or ask the user to re-review in their own terminal "
            "(`zodyssey run review SLUG --human OKAY|REJECT --by NAME`)"
        )


def git_dirs(root: str) -> list[str]:
    """`.git` and, when it is a file (a worktree), the git directories it points at."""
    dot_git = os.path.join(root, ".git")
    out = [dot_git]
    if os.path.isfile(dot_git):
        try:
            with open(dot_git, encoding="utf-8") as handle:
                text = handle.read(4096)
        except OSError:
            return out
        if text.startswith("gitdir:"):
            gitdir = text[len("gitdir:") :].strip()
            gitdir = os.path.realpath(os.path.join(root, gitdir))
            out.append(gitdir)
            try:
                with open(os.path.join(gitdir, "commondir"), encoding="utf-8") as handle:
                    common = handle.read(4096).strip()
                out.append(os.path.realpath(os.path.join(gitdir, common)))
            except OSError:
                pass
    return out


# ---------------------------------------------------------------- the rule's parts

DISPATCH_TTL_SECONDS = 2 * 60 * 60  # a ledger entry whose post-tool never came expires
# Files clients load into an agent that reads their folder (memory, rules).
INSTRUCTION_FILES = frozenset(
    (
        "claude.md",
        "claude.local.md",
        "agents.md",
        "agents.override.md",
        "agent.md",
        "gemini.md",
        ".cursorrules",
        ".windsurfrules",
        ".clinerules",
        ".goosehints",
        "copilot-instructions.md",
    )
)
# The rules that name a path the run never writes in this state, whatever the
# plan declares (the effect check undoes such a change even where ordinary
# tools leave by-products).
PROTECTED_RULES = frozenset(
    ("run-state", "gate-config", "gate-itself", "instruction-file", "plan-frozen")
)


def parse_time(value: "Any") -> float | None:
    if not isinstance(value, str) or not value:
        return None
    seconds = utc_seconds(value)  # the form the run state writes, without datetime
    if seconds is not None:
        return seconds
    from datetime import datetime  # only dispatch and lock rules need clock parsing

    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def run_state_anywhere(path: str) -> str | None:
    """The `.zcode/state|reviews|verify` in `path`, in whatever repository it lies,
    in any letter case (`.ZCODE/STATE` is run state on a case-insensitive file system)."""
    padded = path.lower() + "/"
    for marker in STATE_DIRS:
        at = padded.find("/" + marker + "/")
        if at >= 0:
            return path[: at + 1 + len(marker)]
    return None


def in_scope(path: str, files: frozenset[str], dirs: frozenset[str], root: str) -> bool:
    if "/.git/" in path + "/" or path.rsplit("/", 1)[-1] == "HEAD":
        # Git metadata is never product code: a `.git` (directory or gitfile),
        # or the HEAD that marks a bare repository, written inside a declared
        # directory would make later "read-only" git commands there read a
        # config that runs programs (core.fsmonitor, diff.external).
        return False
    if path in files:
        return True
    if not within(path, root):
        # Outside the repository only an exact declaration counts: a declared
        # `../shared/` or `/` would otherwise hand out whole foreign trees.
        return False
    return any(within(path, d) for d in dirs)


def same_file(path: str, other: str) -> bool:
    """`path` is another name (a hard link) of the file `other`."""
    try:
        return path != other and os.path.samefile(path, other)
    except OSError:
        return False


def hard_linked(paths: list[str]) -> str | None:
    """The first existing regular file among `paths` with more than one link."""
    import stat

    for path in paths:
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
            return path
    return None


# ---------------------------------------------------------------- the allowance

Judgment = tuple[str, str]  # (rule, reason)


class Allowance:
    """What one run may write now (see the module docstring).

    `plan`: the PlanView or a function that loads it (loaded on first use: a
    write into run state is judged without reading the plan). `reviewer`: the
    reviewer's name for the reasons, or a function that gives it. `exists`:
    how a notepad's existence is asked (the policy's tests give their own).
    """

    def __init__(
        self,
        layout: "Layout",
        slug: str,
        state: "dict[str, Any]",
        plan: "PlanView | Callable[[], PlanView]",
        *,
        now: float | None = None,
        reviewer: "str | Callable[[], str]" = "momus",
        exists: "Callable[[str], bool]" = os.path.lexists,
    ) -> None:
        self.layout = layout
        self.exists = exists
        self.root = layout.root
        self.slug = slug
        self.state = state
        self._plan = plan
        self._now = now
        self._reviewer = reviewer

    @classmethod
    def of(
        cls,
        layout: "Layout",
        slug: str,
        state: "dict[str, Any]",
        plan: "PlanView | Callable[[], PlanView] | None" = None,
        **kwargs: "Any",
    ) -> "Allowance":
        """The run's allowance; its plan read from disk (`load_plan`) unless given."""
        if plan is None:
            plan = lambda: load_plan(layout, slug, state)  # noqa: E731
        return cls(layout, slug, state, plan, **kwargs)

    # ------------------------------------------------------------ state facts

    def plan(self) -> "PlanView":
        if callable(self._plan):
            self._plan = self._plan()
        return self._plan

    @property
    def phase(self) -> str:
        phase = self.state.get("phase")
        return phase if isinstance(phase, str) else ""

    @property
    def review(self) -> "dict[str, Any]":
        review = self.state.get("review")
        return review if isinstance(review, dict) else {}

    @property
    def verdict(self) -> str | None:
        verdict = self.review.get("verdict")
        return verdict if isinstance(verdict, str) else None

    @property
    def okay(self) -> bool:
        return self.verdict == "OKAY"

    @property
    def now(self) -> float:
        if self._now is None:
            import time

            self._now = time.time()
        return self._now

    def reviewing(self) -> bool:
        """A reviewer dispatch is out and not yet reported (nor expired)."""
        pending = self.review.get("pending_dispatch")
        if not isinstance(pending, dict):
            return False
        at = parse_time(pending.get("at"))
        return at is None or self.now - at < DISPATCH_TTL_SECONDS

    def frozen_plan(self) -> str | None:
        """The plan's path while it is frozen (after OKAY, or while the reviewer
        reads it), else None."""
        if not self.okay and not self.reviewing():
            return None
        return self.plan().path or None

    @property
    def frozen_tests(self) -> str | None:
        """The phase when tests are frozen in it, else None."""
        return self.phase if self.phase in TEST_FROZEN_PHASES else None

    def why_closed(self, config: bool = False) -> str | None:
        """Why no product path is writable now, or None: after OKAY, the run not
        blocked, on the plan the review bound (and, with `config`, the gate's
        configuration as the run's start hashed it)."""
        if not self.okay:
            return "the review has not said OKAY"
        if self.phase == BLOCKED:
            return "the run is blocked"
        plan = self.plan()
        if plan.text is None or plan.error:
            return str(plan.error or "the plan is unreadable")
        bound = self.review.get("plan_sha256")
        if not isinstance(bound, str) or plan.sha256 != bound:
            return "the plan on disk is not the one the review bound"
        if config:
            try:
                check_config(self.root, self.state)
            except (ConfigChanged, ValueError, OSError) as exc:
                return str(exc)
        return None

    @property
    def open(self) -> bool:
        return self.why_closed() is None

    def protected(self) -> "list[str]":
        """Paths no write of the run may reach: run state, the installed gate and
        every harness's wiring and configuration, the gate's configuration files,
        git's metadata and the frozen plan."""
        layout = self.layout
        out = [*layout.state_dirs, *layout.gate_paths]
        out.extend(os.path.join(self.root, name) for name in CONFIG_FILES)
        out.extend(git_dirs(self.root))
        plan = self.frozen_plan()
        if plan:
            out.append(plan)
        return [os.path.realpath(p) for p in dict.fromkeys(out)]

    def bookkeeping(self) -> "list[str]":
        """The bookkeeping folders the run may write: notepads and staging always,
        the plans folder until OKAY and never while a review is pending."""
        layout = self.layout
        out = [layout.notepads_dir, layout.staging_dir]
        if not self.okay and not self.reviewing():
            out.append(layout.plans_dir)
        return out

    def plan_writable(self) -> str | None:
        """The plan's path while the agent may write it (before OKAY, no review
        pending), else None."""
        if self.okay or self.reviewing():
            return None
        return self.plan().path or None

    # ------------------------------------------------------------ judging

    def judge(
        self, path: str, append: bool | None = None, links: bool = True, config: bool = True
    ) -> "Judgment | None":
        """None when the run allows writing `path` now, else (rule, reason)."""
        return self.judge_all([(path, append)], links, config)[0]

    def judge_all(
        self, paths: "list[tuple[str, bool | None]]", links: bool = True, config: bool = True
    ) -> "tuple[Judgment | None, list[str]]":
        """The paths of one call (each with whether the call appends to it; None:
        not known), first rule first: (the first (rule, reason) that blocks, or
        None; the product paths among them). `links`: a product file with another
        hard link blocks (before a call: the other names cannot be judged).
        `config` False: the gate's configuration files are judged as product
        code (the effect check watches them by name and judges that entry)."""
        for path, _ in paths:
            found = self.protected_rule(path, config)
            if found is not None:
                return found, []
        product = self._bookkeeping(paths)
        if isinstance(product, tuple):
            return product, []
        if not product:
            return None, []
        for rule in (
            self._hard_link_rule if links else None,
            self._blocked_rule,
            self._frozen_tests_rule,
            self._review_rule,
            self._plan_tamper_rule,
            self._scope_rule,
        ):
            if rule is not None:
                found = rule(product)
                if found is not None:
                    return found, product
        return None, product

    def protected_rule(self, path: str, config: bool = True) -> "Judgment | None":
        """Run state, the gate's configuration and the installed gate: never writable."""
        layout = self.layout
        where = layout.run_state(path) or run_state_anywhere(path)
        if where is not None:
            return (
                "run-state",
                f"{layout.show(path)} is run state ({layout.show(where)}/): only the trusted "
                "`zodyssey run ...` commands write it, in every phase",
            )
        name = self.config_file(path) if config else None
        if name is not None:
            return (
                "gate-config",
                f"{name} holds the gate's configuration ([tool.zodyssey]); it is not writable "
                "during a run, whatever the plan declares (a person changes it and re-reviews)",
            )
        gate = layout.gate(path)
        if gate is not None:
            return (
                "gate-itself",
                f"{layout.show(path)} is part of the installed gate ({layout.show(gate)}); "
                "it is not writable during a run",
            )
        return None

    def config_file(self, path: str) -> str | None:
        """The configuration file (at the repository root) `path` is, or holds."""
        lowered = path.lower()
        for name in CONFIG_FILES:
            location = os.path.join(self.root, name).lower()
            if lowered == location or (within(location, lowered) and lowered != self.root.lower()):
                return name
        return None

    def instruction_file(self, path: str) -> bool:
        """An instruction file under `.zcode/` (any case) or in the plan's folder."""
        name = os.path.basename(path).lower()
        if name not in INSTRUCTION_FILES:
            return False
        rel = os.path.relpath(path, self.root)
        if not rel.startswith("..") and ".zcode" in rel.lower().split(os.sep):
            return True
        plan = self.plan().path
        return bool(plan) and os.path.dirname(path) == os.path.dirname(plan)

    def _bookkeeping(self, paths: "list[tuple[str, bool | None]]") -> "Judgment | list[str]":
        """The plan (frozen after OKAY and during a review) and the notepads
        (append-only); what is left is product code."""
        layout = self.layout
        okay = self.okay
        reviewing = not okay and self.reviewing()
        product: list[str] = []
        plan_path: str | None = None
        for path, append in paths:
            area = layout.bookkeeping(path)
            if self.instruction_file(path):
                return (
                    "instruction-file",
                    f"{layout.show(path)} is an instruction file a client loads into an agent "
                    "reading that folder (the reviewer among them): not writable under .zcode/ "
                    "or beside the plan",
                )
            if okay or reviewing:
                if plan_path is None:
                    plan_path = self.plan().path
                if plan_path and (within(plan_path, path) or same_file(path, plan_path)):
                    return (
                        "plan-frozen",
                        f"the plan {layout.show(plan_path)} is frozen "
                        + (
                            "while the reviewer reads it (from its dispatch to its answer): the "
                            "verdict binds the plan it was sent"
                            if reviewing
                            else "since the review said OKAY; a changed plan needs a new review "
                            "round (`zodyssey run` re-opens review)"
                        ),
                    )
            if area is None:
                if not okay and path == self.plan().path:
                    continue  # the run's plan, wherever plan_path puts it: writable until OKAY
                product.append(path)
                continue
            if area == layout.notepads_dir and append is False and self.exists(path):
                return (
                    "notepad-append-only",
                    f"{layout.show(path)} is a notepad: append to it (>> or an Edit that keeps "
                    "the old text), do not overwrite or delete it",
                )
        return product

    # The rules for product code after the bookkeeping, in order.

    def _hard_link_rule(self, product: "list[str]") -> "Judgment | None":
        linked = hard_linked(product)
        if linked is None:
            return None
        return (
            "hard-link",
            f"{self.layout.show(linked)} has more than one hard link: a write to it also writes "
            "the other names, which the gate cannot judge; remove the extra link first",
        )

    def _blocked_rule(self, product: "list[str]") -> "Judgment | None":
        """A blocked run is closed whatever its verdict says."""
        if self.phase != BLOCKED:
            return None
        return self.blocked_run(f"writing {self.layout.show(product[0])} is product code")

    def _frozen_tests_rule(self, product: "list[str]") -> "Judgment | None":
        """Tests frozen in verify/final."""
        if self.frozen_tests is None:
            return None
        for path in product:
            rel = relative(path, self.root)
            if rel is not None and is_test_file(rel):
                return (
                    "tests-frozen",
                    f"{rel} is a test file and tests are frozen in phase {self.phase}; "
                    "a failing criterion is fixed in product code, or the run goes back to "
                    "remediate",
                )
        return None

    def _review_rule(self, product: "list[str]") -> "Judgment | None":
        """The review gate."""
        if self.okay:
            return None
        return self.review_gate(self.layout.show(product[0]))

    def _plan_tamper_rule(self, product: "list[str]") -> "Judgment | None":
        """The plan must be the one the review bound."""
        plan = self.plan()
        expected = self.review.get("plan_sha256")
        if plan.text is None:
            return ("plan-unreadable", f"{plan.error}; an unreadable plan grants nothing")
        if not isinstance(expected, str) or not expected:
            return ("plan-tamper", "the review is OKAY but binds no plan_sha256; re-run the review")
        if plan.sha256 != expected:
            return (
                "plan-tamper",
                f"the plan {self.layout.show(plan.path)} changed after review: expected sha256 "
                f"{expected[:12]}, actual {(plan.sha256 or '')[:12]}; restore the reviewed plan "
                "or send it back to review",
            )
        return None

    def _scope_rule(self, product: "list[str]") -> "Judgment | None":
        """Every product path declared, or inside a declared directory."""
        plan = self.plan()
        if plan.error:
            return ("scope", f"{plan.error}; nothing is in scope")
        outside = [p for p in product if not in_scope(p, plan.files, plan.dirs, self.root)]
        if not outside:
            return None
        shown = ", ".join(self.layout.show(p) for p in outside[:5])
        return (
            "scope",
            f"{shown} {'is' if len(outside) == 1 else 'are'} outside the plan's scope; only "
            "files listed under a todo's Files: (or inside a listed dir/) may be written",
        )

    # ------------------------------------------------------------ reasons

    def rounds(self) -> tuple[int, int]:
        """(review round, max rounds); a value that is not a whole number counts as the cap."""
        review = self.review
        max_rounds = review.get("max_rounds", DEFAULT_MAX_ROUNDS)
        if not isinstance(max_rounds, int) or isinstance(max_rounds, bool) or max_rounds < 1:
            max_rounds = DEFAULT_MAX_ROUNDS
        round_ = review.get("round", 0)
        if not isinstance(round_, int) or isinstance(round_, bool):
            round_ = max_rounds  # unreadable: fail closed at the cap
        return round_, max_rounds

    def verdict_text(self) -> str:
        round_, max_rounds = self.rounds()
        return f"the review verdict is {self.verdict or 'none yet'} (round {round_}/{max_rounds})"

    def reviewer(self) -> str:
        if callable(self._reviewer):
            self._reviewer = self._reviewer()
        return self._reviewer

    def approvals(self) -> str:
        """The two ways a plan is approved, as a block reason names them."""
        return (
            f"from the reviewer ({self.reviewer()}) first, or ask the user to approve the plan "
            f"in their own terminal (`zodyssey run review {self.slug} --human OKAY --by NAME`)"
        )

    def review_gate(self, shown: str) -> "Judgment":
        return (
            "review-gate",
            f"writing {shown} is product code and {self.verdict_text()}; finish the plan in "
            f"{PLANS}/{self.slug}.md and get an OKAY {self.approvals()}",
        )

    def blocked_run(self, what: str) -> "Judgment":
        round_, max_rounds = self.rounds()
        return (
            "run-blocked",
            f"{what}: run {self.slug} is blocked (review round {round_}/{max_rounds}); a person "
            f"decides how it goes on: {ASK_THE_USER} (`zodyssey run review {self.slug} --human "
            f"OKAY|REJECT --by NAME`, or `zodyssey run phase {self.slug} abandoned --reason ...`)",
        )


ASK_THE_USER = "ask the user to run it in their own terminal"
