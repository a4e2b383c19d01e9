"""`zodyssey run ...`: the trusted writers of run state and evidence.

Subcommands live in their own modules and are imported when they run, so
`zodyssey --help` does not pay for pydantic or GitPython.
"""

from __future__ import annotations

import argparse
from typing import Any

from zodyssey import docs_url
from zodyssey.commands import lazy, verbs
from zodyssey.core.exits import Exit
from zodyssey.core.vocabulary import PHASES, TODO_STATUSES
from zodyssey.gate.harness import HARNESSES
from zodyssey.json_out import JsonAware

EPILOG = f"""\
exit codes:
  0   done (verify: every criterion and blocking check passed; window: read-only and auditor exit 0)
  1   verify: a criterion or a blocking quality check failed; window: violated, unknown or auditor failed
  2   bad arguments, unreadable plan, state, artifact or configuration
  6   plan lint problems (one line each; also an OKAY refused for lint)
  10  refused: the criterion's last failure was on a byte-identical work tree
  11  refused by the run state (no OKAY, missing evidence, a verdict from a file,
      active run exists, terminal phase, failing blocking checks at done)

examples:
  zodyssey run start add-healthz --plan plan.md
  zodyssey run lint add-healthz
  zodyssey run review add-healthz --human OKAY --by alice --comment "scope is fine"
  zodyssey run verify add-healthz 1
  zodyssey run todo add-healthz 1 done
  zodyssey run window add-healthz --label external-audit -- codex exec "audit the run"
  zodyssey run phase add-healthz done
  zodyssey run status add-healthz --json
  zodyssey run verify add-healthz 1 --json  one JSON object: exit_code, messages, run
  zodyssey run list

formats and rules: {docs_url("runs.md")}
"""

REVIEW_DESCRIPTION = """\
Record a person's review verdict for the run's next review round.

Where a verdict comes from:
  reviewer agent  The gate records it, never this command. When the orchestrator
                  dispatches the reviewer (reviewer_agent, default momus), the
                  gate's pre-tool hook notes the dispatch (a digest of the
                  harness's call id; nothing the agent could replay). When the
                  harness reports that dispatch back to the post-tool hook
                  (Claude Code and ZCode: PostToolUse of the Agent/Task call,
                  matched by tool_use_id; Gemini CLI: AfterTool of invoke_agent),
                  the reviewer's final answer, with exactly one
                  `VERDICT: OKAY|REJECT` line (or JSON {"verdict": ...}), is the
                  round's verdict. An OKAY on a plan that fails lint or changed
                  since the dispatch is recorded as REJECT.
  a person        --human OKAY|REJECT --by NAME, in their own terminal (the gate
                  blocks every `run review` form from the agent's shell). On a
                  harness that identifies no agents (Cursor, Codex) this is the
                  only way a run gets a verdict.
  a file          never: --artifact is refused (exit 11).
"""

# Verbs whose --json is one object of the shape zodyssey/json_out.py states
# (`status` and `list` have their own documents).
JSON_VERBS = ("start", "lint", "review", "verify", "todo", "phase")

