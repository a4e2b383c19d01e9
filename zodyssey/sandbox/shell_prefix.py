"""Claude Code's shell prefix: every shell call of a run inside the sandbox, no new prompt.

Claude Code runs each Bash call as `PREFIX 'SCRIPT'` when
`CLAUDE_CODE_SHELL_PREFIX` names a program (SCRIPT: its own shell script
around the command, `... && eval 'COMMAND' && pwd -P >| .../claude-XXXX-cwd`);
it decides permissions, and prompts, on the command as the agent wrote it. So
a prefix contains every shell call, reads included, in every permission mode,
without the rewritten command that `updatedInput` needs (which Claude Code
judges, and shows in any prompt, in place of the agent's).

`zodyssey hook install --harness claude-code` writes the prefix program for
the repository next to the interpreter (`bin/zodyssey-shell-<digest of the
root>`, outside every tree the sandbox grants) and names it in
`.claude/settings.local.json` (`env`, this machine's, not committed). The
program is a short `sh` script:

* a hook (Claude Code runs its hooks through the prefix too; they carry
  `CLAUDE_PROJECT_DIR` and no `CLAUDE_CODE_EXECPATH`, which only a Bash call
  has) or a repository without `.zcode/state`: the script as it is, with no
  Python started;
* otherwise `hook_entry.py shell-prefix ROOT SCRIPT` (`main`): the active runs
  of ROOT whose start recorded Landlock, and when there are some,
  `zodyssey sandbox --run ... --repo ROOT -- SHELL -c SCRIPT`, else the
  script as it is. The one exception is the trusted form the hook also leaves
  unwrapped (`zodyssey run start|verify|todo|phase ...` exactly, `wrap.py`),
  read back from the script's `eval WORD` (any other shape of script is
  contained). With the hatch set (`ZODYSSEY_UNGATE_BASH=1`) the script
  runs as it is, as the hook lets the call through.

The hook sees the prefix in its own environment (the harness's) and then
rewrites nothing (`active`). Lean: no typing, no json.
"""

import os
import sys

from zodyssey.core.paths import shell_prefix_program as program

ENV = "CLAUDE_CODE_SHELL_PREFIX"


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


def script_text(root: str) -> str:
    from zodyssey.sandbox.wrap import ENTRY

    real = os.path.realpath(root)
    return (
        "#!/bin/sh\n"
        "# zodyssey's CLAUDE_CODE_SHELL_PREFIX for one repository (written by `zodyssey hook\n"
        "# install`): every Bash call of a run there runs in the run's write sandbox.\n"
        f"root={_quote(real)}\n"
        'if [ -n "${CLAUDE_PROJECT_DIR-}" ] && [ -z "${CLAUDE_CODE_EXECPATH-}" ]; then\n'
        '    exec /bin/sh -c "$1"  # a hook\n'
        "fi\n"
        'if [ ! -d "$root/.zcode/state" ] || [ "${ZODYSSEY_UNGATE_BASH-}" = 1 ]; then\n'
        '    exec "${SHELL:-/bin/bash}" -c "$1"\n'
        "fi\n"
        f'exec {_quote(sys.executable)} -S -P {_quote(ENTRY)} shell-prefix "$root" "$1"\n'
    )


