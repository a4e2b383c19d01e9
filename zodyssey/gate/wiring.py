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
import subprocess
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zodyssey.core.exits import Exit
from zodyssey.errors import UsageError
from zodyssey.findings import Case, Finding, Report

HATCH = "ZODYSSEY_UNGATE_BASH"

RULES: dict[str, str] = {
    "missing-config": "a declared harness has no configuration file in the repository",
    "not-committed": "the harness configuration exists on disk but is not committed to git",
    "unreadable-config": "the harness configuration does not parse",
    "hook-missing": "the harness configuration does not run the zodyssey pre-tool hook",
    "hook-not-holding": "the wired hook command does not start here, or starts and does not block a probe write in a run",
    "matcher-narrowed": "the hook's matcher lets some tool calls (shell, MCP, ...) skip the gate",
    "event-missing": "a Cursor event that announces tool calls does not run the gate",
    "hooks-disabled": "the configuration switches every hook off",
    "timeout-too-short": "the hook's timeout kills the gate before it can answer",
    "hatch-set": "ZODYSSEY_UNGATE_BASH=1 is set in committed configuration",
    "undeclared": "a harness configuration runs the gate but the harness is not declared",
    "unknown-harness": "the declaration names a harness zodyssey does not know",
}

# Where each harness reads its project hooks (the files `hook install` writes).
CONFIG_FILES: dict[str, tuple[str, ...]] = {
    "claude-code": (".claude/settings.json",),
    "zcode": (".claude/settings.json",),
    "codex": (".codex/hooks.json", ".codex/config.toml"),
    "gemini": (".gemini/settings.json",),
    "cursor": (".cursor/hooks.json",),
}
# Files that may carry the hatch although no harness reads hooks from them.
HATCH_FILES = (".claude/settings.local.json", ".env", ".envrc")

# Tool names each harness sends; a matcher must let every one reach the gate.
# The last of each list stands for a tool that does not exist yet.
PROBES: dict[str, tuple[str, ...]] = {
    "claude": (
        "Bash",
        "Edit",
        "Write",
        "MultiEdit",
        "NotebookEdit",
        "Task",
        "Agent",
        "WebFetch",
        "mcp__github__create_or_update_file",
        "mcp__filesystem__write_file",
        "SomeFutureTool",
    ),
    "codex": (
        "Bash",
        "shell",
        "apply_patch",
        "Edit",
        "Write",
        "mcp__fs__write_file",
        "future_tool",
    ),
    "gemini": (
        "run_shell_command",
        "write_file",
        "replace",
        "read_file",
        "mcp__fs__write_file",
        "some_future_tool",
    ),
}
CURSOR_EVENTS = ("beforeShellExecution", "beforeMCPExecution", "preToolUse")
# Gemini counts milliseconds: below this Python has not even started.
GEMINI_MIN_TIMEOUT_MS = 5_000
CLAUDE_MIN_TIMEOUT_S = 5

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


def _f(rule: str, message: str, file: str | None, line: int | None = None, **extra: Any) -> Finding:
    severity: Any = "warning" if rule == "undeclared" else "error"
    return Finding("gate", rule, severity, message, file, line, extra)


def _committed(root: Path, rels: list[str]) -> set[str] | None:
    """Which of `rels` git tracks; None when `root` is not in a git work tree."""
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "ls-files", "--", *rels],
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError:
        return None
    if done.returncode != 0:
        return None
    return {line.strip() for line in done.stdout.splitlines() if line.strip()}


