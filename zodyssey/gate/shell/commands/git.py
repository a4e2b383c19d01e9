"""git: read subcommands, list forms, and the ones that write named paths."""

from zodyssey.gate.shell.commands import handles
from zodyssey.gate.shell.records import Arg
from zodyssey.gate.shell.words import (
    has_option,
    join_path,
    split_options,
    value_at,
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


class _Globals:
    """git's own options before the subcommand, read one at a time: where git
    works (`-C`), the `--work-tree` given (paths may be taken from its top)."""

    __slots__ = ("here", "text", "w", "work_tree")

    def __init__(self, w: "Walker", text: str, cwd: str | None) -> None:
        self.w, self.text, self.here, self.work_tree = w, text, cwd, ""

    # Each rule reads one option (`value`, the word after it `following`) and
    # returns how many words it used, or 0 once the command is decided.
    def flag(self, value: str, following: str | None) -> int:
        return 1

    def namespace(self, value: str, following: str | None) -> int:
        return 1 if "=" in value else 2

    def chdir(self, value: str, following: str | None) -> int:
        self.here = join_path(self.here, following) if following is not None else None
        return 2

    def work_tree_option(self, value: str, following: str | None) -> int:
        given = value[len("--work-tree=") :] if "=" in value else following
        if not given:
            self.w.unknown(self.text, "git --work-tree without a static directory")
            return 0
        self.work_tree = given
        return 1 if "=" in value else 2

    def setting(self, value: str, following: str | None) -> int:
        if following is None or not _inert_setting(following):
            self.w.unknown(self.text, f"git -c {following or ''} can change what git runs")
            return 0
        return 2

    def answers(self, value: str, following: str | None) -> int:
        self.w.read(self.text)  # --version, --help
        return 0


# git's own option -> the rule that reads it (any other option is unknown);
# the long options with a value may also attach it (`--work-tree=DIR`)
_GLOBALS = {
    **dict.fromkeys(_GIT_FLAGS, _Globals.flag),
    "--namespace": _Globals.namespace,
    "-C": _Globals.chdir,
    "--work-tree": _Globals.work_tree_option,
    "-c": _Globals.setting,
    "--version": _Globals.answers,
    "--help": _Globals.answers,
}
_GLOBALS_ATTACHED = ("--namespace=", "--work-tree=")


def _options(
    w: "Walker", text: str, args: "list[Arg]", cwd: str | None
) -> "tuple[int, str | None, str] | None":
    """git's options before the subcommand: (index of the subcommand, the
    directory git works in, the --work-tree or ""), or None once decided."""
    found = _Globals(w, text, cwd)
    i = 0
    while i < len(args):
        value = args[i].value
        if value is None:
            w.unknown(text, "git with a non-static argument")
            return None
        if not value.startswith("-"):
            break
        name = value.split("=", 1)[0] if value.startswith(_GLOBALS_ATTACHED) else value
        rule = _GLOBALS.get(name)
        if rule is None:
            w.unknown(text, f"git option {value} can change what git runs")
            return None
        used = rule(found, value, value_at(args, i + 1))
        if not used:
            return None
        i += used
    return i, found.here, found.work_tree


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
    """Options that make any subcommand run a program or write a file: True once
    decided (the first of `_PROGRAM_OPTIONS` that applies answers)."""
    for applies, why in _PROGRAM_OPTIONS:
        if applies(g):
            if why:
                g.unknown(why.format(sub=g.sub))
            else:
                _output(g)
            return True
    return False


def _web_help(g: _Git) -> bool:
    return g.sub == "help" and any(v in ("-w", "--web") for v in g.values)


def _grep_pager(g: _Git) -> bool:
    return g.sub == "grep" and _grep_runs_pager(g.values)


def _writes_output(g: _Git) -> bool:
    return any(v is not None and _output_option(v, g.sub) for v in g.values)


def _runs_pack(g: _Git) -> bool:
    """--upload-pack, --receive-pack, --exec= name a program; --lost-found writes objects."""
    return any(
        v is not None
        and (v.startswith(("--upload-pack", "--receive-pack", "--exec=")) or v == "--lost-found")
        for v in g.values
    ) or (g.sub == "ls-remote" and any((v or "").startswith("-u") for v in g.values))


# (the option applies, why it is unknown; "" when `_output` decides), in order
_PROGRAM_OPTIONS = (
    (_web_help, "git help --web runs a browser"),
    (_grep_pager, "git grep -O runs a pager on every file it finds"),
    (_writes_output, ""),
    (_runs_pack, "git {sub} is told to run a program or write objects"),
)


def _output_option(v: str, sub: str) -> bool:
    return (
        v in ("--ext-diff", "--output")
        or v.startswith(("--output=", "--open-files-in-pager"))
        or (v == "-O" and sub != "grep")  # (grep: see _grep_runs_pager)
    )


def _output(g: _Git) -> None:
    """`--output FILE` writes FILE; --ext-diff, -O and a pager run a program."""
    outputs = _output_files(g)
    if outputs and not any(
        v in ("--ext-diff", "-O") or (v or "").startswith("--open-files") for v in g.values
    ):
        g.w.write(g.text, g.here, outputs, f"git {g.sub} --output writes a file")
    else:
        g.unknown(f"git {g.sub} runs an external program")


def _output_files(g: _Git) -> "list[Arg]":
    """The files of `--output=FILE` and `--output FILE`."""
    outputs = []
    for k, v in enumerate(g.values):
        if v is not None and v.startswith("--output="):
            outputs.append(Arg(v.split("=", 1)[1]))
        elif v == "--output":
            outputs.append(g.rest[k + 1] if k + 1 < len(g.rest) else Arg(None))
    return outputs


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
        if v.startswith("-") and not v.startswith("--") and v != "-":
            pager, takes_next = _grep_cluster(v)
            if pager:
                return True
            k += takes_next
    return False


def _grep_cluster(cluster: str) -> tuple[bool, int]:
    """(whether the cluster holds -O, whether its value is the next word): the
    first letter that takes a value ends the cluster."""
    for j, letter in enumerate(cluster[1:], start=1):
        if letter == "O":
            return True, 0
        if letter in "ABCefm":
            return False, int(j == len(cluster) - 1)
    return False, 0


# `git config` options that read (the others of its old form change settings)
_CONFIG_ACTIONS = frozenset(
    [
        "--get",
        "--get-all",
        "--get-regexp",
        "--get-urlmatch",
        "--list",
        "-l",
        "--get-color",
        "--get-colorbool",
    ]
)
# `git config` modifiers whose value may be the next word
_CONFIG_TAKES = ("--file", "-f", "--blob", "--type", "--default")


def _config_reads(values: list[str]) -> bool:
    """`git config` forms that only read: --get*/--list/get/list, or one key."""
    if values and values[0] in ("get", "list"):
        return all(
            not v.startswith("--") or v.split("=", 1)[0] in _CONFIG_MODIFIERS for v in values[1:]
        )
    return _config_options_read(values)


def _config_options_read(values: list[str]) -> bool:
    """The older form: an action option (--get, --list, ...) or a single key reads."""
    positional: list[str] = []
    reading = False
    k = 0
    while k < len(values):
        v = values[k]
        k += 1
        name = v.split("=", 1)[0]
        if v in _CONFIG_ACTIONS:
            reading = True
        elif name in _CONFIG_MODIFIERS:
            k += int(name in _CONFIG_TAKES and "=" not in v)
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
# `git tag` long options that list (or only shape a listing: `_TAG_SHAPES`)
_TAG_LISTS = frozenset(
    [
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
    ]
)
_TAG_SHAPES = ("--sort", "--format", "--color")


def _tag_reads(values: list[str]) -> bool:
    """`git tag` lists unless it is given a name to create or delete; the
    filtering options (--contains, --merged, --points-at, -n, ...) imply --list."""
    kinds = [_tag_word(v) for v in values]
    if None in kinds:
        return False
    return "list" in kinds or "name" not in kinds


def _tag_word(v: str) -> str | None:
    """One word of `git tag`: "list" (implies a listing), "name", "" (shapes
    the output), None (creates, deletes or is not known)."""
    if v.startswith("--"):
        name = v.split("=", 1)[0]
        if name not in _TAG_LISTS:
            return None
        return "" if name in _TAG_SHAPES else "list"
    if v.startswith("-") and len(v) > 1:
        if v[1] in _TAG_CREATES or v[1] not in "lniv":
            return None
        return "list" if v[1] in "lnv" else ""
    return "name"


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
