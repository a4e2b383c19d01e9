"""`zodyssey hook install`: merge the gate's hook entries into a harness's config.

The merge is idempotent and keeps every hook the user already has: an entry
is ours when its command runs `zodyssey ... hook EVENT`, `python -m
zodyssey.gate EVENT` or `.../zodyssey/gate/hook_entry.py EVENT` (EVENT:
pre-tool, post-tool, or subagent-stop where the harness reports a subagent's
end); ours are updated in place, nothing else is touched. The file is
rewritten atomically.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zodyssey.core.atomic import write_atomic
from zodyssey.errors import UsageError
from zodyssey.gate.harness import DEFAULT, HARNESSES, get_harness

if TYPE_CHECKING:
    from zodyssey.gate.harness import Harness

ENTRY_SCRIPT = "hook_entry.py"


def entry_script() -> Path:
    """The installed `zodyssey/gate/hook_entry.py` (in site-packages, or the editable tree)."""
    return Path(__file__).resolve().with_name(ENTRY_SCRIPT)


def adapter(harness: str) -> Harness:
    """The registered harness `harness`, or one clear error naming the known ones."""
    try:
        return get_harness(harness)
    except KeyError:
        raise UsageError(
            f"unknown harness {harness!r}; choose one of: {', '.join(HARNESSES)}"
        ) from None


# The committed command where no project-relative form starts the gate: the
# `zodyssey` on the PATH the harness gives its hooks, found on each machine.
PORTABLE = "zodyssey"


def _relative(path: str, project: Path) -> str | None:
    """`path` relative to `project` (leading `/`), or None when it lies outside."""
    root = str(project.resolve())
    absolute = str(Path(path).absolute())
    return absolute[len(root) :] if absolute.startswith(root + "/") else None


def _direct(event: str, var: str | None, project: Path | None) -> str | None:
    """This interpreter running the hook script, as the committed file may name it:
    absolute without `project`; with it, relative to the harness's project variable
    (None when the harness expands none, or the interpreter or script is outside)."""
    # The script file, not `-m zodyssey.gate`: no CLI front end and no `runpy`
    # on every tool call; `-P` keeps the script's directory off sys.path,
    # `-S` skips `site` (hook_entry.py sets the path it needs, or runs site).
    # Same behaviour as `zodyssey hook`.
    python, script = sys.executable, str(entry_script())
    if project is None:
        return f"{shlex.quote(python)} -S -P {shlex.quote(script)} {event}"
    inside = [_relative(python, project), _relative(script, project)]
    if not var or None in inside:
        return None
    shown = [f'"${var}"' + shlex.quote(str(rel)) for rel in inside]
    return f"{shown[0]} -S -P {shown[1]} {event}"


def hook_command(
    event: str, harness: str, base: str | None = None, project: Path | None = None
) -> str:
    """The command line the harness runs.

    Without `project`: this interpreter running the hook script, by absolute
    paths (what tests and benchmarks start directly). With `project` (what
    `hook install` commits) the command names no path of this machine: the
    interpreter and script relative to the harness's project variable
    (`command_var`) when both are inside the project, else `zodyssey` found on
    PATH. `base` (`--command`) is written as given.
    """
    command = None if base else _direct(event, adapter(harness).command_var, project)
    if command is None:
        command = f"{base or PORTABLE} hook {event}"
    if harness != DEFAULT:
        command += f" --harness {harness}"
    return command


def _is_ours(command: Any, event: str) -> bool:
    return isinstance(command, str) and (
        ("zodyssey" in command and f"hook {event}" in command)
        or f"zodyssey.gate {event}" in command
        or ("zodyssey" in command and f"{ENTRY_SCRIPT} {event}" in command)
    )


def _read(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        value = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {path}: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise UsageError(
            f"{path} is not valid JSON (line {exc.lineno}: {exc.msg}); fix it first"
        ) from exc
    if not isinstance(value, dict):
        raise UsageError(f"{path} does not hold a JSON object")
    return value


def _merge_grouped(
    hooks: dict[str, Any],
    event_key: str,
    matcher: str,
    command: str,
    event: str,
    extra: dict[str, Any],
    changes: list[str],
) -> None:
    """Claude-style `{event: [{matcher, hooks: [{type, command, ...}]}]}`."""
    groups = hooks.setdefault(event_key, [])
    if not isinstance(groups, list):
        raise UsageError(f"hooks.{event_key} is not a list")
    wanted = {"type": "command", "command": command, **extra}
    for group in groups:
        if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
            continue
        for index, entry in enumerate(group["hooks"]):
            if isinstance(entry, dict) and _is_ours(entry.get("command"), event):
                if entry == wanted and group.get("matcher") == matcher:
                    changes.append(f"unchanged {event_key}: {command}")
                else:
                    group["hooks"][index] = wanted
                    group["matcher"] = matcher
                    changes.append(f"updated {event_key}: {command}")
                return
    groups.append({"matcher": matcher, "hooks": [wanted]})
    changes.append(f"added {event_key} (matcher {matcher!r}): {command}")


def _merge_flat(
    hooks: dict[str, Any], event_key: str, command: str, event: str, changes: list[str]
) -> None:
    """Cursor-style `{event: [{command}]}`."""
    entries = hooks.setdefault(event_key, [])
    if not isinstance(entries, list):
        raise UsageError(f"hooks.{event_key} is not a list")
    for index, entry in enumerate(entries):
        if isinstance(entry, dict) and _is_ours(entry.get("command"), event):
            if entry == {"command": command}:
                changes.append(f"unchanged {event_key}: {command}")
            else:
                entries[index] = {"command": command}
                changes.append(f"updated {event_key}: {command}")
            return
    entries.append({"command": command})
    changes.append(f"added {event_key}: {command}")


def entries(value: Any, harness: Harness, events: tuple[str, ...]) -> list[dict[str, Any]]:
    """Every hook entry of a parsed configuration under `events`, in the harness's
    layout; each as {"event", "matcher", "entry"} ("matcher" None in a flat layout)."""
    hooks = value.get("hooks") if isinstance(value, dict) else None
    out: list[dict[str, Any]] = []
    for event_key in events:
        items = hooks.get(event_key) if isinstance(hooks, dict) else None
        for item in items if isinstance(items, list) else []:
            matcher, found = _group(item, harness.layout)
            out.extend(
                {"event": event_key, "matcher": matcher, "entry": entry}
                for entry in found
                if isinstance(entry, dict)
            )
    return out


def _group(item: Any, layout: str) -> tuple[Any, list[Any]]:
    """(matcher, hook entries) of one item under an event: a flat layout's item is
    itself the entry (no matcher); a grouped one's is `{matcher, hooks: [...]}`."""
    if layout == "flat":
        return None, [item]
    if isinstance(item, dict) and isinstance(item.get("hooks"), list):
        return item.get("matcher"), item["hooks"]
    return None, []


