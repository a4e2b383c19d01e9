"""git: read subcommands, list forms, and the ones that write named paths."""

from __future__ import annotations

from zodyssey.gate.shell.commands import handles
from zodyssey.gate.shell.records import Arg
from zodyssey.gate.shell.words import (
    has_option,
    join_path,
    split_options,
)

TYPE_CHECKING = False  # mypy treats this as typing.TYPE_CHECKING; no runtime import
if TYPE_CHECKING:
    from zodyssey.gate.shell.walker import Walker


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
def _git(w: Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    i = 0
    here = cwd
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
        ) or value.startswith(("--work-tree=", "--namespace=")):
            i += 1
        elif value in ("--work-tree", "--namespace"):
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
    if any(
        v is not None
        and (
            v == "--ext-diff"
            or v == "--output"
            or v.startswith("--output=")
            or v in ("-O", "--open-files-in-pager")
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
            v in ("--ext-diff",) or (v or "").startswith(("-O", "--open-files")) for v in values
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
    if sub == "config":
        if (
            values
            and all(v is not None for v in values)
            and values[0] in ("--get", "--get-all", "--get-regexp", "--list", "-l", "get", "list")
        ):
            w.read(text)
        else:
            w.unknown(text, "git config may change configuration")
        return cwd
    if sub in ("stash", "worktree", "tag", "reflog", "notes", "submodule"):
        if (sub == "tag" and (not values or values[0] in ("-l", "--list"))) or (
            sub in ("stash", "worktree", "reflog", "notes", "submodule")
            and (
                (sub == "reflog" and (not values or values[0] == "show"))
                or (values and values[0] in ("list", "show") and sub != "reflog")
                or (sub == "submodule" and values and values[0] == "status")
            )
        ):
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
                w.write(text, here, after, f"git {sub} overwrites files")
                return cwd
        if sub == "restore" and operands and not has_option(options, "--pathspec-from-file"):
            w.write(text, here, operands, "git restore overwrites files")
            return cwd
        w.unknown(text, f"git {sub} changes the work tree")
        return cwd
    if sub in ("rm", "add", "mv"):
        options, operands = split_options(rest, "", ("--pathspec-from-file", "--chmod"))
        if has_option(options, "--pathspec-from-file") or not operands:
            w.unknown(text, f"git {sub} without explicit paths")
        else:
            w.write(text, here, operands, f"git {sub} changes files")
        return cwd
    w.unknown(text, f"git {sub} is not a read-only git command")
    return cwd
