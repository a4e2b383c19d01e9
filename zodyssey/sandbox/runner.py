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

USAGE = (
    "usage: zodyssey sandbox --run SLUG [--run SLUG...] [--repo DIR] [--explain] -- CMD [ARG...]"
)
EXIT_SANDBOX = 125
EXIT_CANNOT_EXEC = 126
EXIT_NOT_FOUND = 127
ENV_MARK = "ZODYSSEY_SANDBOX"  # set to the slug inside the sandbox


class SandboxRefused(Exception):
    pass


def _parse(argv: "list[str]") -> "tuple[list[str], str | None, bool, list[str]]":
    slugs: list[str] = []
    repo: str | None = None
    explain = False
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            return slugs or [""], repo, explain, argv[i + 1 :]
        if arg in ("--run", "--repo") and i + 1 < len(argv):
            if arg == "--run":
                slugs.append(argv[i + 1])
            else:
                repo = argv[i + 1]
            i += 2
            continue
        if arg.startswith("--run="):
            slugs.append(arg[len("--run=") :])
        elif arg.startswith("--repo="):
            repo = arg[len("--repo=") :]
        elif arg == "--explain":
            explain = True
        else:
            raise SandboxRefused(f"unknown argument {arg!r} ({USAGE})")
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


def main(argv: "list[str]") -> int:
    if "-h" in argv[:1] or "--help" in argv[:1]:
        print(USAGE)
        return 0
    try:
        slugs, repo, explain, command = _parse(list(argv))
        from zodyssey.sandbox import grants as grants_module
        from zodyssey.sandbox import landlock

        layers = []
        for slug in dict.fromkeys(slugs):
            root, state = find_run(slug, repo)
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
        for grants in layers:  # one layer per run: the kernel allows what every layer allows
            landlock.restrict_writes([(p, r) for p, r, _ in grants.grants], abi)
    except SandboxRefused as exc:
        sys.stderr.write(f"zodyssey sandbox: {exc}\n")
        return EXIT_SANDBOX
    except OSError as exc:
        sys.stderr.write(f"zodyssey sandbox: cannot sandbox: {exc}\n")
        return EXIT_SANDBOX
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
