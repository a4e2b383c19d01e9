"""`ToolCall`: one tool call, normalised from whichever harness sent it.

Harness adapters map their payloads onto the names and shapes below; the
policy sees nothing harness-specific. Standard library only (hot path).
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

# The kind of a call decides which rules apply to it.
SHELL = "shell"  # a command line for a shell
EDIT = "edit"  # writes the files it names (Write, Edit, MultiEdit, NotebookEdit, ...)
PATCH = "patch"  # a patch text naming its files (apply_patch)
DISPATCH = "dispatch"  # starts a subagent (Task, Agent)
READ = "read"  # a native tool that cannot write the work tree
OTHER = "other"  # MCP and unknown tools: only their path-like strings are checked

SHELL_TOOLS = frozenset(
    {
        "Bash",
        "Shell",
        "shell",
        "bash",
        "run_shell_command",
        "local_shell",
        "exec_command",
        "run_terminal_cmd",
        "terminal",
    }
)
EDIT_TOOLS = frozenset(
    {
        "Write",
        "Edit",
        "MultiEdit",
        "NotebookEdit",
        "write_file",
        "replace",
        "edit_file",
        "create_file",
        "StrReplace",
        "Delete",
        "delete_file",
        "TabWrite",
        "search_replace",
        "str_replace",
        "Create",
        "MultiEditTool",
        "write",
        "edit",
    }
)
PATCH_TOOLS = frozenset({"apply_patch", "ApplyPatch", "applyPatch"})
DISPATCH_TOOLS = frozenset({"Task", "Agent"})
READ_TOOLS = frozenset(
    {
        "Read",
        "Glob",
        "Grep",
        "LS",
        "WebFetch",
        "WebSearch",
        "TodoWrite",
        "TodoRead",
        "NotebookRead",
        "BashOutput",
        "KillShell",
        "KillBash",
        "ExitPlanMode",
        "ListMcpResourcesTool",
        "ReadMcpResourceTool",
        "read_file",
        "read_many_files",
        "list_directory",
        "glob",
        "search_file_content",
        "google_web_search",
        "web_fetch",
        "ReadFile",
        "ListDir",
        "codebase_search",
        "grep_search",
        "file_search",
        "list_dir",
        "view_image",
        "update_plan",
        "SlashCommand",
        "Skill",
        "AskUserQuestion",
    }
)
PATH_KEYS = (
    "file_path",
    "path",
    "notebook_path",
    "absolute_path",
    "target_file",
    "filePath",
    "file",
    "filename",
    "target_notebook",
)

# Kept as strings: compiled on first use by `re`'s cache (import stays cheap).
_PATCH_FILE = r"^\*\*\* (?:Update|Add|Delete) File:\s*(.+?)\s*$|^\*\*\* Move to:\s*(.+?)\s*$"
_DIFF_FILE = r"^(?:\+\+\+|---) (?:[ab]/)?(.+?)(?:\t.*)?$"


class Target(NamedTuple):
    """A file a call writes, as written in the call (resolved later by the gate)."""

    path: str
    append: bool = False  # `>>`, `tee -a`, an Edit keeping the old text: adds, keeps content


class ToolCall(NamedTuple):
    harness: str
    tool_name: str
    kind: str
    cwd: str | None = None
    command: str = ""  # SHELL
    targets: tuple[Target, ...] = ()  # EDIT / PATCH, as written
    owner: str = ""  # agent_id, else session_id: who holds file locks
    tool_use_id: str = ""
    subagent_type: str = ""  # DISPATCH
    prompt: str = ""  # DISPATCH
    strings: tuple[str, ...] = ()  # every string in the input (OTHER)
    error: str | None = None  # the payload could not be understood


def _strings(value: Any, out: list[str], depth: int = 0) -> None:
    if depth > 20:
        return
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str):
                out.append(key)
            _strings(item, out, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _strings(item, out, depth + 1)


def patch_targets(text: str) -> list[str]:
    """Every file an apply_patch (or unified diff) text touches."""
    found = [a or b for a, b in re.findall(_PATCH_FILE, text, re.M)]
    if not found:
        found = [p for p in re.findall(_DIFF_FILE, text, re.M) if p != "/dev/null"]
    seen: dict[str, None] = {}
    for path in found:
        seen.setdefault(path, None)
    return list(seen)


def _preserves(old: Any, new: Any) -> bool:
    # An edit that keeps the old text and adds after it counts as appending.
    return isinstance(old, str) and isinstance(new, str) and old != "" and new.startswith(old)


def _edit_targets(tool_name: str, tool_input: dict[str, Any]) -> tuple[Target, ...]:
    path: Any = None
    for key in PATH_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            path = value
            break
    if path is None:
        return ()
    append = False
    if "edits" in tool_input and isinstance(tool_input["edits"], list):
        edits = tool_input["edits"]
        append = bool(edits) and all(
            isinstance(e, dict) and _preserves(e.get("old_string"), e.get("new_string"))
            for e in edits
        )
    elif "old_string" in tool_input:
        append = _preserves(tool_input.get("old_string"), tool_input.get("new_string"))
    return (Target(path, append),)


def _shell_command(tool_input: dict[str, Any]) -> str | None:
    command = tool_input.get("command", tool_input.get("cmd"))
    if isinstance(command, str):
        return command
    if isinstance(command, list) and command and all(isinstance(c, str) for c in command):
        import shlex

        return shlex.join(command)
    return None


def build_call(
    harness: str,
    tool_name: Any,
    tool_input: Any,
    payload: dict[str, Any],
    cwd: Any = None,
) -> ToolCall:
    """Normalise one call; anything malformed yields a call carrying `error`."""
    raw_cwd = cwd if cwd is not None else payload.get("cwd")
    call_cwd = raw_cwd if isinstance(raw_cwd, str) and raw_cwd else None
    owner = (
        payload.get("agent_id") or payload.get("session_id") or payload.get("conversation_id") or ""
    )
    owner = owner if isinstance(owner, str) else str(owner)
    tool_use_id = payload.get("tool_use_id") or ""
    tool_use_id = tool_use_id if isinstance(tool_use_id, str) else str(tool_use_id)
    if not isinstance(tool_name, str) or not tool_name:
        return ToolCall(
            harness, "", OTHER, call_cwd, owner=owner, error="the payload names no tool"
        )
    if not isinstance(tool_input, dict):
        if tool_input is None:
            tool_input = {}
        else:
            return ToolCall(
                harness,
                tool_name,
                OTHER,
                call_cwd,
                owner=owner,
                error=f"tool_input of {tool_name} is not an object",
            )
    if tool_name in SHELL_TOOLS:
        command = _shell_command(tool_input)
        if command is None:
            return ToolCall(
                harness,
                tool_name,
                SHELL,
                error=f"{tool_name} call without a command string",
                cwd=call_cwd,
                owner=owner,
                tool_use_id=tool_use_id,
            )
        workdir = tool_input.get("workdir") or tool_input.get("directory") or tool_input.get("cwd")
        if isinstance(workdir, str) and workdir:
            call_cwd = (
                workdir if call_cwd is None or workdir.startswith("/") else f"{call_cwd}/{workdir}"
            )
        return ToolCall(
            harness,
            tool_name,
            SHELL,
            command=command,
            cwd=call_cwd,
            owner=owner,
            tool_use_id=tool_use_id,
        )
    if tool_name in PATCH_TOOLS:
        text = next(
            (
                tool_input[k]
                for k in ("command", "input", "patch", "patch_text")
                if isinstance(tool_input.get(k), str)
            ),
            None,
        )
        if text is None:
            # Some harnesses send the patch as an argv list: ["apply_patch", "<patch>"]
            cmd = tool_input.get("command")
            if isinstance(cmd, list):
                text = "\n".join(c for c in cmd if isinstance(c, str))
        targets = tuple(Target(p) for p in patch_targets(text or ""))
        return ToolCall(
            harness,
            tool_name,
            PATCH,
            targets=targets,
            cwd=call_cwd,
            owner=owner,
            tool_use_id=tool_use_id,
        )
    if tool_name in EDIT_TOOLS:
        return ToolCall(
            harness,
            tool_name,
            EDIT,
            targets=_edit_targets(tool_name, tool_input),
            cwd=call_cwd,
            owner=owner,
            tool_use_id=tool_use_id,
        )
    if tool_name in DISPATCH_TOOLS:
        agent = (
            tool_input.get("subagent_type")
            or tool_input.get("agent")
            or tool_input.get("name")
            or ""
        )
        prompt = tool_input.get("prompt") or ""
        strings: list[str] = []
        _strings(tool_input, strings)
        return ToolCall(
            harness,
            tool_name,
            DISPATCH,
            subagent_type=agent if isinstance(agent, str) else str(agent),
            prompt="\n".join(strings)
            if not isinstance(prompt, str)
            else prompt + "\n" + "\n".join(strings),
            cwd=call_cwd,
            owner=owner,
            tool_use_id=tool_use_id,
        )
    if tool_name in READ_TOOLS:
        return ToolCall(
            harness, tool_name, READ, cwd=call_cwd, owner=owner, tool_use_id=tool_use_id
        )
    strings = []
    _strings(tool_input, strings)
    return ToolCall(
        harness,
        tool_name,
        OTHER,
        strings=tuple(strings),
        cwd=call_cwd,
        owner=owner,
        tool_use_id=tool_use_id,
    )
