"""`zodyssey hook install`: merge the gate's hook entries into a harness's config.

The merge is idempotent and keeps every hook the user already has: an entry
is ours when its command runs `zodyssey ... hook pre-tool|post-tool`,
`python -m zodyssey.gate pre-tool|post-tool` or `.../zodyssey/gate/hook_entry.py
pre-tool|post-tool`; ours are updated in place, nothing else is touched. The file is rewritten atomically.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

from zodyssey.core.atomic import write_atomic
from zodyssey.errors import UsageError

CLAUDE_TIMEOUT_SECONDS = 30
GEMINI_TIMEOUT_MS = 30_000


ENTRY_SCRIPT = "hook_entry.py"


def entry_script() -> Path:
    """The installed `zodyssey/gate/hook_entry.py` (in site-packages, or the editable tree)."""
    return Path(__file__).resolve().with_name(ENTRY_SCRIPT)


# Harnesses that set CLAUDE_PROJECT_DIR for hook commands (and expand it in them).
PROJECT_RELATIVE = ("claude-code", "zcode")


def _shown(path: str, project: Path | None) -> str:
    """`path` quoted for the shell; inside the project as `"$CLAUDE_PROJECT_DIR"/rel`."""
    if project is not None:
        root = str(project.resolve())
        absolute = str(Path(path).absolute())
        if absolute.startswith(root + "/"):
            return '"$CLAUDE_PROJECT_DIR"' + shlex.quote(absolute[len(root) :])
    return shlex.quote(path)


def hook_command(
    event: str, harness: str, base: str | None = None, project: Path | None = None
) -> str:
    """The command line the harness runs; the interpreter path avoids PATH surprises.

    With `project` (and a harness that expands `$CLAUDE_PROJECT_DIR`), an
    interpreter or script inside the project is written relative to it, so the
    command keeps working when the checkout moves; outside the project the
    paths are absolute (the interpreter that installed zodyssey).
    """
    if base:
        command = f"{base} hook {event}"
    else:
        # The script file, not `-m zodyssey.gate`: no CLI front end and no `runpy`
        # on every tool call; `-P` keeps the script's directory off sys.path,
        # `-S` skips `site` (hook_entry.py sets the path it needs, or runs site).
        # Same behaviour as `zodyssey hook`.
        where = project if harness in PROJECT_RELATIVE else None
        python = _shown(sys.executable, where)
        command = f"{python} -S -P {_shown(str(entry_script()), where)} {event}"
    if harness != "claude-code":
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


CONFIG_FILES = {
    "claude-code": ".claude/settings.json",
    "zcode": ".claude/settings.json",
    "codex": ".codex/hooks.json",
    "gemini": ".gemini/settings.json",
    "cursor": ".cursor/hooks.json",
}


def install(
    project: Path, harness: str, base: str | None = None, dry_run: bool = False
) -> tuple[Path, list[str]]:
    """Merge the hook entries; returns the config path and one line per change."""
    if harness not in CONFIG_FILES:
        raise UsageError(f"unknown harness {harness!r}; choose one of: {', '.join(CONFIG_FILES)}")
    if not project.is_dir():
        raise UsageError(f"project directory {project} does not exist")
    path = project / CONFIG_FILES[harness]
    config = _read(path)
    hooks = config.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise UsageError(f"{path}: `hooks` is not an object")
    pre = hook_command("pre-tool", harness, base, project)
    post = hook_command("post-tool", harness, base, project)
    changes: list[str] = []
    if harness in ("claude-code", "zcode", "codex"):
        timeout = {"timeout": CLAUDE_TIMEOUT_SECONDS}
        _merge_grouped(hooks, "PreToolUse", "*", pre, "pre-tool", timeout, changes)
        _merge_grouped(hooks, "PostToolUse", "*", post, "post-tool", timeout, changes)
    elif harness == "gemini":
        timeout = {"timeout": GEMINI_TIMEOUT_MS}
        _merge_grouped(hooks, "BeforeTool", ".*", pre, "pre-tool", timeout, changes)
        _merge_grouped(hooks, "AfterTool", ".*", post, "post-tool", timeout, changes)
    else:  # cursor
        config.setdefault("version", 1)
        for event_key in ("beforeShellExecution", "beforeMCPExecution", "preToolUse"):
            _merge_flat(hooks, event_key, pre, "pre-tool", changes)
        _merge_flat(hooks, "postToolUse", post, "post-tool", changes)
    if not dry_run and any(not line.startswith("unchanged") for line in changes):
        write_atomic(path, json.dumps(config, indent=2, ensure_ascii=False) + "\n")
    return path, changes


def explain_command(changes: list[str]) -> str:
    """One line saying what the written command depends on (printed by `hook install`)."""
    text = " ".join(changes)
    if "$CLAUDE_PROJECT_DIR" in text:
        return (
            "the command names the interpreter and hook script relative to $CLAUDE_PROJECT_DIR: "
            "it keeps working when the checkout moves. If it ever cannot start, Claude Code "
            "treats that as a non-blocking error and lets tool calls through: re-run "
            "`zodyssey hook install` after moving the interpreter."
        )
    return (
        f"the command names the interpreter that installed zodyssey ({sys.executable}) by its "
        "absolute path: moving the project does not affect it; moving or deleting that "
        "interpreter does (a harness that cannot start the hook lets tool calls through), "
        "so re-run `zodyssey hook install` after reinstalling."
    )
