"""`ToolCall`: one tool call, normalised from whichever harness sent it.

Harness adapters map their payloads onto the names and shapes below; the
policy sees nothing harness-specific. Standard library only (hot path).
"""

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

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
# Longest shell command the gate classifies. Classification is linear but not
# free (about 1.3 s per MB), and a hook that outlives the harness's timeout
# lets the call through; Linux also refuses a single argument longer than
# this (MAX_ARG_STRLEN), so `bash -c` could not run a longer one anyway.
MAX_SHELL_COMMAND = 128 * 1024
# Most edits one MultiEdit-style call may carry, and most characters of a
# dispatch prompt: over them the call blocks as too large to judge.
MAX_EDITS = 1024
MAX_PROMPT = 256 * 1024
PATCH_TOOLS = frozenset({"apply_patch", "ApplyPatch", "applyPatch"})
# Claude Code's `Workflow` runs subagents too (`agent_type: workflow-subagent`).
DISPATCH_TOOLS = frozenset({"Task", "Agent", "Workflow"})
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
# Shell input keys: every key a harness may use. Each harness module says which
# it reads (`shell_keys`: command keys, directory keys); a harness that says
# none is read with every key; two present keys of one kind block (the gate
# cannot tell which the harness runs).
COMMAND_KEYS = ("command", "cmd")
DIR_KEYS = ("workdir", "directory", "dir_path", "cwd")


# Keys a dispatch names its agent with; the harness's own key comes first.
AGENT_KEYS = ("subagent_type", "agent", "name", "agent_type", "agent_name")
# Words in an unknown tool's name that make it a dispatch (`delegate_to_agent`).
DISPATCH_WORDS = ("agent", "delegate", "dispatch", "subtask", "spawn")

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
    # rename / move style tools name a second file the call writes
    "new_path",
    "old_path",
    "destination",
    "target_path",
    "target",
)

# Kept as strings: compiled on first use by `re`'s cache (import stays cheap).
# Leading blanks are allowed: Codex trims patch lines before matching its markers.
_PATCH_FILE = (
    r"^[ \t]*\*\*\* (?:Update|Add|Delete) File:\s*(.+?)\s*$|^[ \t]*\*\*\* Move to:\s*(.+?)\s*$"
)
_DIFF_FILE = r"^(?:\+\+\+|---) (?:[ab]/)?(.+?)(?:\t.*)?$"


# Target and ToolCall are tuples with named fields, written out by hand: a
# `typing.NamedTuple` would cost `typing` plus a class built through `exec` on
# every hook run. They compare, hash and unpack like the NamedTuples they were.


class Target(tuple[str, bool]):
    """A file a call writes, as written in the call (resolved later by the gate)."""

    __slots__ = ()

    def __new__(cls, path: str, append: bool = False) -> "Target":
        # append: `>>`, `tee -a`, an Edit keeping the old text: adds, keeps content
        return tuple.__new__(cls, (path, append))

    @property
    def path(self) -> str:
        return self[0]

    @property
    def append(self) -> bool:
        return self[1]

    def __repr__(self) -> str:
        return f"Target(path={self[0]!r}, append={self[1]!r})"


class ToolCall(
    tuple[
        str,
        str,
        str,
        str | None,
        str,
        tuple[Target, ...],
        str,
        str,
        str,
        str,
        tuple[str, ...],
        str | None,
        str,
    ]
):
    """One call; `command` for SHELL, `targets` (as written) for EDIT / PATCH,
    `subagent_type` and `prompt` for DISPATCH (with `strings` the input keys that
    resume or continue an earlier agent), `strings` (every string in the input)
    for OTHER; `owner` (agent_id, else session_id) holds file locks;
    `error` says why the payload could not be understood."""

    __slots__ = ()

    def __new__(
        cls,
        harness: str,
        tool_name: str,
        kind: str,
        cwd: str | None = None,
        command: str = "",
        targets: "tuple[Target, ...]" = (),
        owner: str = "",
        tool_use_id: str = "",
        subagent_type: str = "",
        prompt: str = "",
        strings: tuple[str, ...] = (),
        error: str | None = None,
        session: str = "",
    ) -> "ToolCall":
        return tuple.__new__(
            cls,
            (
                harness,
                tool_name,
                kind,
                cwd,
                command,
                targets,
                owner,
                tool_use_id,
                subagent_type,
                prompt,
                strings,
                error,
                session,
            ),
        )

    @property
    def harness(self) -> str:
        return self[0]

    @property
    def tool_name(self) -> str:
        return self[1]

    @property
    def kind(self) -> str:
        return self[2]

    @property
    def cwd(self) -> str | None:
        return self[3]

    @property
    def command(self) -> str:
        return self[4]

    @property
    def targets(self) -> "tuple[Target, ...]":
        return self[5]

    @property
    def owner(self) -> str:
        return self[6]

    @property
    def tool_use_id(self) -> str:
        return self[7]

    @property
    def subagent_type(self) -> str:
        return self[8]

    @property
    def prompt(self) -> str:
        return self[9]

    @property
    def strings(self) -> tuple[str, ...]:
        return self[10]

    @property
    def error(self) -> str | None:
        return self[11]

    @property
    def session(self) -> str:
        """The harness session (session_id, conversation_id): an orchestrator and
        its subagents share it."""
        return self[12]

    def __repr__(self) -> str:
        fields = ", ".join(
            f"{name}={value!r}" for name, value in zip(_TOOLCALL_FIELDS, self, strict=True)
        )
        return f"ToolCall({fields})"


