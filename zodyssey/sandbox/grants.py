"""Where a shell command in a run may write: the run's allowance
(`zodyssey/core/allowance.py`, the one rule the gate and the effect check ask
too) now, translated into Landlock rights. No rule of its own: which paths are
protected, which bookkeeping folders and declared paths are writable, whether
product code is open and whether tests are frozen are the allowance's answers.

The answer is a list of grants (path, Landlock rights, why) and the list of
protected paths. The one invariant, checked for every grant before it is
returned: **no grant lies inside a protected path, and no protected path lies
beneath a grant** (Landlock grants whole subtrees and cannot subtract, so a
grant on a directory holding run state would grant the run state). A grant
that would break it is dropped and said so in `notes`.

Protected (`Allowance.protected`): run state, evidence and reviews
(`.zcode/state|reviews|verify`), the hook wiring and the installed gate
(`Layout.gate_paths`), the gate's configuration (`.zodyssey.toml`,
`pyproject.toml` at the root), git's metadata (`.git`, and the git directory a
`.git` file points at), and the plan while it is frozen: from the reviewer's
dispatch to its report, and once the review said OKAY.

Granted in every phase: the bookkeeping folders (`.zcode/notepads/`,
`.zcode/staging/`, and `.zcode/plans/` with the run's plan until OKAY, never
while a review is pending: the plan the reviewer reads cannot change), the
temporary folder, the user's package caches, terminals and `/dev/null`, and
existing top-level directories git ignores (`node_modules/`, `target/`,
`.pytest_cache/`, ...): none of these is product code.

Granted after OKAY (phase not `blocked`, the plan still the bound one, the
configuration unchanged): each declared directory inside the repository; each
declared file inside the repository (one outside it is the Edit/Write tool's,
which the gate judges), and its
parent directory for creating and replacing files (editors write a temporary
file and rename it over the original; a declared file that does not exist yet
can only be created that way). The parent's grant also reaches the undeclared
files beside and below the declared one: those the kernel does not stop, the
post-call check does (`zodyssey/sandbox/effects.py`). A declared file whose
parent holds a protected path (a file at the repository root, beside `.git`)
gets only its own in-place grant: it can be rewritten, not created or
replaced. In `verify` and `final` declared test files and directories get
nothing (tests are frozen).
"""

import os

from zodyssey.core.allowance import Allowance, Layout, git_dirs, within
from zodyssey.core.vocabulary import ZCODE
from zodyssey.sandbox import landlock as ll

__all__ = ["git_dirs"]  # read here by its older callers

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Package caches under the home directory (only those that exist are granted).
HOME_CACHES = (
    ".cache",
    ".npm",
    ".yarn",
    ".pnpm-store",
    ".cargo/registry",
    ".cargo/git",
    "go/pkg/mod",
    ".m2/repository",
    ".gradle/caches",
    ".local/share/uv",
)
SYSTEM_TEMP = ("/tmp", "/var/tmp", "/dev/shm")
DEVICE_PATHS = (
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/tty",
    "/dev/ptmx",
    "/dev/pts",
)
PRIVATE_TEMP_PREFIX = "zodyssey-sandbox-"


class Grants:
    """What one command may write: (path, rights, why) grants, the protected paths,
    notes on what was left out, the environment to set (TMPDIR) and the phase facts."""

    __slots__ = ("absent", "env", "grants", "notes", "product_open", "protected", "root", "slug")

    def __init__(self, root: str, slug: str) -> None:
        self.root = root
        self.slug = slug
        self.grants: list[tuple[str, int, str]] = []
        self.protected: list[str] = []
        self.notes: list[str] = []
        self.env: dict[str, str] = {}
        self.product_open = False  # after OKAY: declared paths are granted
        self.absent: list[str] = []  # declared paths missing now (they would change the grants)

    def add(self, path: str, rights: int, why: str) -> bool:
        """Add a grant unless it would reach a protected path (or lie in one)."""
        real = os.path.realpath(path)
        for protected in self.protected:
            if within(real, protected) or within(protected, real):
                self.notes.append(
                    f"not granted {why} {real}: it holds or lies in protected {protected}"
                )
                return False
        if not os.path.lexists(real):
            return False
        self.grants.append((real, rights, why))
        return True

    def explain(self) -> str:
        lines = [f"sandbox for run {self.slug} in {self.root}:"]
        lines.extend(
            f"  write {why}: {path} ({_rights_text(rights)})" for path, rights, why in self.grants
        )
        lines.extend(f"  note: {note}" for note in self.notes)
        lines.extend(f"  protected: {path}" for path in self.protected)
        return "\n".join(lines)


def _rights_text(rights: int) -> str:
    if rights & ll.ALL_WRITES == ll.ALL_WRITES:
        return "all writes"
    if rights & ll.ALL_WRITES == ll.NO_LINKS:
        return "all writes but links and moves from elsewhere"
    names = []
    for bit, name in (
        (ll.WRITE_FILE, "write"),
        (ll.TRUNCATE, "truncate"),
        (ll.MAKE_REG, "create"),
        (ll.REMOVE_FILE, "remove"),
        (ll.MAKE_DIR, "mkdir"),
        (ll.MAKE_SYM, "symlink"),
        (ll.REFER, "rename-in"),
        (ll.IOCTL_DEV, "ioctl"),
    ):
        if rights & bit:
            names.append(name)
    return ", ".join(names)


