"""Would Codex run the gate here? Read Codex's own trust records and say what is missing.

Codex runs a project's hooks only when two records in the user's
`$CODEX_HOME/config.toml` (default `~/.codex/config.toml`) allow it, and
otherwise skips them without a word in `codex exec`:

* the project is trusted: `[projects."<abs repo path>"] trust_level = "trusted"`
  (a trusted parent folder does not count, nor a path with a trailing slash);
* each hook is trusted: `[hooks.state."<abs config path>:<event>:<group>:<handler>"]
  trusted_hash = "sha256:..."`, where the hash is over the hook's normalized
  definition, so a changed command (another interpreter, a moved checkout) is
  untrusted again; `enabled = false` there switches the hook off.

`[features] hooks = false` switches every hook off. The hash is SHA-256 of
the compact, key-sorted JSON of `{"event_name", "matcher", "hooks": [HANDLER]}`
with the handler's `type`, `command`, `timeout` (600 when absent), `async`
and, when given, `statusMessage` (what `codex app-server`'s `hooks/list`
reports as `currentHash`; tests/clients checks it against the installed CLI).

Where Codex keeps no home yet (no `$CODEX_HOME`, no `~/.codex`: Codex never
started here) there are no records to read, and a Codex started later makes
its home without them, so it would run no hook. `zodyssey check` says so as a
warning (a CI runner runs no Codex); `zodyssey run start` refuses and prints
the records to put in a new `config.toml` (`home_required`), unless the
person names the harnesses the run uses (`--harness`) and Codex is not one.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Codex's snake_case labels of the hook events `hook install` wires.
EVENT_LABELS = {"PreToolUse": "pre_tool_use", "PostToolUse": "post_tool_use"}
DEFAULT_TIMEOUT_S = 600


@dataclass(frozen=True)
class HookRecord:
    """One of our hooks as Codex keys and hashes it."""

    key: str
    digest: str
    command: str


def codex_home_path(env: dict[str, str] | None = None) -> Path:
    """Where this user's Codex keeps its home (`$CODEX_HOME`, else `~/.codex`)."""
    env = dict(os.environ) if env is None else env
    return Path(env["CODEX_HOME"]) if env.get("CODEX_HOME") else Path.home() / ".codex"


def codex_home(env: dict[str, str] | None = None) -> Path | None:
    """The Codex home this user's Codex reads, when it exists."""
    home = codex_home_path(env)
    return home if home.is_dir() else None


def hook_digest(event: str, matcher: Any, handler: dict[str, Any]) -> str:
    """Codex's `currentHash` of one command handler of a matcher group."""
    normalized: dict[str, Any] = {
        "type": "command",
        "command": handler.get("command"),
        "timeout": max(
            1, int(handler.get("timeout", handler.get("timeoutSec", DEFAULT_TIMEOUT_S)))
        ),
        "async": bool(handler.get("async", False)),
    }
    for name in ("statusMessage", "additionalContextLimit"):
        if handler.get(name) is not None:
            normalized[name] = handler[name]
    identity: dict[str, Any] = {"event_name": event, "hooks": [normalized]}
    if matcher is not None:
        identity["matcher"] = matcher
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def _list(value: Any, key: str) -> list[Any]:
    found = value.get(key) if isinstance(value, dict) else None
    return found if isinstance(found, list) else []


def _handlers(value: Any) -> list[tuple[str, int, int, Any, dict[str, Any]]]:
    """(event label, group index, handler index, matcher, handler) of every command handler."""
    hooks = value.get("hooks") if isinstance(value, dict) else None
    out = []
    for event, label in EVENT_LABELS.items():
        for g, group in enumerate(_list(hooks, event)):
            for h, handler in enumerate(_list(group, "hooks")):
                if isinstance(handler, dict) and handler.get("type", "command") == "command":
                    out.append((label, g, h, group.get("matcher"), handler))
    return out


def our_hooks(config_path: Path, value: Any) -> list[HookRecord]:
    """The zodyssey hooks of a parsed `.codex/hooks.json` or `.codex/config.toml`."""
    from zodyssey.gate.install import _is_ours

    out: list[HookRecord] = []
    for label, g, h, matcher, handler in _handlers(value):
        command = handler.get("command")
        if not any(_is_ours(command, sub) for sub in ("pre-tool", "post-tool")):
            continue
        try:
            digest = hook_digest(label, matcher, handler)
        except (TypeError, ValueError):
            continue  # a malformed timeout: the wiring check reports the file
        out.append(HookRecord(f"{config_path}:{label}:{g}:{h}", digest, str(command)))
    return out


def _toml_key(text: str) -> str:
    return json.dumps(text)  # a TOML basic string: JSON's escapes are TOML's


def _read_config(path: Path) -> dict[str, Any] | str:
    if not path.is_file():
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return f"Codex's configuration {path} cannot be read ({exc}), so Codex runs no hook"


