"""Gate wiring: does the committed configuration still run the gate?

A gate can be deleted without touching a line of its code or its tests: the
hook entry dropped from `.claude/settings.json`, its matcher narrowed so shell
or MCP calls skip it, or the recorded hatch `ZODYSSEY_UNGATE_BASH=1` set for
every call in committed configuration. This module is the gate-wiring part of
`zodyssey check`: for every harness the repository declares

    [tool.zodyssey.gate]            # `[gate]` in .zodyssey.toml
    harnesses = ["claude-code", "codex"]

(`zodyssey hook install` adds to the list), the harness's committed
configuration must run the zodyssey pre-tool hook on every tool call, and no
committed configuration may set the hatch.

Never imported by the hook itself (`zodyssey hook pre-tool`): it runs in CI.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zodyssey.core.exits import Exit
from zodyssey.errors import UsageError
from zodyssey.findings import Case, Finding, Report
from zodyssey.gate.harness import DEFAULT, HARNESSES, adapters, get_harness
from zodyssey.gate.install import _is_ours, our_entries

if TYPE_CHECKING:
    from zodyssey.gate.harness import Harness

HATCH = "ZODYSSEY_UNGATE_BASH"

RULES: dict[str, str] = {
    "missing-config": "a declared harness has no configuration file in the repository",
    "not-committed": "the harness configuration exists on disk but is not committed to git",
    "unreadable-config": "the harness configuration does not parse",
    "hook-missing": "the harness configuration does not run the zodyssey pre-tool hook",
    "stop-hook-missing": "the harness reports a background reviewer's verdict only at its end (SubagentStop), and that event does not run the zodyssey hook",
    "hook-not-holding": "the wired hook command does not start here, or starts and does not block a probe write in a run",
    "codex-untrusted": "Codex's own trust records (project and hook) do not let it run the gate here",
    "codex-home-missing": "Codex never started on this machine, so a Codex started here would have no trust records and run no hook",
    "matcher-narrowed": "the hook's matcher lets some tool calls (shell, MCP, ...) skip the gate",
    "event-missing": "a Cursor event that announces tool calls does not run the gate",
    "hooks-disabled": "the configuration switches every hook off",
    "timeout-too-short": "the hook's timeout kills the gate before it can answer",
    "hatch-set": "ZODYSSEY_UNGATE_BASH=1 is set in committed configuration",
    "undeclared": "a harness configuration runs the gate but the harness is not declared",
    "unknown-harness": "the declaration names a harness zodyssey does not know",
    "reviewer-missing": "the reviewer agent's definition zodyssey installs is missing",
    "reviewer-altered": "the reviewer agent's definition differs from the one zodyssey ships",
    "workflow-missing": "a workflow file zodyssey installs (planner, run command, AGENTS.md section) is missing",
    "workflow-altered": "a workflow file zodyssey installed was changed",
}

# Files that may carry the hatch although no harness reads hooks from them.
HATCH_FILES = (".claude/settings.local.json", ".env", ".envrc")

_HATCH_ASSIGNED = re.compile(rf"\b{HATCH}\s*=\s*[\"']?1\b")


@dataclass
class Wiring:
    declared: list[str] = field(default_factory=list)
    source: str | None = None  # where the declaration lives
    findings: list[Finding] = field(default_factory=list)
    checked: dict[str, str] = field(default_factory=dict)  # harness -> file judged
    unreadable: bool = False


def declared_harnesses(root: Path) -> tuple[list[str], str | None]:
    """`[tool.zodyssey.gate] harnesses` of the repository at `root` (exit 2 when malformed)."""
    from zodyssey.config import load_config

    config = load_config(root)
    value = config.section("gate").get("harnesses", [])
    where = config.source.name if config.source else None
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UsageError(f"{where or root}: [gate] `harnesses` must be a list of harness names")
    return list(dict.fromkeys(value)), where


# Findings that leave the gate shut (nothing opens that should not): said, not failed.
_WARNINGS = (
    "undeclared",
    "stop-hook-missing",
    "codex-home-missing",
    "workflow-missing",
    "workflow-altered",
)


def _f(rule: str, message: str, file: str | None, line: int | None = None, **extra: Any) -> Finding:
    severity: Any = "warning" if rule in _WARNINGS else "error"
    return Finding("gate", rule, severity, message, file, line, extra)


def _committed(root: Path, rels: list[str]) -> set[str] | None:
    """Which of `rels` git tracks; None when `root` is not in a git work tree."""
    from zodyssey.git import output

    out = output(root, "ls-files", "--", *rels)
    if out is None:
        return None
    return {line.strip() for line in out.decode("utf-8", "replace").splitlines() if line.strip()}


def _load(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".toml":
        return tomllib.loads(text)
    return json.loads(text or "{}")


def _config_files() -> dict[str, tuple[str, ...]]:
    """Where each registered harness reads its project hooks (the files `hook install` writes)."""
    return {a.name: a.config_files for a in adapters()}


def _owners(rel: str) -> list[str]:
    """The harnesses that read hooks from `rel`, in registry order."""
    return [name for name, rels in _config_files().items() if rel in rels]


def _matches_all(matcher: Any, probe: str, regex: bool) -> bool:
    """Does a harness matcher send the tool `probe` to its hooks?"""
    if matcher is None or matcher == "" or matcher == "*":
        return True
    if not isinstance(matcher, str):
        return False
    if not regex and re.fullmatch(r"[\w|]+", matcher):
        return probe in matcher.split("|")  # a plain list of tool names
    try:
        return re.fullmatch(matcher, probe) is not None
    except re.error:
        return False


def _restore(harness: str) -> str:
    return f"`zodyssey hook install --harness {harness}`"


def _grouped(data: dict[str, Any], harness: Harness, rel: str) -> list[Finding]:
    """`hooks.<event>[{matcher, hooks: [{command}]}]`: ours, over every tool, with time to answer."""
    name = harness.name
    ours = our_entries(data, harness)
    if not ours:
        return [
            _f(
                "hook-missing",
                f"harness {name} does not run the zodyssey pre-tool hook "
                f"(no hooks.{harness.pre_events[0]} entry runs it); restore it with "
                f"{_restore(name)}",
                rel,
                harness=name,
            )
        ]
    findings: list[Finding] = []
    skipped = [
        tool
        for tool in harness.probe_tools
        if not any(_matches_all(o["matcher"], tool, harness.matcher_regex) for o in ours)
    ]
    if skipped:
        matchers = ", ".join(repr(o["matcher"]) for o in ours)
        findings.append(
            _f(
                "matcher-narrowed",
                f"harness {name} runs the gate only for matcher {matchers}; "
                f"these tool calls skip it: {', '.join(skipped)} "
                f"(use the matcher {harness.matcher!r})",
                rel,
                harness=name,
                skipped=skipped,
            )
        )
    findings += _stop_missing(data, harness, rel)
    return findings + _short_timeouts(harness, rel, [o["entry"].get("timeout") for o in ours])


def _stop_missing(data: dict[str, Any], harness: Harness, rel: str) -> list[Finding]:
    """Where the harness reports a background subagent's answer only when it stops
    (Claude Code's SubagentStop), a reviewer run in the background records no verdict
    without that hook: the gate stays shut, a person must decide."""
    stops: tuple[str, ...] = getattr(harness, "stop_events", ())
    if not stops or our_entries(data, harness, "subagent-stop"):
        return []
    return [
        _f(
            "stop-hook-missing",
            f"harness {harness.name} does not run the zodyssey hook on {', '.join(stops)}, "
            "so a reviewer dispatched in the background (Claude Code's default for Agent) "
            "records no verdict and only a person can open the gate; "
            f"{_restore(harness.name)} adds it",
            rel,
            harness=harness.name,
        )
    ]


def _short_timeouts(harness: Harness, rel: str, timeouts: list[Any]) -> list[Finding]:
    minimum, unit = harness.min_timeout, harness.timeout_unit
    if minimum is None:
        return []
    return [
        _f(
            "timeout-too-short",
            f"harness {harness.name} kills the gate after {timeout} {unit} "
            f"(at least {minimum} {unit}); a killed hook does not block",
            rel,
            harness=harness.name,
        )
        for timeout in timeouts
        if isinstance(timeout, int | float) and not isinstance(timeout, bool) and timeout < minimum
    ]


def _flat(data: dict[str, Any], harness: Harness, rel: str) -> list[Finding]:
    """`hooks.<event>[{command}]` (Cursor): ours on every event that announces a tool call."""
    name, events = harness.name, harness.pre_events
    wired = {e["event"] for e in our_entries(data, harness)}
    missing = [event for event in events if event not in wired]
    if len(missing) == len(events):
        return [
            _f(
                "hook-missing",
                f"harness {name} does not run the zodyssey pre-tool hook on any of "
                f"{', '.join(events)}; restore it with {_restore(name)}",
                rel,
                harness=name,
            )
        ]
    return [
        _f(
            "event-missing",
            f"harness {name} does not run the zodyssey pre-tool hook on {event}; calls "
            f"announced there skip the gate ({_restore(name)} restores it)",
            rel,
            harness=name,
            event=event,
        )
        for event in missing
    ]


def _hatches(value: Any, rel: str, harness: str | None = None) -> list[Finding]:
    """Every place a parsed configuration sets the hatch (env maps or command strings)."""
    found: list[str] = []

    def walk(node: Any, path: str) -> None:
        if isinstance(node, dict):
            for key, child in node.items():
                if key == HATCH and str(child).strip().strip("'\"") == "1":
                    found.append(f"{path}.{key}".lstrip("."))
                else:
                    walk(child, f"{path}.{key}")
        elif isinstance(node, list):
            for index, child in enumerate(node):
                walk(child, f"{path}[{index}]")
        elif isinstance(node, str) and _HATCH_ASSIGNED.search(node):
            found.append(path.lstrip(".") or "(value)")

    walk(value, "")
    return [
        _f(
            "hatch-set",
            f"{HATCH}=1 is set in committed configuration ({where})"
            + (f" of harness {harness}" if harness else "")
            + ": every shell call of every run would pass the gate; the hatch is for "
            "one session's environment, never a committed file",
            rel,
            where=where,
            harness=harness,
        )
        for where in found
    ]


def _hatch_in_text(text: str, rel: str) -> list[Finding]:
    return [
        _f(
            "hatch-set",
            f"line {number}: {HATCH}=1 is set in committed configuration: every shell call "
            "of every run would pass the gate",
            rel,
            line=number,
        )
        for number, line in enumerate(text.splitlines(), start=1)
        if _HATCH_ASSIGNED.search(line) and not line.lstrip().startswith("#")
    ]


def _parse_all(root: Path, known: list[str], on_disk: list[str]) -> dict[str, Any]:
    """Every file on disk parsed (a harness configuration), None (a hatch file), or the error."""
    parsed: dict[str, Any] = {}
    for rel in on_disk:
        try:
            parsed[rel] = _load(root / rel) if rel in known else None
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            parsed[rel] = exc
    return parsed


def _mentions_gate(value: Any) -> bool:
    return "zodyssey" in json.dumps(value, default=str)


def _check_declared(
    root: Path, result: Wiring, harness: str, parsed: dict[str, Any], tracked: set[str] | None
) -> None:
    """The findings of one declared harness: its configuration judged, its command probed."""
    rels = _config_files().get(harness)
    if rels is None:
        result.findings.append(
            _f(
                "unknown-harness",
                f"{result.source or 'configuration'}: [gate] harnesses names {harness!r}; "
                f"known: {', '.join(HARNESSES)}",
                result.source,
                harness=harness,
            )
        )
        return
    # Codex reads hooks.json or config.toml: judge the one that wires the gate.
    candidates = [rel for rel in rels if rel in parsed]
    candidates.sort(key=lambda rel: not _mentions_gate(parsed[rel]))
    if not candidates:
        result.findings.append(
            _f(
                "missing-config",
                f"harness {harness} is declared but its configuration file is "
                f"missing, so nothing runs the gate; {_restore(harness)} writes it (commit it)",
                rels[0],
                harness=harness,
            )
        )
        return
    result.findings.extend(_workflow(root, harness))
    rel = candidates[0]
    result.checked[harness] = rel
    judged = _judge(harness, rel, parsed[rel], tracked)
    result.findings.extend(judged)
    if isinstance(parsed[rel], Exception):
        result.unreadable = True
    elif not any(f.rule in ("hook-missing", "hooks-disabled") for f in judged):
        result.findings.extend(_holding(root, harness, rel, parsed[rel]))
        if harness == "codex":
            result.findings.extend(_codex_trust(root, rel, parsed[rel]))


def _workflow(root: Path, harness: str) -> list[Finding]:
    """The installed workflow of a declared harness (zodyssey/workflow/): the reviewer's
    definition is part of the gate (missing, changed or uncommitted: an error), the
    planner, run command and AGENTS.md section are said when missing or changed."""
    from zodyssey import workflow

    found = [
        _f(p.rule, p.message, p.file, harness=harness) for p in workflow.findings(root, harness)
    ]
    reviewer = workflow.reviewer_name(root)
    rels = [
        workflow.expected(item, reviewer)[0]
        for item in workflow.project_files(harness)
        if item.role == "reviewer" and (root / item.dest.format(reviewer=reviewer)).is_file()
    ]
    tracked = _committed(root, rels) if rels else set()
    found += [
        _f(
            "not-committed",
            f"harness {harness}: the reviewer's definition is not committed to git; a fresh "
            "checkout has no reviewer (git add it)",
            rel,
            harness=harness,
        )
        for rel in rels
        if tracked is not None and rel not in tracked
    ]
    return found


def _hatch_findings(
    root: Path, rel: str, value: Any, known: list[str], declared: list[str]
) -> list[Finding]:
    """The hatch set in one committed file (a harness configuration or a hatch file)."""
    if rel in known:
        if isinstance(value, Exception):
            return []
        owners = [h for h in declared if h in _owners(rel)] or _owners(rel)
        return _hatches(value, rel, ", ".join(owners) or None)
    try:
        text = (root / rel).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []
    if rel.endswith(".json"):
        try:
            return _hatches(json.loads(text or "{}"), rel)
        except ValueError:
            pass
    return _hatch_in_text(text, rel)


def _undeclared(parsed: dict[str, Any], declared: list[str]) -> list[Finding]:
    """A configuration running the gate for a harness nobody declared: deleting it would
    go unnoticed. A file read by several harnesses is one finding, for the first."""
    findings = []
    in_order = dict.fromkeys(rel for rels in _config_files().values() for rel in rels)
    for rel in in_order:
        owners, value = _owners(rel), parsed.get(rel)
        if any(o in declared for o in owners):
            continue
        if value is None or isinstance(value, Exception) or not _mentions_gate(value):
            continue
        findings.append(
            _f(
                "undeclared",
                f"this file runs the zodyssey hook but harness {owners[0]} is not declared "
                "in [tool.zodyssey.gate] harnesses, so deleting it would go unnoticed; "
                f"{_restore(owners[0])} declares it",
                rel,
                harness=owners[0],
            )
        )
    return findings


def check_wiring(root: Path) -> Wiring:
    """Every finding of the gate wiring of the repository at `root`."""
    declared, source = declared_harnesses(root)
    result = Wiring(declared=declared, source=source)
    known = sorted({rel for rels in _config_files().values() for rel in rels})
    on_disk = [rel for rel in (*known, *HATCH_FILES) if (root / rel).is_file()]
    tracked = _committed(root, on_disk) if on_disk else set()
    parsed = _parse_all(root, known, on_disk)
    for harness in declared:
        _check_declared(root, result, harness, parsed, tracked)
    # The hatch counts in every committed file, declared harness or not.
    for rel in on_disk:
        if tracked is None or rel in tracked:
            result.findings.extend(_hatch_findings(root, rel, parsed[rel], known, declared))
    result.findings.extend(_undeclared(parsed, declared))
    return result


def _holding(root: Path, harness: str, rel: str, value: Any) -> list[Finding]:
    """Run each wired pre-tool command as the harness would, with a probe (gate/probe.py)."""
    from zodyssey.gate.probe import probe, uncommitted, wired_commands

    findings = []
    unprobed = uncommitted(root, rel)
    for command in wired_commands(harness, value):
        problem = (
            f"it was not run ({unprobed}; only committed wiring is probed)"
            if unprobed
            else probe(root, harness, command)
        )
        if problem is None:
            continue
        shown = command if len(command) <= 160 else command[:157] + "..."
        findings.append(
            _f(
                "hook-not-holding",
                f"harness {harness} runs `{shown}` before each tool call, and {problem}: a "
                "harness that cannot start its hook, or gets no block from it, runs the call; "
                + _holding_fix(harness, command, problem),
                rel,
                harness=harness,
                command=command,
            )
        )
    return findings


def _holding_fix(harness: str, command: str, problem: str) -> str:
    """What makes a hook that does not hold start, for the command as committed.

    A command that `hook install` writes on every machine (`zodyssey hook ...` found
    on PATH, or the project's own interpreter by the project variable) is not fixed
    by running `hook install` again: it writes the same line. What is missing is
    zodyssey where the client runs (issue 36)."""
    from zodyssey.gate.install import PORTABLE, adapter

    words = command.split()
    var = adapter(harness).command_var
    if problem.startswith("it does not start") and words[:2] == [PORTABLE, "hook"]:
        return (
            "install zodyssey where the client runs, on the PATH it gives its hooks "
            "(`python -m pip install zodyssey` into that environment), then check again; "
            f"`zodyssey hook install --harness {harness}` would write this same command"
        )
    if problem.startswith("it does not start") and var and command.startswith(f'"${var}"'):
        return (
            "create the project's virtualenv at the path the command names, with zodyssey "
            "installed in it (the committed command expects it there on every machine), or "
            f"install zodyssey on PATH and run `zodyssey hook install --harness {harness}`"
        )
    return (
        f"`zodyssey hook install --harness {harness}` writes a command that starts on "
        "this machine (commit it)"
    )


def _codex_trust(root: Path, rel: str, value: Any) -> list[Finding]:
    """Codex runs no hook it does not trust (gate/codex_trust.py)."""
    from zodyssey.gate.codex_trust import codex_home, untrusted

    if codex_home() is None:  # said (CI runs no Codex); `run start` refuses on it
        problem = untrusted(root, rel, value, home_required=True)
        return [_f("codex-home-missing", problem or "", rel, harness="codex")]
    problem = untrusted(root, rel, value)
    return [_f("codex-untrusted", problem, rel, harness="codex")] if problem else []


# Findings that do not keep the gate from holding on this machine now.
_NOT_HOLDING_EXEMPT = ("not-committed", "undeclared")


# Warnings of `zodyssey check` that a run started on this machine refuses on.
_HOLDING_WARNINGS = ("codex-home-missing",)


def holding_problems(root: Path, harnesses: list[str] | None = None) -> list[str]:
    """Why the gate would not hold for a run started now (`run start` refuses): every
    error of the wiring check of the declared harnesses but the committing ones, and a
    Codex that never started here. `harnesses`: the ones the person says the run uses
    (`run start --harness`); findings of the others do not count."""
    wiring = check_wiring(root)
    return [
        f"{f.file or '?'}: {f.message}"
        for f in wiring.findings
        if (f.severity == "error" or f.rule in _HOLDING_WARNINGS)
        and f.rule not in _NOT_HOLDING_EXEMPT
        and (harnesses is None or f.extra.get("harness", harnesses[0]) in harnesses)
    ]


def _judge(harness: str, rel: str, value: Any, tracked: set[str] | None) -> list[Finding]:
    findings: list[Finding] = []
    if tracked is not None and rel not in tracked:
        findings.append(
            _f(
                "not-committed",
                f"harness {harness}'s configuration is not committed to git; a "
                "fresh checkout has no gate (git add it)",
                rel,
                harness=harness,
            )
        )
    if isinstance(value, Exception):
        findings.append(
            _f(
                "unreadable-config",
                f"harness {harness}'s configuration does not parse ({value}); a "
                "harness that cannot read it runs no hook",
                rel,
                harness=harness,
            )
        )
        return findings
    if not isinstance(value, dict):
        findings.append(
            _f(
                "unreadable-config",
                f"harness {harness}'s configuration is not a JSON/TOML object",
                rel,
                harness=harness,
            )
        )
        return findings
    if value.get("disableAllHooks") is True:
        findings.append(
            _f(
                "hooks-disabled",
                f"`disableAllHooks: true` switches the gate off for harness {harness}",
                rel,
                harness=harness,
            )
        )
    facts = get_harness(harness)
    findings += _flat(value, facts, rel) if facts.layout == "flat" else _grouped(value, facts, rel)
    return findings


def wiring_report(root: Path) -> tuple[Report, int]:
    """The gate-wiring part of `zodyssey check`: a Report and its exit code.

    0: every declared harness runs the gate on every call and no hatch is set
    (or no harness is declared: nothing to check); 9: problems; 2: the
    declaration is malformed or a harness configuration does not parse.
    """
    wiring = check_wiring(root)
    errors = [f for f in wiring.findings if f.severity == "error"]
    code = Exit.USAGE if wiring.unreadable else Exit.PROBLEMS if errors else Exit.OK
    cases: list[Case] = []
    for harness in wiring.declared:
        problems = [f.message for f in errors if f.extra.get("harness") == harness]
        file = wiring.checked.get(harness, _config_files().get(harness, ("?",))[0])
        cases.append(
            Case(
                name=f"{harness} ({file})",
                classname="zodyssey.gate",
                failure="\n".join(problems) or None,
            )
        )
    for finding in errors:
        if finding.extra.get("harness") not in wiring.declared:
            cases.append(Case(f"{finding.rule} {finding.file}", "zodyssey.gate", finding.message))
    if not wiring.declared:
        detail = "no harness declared ([tool.zodyssey.gate] harnesses); nothing to check"
    else:
        detail = f"{len(wiring.declared)} harness(es) declared ({', '.join(wiring.declared)})"
    summary = f"gate wiring: {detail}; " + (f"{len(errors)} problem(s)" if errors else "ok")
    payload = {
        "tool": "gate",
        "version": 1,
        "ok": code == Exit.OK,
        "exit_code": code,
        "root": str(root),
        "declared": wiring.declared,
        "declared_in": wiring.source,
        "checked": wiring.checked,
        "findings": [f.to_dict() for f in wiring.findings],
    }
    report = Report(
        tool="gate",
        title="zodyssey gate wiring",
        findings=wiring.findings,
        summary=summary,
        payload=payload,
        cases=cases,
        rules=dict(RULES),
    )
    return report, code


# ------------------------------------------------------------------ declaring


def declare_harness(root: Path, harness: str) -> str:
    """Add `harness` to `[tool.zodyssey.gate] harnesses`; returns a line saying what changed.

    Edits the configuration file as text (comments and layout kept) and writes
    it atomically; the result is read back and must hold the new list.
    """
    from zodyssey.core.atomic import write_atomic

    declared, _ = declared_harnesses(root)
    if harness in declared:
        return f"unchanged [gate] harnesses: {harness} already declared"
    wanted = [*declared, harness]
    dedicated, pyproject = root / ".zodyssey.toml", root / "pyproject.toml"
    if dedicated.is_file():
        path = dedicated
        text = path.read_text(encoding="utf-8")
        nested = "[tool.zodyssey" in text
        header = "[tool.zodyssey.gate]" if nested else "[gate]"
    elif pyproject.is_file() and "[tool.zodyssey" in pyproject.read_text(encoding="utf-8"):
        path, header = pyproject, "[tool.zodyssey.gate]"
        text = path.read_text(encoding="utf-8")
    else:
        path, header, text = dedicated, "[gate]", ""
    line = "harnesses = [" + ", ".join(json.dumps(h) for h in wanted) + "]"
    lines = text.split("\n")
    start = next((i for i, raw in enumerate(lines) if raw.strip() == header), None)
    if start is None:
        tail = (
            "" if not text or text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
        )
        new_text = f"{text}{tail}{header}\n{line}\n"
    else:
        end = next(
            (i for i in range(start + 1, len(lines)) if lines[i].lstrip().startswith("[")),
            len(lines),
        )
        at = next(
            (i for i in range(start + 1, end) if re.match(r"\s*harnesses\s*=", lines[i])), None
        )
        if at is None:
            lines.insert(start + 1, line)
        else:
            lines[at] = line
        new_text = "\n".join(lines)
    try:
        parsed: Any = tomllib.loads(new_text)
    except tomllib.TOMLDecodeError:
        parsed = {}
    tool = parsed.get("tool")
    nested_table = tool.get("zodyssey") if isinstance(tool, dict) else None
    table = nested_table if isinstance(nested_table, dict) or path == pyproject else parsed
    gate = table.get("gate") if isinstance(table, dict) else None
    if not isinstance(gate, dict) or gate.get("harnesses") != wanted:
        raise UsageError(
            f"could not record harness {harness} in {path.name} automatically; add "
            f"`{line}` under {header} by hand"
        )
    write_atomic(path, new_text)
    return f"declared in {path.name} {header}: {line}"


def _speaks(command: str) -> str:
    """The harness a hook command answers for: its `--harness NAME`, else the default."""
    words = command.split()
    for index, word in enumerate(words):
        if word == "--harness" and index + 1 < len(words):
            return words[index + 1]
        if word.startswith("--harness="):
            return word.split("=", 1)[1]
    return DEFAULT


def wired_harnesses(root: Path) -> list[str]:
    """Harnesses whose configuration under `root` already runs the zodyssey pre-tool hook.

    A file several harnesses read (`.claude/settings.json`: Claude Code and ZCode)
    counts for the harness each command names with `--harness`."""
    found: list[str] = []
    for harness, rels in _config_files().items():
        for rel in rels:
            path = root / rel
            if not path.is_file():
                continue
            try:
                value = _load(path)
            except (OSError, UnicodeDecodeError, ValueError):
                continue
            commands = [c for c in _commands(value) if _is_ours(c, "pre-tool")]
            if len(_owners(rel)) > 1:
                commands = [c for c in commands if _speaks(c) == harness]
            if commands and harness not in found:
                found.append(harness)
    return found


def _commands(value: Any) -> list[str]:
    if isinstance(value, dict):
        own = [value["command"]] if isinstance(value.get("command"), str) else []
        return own + [c for child in value.values() for c in _commands(child)]
    if isinstance(value, list):
        return [c for child in value for c in _commands(child)]
    return []


def declare_wired(root: Path) -> list[tuple[str, str]]:
    """For `zodyssey init`: declare the harnesses already wired, in `.zodyssey.toml` only.

    Returns (action, note) pairs; a configuration kept in pyproject.toml is not
    edited (init never touches it), the note says what to add instead.
    """
    declared, _ = declared_harnesses(root)
    missing = [h for h in wired_harnesses(root) if h not in declared]
    if not missing:
        return []
    if not (root / ".zodyssey.toml").is_file():
        line = "harnesses = [" + ", ".join(json.dumps(h) for h in [*declared, *missing]) + "]"
        return [
            (
                "skipped",
                f"the gate is wired for {', '.join(missing)}: add `{line}` under "
                "[tool.zodyssey.gate] in pyproject.toml so `zodyssey check` guards it",
            )
        ]
    return [("declared", declare_harness(root, harness)) for harness in missing]