_TOOLCALL_FIELDS = (
    "harness",
    "tool_name",
    "kind",
    "cwd",
    "command",
    "targets",
    "owner",
    "tool_use_id",
    "subagent_type",
    "prompt",
    "strings",
    "error",
    "session",
)


def _strings(value: "Any", out: list[str]) -> None:
    """Every string (and key) in a decoded JSON value, at any depth.

    Iterative, without a depth limit: a path nested deeper than any limit
    would otherwise go unchecked (the JSON decoder bounds the depth).
    """
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            for key, inner in item.items():
                if isinstance(key, str):
                    out.append(key)
                stack.append(inner)
        elif isinstance(item, list):
            stack.extend(item)


def patch_targets(text: str) -> list[str]:
    """Every file an apply_patch (or unified diff) text touches."""
    import re  # only patches need it; the hook's hot path stays free of `re`

    found = [a or b for a, b in re.findall(_PATCH_FILE, text, re.M)]
    if not found:
        found = [p for p in re.findall(_DIFF_FILE, text, re.M) if p != "/dev/null"]
    seen: dict[str, None] = {}
    for path in found:
        seen.setdefault(path, None)
    return list(seen)


def _preserves(old: "Any", new: "Any") -> bool:
    # An edit that keeps the old text and adds after it counts as appending.
    return isinstance(old, str) and isinstance(new, str) and old != "" and new.startswith(old)


def _edit_targets(tool_name: str, tool_input: "dict[str, Any]") -> "tuple[Target, ...] | str":
    """Every file an edit-family call names, or why its paths cannot be read.

    Every path key counts, not just the first one present: harnesses differ
    in which key their tool reads (`file_path`, `target_file`, `path`, ...),
    so a call naming an in-scope file under one key and run state under
    another must be judged on both. Edits listed under `edits` may carry
    their own path. A path key holding anything but a non-empty string makes
    the call unreadable (the tool might read it some other way).
    """
    append = False
    edits_given = tool_input.get("edits")
    if isinstance(edits_given, list) and len(edits_given) > MAX_EDITS:
        return (
            f"blocks: too large to judge ({tool_name} carries {len(edits_given)} edits, over "
            f"the {MAX_EDITS} the gate reads in one call; split it)"
        )
    if "edits" in tool_input and isinstance(tool_input["edits"], list):
        edits = tool_input["edits"]
        append = bool(edits) and all(
            isinstance(e, dict) and _preserves(e.get("old_string"), e.get("new_string"))
            for e in edits
        )
    elif "old_string" in tool_input:
        append = _preserves(tool_input.get("old_string"), tool_input.get("new_string"))
    sources = [tool_input]
    edits_value = tool_input.get("edits")
    if isinstance(edits_value, list):
        sources.extend(e for e in edits_value if isinstance(e, dict))
    paths: dict[str, None] = {}
    for source in sources:
        for key in PATH_KEYS:
            if key not in source:
                continue
            value = source[key]
            if not isinstance(value, str) or not value:
                return f"{key} of {tool_name} is not a file path"
            paths.setdefault(value, None)
    return tuple(Target(path, append) for path in paths)


def _shell_command(tool_input: "dict[str, Any]", keys: tuple[str, ...]) -> str | None:
    command = next((tool_input[k] for k in keys if k in tool_input), None)
    if isinstance(command, str):
        return command
    if isinstance(command, list) and command and all(isinstance(c, str) for c in command):
        import shlex

        return shlex.join(command)
    return None


def anon_key(call: "ToolCall") -> str:
    """The slot key of a dispatch without a tool_use_id: pre-tool and post-tool
    of one dispatch compute the same one (owner, agent, prompt)."""
    import hashlib

    text = "\x00".join((call.owner, call.subagent_type, call.prompt))
    return "anon-" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:20]


