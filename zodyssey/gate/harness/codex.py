"""Codex CLI: Claude-compatible wire format.

Bash and `apply_patch` carry their text in `tool_input.command`
(`exec_command` in `cmd`, its directory in `workdir`); every
`*** Update/Add/Delete File:` path of a patch is a write target. A block is
exit 2 with the reason on stderr plus a `permissionDecision: deny` document
on stdout, which Codex also honours. Hooks live in `.codex/hooks.json` (or
inline in `.codex/config.toml`), timeout in seconds; Codex sets no project
variable for hook commands.
"""

from zodyssey.gate.harness import Reply, pre_tool_probe

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from zodyssey.gate.toolcall import ToolCall


class Codex:
    name = "codex"
    reviewer_tools: "frozenset[str]" = frozenset()  # no agent reports: a person decides
    config_files = (".codex/hooks.json", ".codex/config.toml")
    layout = "grouped"
    pre_events = ("PreToolUse",)
    post_events = ("PostToolUse",)
    stop_events: "tuple[str, ...]" = ()
    matcher = "*"
    matcher_regex = False
    timeout = 30
    timeout_unit = "s"
    min_timeout = 5
    project_vars: "tuple[str, ...]" = ()
    command_var = None
    config_defaults: "tuple[tuple[str, Any], ...]" = ()
    probe_tools = (
        "Bash",
        "shell",
        "apply_patch",
        "Edit",
        "Write",
        "mcp__fs__write_file",
        "future_tool",
    )
    # `shell {command, workdir}` and `exec_command {cmd, workdir}`
    shell_keys = (("command", "cmd"), ("workdir",))
    # Its tools by kind (shell, edit, patch, dispatch, read): the call is read as
    # its harness says; a name it does not list falls back to the shared sets.
    tool_kinds: "dict[str, str]" = {  # noqa: RUF012 (data of the one ADAPTER, never changed)
        "Bash": "shell",
        "shell": "shell",
        "local_shell": "shell",
        "exec_command": "shell",
        "apply_patch": "patch",
        "Edit": "edit",
        "Write": "edit",
        "update_plan": "read",
        "view_image": "read",
    }
    # Its hook and configuration files and folders (project and home): never
    # writable during a run (zodyssey/core/allowance.py PROTECTED_CONFIG holds the union).
    protected = (
        ".codex/hooks.json",
        ".codex/config.toml",
        ".codex/agents",
        ".codex/skills",
        ".codex/prompts",
        ".agents/skills",
    )
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
        return None

    def block(self, reason: str, slug: str) -> "Reply":
        import json  # only a block replies in JSON; allowing stays json-free

        text = f"zodyssey gate (run {slug}): {reason}"
        document = {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": text,
            }
        }
        return Reply(2, json.dumps(document, ensure_ascii=False) + "\n", text + "\n")


ADAPTER = Codex()

if TYPE_CHECKING:  # mypy holds the module to the Harness protocol
    from zodyssey.gate.harness import Harness

    _conforms: Harness = ADAPTER
