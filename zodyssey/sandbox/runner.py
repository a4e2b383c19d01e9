"""`zodyssey sandbox --run SLUG [--run SLUG...] [--repo DIR] [--explain] -- CMD...`

Runs CMD (argv, no shell of its own: the gate wraps a shell command as
`bash -c '<original>'`) under a Landlock ruleset built from run SLUG's state
at this moment (`zodyssey/sandbox/grants.py`): writes only where the run's
policy allows now, reads unrestricted. The process restricts itself and then
`exec`s CMD, so CMD's exit status is the command's own and nothing of the
sandbox stays running.

Several `--run`s (several runs active in one repository): one Landlock layer
per run, stacked, so CMD may write only where every run allows it now (the
intersection; the gate's own rule for several runs).

The runner's own failures use the exit codes of `env`/`timeout`/`chroot`:
125 (cannot sandbox: bad arguments, no such active run, unreadable state,
Landlock missing or refusing), 126 (CMD cannot be executed), 127 (CMD not
found). It never runs CMD unrestricted: without Landlock it refuses.

Lean like the hook (no argparse, no json, no typing): the gate puts it in
front of every shell command of a run.
"""

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

USAGE = (
    "usage: zodyssey sandbox --run SLUG [--run SLUG...] [--repo DIR] [--explain] -- CMD [ARG...]"
)
EXIT_SANDBOX = 125
EXIT_CANNOT_EXEC = 126
EXIT_NOT_FOUND = 127
ENV_MARK = "ZODYSSEY_SANDBOX"  # set to the slug inside the sandbox


class SandboxRefused(Exception):
    pass


def _option(arg: str, following: "str | None") -> "tuple[str, str, int] | None":
    """(name, value, arguments used) of `--run X`, `--run=X`, `--repo X`, `--repo=X`."""
    for name in ("--run", "--repo"):
        if arg == name and following is not None:
            return name, following, 2
        if arg.startswith(name + "="):
            return name, arg[len(name) + 1 :], 1
    return None


def _parse(argv: "list[str]") -> "tuple[list[str], str | None, bool, list[str]]":
    slugs: list[str] = []
    repo: str | None = None
    explain = False
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            return slugs or [""], repo, explain, argv[i + 1 :]
        option = _option(arg, argv[i + 1] if i + 1 < len(argv) else None)
        if option is not None:
            name, value, used = option
            if name == "--run":
                slugs.append(value)
            else:
                repo = value
            i += used
            continue
        if arg != "--explain":
            raise SandboxRefused(f"unknown argument {arg!r} ({USAGE})")
        explain = True
        i += 1
    if explain:
        return slugs or [""], repo, explain, []
    raise SandboxRefused(f"no command after `--` ({USAGE})")


def find_run(slug: str, repo: str | None) -> "tuple[str, dict[str, object]]":
    """(repository root, state) of active run `slug`, found from --repo or the cwd."""
    from zodyssey.core.paths import state_path
    from zodyssey.core.vocabulary import is_active, is_slug
    from zodyssey.gate.discovery import locate_all, read_states

    if not is_slug(slug):
        raise SandboxRefused(f"--run needs a run slug (^[a-z0-9][a-z0-9-]*$), got {slug!r}")
    roots, _ = locate_all(repo or os.getcwd())
    for root in reversed(roots):  # the repository's own run first
        path = state_path(root, slug)
        if not os.path.exists(path):
            continue
        found = read_states(root, [(slug, path)]).runs
        if not found:
            continue
        state = found[0][1]
        if isinstance(state, str):
            raise SandboxRefused(state)
        if not is_active(state.get("phase")):
            raise SandboxRefused(f"run {slug} is not active (phase {state.get('phase')})")
        return root, state
    raise SandboxRefused(f"no run {slug} found from {repo or os.getcwd()}")


def _restrict(argv: "list[str]") -> "tuple[list[Any], list[str]] | int":
    """Compute each run's grants and restrict this process with them: (the
    layers, the command), or the exit code (`--explain` printed, or refused)."""
    slugs, repo, explain, command = _parse(list(argv))
    from zodyssey.sandbox import grants as grants_module
    from zodyssey.sandbox import landlock

    layers = []
    stamped = []
    for slug in dict.fromkeys(slugs):
        before = _state_stamp(repo, slug)
        root, state = find_run(slug, repo)
        stamped.append(_stamps(root, slug, state, before))
        layers.append(grants_module.compute(root, slug, state))
    abi = landlock.abi_version()
    if explain:
        print(f"Landlock ABI {abi}" if abi else "Landlock: not available")
        print("\n".join(grants.explain() for grants in layers))
        return 0
    if abi < 1:
        raise SandboxRefused(
            "Landlock is not available on this system, so the command cannot run sandboxed "
            "(the gate then relies on its parser and the post-call check)"
        )
    _leave_for_helper(repo, layers, stamped, abi)
    for grants in layers:  # one layer per run: the kernel allows what every layer allows
        landlock.restrict_writes([(p, r) for p, r, _ in grants.grants], abi)
    return layers, command


def _state_stamp(repo: str | None, slug: str) -> str | None:
    """The state file's stamp before it is read (native.py: grants are left for
    the helper only when the state read is the one stamped)."""
    if repo is None:
        return None
    from zodyssey.core.paths import state_path
    from zodyssey.sandbox.native import _stamp

    return _stamp(state_path(os.path.realpath(repo), slug))


def _stamps(root: str, slug: str, state: "Any", before: str | None) -> "list[str] | None":
    from zodyssey.sandbox.native import inputs

    stamps = inputs(root, slug, state)
    return stamps if before is not None and before == stamps[0] else None


def _leave_for_helper(
    repo: str | None, layers: "list[Any]", stamped: "list[Any]", abi: int
) -> None:
    """Write each run's grants for the native helper (when they changed) and build
    the helper once (zodyssey/sandbox/native.py). Best effort: a failure only
    means the next command starts through this runner again."""
    if repo is None or any(s is None for s in stamped):
        return
    from zodyssey.sandbox import native

    root = os.path.realpath(repo)
    for grants, stamps in zip(layers, stamped, strict=True):
        if os.path.realpath(grants.root) != root:
            return  # found through another root: the helper reads ROOT's state only
        native.write_grants(root, grants.slug, stamps, grants, abi)
    native.build(root)


def main(argv: "list[str]") -> int:
    if "-h" in argv[:1] or "--help" in argv[:1]:
        print(USAGE)
        return 0
    try:
        restricted = _restrict(argv)
    except SandboxRefused as exc:
        sys.stderr.write(f"zodyssey sandbox: {exc}\n")
        return EXIT_SANDBOX
    except OSError as exc:
        sys.stderr.write(f"zodyssey sandbox: cannot sandbox: {exc}\n")
        return EXIT_SANDBOX
    if isinstance(restricted, int):
        return restricted
    layers, command = restricted
    env = dict(os.environ)
    for grants in layers:
        env.update(grants.env)
    env[ENV_MARK] = ",".join(grants.slug for grants in layers)
    try:
        os.execvpe(command[0], command, env)
    except FileNotFoundError:
        sys.stderr.write(f"zodyssey sandbox: {command[0]}: command not found\n")
        return EXIT_NOT_FOUND
    except OSError as exc:
        sys.stderr.write(f"zodyssey sandbox: {command[0]}: {exc.strerror}\n")
        return EXIT_CANNOT_EXEC
    return EXIT_CANNOT_EXEC  # not reached: exec replaced the process