# subcommand -> (module, handler); each handler takes the parsed arguments
HANDLERS: dict[str, tuple[str, str]] = {
    "start": ("zodyssey.runs.lifecycle", "cmd_start"),
    "lint": ("zodyssey.commands.run", "cmd_lint"),
    "review": ("zodyssey.runs.review", "cmd_review"),
    "verify": ("zodyssey.runs.verification", "cmd_verify"),
    "todo": ("zodyssey.runs.lifecycle", "cmd_todo"),
    "window": ("zodyssey.runs.window", "cmd_window"),
    "phase": ("zodyssey.runs.lifecycle", "cmd_phase"),
    "status": ("zodyssey.runs.lifecycle", "cmd_status"),
    "list": ("zodyssey.runs.lifecycle", "cmd_list"),
}


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "run",
        help="Trusted writers of run state and evidence.",
        description=(
            "Create and advance a run, record review verdicts, execute acceptance criteria "
            "from the plan as hash-chained evidence, and run auditors in read-only windows. "
            "These commands are the only writers of .zcode/state."
        ),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--repo", metavar="DIR", help="repository root (default: cwd)")
    common.add_argument("slug", metavar="SLUG", help="run name: [a-z0-9][a-z0-9-]*")
    actions = verbs(parser, "run_command", "SUBCOMMAND")

    def add(name: str, help_text: str) -> argparse.ArgumentParser:
        return actions.add_parser(
            name,
            parents=[common],
            help=help_text,
            description=help_text,
            epilog=EPILOG,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )

    start = add(
        "start",
        "Create the run state (phase plan) and its plan. The plan is approved in one of two "
        "ways: by the reviewer agent (reviewer_agent, default momus), whose verdict the gate "
        "takes from the harness's report of its dispatch, or by a person in their own "
        "terminal (`zodyssey run review SLUG --human OKAY|REJECT --by NAME`); start says "
        "which holds on the harnesses this repository declares.",
    )
    start.add_argument("--title", help="run title (default: the plan's title or the slug)")
    start.add_argument("--plan", metavar="FILE", help="copy this plan (default: a template)")
    start.add_argument("--max-rounds", type=int, help="review rounds before blocking (default 3)")
    start.add_argument(
        "--harness",
        action="append",
        choices=tuple(HARNESSES),
        metavar="NAME",
        help="a harness this run uses (repeat for each): only their wiring must hold "
        "(default: every declared harness)",
    )

    add("lint", "Lint the plan; exit 6 with one line per problem.")

    review = actions.add_parser(
        "review",
        parents=[common],
        help="Record a person's review verdict (a reviewer agent's is recorded by the gate).",
        description=REVIEW_DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    review.add_argument(
        "--artifact",
        metavar="FILE",
        help="refused (exit 11): a verdict is never taken from a file the agent could write",
    )
    review.add_argument("--human", choices=("OKAY", "REJECT"), help="a person's verdict")
    review.add_argument("--by", metavar="NAME", help="who decided (with --human)")
    review.add_argument("--comment", metavar="C", help="why (with --human)")

    verify = add("verify", "Execute a todo's acceptance criteria from the plan, then the checks.")
    verify.add_argument("todo", metavar="TODO", help="todo id as in the plan (1, 2, F1)")
    verify.add_argument("--criterion", type=int, metavar="N", help="only criterion N (1-based)")
    verify.add_argument("--timeout", type=float, metavar="S", help="per command (default 600)")

    todo = add("todo", "Set a todo's status; done needs passing evidence for every criterion.")
    todo.add_argument("todo", metavar="TODO")
    todo.add_argument("status", choices=TODO_STATUSES)
    todo.add_argument("--force-done", action="store_true", help="done without full evidence")
    todo.add_argument("--reason", help="why (required with --force-done)")
    todo.add_argument("--owner", help="agent/session taking the todo (with in_flight)")

    # argparse cannot put options between a positional and a REMAINDER, so the window's
    # own arguments are parsed from `rest` by zodyssey.runs.window.split_window_args.
    window = actions.add_parser(
        "window",
        help="Run an auditor command in a read-only window.",
        description="Run an auditor command in a read-only window.",
        usage="zodyssey run window [--repo DIR] SLUG --label L [--timeout S] -- CMD...",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    window.add_argument("--repo", metavar="DIR", help="repository root (default: cwd)")
    window.add_argument("--label", help="what this window is (e.g. final-audit)")
    window.add_argument("--timeout", type=float, metavar="S", help="auditor timeout (default 600)")
    window.add_argument("rest", nargs=argparse.REMAINDER, metavar="SLUG ... -- CMD...")

    phase = add("phase", "Move the run to another phase (with preconditions).")
    phase.add_argument("phase", choices=PHASES)
    phase.add_argument("--note", help="recorded with the transition")
    phase.add_argument("--reason", help="why (required for abandoned, blocked and --force)")
    phase.add_argument("--force", action="store_true", help="override done's preconditions")

    status = add("status", "Where the run stands.")
    status.add_argument("--json", action="store_true", help="machine-readable")

    listing = actions.add_parser(
        "list",
        help="The runs that gate this repository (slug, phase, verdict, round, age).",
        description=(
            "List the active runs: every one of them gates the agent's tool calls, "
            "`blocked` ones included. Exit 2 when a state file cannot be read (the gate "
            "treats it as active)."
        ),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    listing.add_argument("--repo", metavar="DIR", help="repository root (default: cwd)")
    listing.add_argument("--all", action="store_true", help="finished runs too")
    listing.add_argument("--json", action="store_true", help="machine-readable")
    from zodyssey.json_out import JSON_HELP

    for name in JSON_VERBS:
        actions.choices[name].add_argument(
            "--json", action="store_true", help=JSON_HELP.format(extra=", slug, run")
        )
    for name, choice in actions.choices.items():
        handler = lazy(*HANDLERS[name])
        if name in JSON_VERBS:
            handler = JsonAware(f"run {name}", handler, ("zodyssey.runs.lifecycle", "json_details"))
        choice.set_defaults(handler=handler)


def cmd_lint(args: argparse.Namespace) -> int:
    from zodyssey.runs.checks import load_checks, test_command
    from zodyssey.runs.context import RunContext
    from zodyssey.runs.lint import lint_plan

    ctx = RunContext.open(args.repo, args.slug)
    loaded = ctx.load_plan(ctx.state())
    problems = lint_plan(loaded.plan, test_command(load_checks(ctx.root)))
    for problem in problems:
        print(f"{loaded.path}: {problem.render()}")
    if problems:
        return Exit.LINT
    todos = [t for t in loaded.plan.todos if not t.final]
    criteria = sum(len(t.criteria) for t in loaded.plan.todos)
    print(f"plan ok: {len(todos)} todos, {criteria} acceptance criteria")
    return 0
