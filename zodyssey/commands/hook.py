"""`zodyssey hook`: pre-tool, post-tool (the gate) and install.

`zodyssey hook pre-tool|post-tool` is routed by zodyssey/cli.py straight to
`zodyssey.gate.hook.main` without argparse (it runs on every tool call); the
parser below exists for `--help` and for `install`.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from zodyssey.commands import verbs
from zodyssey.gate.harness import DEFAULT, HARNESSES
from zodyssey.json_out import JSON_HELP, JsonAware

HARNESS_NAMES = tuple(HARNESSES)  # the registry of zodyssey/gate/harness/

DESCRIPTION = """\
Gate hook for coding agents. `pre-tool` reads one hook payload on stdin and
answers in the harness's protocol: silent exit 0 to allow, a block (exit 2 and
a reason) otherwise. Outside an active run it never blocks; inside one it
fails closed. `post-tool` releases the dispatch slot a Task/Agent call took.
`install` merges both into the harness's hook configuration and writes the
zodyssey workflow (reviewer, planner, run command). A run's plan is approved
by the reviewer agent or by a person: `zodyssey run review SLUG --human OKAY
--by NAME`."""

EPILOG = """\
exit codes:
  0   allowed (pre-tool), done (post-tool, install)
  2   blocked (pre-tool, every harness), or bad arguments / unreadable config (install)

environment:
  CLAUDE_PROJECT_DIR, ZCODE_PROJECT_DIR   project directory (else payload cwd, else cwd)
  ZODYSSEY_PARALLEL_CAP                   subagents in flight at most (default 4)
  ZODYSSEY_UNGATE_BASH=1                  let shell calls through, each recorded in
                                          .zcode/state/<slug>.ungated.jsonl

examples:
  zodyssey hook install --harness claude-code
  zodyssey hook install --harness claude-code --json   one JSON object on stdout
  echo '{"tool_name":"Bash","tool_input":{"command":"ls"}}' | zodyssey hook pre-tool
"""


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "hook",
        help="Gate hook for coding agents (pre-tool, post-tool, install).",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = verbs(parser, "hook_command")
    for verb, text in (
        ("pre-tool", "decide one tool call (payload on stdin)"),
        ("post-tool", "release what pre-tool took (payload on stdin)"),
        ("subagent-stop", "a subagent ended: a background reviewer's verdict (payload on stdin)"),
    ):
        p = actions.add_parser(verb, help=text, description=text)
        p.add_argument("--harness", choices=HARNESS_NAMES, default=DEFAULT)
        p.set_defaults(handler=run_hook)
    install = actions.add_parser(
        "install",
        help="merge the hook entries into the harness configuration",
        description=(
            "Merge the gate's pre-tool and post-tool entries into the harness's hook "
            "configuration (the file its module in zodyssey/gate/harness/ names: "
            ".claude/settings.json, .codex/hooks.json, .gemini/settings.json or "
            ".cursor/hooks.json under the project), keeping every other hook, and "
            "declare the harness in [tool.zodyssey.gate] harnesses so `zodyssey check` "
            "fails when the wiring is deleted later. The written command names no path "
            "of this machine, so the committed file works on a teammate's checkout: "
            "with this interpreter and zodyssey inside the project, "
            '`"$CLAUDE_PROJECT_DIR"/.venv/bin/python -S -P "$CLAUDE_PROJECT_DIR"/.../'
            "hook_entry.py pre-tool` (relative to the harness's project variable; Claude "
            "Code, ZCode, Gemini CLI); otherwise `zodyssey hook pre-tool`, found on the "
            "PATH of each machine. Besides the hooks it writes the harness's zodyssey "
            "workflow (zodyssey/workflow/): the reviewer agent (momus), a planner and the "
            "run command or skill (`/zodyssey-run <task>`: plan, lint, review, execute "
            "within scope, verify); the reviewer's definition is part of the gate, "
            "checked by `zodyssey check`. A plan is approved by that reviewer (Claude "
            "Code, Gemini CLI) or by a person in their own terminal on every "
            "harness (`zodyssey run review SLUG --human OKAY|REJECT --by NAME`). "
            "Idempotent; prints what changed."
        ),
    )
    install.add_argument("--harness", choices=HARNESS_NAMES, default=DEFAULT)
    install.add_argument("--project", default=".", help="project directory (default: .)")
    install.add_argument(
        "--command",
        dest="base_command",
        default=None,
        help=(
            "command that runs zodyssey, written as `COMMAND hook pre-tool|post-tool` "
            "(default: the project's own interpreter running zodyssey's gate/hook_entry.py "
            "script relative to the project variable, else `zodyssey` from PATH)"
        ),
    )
    install.add_argument("--dry-run", action="store_true", help="print the changes, write nothing")
    install.add_argument(
        "--json",
        action="store_true",
        help=JSON_HELP.format(extra=", harness, project, dry_run"),
    )
    install.set_defaults(handler=JsonAware("hook install", run_install, _install_details))


def run_hook(args: argparse.Namespace) -> int:
    from zodyssey.gate.hook import main

    return main([args.hook_command, "--harness", args.harness])


def _install_details(args: argparse.Namespace, document: dict[str, Any]) -> dict[str, Any]:
    return {"harness": args.harness, "project": args.project, "dry_run": bool(args.dry_run)}


def run_install(args: argparse.Namespace) -> int:
    from zodyssey import workflow
    from zodyssey.gate.install import explain_command, install

    project = Path(args.project)
    if project.is_dir():  # a reviewer file that is not ours refuses before anything is written
        workflow.install(project, args.harness, dry_run=True)
    path, changes = install(project, args.harness, args.base_command, args.dry_run)
    for line in changes:
        print(f"{path}: {line}")
    print(explain_command(changes, args.harness))
    for line in workflow.install(project, args.harness, args.dry_run):
        print(line)
    note = workflow.install_note(args.harness)
    if note:
        print(note)
    if args.dry_run:
        print("(dry run: nothing written)")
        return 0
    # Declared harnesses are what `zodyssey check` holds to running the gate.
    from zodyssey.gate.wiring import declare_harness

    print(declare_harness(project, args.harness))
    return 0