def _ignore_entry(raw: str) -> "tuple[str, bool, bool] | None":
    """(name, negated, directory only) of a `.gitignore` line naming one top-level
    name exactly; None for comments, globs and deeper paths."""
    line = raw.strip()
    if not line or line.startswith("#"):
        return None
    negate = line.startswith("!")
    name = line[1:] if negate else line
    name = name.strip("/") if name.count("/") <= 2 else ""
    if not name or "/" in name or any(c in name for c in "*?[\\"):
        return None
    return name, negate, line.endswith("/")


def _ignore_lines(root: str) -> "list[str]":
    lines: list[str] = []
    for source in (
        os.path.join(root, ".gitignore"),
        os.path.join(root, ".git", "info", "exclude"),
    ):
        try:
            with open(source, encoding="utf-8", errors="replace") as handle:
                lines.extend(handle.read(1 << 20).splitlines())
        except OSError:
            continue
    return lines


def _ignored_dirs(root: str) -> list[str]:
    """Top-level directories the root `.gitignore` (or `.git/info/exclude`) names
    exactly (`node_modules/`, `/target`, `.pytest_cache`): no globs, no
    negations, no git process. One written with a trailing `/` is made (empty)
    when missing. A tracked file inside one is still seen by the post-call
    check (git status lists it when it changes)."""
    names: list[str] = []
    negated: set[str] = {".git", ZCODE, ".", ".."}
    dirs_only: set[str] = set()  # `build/`: git ignores a directory of that name only
    for entry in filter(None, map(_ignore_entry, _ignore_lines(root))):
        name, negate, directory = entry
        if negate:
            negated.add(name)
            continue
        names.append(name)
        if directory:
            dirs_only.add(name)
    return _existing_dirs(root, [n for n in dict.fromkeys(names) if n not in negated], dirs_only)


def _existing_dirs(root: str, names: "list[str]", dirs_only: "set[str]") -> "list[str]":
    out = []
    for name in names:
        path = os.path.join(root, name)
        if name in dirs_only and not os.path.lexists(path):
            # made empty now, so that a first build (`cargo test` -> target/) can write it
            _makedirs(path)
        if os.path.isdir(path) and not os.path.islink(path):
            out.append(path)
    return out


def _private_temp() -> str | None:
    """A per-user temporary folder outside every protected tree, made 0700 once."""
    base = "/tmp"
    path = os.path.join(base, PRIVATE_TEMP_PREFIX + str(os.getuid()))
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    try:
        info = os.lstat(path)
    except OSError:
        return None
    import stat

    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        return None
    return path


def compute(root: str, slug: str, state: "dict[str, Any]", home: str | None = None) -> "Grants":
    """The grants of one shell command of run `slug` now (see the module docstring)."""
    home = os.path.expanduser("~") if home is None else home
    layout = Layout(root, home)
    allowance = Allowance.of(layout, slug, state)
    result = Grants(layout.root, slug)
    result.protected = allowance.protected()
    _grant_bookkeeping(result, allowance)
    _grant_temp_and_caches(result, home)
    _drop_aliases(result, state)  # trees the run's start found aliasing the gate (aliases.py)
    for directory in _ignored_dirs(layout.root):
        result.add(directory, ll.ALL_WRITES, "ignored by git")
    why_closed = allowance.why_closed(config=True)
    if why_closed is not None:
        result.notes.append(f"no product path is writable: {why_closed}")
    else:
        _grant_product(result, allowance)
    return result


def _grant_product(result: "Grants", allowance: "Allowance") -> None:
    """After OKAY on the bound plan: its declared directories and files, each one
    the allowance lets the run write (tests are frozen in verify and final)."""
    result.product_open = True
    plan = allowance.plan()
    for declared in sorted(plan.dirs):
        _grant_declared_dir(result, allowance, declared)
    for declared in sorted(plan.files):
        _grant_declared_file(result, allowance, declared)


def _grant_bookkeeping(result: "Grants", allowance: "Allowance") -> None:
    """The bookkeeping folders the allowance opens (made if missing while `.zcode`
    is a real directory, so they can be granted), and the plan while it is the
    agent's to write."""
    layout = allowance.layout
    zcode = os.path.join(layout.root, ZCODE)
    real_zcode = os.path.isdir(zcode) and not os.path.islink(zcode)
    for directory in (layout.notepads_dir, layout.staging_dir, layout.plans_dir):
        if real_zcode and directory.startswith(zcode + "/"):
            _makedirs(directory)
    for directory in allowance.bookkeeping():
        result.add(directory, ll.NO_LINKS, "bookkeeping")
    plan_path = allowance.plan_writable()
    if plan_path and layout.bookkeeping(plan_path) is None:
        result.add(plan_path, ll.ONE_FILE, "the plan (until OKAY)")
    frozen = allowance.frozen_plan()
    if frozen and not allowance.okay:
        result.notes.append(f"not granted the plan {frozen}: a review of it is pending")