def install(root: str) -> str:
    """Write the prefix program of `root` (atomically, mode 755); its path."""
    path = program(root)
    text = script_text(root)
    try:
        with open(path, encoding="utf-8") as handle:
            if handle.read() == text:
                return path
    except OSError:
        pass
    temp = f"{path}.{os.getpid()}.tmp"
    with open(temp, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.chmod(temp, 0o755)
    os.replace(temp, path)
    return path


def active(root: str) -> bool:
    """True when the harness runs shell calls through the prefix program of `root`."""
    value = os.environ.get(ENV)
    return bool(value) and value == program(root) and os.access(value, os.X_OK)


def agent_command(script: str) -> "str | None":
    """The agent's command inside Claude Code's script (`... && eval WORD < /dev/null &&
    pwd -P >| FILE`), WORD being one shell word; None for any other shape."""
    start = script.find(" && eval ")
    end = script.rfind(" < /dev/null && pwd -P >| ")
    if start < 0 or end <= start:
        return None
    import shlex

    try:
        words = shlex.split(script[start + len(" && eval ") : end])
    except ValueError:
        return None
    return words[0] if len(words) == 1 else None


def _trusted(script: str) -> bool:
    """The call is exactly the trusted `zodyssey run ...` form (sandbox/wrap.py), which
    writes run state and sandboxes what it runs itself: it runs as it is, as the hook
    leaves it unwrapped. Any other shape is contained."""
    command = agent_command(script)
    if command is None or "zodyssey" not in command:
        return False
    from zodyssey.sandbox.wrap import trusted_form

    return trusted_form(command)


def main(argv: "list[str]") -> int:
    """`shell-prefix ROOT SCRIPT`: SCRIPT in the sandbox of ROOT's Landlocked runs."""
    if len(argv) != 2:
        sys.stderr.write("usage: hook_entry.py shell-prefix ROOT SCRIPT\n")
        return 125
    root, script = argv
    shell = os.environ.get("SHELL") or "/bin/bash"
    from pathlib import Path

    from zodyssey.sandbox.contain import landlocked_runs

    slugs = landlocked_runs(Path(root))
    if not slugs or _trusted(script):
        os.execv(shell, [shell, "-c", script])
    from zodyssey.sandbox.runner import main as sandbox

    args = []
    for slug in slugs:
        args += ["--run", slug]
    return sandbox([*args, "--repo", root, "--", shell, "-c", script])


def configure(project: str) -> "list[str]":
    """Write the prefix program of `project` and name it in the project's
    `.claude/settings.local.json` (`env`); one line per change, for `hook install`."""
    import json

    from zodyssey.core.atomic import write_atomic

    path = install(project)
    settings = os.path.join(project, ".claude", "settings.local.json")
    try:
        with open(settings, encoding="utf-8") as handle:
            config = json.loads(handle.read() or "{}")
    except FileNotFoundError:
        config = {}
    except ValueError:
        return [f"not changed {settings}: it is not valid JSON (CLAUDE_CODE_SHELL_PREFIX unset)"]
    env = config.setdefault("env", {}) if isinstance(config, dict) else None
    if not isinstance(env, dict):
        return [f"not changed {settings}: `env` is not an object (CLAUDE_CODE_SHELL_PREFIX unset)"]
    if env.get(ENV) == path:
        return [f"unchanged {settings} env {ENV}"]
    env[ENV] = path
    from pathlib import Path

    write_atomic(Path(settings), json.dumps(config, indent=2) + "\n")
    _exclude(project, ".claude/settings.local.json")
    return [f"set {settings} env {ENV}={path} (this machine's: not committed)"]


def _exclude(project: str, rel: str) -> None:
    """Keep `rel` out of commits (`.git/info/exclude`, as Claude Code does for it)."""
    info = os.path.join(project, ".git", "info")
    if not os.path.isdir(os.path.join(project, ".git")):
        return
    path = os.path.join(info, "exclude")
    try:
        with open(path, encoding="utf-8") as handle:
            if any(line.strip() in (rel, "/" + rel) for line in handle):
                return
    except FileNotFoundError:
        pass
    os.makedirs(info, exist_ok=True)
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(f"/{rel}\n")


def configured(project: str) -> bool:
    """Whether `hook install` set this repository's prefix for Claude Code on this
    machine (`.claude/settings.local.json` names the program, and it exists)."""
    import json

    try:
        with open(os.path.join(project, ".claude", "settings.local.json"), encoding="utf-8") as f:
            config = json.loads(f.read() or "{}")
    except (OSError, ValueError):
        return False
    env = config.get("env") if isinstance(config, dict) else None
    path = program(project)
    return isinstance(env, dict) and env.get(ENV) == path and os.access(path, os.X_OK)