def _dispatch_like(tool_name: str, tool_input: "dict[str, Any]") -> bool:
    """An unknown tool that starts an agent: by its name or by an agent-name key."""
    if tool_name in READ_TOOLS or tool_name in EDIT_TOOLS or tool_name in PATCH_TOOLS:
        return False
    lowered = tool_name.lower()
    if any(word in lowered for word in DISPATCH_WORDS):
        return True
    return any(key in tool_input for key in ("subagent_type", "agent_type", "agent_name"))


def resume_keys(tool_input: "dict[str, Any]") -> tuple[str, ...]:
    """The keys of a dispatch's input that resume or continue an earlier agent
    (Claude Code's `resume: AGENT_ID`, Workflow's `resumeFromRunId`), in any
    spelling: case, `_`/`-`, fullwidth or zero-width characters do not matter.
    A key whose value is empty (None, "", false) resumes nothing."""
    found = []
    for key, value in tool_input.items():
        if value is None or value == "" or value is False or not isinstance(key, str):
            continue
        folded = _folded(key)
        if "resume" in folded or folded.startswith("continue"):
            found.append(key)
    return tuple(found)


def _folded(key: str) -> str:
    """A key as a harness's schema might be meant to read it: compatibility forms
    folded, format characters dropped, lower case, letters and digits only."""
    if not key.isascii():
        import unicodedata

        key = unicodedata.normalize("NFKC", key)
        key = "".join(ch for ch in key if unicodedata.category(ch) != "Cf")
    return "".join(ch for ch in key.lower() if ch.isalnum())


def _agent_name(tool_name: str, tool_input: "dict[str, Any]") -> tuple[str, str | None]:
    """The agent a dispatch starts, or why it cannot be told.

    Harnesses read `subagent_type`; a payload whose `subagent_type` is empty or
    null while another key names an agent, or whose keys name two different
    agents, might start either: it blocks.
    """
    names = {k: tool_input[k] for k in AGENT_KEYS if k in tool_input}
    for key, value in names.items():
        if value is not None and not isinstance(value, str):
            return "", f"{key} of {tool_name} is not a string"
    filled = {k: v for k, v in names.items() if isinstance(v, str) and v.strip()}
    if "subagent_type" in names and "subagent_type" not in filled and filled:
        return "", (
            f"{tool_name} has an empty subagent_type beside {', '.join(filled)}; the agent "
            "it starts cannot be told"
        )
    if len(set(filled.values())) > 1:
        return "", f"{tool_name} names two agents ({', '.join(filled)}); name one"
    return next(iter(filled.values()), ""), None


def _text(value: "Any") -> str:
    """A payload id as text ("" when absent)."""
    value = value or ""
    return value if isinstance(value, str) else str(value)


class _Call:
    """What every call built from one payload shares; `make` builds one kind."""

    __slots__ = (
        "cwd",
        "harness",
        "owner",
        "session",
        "shell_keys",
        "tool_input",
        "tool_name",
        "tool_use_id",
    )

    def __init__(
        self, harness: str, tool_name: str, tool_input: "dict[str, Any]", cwd: str | None
    ) -> None:
        self.harness, self.tool_name, self.tool_input, self.cwd = (
            harness,
            tool_name,
            tool_input,
            cwd,
        )
        self.owner = self.session = self.tool_use_id = ""
        self.shell_keys: tuple[tuple[str, ...], tuple[str, ...]] = (COMMAND_KEYS, DIR_KEYS)

    def make(self, kind: str, **fields: "Any") -> "ToolCall":
        fields.setdefault("cwd", self.cwd)
        return ToolCall(
            self.harness,
            self.tool_name,
            kind,
            owner=self.owner,
            session=self.session,
            tool_use_id=self.tool_use_id,
            **fields,
        )


def _shell_call(c: _Call) -> "ToolCall":
    tool_name, tool_input = c.tool_name, c.tool_input
    command_keys, dir_keys = c.shell_keys
    for keys, what in ((COMMAND_KEYS, "command"), (DIR_KEYS, "directory")):
        present = [k for k in keys if tool_input.get(k) is not None]
        if len(present) > 1:
            return c.make(
                SHELL,
                error=f"{tool_name} input has two {what} keys ({', '.join(present)}); "
                "which one the harness runs cannot be told",
            )
    workdir = next((tool_input[k] for k in dir_keys if tool_input.get(k) is not None), None)
    if workdir is not None and not isinstance(workdir, str):
        return c.make(SHELL, error=f"the directory of {tool_name} is not a string")
    if workdir:
        c.cwd = workdir if c.cwd is None or workdir.startswith("/") else f"{c.cwd}/{workdir}"
    argv = tool_input.get("command")
    if (
        isinstance(argv, list)
        and len(argv) == 2
        and argv[0] in ("apply_patch", "applypatch")
        and isinstance(argv[1], str)
    ):
        # Codex runs the argv ["apply_patch", PATCH] as its patch tool, not
        # as a program: judge the files in the patch like apply_patch's.
        return c.make(PATCH, targets=tuple(Target(p) for p in patch_targets(argv[1])))
    command = _shell_command(tool_input, command_keys)
    if command is None:
        return c.make(SHELL, error=f"{tool_name} call without a command string")
    return c.make(SHELL, command=command)