def _grant_temp_and_caches(result: "Grants", home: str) -> None:
    """Temporary folders, package caches and terminals, outside the repository."""
    temp = os.environ.get("TMPDIR") or "/tmp"
    if not result.add(temp, ll.ALL_WRITES, "temporary folder"):
        private = _private_temp()
        if private is not None and result.add(private, ll.ALL_WRITES, "temporary folder"):
            result.env["TMPDIR"] = private
    for directory in SYSTEM_TEMP:
        if os.path.realpath(directory) != os.path.realpath(temp):
            result.add(directory, ll.ALL_WRITES, "temporary folder")
    for directory in _caches(home):
        result.add(directory, ll.ALL_WRITES, "cache")
    for device in DEVICE_PATHS:
        result.add(device, ll.DEVICES, "terminal/device")


def _caches(home: str) -> "list[str]":
    """The user's package caches that exist (under the home directory, and
    `$XDG_CACHE_HOME`)."""
    caches = [os.path.join(home, rel) for rel in HOME_CACHES] if home and home != "/" else []
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):
        caches.append(xdg)
    return [d for d in dict.fromkeys(caches) if os.path.isdir(d)]


def _refused(result: "Grants", allowance: "Allowance", declared: str, *, is_dir: bool) -> bool:
    """True (and said in the notes) when the allowance refuses writing `declared`
    (a directory: a file inside it) or it lies outside the repository."""
    if not within(declared, result.root):
        result.notes.append(f"not granted {declared}: outside the repository")
        return True
    probe = os.path.join(declared, "x") if is_dir else declared
    found = allowance.judge(probe, links=False)
    if found is None:
        return False
    rule, reason = found
    if rule == "tests-frozen":
        reason = f"tests are frozen in phase {allowance.phase}"
    result.notes.append(f"not granted {declared}: {reason}")
    return True


def _grant_declared_dir(result: "Grants", allowance: "Allowance", declared: str) -> None:
    if _refused(result, allowance, declared, is_dir=True):
        return
    if os.path.isdir(declared):
        result.add(declared, ll.NO_LINKS, "declared directory")
        return
    result.absent.append(declared)
    parent = _existing_parent(declared, result.root)
    if parent is not None:
        result.add(parent, ll.MAKE_DIR, f"creating declared directory {declared}")


def _grant_declared_file(result: "Grants", allowance: "Allowance", declared: str) -> None:
    if _refused(result, allowance, declared, is_dir=False):
        return
    if os.path.isfile(declared) and not os.path.islink(declared):
        result.add(declared, ll.ONE_FILE, "declared file")
    elif not os.path.lexists(declared):
        result.absent.append(declared)
    if not _grant_parent(result, declared) and not os.path.exists(declared):
        result.notes.append(
            f"{declared} does not exist and its directory cannot be granted: "
            "create it with the Edit/Write tool"
        )


def _grant_parent(result: "Grants", declared: str) -> bool:
    """Creating and replacing files in a declared file's directory (below the root)."""
    parent = os.path.dirname(declared)
    if within(parent, result.root) and parent != result.root and os.path.isdir(parent):
        return result.add(parent, ll.FILES_IN_DIR, f"creating/replacing declared {declared}")
    return False


def _makedirs(directory: str) -> bool:
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError:
        return False
    return True


def _existing_parent(path: str, root: str) -> str | None:
    current = os.path.dirname(path)
    while within(current, root) and current != root:
        if os.path.isdir(current):
            return current
        current = os.path.dirname(current)
    return None


def aliases_dropped(state: "dict[str, Any]") -> "dict[str, str]":
    """The trees recorded at run start as aliasing the gate."""
    recorded = state.get("sandbox")
    value = recorded.get("dropped") if isinstance(recorded, dict) else None
    if not isinstance(value, dict):
        return {}
    return {str(k): str(v) for k, v in value.items()}


def _drop_aliases(result: "Grants", state: "dict[str, Any]") -> None:
    """Remove from `result` (a `grants.Grants`) every grant on a tree the run's start
    found aliasing the gate, saying so; a dropped temporary folder becomes the
    private one."""
    trees = aliases_dropped(state)
    if not trees:
        return
    resolved = {os.path.realpath(t): why for t, why in trees.items()}
    kept = []
    temp_lost = False
    for path, rights, why in result.grants:
        reason = resolved.get(path)
        if reason is None:
            kept.append((path, rights, why))
            continue
        result.notes.append(f"not granted {why} {path}: {reason}")
        temp_lost = temp_lost or why == "temporary folder"
    result.grants = kept
    if temp_lost and "TMPDIR" not in result.env:
        private = _private_temp()
        if private is not None and private not in resolved:
            result.grants.append((private, ll.ALL_WRITES, "temporary folder"))
            result.env["TMPDIR"] = private
