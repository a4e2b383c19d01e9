"""Gemini CLI: `BeforeTool` hooks; tools `run_shell_command`, `write_file`, `replace`, ...

A block is `{"decision": "deny", "reason": ...}` on stdout and exit 2 with the
reason on stderr (Gemini treats exit 2 as a block on its own as well). Hooks
live in `.gemini/settings.json`; the matcher is a regex on tool names and the
timeout is in milliseconds. Gemini sets `GEMINI_PROJECT_DIR` (and
`CLAUDE_PROJECT_DIR`) for hook commands.
"""

from zodyssey.gate.harness import Reply, answer_text, pre_tool_probe

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from zodyssey.gate.toolcall import ToolCall


class Gemini:
    name = "gemini"
    reviewer_tools = frozenset(("invoke_agent",))
    config_files = (".gemini/settings.json",)
    layout = "grouped"
    pre_events = ("BeforeTool",)
    post_events = ("AfterTool",)
    stop_events: "tuple[str, ...]" = ()
    matcher = ".*"
    matcher_regex = True
    timeout = 30_000
    timeout_unit = "ms"
    min_timeout = 5_000  # below this Python has not even started
    project_vars = ("GEMINI_PROJECT_DIR", "CLAUDE_PROJECT_DIR")
    command_var = "GEMINI_PROJECT_DIR"
    config_defaults: "tuple[tuple[str, Any], ...]" = ()
    probe_tools = (
        "run_shell_command",
        "write_file",
        "replace",
        "read_file",
        "mcp__fs__write_file",
        "some_future_tool",
    )
    # `run_shell_command` runs in `dir_path` (older releases: `directory`)
    shell_keys = (("command",), ("dir_path", "directory"))
    # Its tools by kind (shell, edit, patch, dispatch, read): the call is read as
    # its harness says; a name it does not list falls back to the shared sets.
    tool_kinds: "dict[str, str]" = {  # noqa: RUF012 (data of the one ADAPTER, never changed)
        "run_shell_command": "shell",
        "write_file": "edit",
        "replace": "edit",
        "invoke_agent": "dispatch",
        "read_file": "read",
        "read_many_files": "read",
        "list_directory": "read",
        "glob": "read",
        "search_file_content": "read",
        "google_web_search": "read",
        "web_fetch": "read",
    }
    # Its hook and configuration files and folders (project and home): never
    # writable during a run (zodyssey/core/allowance.py PROTECTED_CONFIG holds the union).
    protected = (
        ".gemini/settings.json",
        ".gemini/agents",
        ".gemini/commands",
        ".gemini/extensions",
    )
    # Whether a hook can rewrite a call (run a shell call wrapped in the sandbox).
    rewrites_calls = False

    def probe_payload(self, scratch: str, target: str) -> "dict[str, Any]":
        return pre_tool_probe("BeforeTool", "write_file", scratch, target)

    def to_call(self, payload: "dict[str, Any]") -> "ToolCall":
        from zodyssey.gate.toolcall import build_call

        tool_input = payload.get("tool_input", payload.get("tool_args"))
        return build_call(
            self.name,
            payload.get("tool_name"),
            tool_input,
            payload,
            shell_keys=self.shell_keys,
            kinds=self.tool_kinds,
        )

    def report(self, payload: "dict[str, Any]") -> "str | None":
        """The subagent's final answer in the post-tool report of its dispatch."""
        return answer_text(payload.get("tool_response"))

    def block(self, reason: str, slug: str) -> "Reply":
        import json  # only a block replies in JSON; allowing stays json-free

        text = f"zodyssey gate (run {slug}): {reason}"
        return Reply(
            2,
            json.dumps({"decision": "deny", "reason": text}, ensure_ascii=False) + "\n",
            text + "\n",
        )


ADAPTER = Gemini()

if TYPE_CHECKING:  # mypy holds the module to the Harness protocol
    from zodyssey.gate.harness import Harness

    _conforms: Harness = ADAPTER