def _project_trusted(config: dict[str, Any], root: Path) -> tuple[bool, bool]:
    """(trusted, a table for the project exists)."""
    projects = config.get("projects")
    projects = projects if isinstance(projects, dict) else {}
    exists = False
    for name in dict.fromkeys((str(root), str(root.resolve()))):
        table = projects.get(name)
        if isinstance(table, dict):
            exists = True
            if table.get("trust_level") == "trusted":
                return True, True
    return False, exists


@dataclass
class _Verdict:
    missing: list[str]
    append: list[str]  # TOML lines for tables that do not exist yet
    fix: list[str]  # edits of tables that exist


def _judge_project(config: dict[str, Any], root: Path, out: _Verdict) -> None:
    trusted, exists = _project_trusted(config, root)
    if trusted:
        return
    out.missing.append(f"the project {root} is not trusted")
    table = f"[projects.{_toml_key(str(root))}]"
    if exists:
        out.fix.append(f'set trust_level = "trusted" under {table}')
    else:
        out.append += [table, 'trust_level = "trusted"', ""]


def _judge_hook(record: HookRecord, state: Any, out: _Verdict) -> None:
    table = f"[hooks.state.{_toml_key(record.key)}]"
    if not isinstance(state, dict):
        out.missing.append(f"the hook {record.key} is not trusted")
        out.append += [table, f"trusted_hash = {_toml_key(record.digest)}", ""]
        return
    if state.get("enabled") is False:
        out.missing.append(f"the hook {record.key} is switched off (enabled = false)")
        out.fix.append(f"remove `enabled = false` under {table}")
    if state.get("trusted_hash") != record.digest:
        out.missing.append(f"the hook {record.key} changed since it was trusted")
        out.fix.append(f"set trusted_hash = {_toml_key(record.digest)} under {table}")


def _switched_off(config: dict[str, Any], config_path: Path) -> str | None:
    features = config.get("features")
    for flag in ("hooks", "codex_hooks"):
        if isinstance(features, dict) and features.get(flag) is False:
            return (
                f"{config_path} sets `[features] {flag} = false`, so Codex runs no hook at all; "
                "remove that line"
            )
    return None


def _hook_states(config: dict[str, Any]) -> dict[str, Any]:
    """`[hooks.state]` of Codex's configuration ({} when absent or malformed)."""
    hooks_table = config.get("hooks")
    states = hooks_table.get("state") if isinstance(hooks_table, dict) else None
    return states if isinstance(states, dict) else {}


def untrusted(
    root: Path,
    config_rel: str,
    value: Any,
    env: dict[str, str] | None = None,
    *,
    home_required: bool = False,
) -> str | None:
    """None when Codex would run our hooks of `root`; otherwise why not and how to trust them.

    Without a Codex home: None, or with `home_required` what to put in a new one."""
    home = codex_home(env)
    if home is None:
        return _no_home(root, config_rel, value, env) if home_required else None
    config_path = home / "config.toml"
    config = _read_config(config_path)
    if isinstance(config, str):
        return config
    off = _switched_off(config, config_path)
    if off:
        return off
    states = _hook_states(config)
    out = _Verdict([], [], [])
    _judge_project(config, root, out)
    for record in our_hooks(root / config_rel, value):
        _judge_hook(record, states.get(record.key), out)
    if not out.missing:
        return None
    how = []
    if out.append:
        block = "\n".join(out.append).rstrip("\n")
        how.append(f"cat >> {shlex.quote(str(config_path))} <<'EOF'\n{block}\nEOF")
    if out.fix:
        how.append(f"in {config_path}: " + "; ".join(out.fix))
    return (
        "Codex would not run the gate: "
        + "; ".join(out.missing)
        + " (Codex skips untrusted hooks without a word). A person trusts them with\n"
        + "\n".join(how)
        + f"\nor by starting `codex` in {root} and answering its hook review with "
        '"Trust all and continue"'
    )


def _no_home(root: Path, config_rel: str, value: Any, env: dict[str, str] | None) -> str:
    """Codex never started here: the records a new `config.toml` needs, to be written first."""
    home = codex_home_path(env)
    out = _Verdict([], [], [])
    _judge_project({}, root, out)
    for record in our_hooks(root / config_rel, value):
        _judge_hook(record, None, out)
    block = "\n".join(out.append).rstrip("\n")
    config_path = home / "config.toml"
    return (
        f"Codex has never started on this machine (no {home}): a Codex started here makes "
        "that folder without trust records and runs no hook of this project, without a "
        "word. A person trusts the project and its gate hooks ahead with\n"
        f"mkdir -p {shlex.quote(str(home))}\n"
        f"cat >> {shlex.quote(str(config_path))} <<'EOF'\n{block}\nEOF\n"
        "or, when this run uses no Codex, names the harnesses it uses: `zodyssey run start "
        "SLUG --harness NAME` (once per harness, Codex left out)"
    )
