"""git: read subcommands, list forms, and the ones that write named paths."""

from zodyssey.gate.shell.commands import handles
from zodyssey.gate.shell.records import Arg
from zodyssey.gate.shell.words import (
    has_option,
    join_path,
    split_options,
)

TYPE_CHECKING = False  # mypy treats this as typing.TYPE_CHECKING; no runtime import
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


@handles("git")
def _git(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    i = 0
    here = cwd
    work_tree = ""  # --work-tree=DIR: paths may be taken from DIR's top
    while i < len(args):
        value = args[i].value
        if value is None:
            w.unknown(text, "git with a non-static argument")
            return cwd
        if value == "-C":
            new = args[i + 1].value if i + 1 < len(args) else None
            here = join_path(here, new) if new is not None else None
            i += 2
        elif value in (
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
        ) or value.startswith("--namespace="):
            i += 1
        elif value == "--namespace":
            i += 2
        elif value == "--work-tree" or value.startswith("--work-tree="):
            given = value[len("--work-tree=") :] if "=" in value else None
            if given is None:
                given = args[i + 1].value if i + 1 < len(args) else None
                i += 1
            if not given:
                w.unknown(text, "git --work-tree without a static directory")
                return cwd
            work_tree = given
            i += 1
        elif value == "-c":
            setting = args[i + 1].value if i + 1 < len(args) else None
            if setting is None or not _inert_setting(setting):
                w.unknown(text, f"git -c {setting or ''} can change what git runs")
                return cwd
            i += 2
        elif value in ("--version", "--help"):
            w.read(text)
            return cwd
        elif value.startswith("-"):
            w.unknown(text, f"git option {value} can change what git runs")
            return cwd
        else:
            break
    if i >= len(args):
        w.read(text)
        return cwd
    sub = args[i].value or ""
    rest = args[i + 1 :]
    values = [a.value for a in rest]

    def put(paths: "list[Arg]", why: str) -> None:
        """Paths are taken from the current directory inside the work tree, and
        from the work tree's top when the current directory is outside it."""
        w.write(text, here, paths, why)
        if work_tree:
            w.write(text, join_path(here, work_tree), paths, why)

    if sub == "help" and any(v in ("-w", "--web") for v in values):
        w.unknown(text, "git help --web runs a browser")
        return cwd
    if sub == "grep" and _grep_runs_pager(values):
        w.unknown(text, "git grep -O runs a pager on every file it finds")
        return cwd
    if any(
        v is not None
        and (
            v == "--ext-diff"
            or v == "--output"
            or v.startswith("--output=")
            or (v == "-O" and sub != "grep")  # (grep: see _grep_runs_pager)
            or v == "--open-files-in-pager"
            or v.startswith("--open-files-in-pager")
        )
        for v in values
    ):
        outputs = []
        for k, v in enumerate(values):
            if v is not None and v.startswith("--output="):
                outputs.append(Arg(v.split("=", 1)[1]))
            elif v == "--output":
                outputs.append(rest[k + 1] if k + 1 < len(rest) else Arg(None))
        if outputs and not any(
            v in ("--ext-diff", "-O") or (v or "").startswith("--open-files") for v in values
        ):
            w.write(text, here, outputs, f"git {sub} --output writes a file")
        else:
            w.unknown(text, f"git {sub} runs an external program")
        return cwd
    if any(
        v is not None
        and (v.startswith(("--upload-pack", "--receive-pack", "--exec=")) or v == "--lost-found")
        for v in values
    ) or (sub == "ls-remote" and any(v == "-u" or (v or "").startswith("-u") for v in values)):
        w.unknown(text, f"git {sub} is told to run a program or write objects")
        return cwd
    if sub in _GIT_READ:
        w.read(text)
        return cwd
    if sub == "branch":
        listing = {
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
        }
        takes = {
            "--contains",
            "--no-contains",
            "--merged",
            "--no-merged",
            "--points-at",
            "--sort",
            "--format",
        }
        positional = False
        list_mode = False
        k = 0
        while k < len(values):
            v = values[k]
            if v is None:
                positional = True
            elif v in ("-l", "--list"):
                list_mode = True
            elif v in takes:
                k += 1
            elif v.startswith(tuple(t + "=" for t in takes)) or v in listing:
                pass
            elif v.startswith("-"):
                w.unknown(text, f"git branch {v} changes branches")
                return cwd
            else:
                positional = True
            k += 1
        if positional and not list_mode:
            w.unknown(text, "git branch NAME creates a branch")
        else:
            w.read(text)
        return cwd
    if sub == "remote":
        if (
            not values
            or values in (["-v"], ["--verbose"])
            or (values and values[0] in ("show", "get-url"))
        ):
            w.read(text)
        else:
            w.unknown(text, "git remote changes remotes")
        return cwd
    reader = _READ_FORMS.get(sub)
    if reader is not None:
        if all(v is not None for v in values) and reader([v or "" for v in values]):
            w.read(text)
        else:
            w.unknown(text, f"git {sub} in this form changes the repository or its settings")
        return cwd
    if sub in ("stash", "worktree", "reflog", "notes"):
        words = [v for v in values if v is not None and not v.startswith("-")]
        if (
            sub == "reflog"
            and all(v is not None for v in values)
            and not (words and words[0] in ("expire", "delete"))
        ) or (values and values[0] in ("list", "show") and sub != "reflog"):
            w.read(text)
        else:
            w.unknown(text, f"git {sub} changes the repository")
        return cwd
    if sub in ("checkout", "restore"):
        options, operands = split_options(
            rest,
            "sbB" if sub == "checkout" else "s",
            ("--source", "--conflict", "--pathspec-from-file"),
        )
        if "--" in [a.value for a in rest]:
            after = rest[[a.value for a in rest].index("--") + 1 :]
            if after and sub == "checkout" and not has_option(options, "-b", "-B", "--orphan"):
                put(after, f"git {sub} overwrites files")
                return cwd
        if sub == "restore" and operands and not has_option(options, "--pathspec-from-file"):
            put(operands, "git restore overwrites files")
            return cwd
        w.unknown(text, f"git {sub} changes the work tree")
        return cwd
    if sub in ("rm", "add", "mv"):
        options, operands = split_options(rest, "", ("--pathspec-from-file", "--chmod"))
        if has_option(options, "--pathspec-from-file") or not operands:
            w.unknown(text, f"git {sub} without explicit paths")
        else:
            put(operands, f"git {sub} changes files")
        return cwd
    w.unknown(text, f"git {sub} is not a read-only git command")
    return cwd


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
        return value in ("", "cat", "less")
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
