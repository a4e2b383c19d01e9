"""ZCode / ZOdyssey native: one stdout line with a fixed prefix, exit 2.

The `ZODYSSEY_BLOCK gate:` prefix lets run reports count blocks in a log.
The reason also goes to stderr so a Claude Code host feeds it to the model.
ZCode reads Claude Code's hook schema from `.claude/settings.json`; the
command names `--harness zcode`.
"""

from zodyssey.gate.harness import Reply, answer_text, pre_tool_probe

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from zodyssey.gate.toolcall import ToolCall


class ZCode:
    name = "zcode"
    reviewer_tools = frozenset(("Task", "Agent"))
    config_files = (".claude/settings.json",)
    layout = "grouped"
    pre_events = ("PreToolUse",)
    post_events = ("PostToolUse",)
    stop_events: "tuple[str, ...]" = ()
    matcher = "*"
    matcher_regex = False
    timeout = 30
    timeout_unit = "s"
    min_timeout = 5
    project_vars = ("CLAUDE_PROJECT_DIR", "ZCODE_PROJECT_DIR")
    command_var = "CLAUDE_PROJECT_DIR"
    config_defaults: "tuple[tuple[str, Any], ...]" = ()
    probe_tools = (  # the tools a Claude Code host sends
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
    shell_keys = None  # every key
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
        "Read": "read",
        "Glob": "read",
        "Grep": "read",
        "LS": "read",
        "WebFetch": "read",
        "WebSearch": "read",
        "TodoWrite": "read",
    }
    # Its hook and configuration files and folders (project and home): never
    # writable during a run (zodyssey/core/allowance.py PROTECTED_CONFIG holds the union).
    protected = (".claude/settings.json", ".zcode/cli/config.json")
    # Whether a hook can rewrite a call (run a shell call wrapped in the sandbox).
    rewrites_calls = False

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
        import json  # only a block replies in JSON; allowing stays json-free

        line = json.dumps(
            {"decision": "block", "reason": f"ZODYSSEY_BLOCK gate: {reason} (slug={slug})"},
            ensure_ascii=False,
        )
        return Reply(2, line + "\n", f"ZODYSSEY_BLOCK gate: {reason} (slug={slug})\n")


ADAPTER = ZCode()

if TYPE_CHECKING:  # mypy holds the module to the Harness protocol
    from zodyssey.gate.harness import Harness

    _conforms: Harness = ADAPTER