def _patch_call(c: _Call) -> "ToolCall":
    tool_input = c.tool_input
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
    return c.make(PATCH, targets=tuple(Target(p) for p in patch_targets(text or "")))


def _edit_call(c: _Call) -> "ToolCall":
    edit_targets = _edit_targets(c.tool_name, c.tool_input)
    if isinstance(edit_targets, str):
        return c.make(EDIT, error=edit_targets)
    return c.make(EDIT, targets=edit_targets)


def _dispatch_call(c: _Call) -> "ToolCall":
    agent, problem = _agent_name(c.tool_name, c.tool_input)
    if problem is not None:
        return c.make(DISPATCH, error=problem)
    prompt = c.tool_input.get("prompt") or ""
    strings: list[str] = []
    _strings(c.tool_input, strings)
    return c.make(
        DISPATCH,
        strings=resume_keys(c.tool_input),
        subagent_type=agent if isinstance(agent, str) else str(agent),
        prompt="\n".join(strings)
        if not isinstance(prompt, str)
        else prompt + "\n" + "\n".join(strings),
    )


def _read_call(c: _Call) -> "ToolCall":
    return c.make(READ)


def _other_call(c: _Call) -> "ToolCall":
    strings: list[str] = []
    _strings(c.tool_input, strings)
    return c.make(OTHER, strings=tuple(strings))


def _kind(
    tool_name: str, tool_input: "dict[str, Any]", kinds: "dict[str, str] | None" = None
) -> str:
    """The kind of a call: as its harness lists the tool (`kinds`, the adapter's
    `tool_kinds`), else by the shared sets below."""
    if kinds:
        known = kinds.get(tool_name)
        if known in _BUILDERS:
            return str(known)
    for kind, names in ((SHELL, SHELL_TOOLS), (PATCH, PATCH_TOOLS), (EDIT, EDIT_TOOLS)):
        if tool_name in names:
            return kind
    if tool_name in DISPATCH_TOOLS or _dispatch_like(tool_name, tool_input):
        return DISPATCH
    return READ if tool_name in READ_TOOLS else OTHER


# kind -> how a call of that kind is read from its tool_input
_BUILDERS = {
    SHELL: _shell_call,
    PATCH: _patch_call,
    EDIT: _edit_call,
    DISPATCH: _dispatch_call,
    READ: _read_call,
    OTHER: _other_call,
}


def build_call(
    harness: str,
    tool_name: "Any",
    tool_input: "Any",
    payload: "dict[str, Any]",
    cwd: "Any" = None,
    shell_keys: "tuple[tuple[str, ...], tuple[str, ...]] | None" = None,
    kinds: "dict[str, str] | None" = None,
) -> "ToolCall":
    """Normalise one call; anything malformed yields a call carrying `error`.

    `shell_keys` are the harness's own (command keys, directory keys) for a
    shell call, passed by its adapter; None reads every key this module knows.
    `kinds`: the harness's tools by kind (its adapter's `tool_kinds`).
    """
    raw_cwd = cwd if cwd is not None else payload.get("cwd")
    call_cwd = raw_cwd if isinstance(raw_cwd, str) and raw_cwd else None
    owner = _text(
        payload.get("agent_id") or payload.get("session_id") or payload.get("conversation_id")
    )
    session = _text(payload.get("session_id") or payload.get("conversation_id"))
    if not isinstance(tool_name, str) or not tool_name:
        error = "the payload names no tool"
        return ToolCall(harness, "", OTHER, call_cwd, owner=owner, session=session, error=error)
    if tool_input is None:
        tool_input = {}
    if not isinstance(tool_input, dict):
        error = f"tool_input of {tool_name} is not an object"
        return ToolCall(
            harness, tool_name, OTHER, call_cwd, owner=owner, session=session, error=error
        )
    c = _Call(harness, tool_name, tool_input, call_cwd)
    c.owner, c.session, c.tool_use_id = owner, session, _text(payload.get("tool_use_id"))
    if shell_keys is not None:
        c.shell_keys = shell_keys
    return _BUILDERS[_kind(tool_name, tool_input, kinds)](c)
