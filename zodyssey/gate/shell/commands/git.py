"""git: read subcommands, list forms, and the ones that write named paths."""

from zodyssey.gate.shell.commands import handles
from zodyssey.gate.shell.records import Arg
from zodyssey.gate.shell.words import (
    has_option,
    join_path,
    split_options,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from zodyssey.gate.shell.commands import Walker


# -- git


_GIT_READ = frozenset(
    [
        "status",
        "diff",
        "log",
        "show",
        "blame",
        "ls-files",
        "ls-tree",
        "rev-parse",
        "cat-file",
        "describe",
        "shortlog",
        "grep",
        "show-ref",
        "rev-list",
        "merge-base",
        "for-each-ref",
        "name-rev",
        "whatchanged",
        "count-objects",
        "check-ignore",
        "check-attr",
        "version",
        "help",
        "var",
        "cherry",
        "range-diff",
        "diff-tree",
        "diff-files",
        "diff-index",
        "ls-remote",
        "verify-commit",
        "verify-tag",
        "fsck",
        "annotate",
        "show-branch",
    ]
)


# git's own options that take no value and change nothing that matters here
_GIT_FLAGS = frozenset(
    [
        "--no-pager",
        "-P",
        "--paginate",
        "-p",
        "--no-replace-objects",
        "--literal-pathspecs",
        "--glob-pathspecs",
        "--noglob-pathspecs",
        "--icase-pathspecs",
        "--no-optional-locks",
        "--bare",
    ]
)


def _options(
    w: "Walker", text: str, args: "list[Arg]", cwd: str | None
) -> "tuple[int, str | None, str] | None":
    """git's options before the subcommand: (index of the subcommand, the
    directory git works in, the --work-tree or ""), or None once decided."""
    i = 0
    here = cwd
    work_tree = ""  # --work-tree=DIR: paths may be taken from DIR's top
    while i < len(args):
        value = args[i].value
        following = args[i + 1].value if i + 1 < len(args) else None
        if value is None:
            w.unknown(text, "git with a non-static argument")
            return None
        if value in _GIT_FLAGS or value.startswith("--namespace="):
            i += 1
        elif value == "-C":
            here = join_path(here, following) if following is not None else None
            i += 2
        elif value == "--namespace":
            i += 2
        elif value == "--work-tree" or value.startswith("--work-tree="):
            given = value[len("--work-tree=") :] if "=" in value else following
            if not given:
                w.unknown(text, "git --work-tree without a static directory")
                return None
            work_tree = given
            i += 1 if "=" in value else 2
        elif value == "-c":
            if following is None or not _inert_setting(following):
                w.unknown(text, f"git -c {following or ''} can change what git runs")
                return None
            i += 2
        elif value in ("--version", "--help"):
            w.read(text)
            return None
        elif value.startswith("-"):
            w.unknown(text, f"git option {value} can change what git runs")
            return None
        else:
            break
    return i, here, work_tree


class _Git:
    """One `git SUB ...` being judged: what every subcommand rule needs."""

    __slots__ = ("here", "rest", "sub", "text", "values", "w", "work_tree")

    def __init__(
        self, w: "Walker", text: str, here: str | None, work_tree: str, args: "list[Arg]"
    ) -> None:
        self.w, self.text, self.here, self.work_tree = w, text, here, work_tree
        self.sub = args[0].value or ""
        self.rest = args[1:]
        self.values = [a.value for a in self.rest]

    def read(self) -> None:
        self.w.read(self.text)

    def unknown(self, why: str) -> None:
        self.w.unknown(self.text, why)

    def put(self, paths: "list[Arg]", why: str) -> None:
        """Paths are taken from the current directory inside the work tree, and
        from the work tree's top when the current directory is outside it."""
        self.w.write(self.text, self.here, paths, why)
        if self.work_tree:
            self.w.write(self.text, join_path(self.here, self.work_tree), paths, why)


@handles("git")
def _git(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    found = _options(w, text, args, cwd)
    if found is None:
        return cwd
    i, here, work_tree = found
    if i >= len(args):
        w.read(text)
        return cwd
    g = _Git(w, text, here, work_tree, args[i:])
    if not _runs_a_program(g):
        rule = _SUBCOMMANDS.get(g.sub)
        if rule is None:
            g.unknown(f"git {g.sub} is not a read-only git command")
        else:
            rule(g)
    return cwd


def _runs_a_program(g: _Git) -> bool:
    """Options that make any subcommand run a program or write a file: True once decided."""
    if g.sub == "help" and any(v in ("-w", "--web") for v in g.values):
        g.unknown("git help --web runs a browser")
        return True
    if g.sub == "grep" and _grep_runs_pager(g.values):
        g.unknown("git grep -O runs a pager on every file it finds")
        return True
    if any(v is not None and _output_option(v, g.sub) for v in g.values):
        _output(g)
        return True
    if any(
        v is not None
        and (v.startswith(("--upload-pack", "--receive-pack", "--exec=")) or v == "--lost-found")
        for v in g.values
    ) or (g.sub == "ls-remote" and any((v or "").startswith("-u") for v in g.values)):
        g.unknown(f"git {g.sub} is told to run a program or write objects")
        return True
    return False


def _output_option(v: str, sub: str) -> bool:
    return (
        v in ("--ext-diff", "--output")
        or v.startswith(("--output=", "--open-files-in-pager"))
        or (v == "-O" and sub != "grep")  # (grep: see _grep_runs_pager)
    )


def _output(g: _Git) -> None:
    """`--output FILE` writes FILE; --ext-diff, -O and a pager run a program."""
    outputs = []
    for k, v in enumerate(g.values):
        if v is not None and v.startswith("--output="):
            outputs.append(Arg(v.split("=", 1)[1]))
        elif v == "--output":
            outputs.append(g.rest[k + 1] if k + 1 < len(g.rest) else Arg(None))
    if outputs and not any(
        v in ("--ext-diff", "-O") or (v or "").startswith("--open-files") for v in g.values
    ):
        g.w.write(g.text, g.here, outputs, f"git {g.sub} --output writes a file")
    else:
        g.unknown(f"git {g.sub} runs an external program")


_BRANCH_LISTING = frozenset(
    [
        "-a",
        "--all",
        "-r",
        "--remotes",
        "-l",
        "--list",
        "-v",
        "-vv",
        "--verbose",
        "--show-current",
        "--no-color",
        "--color",
        "--column",
        "--no-column",
    ]
)
_BRANCH_TAKES = (
    "--contains",
    "--no-contains",
    "--merged",
    "--no-merged",
    "--points-at",
    "--sort",
    "--format",
)
_BRANCH_TAKES_JOINED = tuple(t + "=" for t in _BRANCH_TAKES)


def _branch(g: _Git) -> None:
    """`git branch` lists, unless it is given a name (without --list) or an option that changes."""
    positional = False
    list_mode = False
    k = 0
    while k < len(g.values):
        v = g.values[k]
        if v is None:
            positional = True
        elif v in ("-l", "--list"):
            list_mode = True
        elif v in _BRANCH_TAKES:
            k += 1
        elif v.startswith(_BRANCH_TAKES_JOINED) or v in _BRANCH_LISTING:
            pass
        elif v.startswith("-"):
            g.unknown(f"git branch {v} changes branches")
            return
        else:
            positional = True
        k += 1
    if positional and not list_mode:
        g.unknown("git branch NAME creates a branch")
    else:
        g.read()


def _remote(g: _Git) -> None:
    values = g.values
    if not values or values in (["-v"], ["--verbose"]) or values[0] in ("show", "get-url"):
        g.read()
    else:
        g.unknown("git remote changes remotes")


def _read_form(g: _Git) -> None:
    """The subcommands of `_READ_FORMS`: read-only in the forms their reader accepts."""
    reader = _READ_FORMS[g.sub]
    if all(v is not None for v in g.values) and reader([v or "" for v in g.values]):
        g.read()
    else:
        g.unknown(f"git {g.sub} in this form changes the repository or its settings")


def _listing(g: _Git) -> None:
    """stash, worktree, notes: `list`/`show` read; reflog reads unless it expires or deletes."""
    values = g.values
    if g.sub == "reflog":
        words = [v for v in values if v is not None and not v.startswith("-")]
        reads = all(v is not None for v in values) and not (
            words and words[0] in ("expire", "delete")
        )
    else:
        reads = bool(values) and values[0] in ("list", "show")
    if reads:
        g.read()
    else:
        g.unknown(f"git {g.sub} changes the repository")


def _checkout(g: _Git) -> None:
    """checkout/restore: the files after `--` (or restore's operands) are overwritten."""
    sub, rest = g.sub, g.rest
    options, operands = split_options(
        rest,
        "sbB" if sub == "checkout" else "s",
        ("--source", "--conflict", "--pathspec-from-file"),
    )
    words = [a.value for a in rest]
    if "--" in words:
        after = rest[words.index("--") + 1 :]
        if after and sub == "checkout" and not has_option(options, "-b", "-B", "--orphan"):
            g.put(after, f"git {sub} overwrites files")
            return
    if sub == "restore" and operands and not has_option(options, "--pathspec-from-file"):
        g.put(operands, "git restore overwrites files")
        return
    g.unknown(f"git {sub} changes the work tree")


def _named(g: _Git) -> None:
    """rm, add, mv: change the paths they name."""
    options, operands = split_options(g.rest, "", ("--pathspec-from-file", "--chmod"))
    if has_option(options, "--pathspec-from-file") or not operands:
        g.unknown(f"git {g.sub} without explicit paths")
    else:
        g.put(operands, f"git {g.sub} changes files")


def _read(g: _Git) -> None:
    g.read()


# `git -c KEY=VALUE` settings that change only how output looks
_INERT_PREFIXES = ("color.", "column.", "i18n.", "advice.", "user.", "log.", "grep.", "blame.")
_INERT_KEYS = frozenset(
    [
        "core.quotepath",
        "core.abbrev",
        "diff.noprefix",
        "diff.mnemonicprefix",
        "diff.renames",
        "diff.algorithm",
        "diff.context",
        "diff.interhunkcontext",
        "diff.colormoved",
        "diff.indentheuristic",
        "diff.relative",
        "diff.statgraphwidth",
        "status.short",
        "status.branch",
        "status.showuntrackedfiles",
        "status.relativepaths",
        "safe.directory",
    ]
)
_BOOLEANS = frozenset(["", "true", "false", "yes", "no", "on", "off", "0", "1"])


def _inert_setting(setting: str) -> bool:
    key, _, value = setting.partition("=")
    key = key.lower()
    if key.startswith("pager."):
        return value.lower() in _BOOLEANS  # a pager command would run
    if key == "core.pager":
        return value in ("", "cat")  # less runs `!cmd` typed in an interactive session
    return key.startswith(_INERT_PREFIXES) or key in _INERT_KEYS


def _grep_runs_pager(values: list[str | None]) -> bool:
    """`git grep -O[PAGER]`, also inside a cluster (`-nOvim`): git's short
    options take their values attached or as the next word."""
    k = 0
    while k < len(values):
        v = values[k] or ""
        k += 1
        if v == "--":
            return False
        if not v.startswith("-") or v.startswith("--") or v == "-":
            continue
        for j, letter in enumerate(v[1:], start=1):
            if letter == "O":
                return True
            if letter in "ABCefm" and j == len(v) - 1:
                k += 1  # the value is the next word
            if letter in "ABCefm":
                break  # the rest of the word is the value
    return False


def _config_reads(values: list[str]) -> bool:
    """`git config` forms that only read: --get*/--list/get/list, or one key."""
    if values and values[0] in ("get", "list"):
        return all(
            not v.startswith("--") or v.split("=", 1)[0] in _CONFIG_MODIFIERS for v in values[1:]
        )
    actions = {
        "--get",
        "--get-all",
        "--get-regexp",
        "--get-urlmatch",
        "--list",
        "-l",
        "--get-color",
        "--get-colorbool",
    }
    positional: list[str] = []
    reading = False
    k = 0
    while k < len(values):
        v = values[k]
        k += 1
        name = v.split("=", 1)[0]
        if v in actions:
            reading = True
        elif name in _CONFIG_MODIFIERS:
            if name in ("--file", "-f", "--blob", "--type", "--default") and "=" not in v:
                k += 1
        elif v.startswith("-"):
            return False  # --add, --unset, --edit, --replace-all, ...
        else:
            positional.append(v)
    return reading or len(positional) == 1


_CONFIG_MODIFIERS = frozenset(
    [
        "--global",
        "--system",
        "--local",
        "--worktree",
        "--file",
        "-f",
        "--blob",
        "--type",
        "--bool",
        "--int",
        "--bool-or-int",
        "--path",
        "--expiry-date",
        "--null",
        "-z",
        "--name-only",
        "--show-origin",
        "--show-scope",
        "--includes",
        "--no-includes",
        "--default",
        "--all",
        "--regexp",
        "--url",
    ]
)


def _clean_reads(values: list[str]) -> bool:
    """`git clean -n` / `--dry-run` only lists (and not with -i)."""
    shorts = "".join(v[1:] for v in values if v.startswith("-") and not v.startswith("--"))
    dry = "n" in shorts or "--dry-run" in values
    return dry and "i" not in shorts and "--interactive" not in values


def _symbolic_ref_reads(values: list[str]) -> bool:
    flags = [v for v in values if v.startswith("-")]
    names = [v for v in values if not v.startswith("-")]
    return len(names) == 1 and all(
        v in ("-q", "--quiet", "--short", "--recurse", "--no-recurse") for v in flags
    )


_TAG_CREATES = "asumFfde"


def _tag_reads(values: list[str]) -> bool:
    """`git tag` lists unless it is given a name to create or delete; the
    filtering options (--contains, --merged, --points-at, -n, ...) imply --list."""
    listing = False
    names = 0
    for v in values:
        if v.startswith("--"):
            name = v.split("=", 1)[0]
            if name in (
                "--list",
                "--contains",
                "--no-contains",
                "--merged",
                "--no-merged",
                "--points-at",
                "--sort",
                "--format",
                "--column",
                "--no-column",
                "--color",
                "--ignore-case",
                "--omit-empty",
                "--verify",
            ):
                listing = listing or name not in ("--sort", "--format", "--color")
                continue
            return False
        if v.startswith("-") and len(v) > 1:
            if any(letter in _TAG_CREATES for letter in v[1:2]):
                return False
            listing = listing or v[1] in "lnv"
            if v[1] not in "lniv":
                return False
            continue
        names += 1
    return listing or names == 0


def _submodule_reads(values: list[str]) -> bool:
    words = [v for v in values if v not in ("-q", "--quiet")]
    return not words or (words[0] in ("status", "summary") and "--init" not in words)


_APPLY_INERT = frozenset(
    [
        "--check",
        "--stat",
        "--numstat",
        "--summary",
        "-v",
        "--verbose",
        "-q",
        "--quiet",
        "-z",
        "-R",
        "--reverse",
        "--cached",
        "--index",
        "--ignore-whitespace",
        "--ignore-space-change",
        "--recount",
        "--unidiff-zero",
        "--allow-empty",
        "--inaccurate-eof",
        "--no-add",
    ]
)


def _apply_reads(values: list[str]) -> bool:
    """`git apply --check/--stat/--numstat/--summary` without --apply only report."""
    if not any(v in ("--check", "--stat", "--numstat", "--summary") for v in values):
        return False
    return all(
        v in _APPLY_INERT
        or v.startswith(("-p", "-C", "--exclude=", "--include=", "--directory=", "--whitespace="))
        or not v.startswith("-")
        for v in values
    )


_READ_FORMS = {
    "config": _config_reads,
    "clean": _clean_reads,
    "symbolic-ref": _symbolic_ref_reads,
    "tag": _tag_reads,
    "submodule": _submodule_reads,
    "apply": _apply_reads,
}


# subcommand -> its rule (a subcommand not here is not read-only)
_SUBCOMMANDS = {
    **dict.fromkeys(_GIT_READ, _read),
    **dict.fromkeys(_READ_FORMS, _read_form),
    "branch": _branch,
    "remote": _remote,
    **dict.fromkeys(("stash", "worktree", "reflog", "notes"), _listing),
    **dict.fromkeys(("checkout", "restore"), _checkout),
    **dict.fromkeys(("rm", "add", "mv"), _named),
}
