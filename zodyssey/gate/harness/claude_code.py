"""Claude Code: PreToolUse payload on stdin; block = exit 2 with the reason on stderr.

Exit 2 is the only exit code that blocks: any other non-zero exit lets the
tool call through, so the hook process catches everything and exits 2.
Hooks live in `.claude/settings.json`, timeout in seconds; Claude Code sets
`CLAUDE_PROJECT_DIR` for hook commands and the shell expands it in them.
"""

from zodyssey.gate.harness import Reply, answer_text, pre_tool_probe

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from zodyssey.gate.toolcall import ToolCall


class ClaudeCode:
    name = "claude-code"
    reviewer_tools = frozenset(("Task", "Agent"))
    config_files = (".claude/settings.json",)
    layout = "grouped"
    pre_events = ("PreToolUse",)
    post_events = ("PostToolUse",)
    stop_events = ("SubagentStop",)
    matcher = "*"
    matcher_regex = False
    timeout = 30
    timeout_unit = "s"
    min_timeout = 5
    project_vars = ("CLAUDE_PROJECT_DIR",)
    command_var = "CLAUDE_PROJECT_DIR"
    config_defaults: "tuple[tuple[str, Any], ...]" = ()
    probe_tools = (
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
    )
    shell_keys = (("command",), ())
    # Its tools by kind (shell, edit, patch, dispatch, read): the call is read as
    # its harness says; a name it does not list falls back to the shared sets.
    tool_kinds: "dict[str, str]" = {  # noqa: RUF012 (data of the one ADAPTER, never changed)
        "Bash": "shell",
        "Write": "edit",
        "Edit": "edit",
        "MultiEdit": "edit",
        "NotebookEdit": "edit",
        "Task": "dispatch",
        "Agent": "dispatch",
        "Workflow": "dispatch",
        "Read": "read",
        "Glob": "read",
        "Grep": "read",
        "LS": "read",
        "WebFetch": "read",
        "WebSearch": "read",
        "TodoWrite": "read",
        "NotebookRead": "read",
        "BashOutput": "read",
        "KillShell": "read",
        "KillBash": "read",
        "ExitPlanMode": "read",
        "ListMcpResourcesTool": "read",
        "ReadMcpResourceTool": "read",
        "SlashCommand": "read",
        "Skill": "read",
        "AskUserQuestion": "read",
    }
    # Its hook and configuration files and folders (project and home): never
    # writable during a run (zodyssey/core/allowance.py PROTECTED_CONFIG holds the union).
    protected = (
        ".claude/settings.json",
        ".claude/settings.local.json",
        ".claude/agents",
        ".claude/commands",
        ".claude/skills",
        ".mcp.json",
    )
    # Whether a hook can rewrite a call (run a shell call wrapped in the sandbox).
    rewrites_calls = True

    def probe_payload(self, scratch: str, target: str) -> "dict[str, Any]":
        return pre_tool_probe("PreToolUse", "Write", scratch, target)

    def to_call(self, payload: "dict[str, Any]") -> "ToolCall":
        from zodyssey.gate.toolcall import build_call

        return build_call(
            self.name,
            payload.get("tool_name"),
            payload.get("tool_input"),
            payload,
            shell_keys=self.shell_keys,
            kinds=self.tool_kinds,
        )

    def report(self, payload: "dict[str, Any]") -> "str | None":
        """The subagent's final answer in the post-tool report of its dispatch."""
        return answer_text(payload.get("tool_response"))

    def block(self, reason: str, slug: str) -> "Reply":
        return Reply(2, "", f"zodyssey gate (run {slug}): {reason}\n")


ADAPTER = ClaudeCode()

if TYPE_CHECKING:  # mypy holds the module to the Harness protocol
    from zodyssey.gate.harness import Harness

    _conforms: Harness = ADAPTER