def _events(harness: Harness) -> dict[str, tuple[str, ...]]:
    """The hook's events (`zodyssey hook EVENT`) and the harness's names for each:
    pre-tool, post-tool, and where the harness reports a subagent's end
    (`stop_events`, Claude Code's SubagentStop) subagent-stop."""
    events = {"pre-tool": harness.pre_events, "post-tool": harness.post_events}
    stops: tuple[str, ...] = getattr(harness, "stop_events", ())
    if stops:
        events["subagent-stop"] = stops
    return events


def our_entries(value: Any, harness: Harness, event: str = "pre-tool") -> list[dict[str, Any]]:
    """The entries of `entries` that run the zodyssey hook for `event`."""
    events = _events(harness).get(event, ())
    return [
        e for e in entries(value, harness, events) if _is_ours(e["entry"].get("command"), event)
    ]


def _merge(
    hooks: dict[str, Any],
    facts: Harness,
    event_key: str,
    command: str,
    event: str,
    changes: list[str],
) -> None:
    """One event's entry merged in the harness's layout."""
    if facts.layout == "flat":
        _merge_flat(hooks, event_key, command, event, changes)
        return
    extra = {"timeout": facts.timeout} if facts.timeout is not None else {}
    _merge_grouped(hooks, event_key, facts.matcher or "*", command, event, extra, changes)


def install(
    project: Path, harness: str, base: str | None = None, dry_run: bool = False
) -> tuple[Path, list[str]]:
    """Merge the hook entries; returns the config path and one line per change."""
    facts = adapter(harness)
    if not project.is_dir():
        raise UsageError(f"project directory {project} does not exist")
    path = project / facts.config_files[0]
    config = _read(path)
    hooks = config.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise UsageError(f"{path}: `hooks` is not an object")
    for key, default in facts.config_defaults:
        config.setdefault(key, default)
    changes: list[str] = []
    for event, keys in _events(facts).items():
        command = hook_command(event, harness, base, project)
        for event_key in keys:
            _merge(hooks, facts, event_key, command, event, changes)
    if not dry_run and any(not line.startswith("unchanged") for line in changes):
        write_atomic(path, json.dumps(config, indent=2, ensure_ascii=False) + "\n")
    if harness == "claude-code" and not dry_run:  # shell calls of a run in the sandbox
        from zodyssey.sandbox.shell_prefix import configure

        changes += configure(str(project))
    return path, changes


def explain_command(changes: list[str], harness: str) -> str:
    """What the written command depends on (printed by `hook install`)."""
    text = " ".join(changes)
    var = adapter(harness).command_var
    if var and f"${var}" in text:
        return (
            f"the command names the interpreter and hook script relative to ${var}: it "
            "names no path of this machine and keeps working when the checkout moves, on "
            "every machine whose checkout has the same interpreter there. Where it cannot "
            "start, `zodyssey check` fails (hook-not-holding) and `zodyssey run start` refuses."
        )
    if f"{PORTABLE} hook " not in text:
        return "the command is written as given by --command."
    import shutil

    found = shutil.which(PORTABLE)
    here = (
        f"here that is {found}"
        if found
        else "on this machine none is on PATH now, so the hook does not start here yet"
    )
    return (
        f"the command runs `{PORTABLE}` found on the PATH the harness gives its hooks "
        f"({here}): the committed file names no path of this machine; each machine needs "
        "zodyssey installed on its PATH (a virtualenv inside the project is written "
        "relative to the project instead, where the harness sets a project variable). "
        "Where it cannot start, `zodyssey check` fails (hook-not-holding) and "
        "`zodyssey run start` refuses."
    )