def _load(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".toml":
        return tomllib.loads(text)
    return json.loads(text or "{}")


def _is_ours(command: Any, event: str = "pre-tool") -> bool:
    from zodyssey.gate.install import _is_ours as ours

    return bool(ours(command, event))


def _matches_all(matcher: Any, probe: str, style: str) -> bool:
    """Does a harness matcher send the tool `probe` to its hooks?"""
    if matcher is None or matcher == "" or matcher == "*":
        return True
    if not isinstance(matcher, str):
        return False
    if style == "claude" and re.fullmatch(r"[\w|]+", matcher):
        return probe in matcher.split("|")  # a plain list of tool names
    try:
        return re.fullmatch(matcher, probe) is not None
    except re.error:
        return False


def _grouped(
    data: dict[str, Any], harness: str, rel: str, event_key: str, style: str
) -> list[Finding]:
    """Claude-style `hooks.<event>[{matcher, hooks: [{command}]}]`: ours, over every tool."""
    hooks = data.get("hooks")
    groups = hooks.get(event_key) if isinstance(hooks, dict) else None
    ours: list[dict[str, Any]] = []
    for group in groups if isinstance(groups, list) else []:
        entries = group.get("hooks") if isinstance(group, dict) else None
        for entry in entries if isinstance(entries, list) else []:
            if isinstance(entry, dict) and _is_ours(entry.get("command")):
                ours.append({"matcher": group.get("matcher"), "timeout": entry.get("timeout")})
    if not ours:
        return [
            _f(
                "hook-missing",
                f"harness {harness} does not run the zodyssey pre-tool hook "
                f"(no hooks.{event_key} entry runs it); restore it with "
                f"`zodyssey hook install --harness {harness}`",
                rel,
                harness=harness,
            )
        ]
    findings: list[Finding] = []
    probes = PROBES["gemini" if style == "gemini" else "codex" if harness == "codex" else "claude"]
    skipped = [
        probe for probe in probes if not any(_matches_all(o["matcher"], probe, style) for o in ours)
    ]
    if skipped:
        matchers = ", ".join(repr(o["matcher"]) for o in ours)
        findings.append(
            _f(
                "matcher-narrowed",
                f"harness {harness} runs the gate only for matcher {matchers}; "
                f"these tool calls skip it: {', '.join(skipped)} "
                f"(use the matcher {'.*' if style == 'gemini' else '*'!r})",
                rel,
                harness=harness,
                skipped=skipped,
            )
        )
    minimum, unit = (
        (GEMINI_MIN_TIMEOUT_MS, "ms") if style == "gemini" else (CLAUDE_MIN_TIMEOUT_S, "s")
    )
    for entry in ours:
        timeout = entry["timeout"]
        if isinstance(timeout, int | float) and not isinstance(timeout, bool) and timeout < minimum:
            findings.append(
                _f(
                    "timeout-too-short",
                    f"harness {harness} kills the gate after {timeout} {unit} "
                    f"(at least {minimum} {unit}); a killed hook does not block",
                    rel,
                    harness=harness,
                )
            )
    return findings


def _cursor(data: dict[str, Any], rel: str) -> list[Finding]:
    hooks = data.get("hooks")
    missing: list[str] = []
    for event in CURSOR_EVENTS:
        entries = hooks.get(event) if isinstance(hooks, dict) else None
        if not any(
            isinstance(e, dict) and _is_ours(e.get("command"))
            for e in (entries if isinstance(entries, list) else [])
        ):
            missing.append(event)
    if len(missing) == len(CURSOR_EVENTS):
        return [
            _f(
                "hook-missing",
                "harness cursor does not run the zodyssey pre-tool hook on any of "
                f"{', '.join(CURSOR_EVENTS)}; restore it with "
                "`zodyssey hook install --harness cursor`",
                rel,
                harness="cursor",
            )
        ]
    return [
        _f(
            "event-missing",
            f"harness cursor does not run the zodyssey pre-tool hook on {event}; calls "
            "announced there skip the gate (`zodyssey hook install --harness cursor` "
            "restores it)",
            rel,
            harness="cursor",
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


def check_wiring(root: Path) -> Wiring:
    """Every finding of the gate wiring of the repository at `root`."""
    declared, source = declared_harnesses(root)
    result = Wiring(declared=declared, source=source)
    known_files = sorted({rel for rels in CONFIG_FILES.values() for rel in rels})
    on_disk = [rel for rel in (*known_files, *HATCH_FILES) if (root / rel).is_file()]
    tracked = _committed(root, on_disk) if on_disk else set()
    parsed: dict[str, Any] = {}
    for rel in on_disk:
        try:
            parsed[rel] = _load(root / rel) if rel in known_files else None
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            parsed[rel] = exc
    for harness in declared:
        if harness not in CONFIG_FILES:
            result.findings.append(
                _f(
                    "unknown-harness",
                    f"{source or 'configuration'}: [gate] harnesses names {harness!r}; "
                    f"known: {', '.join(CONFIG_FILES)}",
                    source,
                    harness=harness,
                )
            )
            continue
        candidates = [rel for rel in CONFIG_FILES[harness] if rel in parsed]
        # Codex reads hooks.json or config.toml: judge the one that wires the gate.
        candidates.sort(key=lambda rel: "zodyssey" not in json.dumps(parsed[rel], default=str))
        if not candidates:
            want = CONFIG_FILES[harness][0]
            result.findings.append(
                _f(
                    "missing-config",
                    f"harness {harness} is declared but its configuration file is "
                    f"missing, so nothing runs the gate; `zodyssey hook install --harness "
                    f"{harness}` writes it (commit it)",
                    want,
                    harness=harness,
                )
            )
            continue
        rel = candidates[0]
        result.checked[harness] = rel
        judged = _judge(harness, rel, parsed[rel], tracked)
        result.findings.extend(judged)
        if isinstance(parsed[rel], Exception):
            result.unreadable = True
        elif not any(f.rule in ("hook-missing", "hooks-disabled") for f in judged):
            result.findings.extend(_holding(root, harness, rel, parsed[rel]))
    # The hatch counts in every committed file, declared harness or not.
    for rel in on_disk:
        if tracked is not None and rel not in tracked:
            continue
        value = parsed[rel]
        if rel in known_files:
            if not isinstance(value, Exception):
                owners = [h for h in declared if rel in CONFIG_FILES.get(h, ())]
                owners = owners or [h for h, rels in CONFIG_FILES.items() if rel in rels]
                result.findings.extend(_hatches(value, rel, ", ".join(owners) or None))
        else:
            try:
                text = (root / rel).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            if rel.endswith(".json"):
                try:
                    result.findings.extend(_hatches(json.loads(text or "{}"), rel))
                    continue
                except ValueError:
                    pass
            result.findings.extend(_hatch_in_text(text, rel))
    # A configuration that runs the gate for a harness nobody declared: say so.
    for harness, rels in CONFIG_FILES.items():
        if harness in declared or harness == "zcode":
            continue
        for rel in rels:
            value = parsed.get(rel)
            if value is None or isinstance(value, Exception):
                continue
            if "zodyssey" in json.dumps(value, default=str) and not (
                harness == "claude-code" and "zcode" in declared
            ):
                result.findings.append(
                    _f(
                        "undeclared",
                        f"this file runs the zodyssey hook but harness {harness} is not declared "
                        "in [tool.zodyssey.gate] harnesses, so deleting it would go unnoticed; "
                        f"`zodyssey hook install --harness {harness}` declares it",
                        rel,
                        harness=harness,
                    )
                )
    return result


def _holding(root: Path, harness: str, rel: str, value: Any) -> list[Finding]:
    """Run each wired pre-tool command as the harness would, with a probe (gate/probe.py)."""
    from zodyssey.gate.probe import probe, wired_commands

    findings = []
    for command in wired_commands(harness, value):
        problem = probe(root, harness, command)
        if problem is None:
            continue
        shown = command if len(command) <= 160 else command[:157] + "..."
        findings.append(
            _f(
                "hook-not-holding",
                f"harness {harness} runs `{shown}` before each tool call, and {problem}: a "
                "harness that cannot start its hook, or gets no block from it, runs the call; "
                f"`zodyssey hook install --harness {harness}` writes a command that starts on "
                "this machine (commit it)",
                rel,
                harness=harness,
                command=command,
            )
        )
    return findings


# Findings that do not keep the gate from holding on this machine now.
_NOT_HOLDING_EXEMPT = ("not-committed", "undeclared")


def holding_problems(root: Path) -> list[str]:
    """Why the gate would not hold for a run started now (`run start` refuses): every
    error of the wiring check of the declared harnesses but the committing ones."""
    wiring = check_wiring(root)
    return [
        f"{f.file or '?'}: {f.message}"
        for f in wiring.findings
        if f.severity == "error" and f.rule not in _NOT_HOLDING_EXEMPT
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
    if harness in ("claude-code", "zcode", "codex"):
        findings += _grouped(value, harness, rel, "PreToolUse", "claude")
    elif harness == "gemini":
        findings += _grouped(value, harness, rel, "BeforeTool", "gemini")
    else:
        findings += _cursor(value, rel)
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
        file = wiring.checked.get(harness, CONFIG_FILES.get(harness, ("?",))[0])
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


def wired_harnesses(root: Path) -> list[str]:
    """Harnesses whose configuration under `root` already runs the zodyssey pre-tool hook."""
    found: list[str] = []
    for harness, rels in CONFIG_FILES.items():
        for rel in rels:
            path = root / rel
            if not path.is_file():
                continue
            try:
                value = _load(path)
            except (OSError, UnicodeDecodeError, ValueError):
                continue
            commands = [c for c in _commands(value) if _is_ours(c)]
            if harness == "zcode":
                commands = [c for c in commands if "--harness zcode" in c]
            elif harness == "claude-code":
                commands = [c for c in commands if "--harness" not in c]
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
