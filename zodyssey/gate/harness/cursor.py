"""Cursor: `.cursor/hooks.json` events `beforeShellExecution`, `preToolUse`, `beforeMCPExecution`.

`beforeShellExecution` carries the command at the top level; the project is
the first of `workspace_roots`. A block is
`{"permission": "deny", "user_message": ..., "agent_message": ...}` on stdout
with exit 2. The file is flat (`{event: [{command}]}`, `"version": 1`): no
matcher, no timeout.
"""

from zodyssey.core.jsontext import loads
from zodyssey.gate.harness import Reply, pre_tool_probe

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from zodyssey.gate.toolcall import ToolCall


class Cursor:
    name = "cursor"
    reviewer_tools: "frozenset[str]" = frozenset()  # no agent reports: a person decides
    config_files = (".cursor/hooks.json",)
    layout = "flat"
    pre_events = ("beforeShellExecution", "beforeMCPExecution", "preToolUse")
    post_events = ("postToolUse",)
    stop_events: "tuple[str, ...]" = ()
    matcher = None
    matcher_regex = False
    timeout = None
    timeout_unit = "s"
    min_timeout = None
    project_vars = ("CURSOR_PROJECT_DIR",)
    command_var = None
    config_defaults: "tuple[tuple[str, Any], ...]" = (("version", 1),)
    probe_tools: "tuple[str, ...]" = ()  # no matcher: every event's calls reach the hook
    shell_keys = (("command",), ("cwd",))
    # Its tools by kind (shell, edit, patch, dispatch, read): the call is read as
    # its harness says; a name it does not list falls back to the shared sets.
    tool_kinds: "dict[str, str]" = {  # noqa: RUF012 (data of the one ADAPTER, never changed)
        "Shell": "shell",
        "run_terminal_cmd": "shell",
        "Write": "edit",
        "StrReplace": "edit",
        "Delete": "edit",
        "edit_file": "edit",
        "delete_file": "edit",
        "search_replace": "edit",
        "TabWrite": "edit",
        "Read": "read",
        "Grep": "read",
        "Glob": "read",
        "ReadFile": "read",
        "ListDir": "read",
        "codebase_search": "read",
        "grep_search": "read",
        "file_search": "read",
        "list_dir": "read",
    }
    # Its hook and configuration files and folders (project and home): never
    # writable during a run (zodyssey/core/allowance.py PROTECTED_CONFIG holds the union).
    protected = (
        ".cursor/hooks.json",
        ".cursor/mcp.json",
        ".cursor/agents",
        ".cursor/commands",
        ".cursor/rules",
    )
    # Whether a hook can rewrite a call (run a shell call wrapped in the sandbox).
    rewrites_calls = False

    def probe_payload(self, scratch: str, target: str) -> "dict[str, Any]":
        return pre_tool_probe("preToolUse", "Write", scratch, target, workspace_roots=[scratch])

    def to_call(self, payload: "dict[str, Any]") -> "ToolCall":
        from zodyssey.gate.toolcall import build_call

        event = payload.get("hook_event_name")
        if event == "beforeShellExecution" or ("command" in payload and "tool_name" not in payload):
            return build_call(
                self.name,
                "Shell",
                {"command": payload.get("command")},
                payload,
                shell_keys=self.shell_keys,
                kinds=self.tool_kinds,
            )
        if event == "beforeReadFile":
            return build_call(
                self.name, "Read", {}, payload, shell_keys=self.shell_keys, kinds=self.tool_kinds
            )
        tool_input = payload.get("tool_input")
        if isinstance(tool_input, str):
            # beforeMCPExecution sends the arguments as a JSON string
            try:
                tool_input = loads(tool_input)
            except ValueError:
                tool_input = {"input": tool_input}
        return build_call(
            self.name,
            self._tool_name(payload, event),
            tool_input,
            payload,
            shell_keys=self.shell_keys,
            kinds=self.tool_kinds,
        )

    @staticmethod
    def _tool_name(payload: "dict[str, Any]", event: "Any") -> "Any":
        tool_name = payload.get("tool_name")
        if (
            event == "beforeMCPExecution"
            and isinstance(tool_name, str)
            and not tool_name.startswith("mcp__")
        ):
            tool_name = f"mcp__{payload.get('server') or 'cursor'}__{tool_name}"
        return tool_name

    def report(self, payload: "dict[str, Any]") -> "str | None":
        return None

    def block(self, reason: str, slug: str) -> "Reply":
        import json  # only a block replies in JSON; allowing stays json-free

        text = f"zodyssey gate (run {slug}): {reason}"
        document = {"permission": "deny", "user_message": text, "agent_message": text}
        return Reply(2, json.dumps(document, ensure_ascii=False) + "\n", text + "\n")


ADAPTER = Cursor()

if TYPE_CHECKING:  # mypy holds the module to the Harness protocol
    from zodyssey.gate.harness import Harness

    _conforms: Harness = ADAPTER
