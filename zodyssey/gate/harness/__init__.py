"""Harness adapters: one module per coding-agent harness, listed in `HARNESSES`.

A harness module holds every fact zodyssey knows about that harness, as data
on its `ADAPTER`, plus the three things the hook asks of it:

- `to_call(payload)`: the hook payload as a `ToolCall`;
- `block(reason, slug)`: a block in the harness's protocol (exit code,
  stdout, stderr). Allowing is always silent (exit 0, no output): the gate
  only ever denies, so it never overrides the harness's own permission
  prompts, and it never emits `defer`;
- `report(payload)`: the subagent's final answer in a post-tool report of a
  dispatch (None where the harness identifies no agents).

Three facts are the gate's safety, checked for every adapter
(tests/gate/test_gate_harness_facts.py): `tool_kinds` (its tool names by kind:
shell, edit, patch, dispatch, read), `protected` (its hook and configuration
paths, never writable during a run; `core.allowance.PROTECTED_CONFIG` is their
union) and `rewrites_calls` (whether a hook can rewrite a call, so a shell call
runs in the sandbox).

The data (`config_files`, `layout`, `pre_events`/`post_events`/`stop_events`, `matcher`,
`timeout`, `project_vars`, `command_var`, `probe_tools`, `shell_keys`,
`probe_payload`) is what `zodyssey hook install` (gate/install.py), the
wiring check (gate/wiring.py) and the probe (gate/probe.py) loop over: adding
a harness is one module here and one line in `HARNESSES`
(tests/gate/test_gate_harness_registry.py proves it in a copy of the package).

The hook imports a harness module only inside a run; its data costs nothing
to define, and it imports `zodyssey.gate.toolcall` where a call is built.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol

    from zodyssey.gate.toolcall import ToolCall

    class Harness(Protocol):
        @property
        def name(self) -> "str": ...

        # Dispatch tools whose post-tool report carries the subagent's final
        # answer (empty: the harness identifies no agents, a person decides).
        @property
        def reviewer_tools(self) -> "frozenset[str]": ...

        # Project files the harness reads its hooks from; install writes the first.
        @property
        def config_files(self) -> "tuple[str, ...]": ...

        # "grouped": {event: [{matcher, hooks: [{type, command, timeout}]}]};
        # "flat": {event: [{command}]}.
        @property
        def layout(self) -> "str": ...

        # every event that announces a tool call
        @property
        def pre_events(self) -> "tuple[str, ...]": ...

        @property
        def post_events(self) -> "tuple[str, ...]": ...

        # events that report a subagent's end with its last message (Claude Code's
        # SubagentStop: a background reviewer's verdict); empty: none
        @property
        def stop_events(self) -> "tuple[str, ...]": ...

        # what install writes: every tool ("grouped" only)
        @property
        def matcher(self) -> "str | None": ...

        # the matcher is a regex (else `A|B` is a list of names)
        @property
        def matcher_regex(self) -> "bool": ...

        # what install writes, in timeout_unit
        @property
        def timeout(self) -> "int | None": ...

        @property
        def timeout_unit(self) -> "str": ...

        # below this the harness kills the gate
        @property
        def min_timeout(self) -> "int | None": ...

        # Set by the harness for hook commands (the hook reads them, the probe sets them).
        @property
        def project_vars(self) -> "tuple[str, ...]": ...

        # Expanded in the committed command: paths inside the project are written
        # relative to it. None: the harness sets none to rely on (PATH `zodyssey`).
        @property
        def command_var(self) -> "str | None": ...

        # Extra top-level keys of the configuration file, as (key, value)
        # pairs (Cursor's `version`).
        @property
        def config_defaults(self) -> "tuple[tuple[str, Any], ...]": ...

        # Tool names the harness sends; a matcher must let every one reach the
        # gate (the last stands for a tool that does not exist yet).
        @property
        def probe_tools(self) -> "tuple[str, ...]": ...

        # Shell input keys as the harness reads them: (command keys, directory
        # keys); None: read with every key.
        @property
        def shell_keys(self) -> "tuple[tuple[str, ...], tuple[str, ...]] | None": ...

        # Its tools by kind ("shell", "edit", "patch", "dispatch", "read"); a name
        # not listed is read by the shared sets of zodyssey/gate/toolcall.py.
        @property
        def tool_kinds(self) -> "dict[str, str]": ...

        # Its hook and configuration paths (relative to the project and to the
        # home directory): protected in every run. `core.allowance.PROTECTED_CONFIG`
        # is the union of every adapter's (a literal: the hook imports one adapter).
        @property
        def protected(self) -> "tuple[str, ...]": ...

        # Whether its hook can rewrite a call (a shell call run in the sandbox).
        @property
        def rewrites_calls(self) -> "bool": ...

        def probe_payload(self, scratch: str, target: str) -> "dict[str, Any]": ...

        def to_call(self, payload: "dict[str, Any]") -> "ToolCall": ...

        def block(self, reason: str, slug: str) -> "Reply": ...

        def report(self, payload: "dict[str, Any]") -> "str | None": ...


class Reply(tuple[int, str, str]):
    """(exit_code, stdout, stderr): a tuple with names, like a NamedTuple.

    Written out by hand because this module is on the hook's hot path and
    `typing.NamedTuple` costs `typing` plus a class built through `exec`.
    """

    __slots__ = ()

    def __new__(cls, exit_code: int, stdout: str = "", stderr: str = "") -> "Reply":
        return tuple.__new__(cls, (exit_code, stdout, stderr))

    @property
    def exit_code(self) -> int:
        return self[0]

    @property
    def stdout(self) -> str:
        return self[1]

    @property
    def stderr(self) -> str:
        return self[2]

    def __repr__(self) -> str:
        return f"Reply(exit_code={self[0]!r}, stdout={self[1]!r}, stderr={self[2]!r})"


ALLOW = Reply(0)

# Where a dispatch's post-tool report keeps the subagent's final answer, by harness:
# Claude Code `content` (text blocks), Gemini `llmContent` (text or parts).
ANSWER_KEYS = ("content", "llmContent", "result", "output", "text")


def _block_texts(blocks: "list[Any]") -> "list[str]":
    texts = []
    for block in blocks[:256]:
        if isinstance(block, str):
            texts.append(block)
        elif (
            isinstance(block, dict)
            and isinstance(block.get("text"), str)
            and block.get("type", "text") == "text"
        ):
            texts.append(block["text"])
    return texts


def answer_text(response: "Any", keys: "tuple[str, ...]" = ANSWER_KEYS) -> "str | None":
    """The text of a subagent's final answer in a post-tool `tool_response`, or None.

    Only the answer itself counts: the report may echo the dispatch prompt (the
    orchestrator's words), which must never be taken for the reviewer's.
    """
    if isinstance(response, str):
        return response
    if isinstance(response, list):
        texts = _block_texts(response)
        return "\n".join(texts) if texts else None
    if isinstance(response, dict):
        if response.get("error"):
            return None
        for key in keys:
            if key in response:
                return answer_text(response[key], ())
    return None


def pre_tool_probe(
    event: str, tool: str, scratch: str, target: str, **extra: "Any"
) -> "dict[str, Any]":
    """A pre-tool payload writing `target` inside the scratch repository (the probe's)."""
    return {
        "session_id": "zodyssey-wiring-probe",
        "cwd": scratch,
        "tool_use_id": "zodyssey-probe",
        "hook_event_name": event,
        **extra,
        "tool_name": tool,
        "tool_input": {"file_path": target, "content": "probe\n"},
    }


# The registry: --harness value -> module under zodyssey.gate.harness.
HARNESSES: dict[str, str] = {
    "claude-code": "claude_code",
    "zcode": "zcode",
    "codex": "codex",
    "gemini": "gemini",
    "cursor": "cursor",
}
# The harness a hook command without `--harness` speaks.
DEFAULT = "claude-code"


def get_harness(name: str) -> "Harness":
    module = HARNESSES.get(name)
    if module is None:
        raise KeyError(name)
    # __import__ rather than importlib: `import importlib` is not free at start-up
    adapter: Harness = __import__(f"zodyssey.gate.harness.{module}", fromlist=("ADAPTER",)).ADAPTER
    return adapter


def adapters() -> "list[Harness]":
    """Every registered harness, in registry order (the CI side: install, wiring, probe)."""
    return [get_harness(name) for name in HARNESSES]
