"""The gate's reading of Codex's trust records, held against the installed Codex CLI.

`zodyssey/gate/codex_trust.py` computes the key and hash Codex gives each
hook; here the real Codex (`codex app-server`, `hooks/list`) lists the hooks
`hook install` wrote, in both files Codex reads, and the two must agree. The
trust command `run start` prints is then run as a person would, and Codex
itself must report every gate hook trusted (test_gate_in_clients.py shows
trusted hooks run and block in `codex exec`).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

from tests.clients.drivers import Client, codex_hooks, write_json
from tests.clients.scenarios import PLAN, SLUG, make_user_repo
from tests.helpers import commit, run_zodyssey
from zodyssey.gate.codex_trust import our_hooks

TOML_WIRING = """\
[[hooks.PreToolUse]]

[[hooks.PreToolUse.hooks]]
type = "command"
command = "{command} pre-tool --harness codex"
statusMessage = "zodyssey gate ☂"

[[hooks.PostToolUse]]
matcher = "*"

[[hooks.PostToolUse.hooks]]
type = "command"
command = "{command} post-tool --harness codex"
timeout = 45
"""


def start(repo: Path, home: Path) -> subprocess.CompletedProcess[str]:
    plan_file = repo.parent / "plan.md"
    plan_file.write_text(PLAN, encoding="utf-8")
    env = {"HOME": str(home), "CODEX_HOME": str(home / ".codex")}
    return run_zodyssey("run", "start", SLUG, "--plan", str(plan_file), cwd=repo, env=env)


def trusted_home(tmp_path: Path, repo: Path) -> Path:
    home = tmp_path / "home"
    write_json(home / ".codex" / "probe.json", {})
    (home / ".codex" / "config.toml").write_text(
        f'[projects."{repo}"]\ntrust_level = "trusted"\n', encoding="utf-8"
    )
    return home


def listed(codex: Client, home: Path, repo: Path) -> dict[str, tuple[str, str]]:
    return {h["key"]: (h["currentHash"], h["trustStatus"]) for h in codex_hooks(codex, home, repo)}


def test_keys_and_hashes_are_codex_s_own_for_hooks_json(codex: Client, tmp_path: Path) -> None:
    repo = make_user_repo(tmp_path, ["codex"])
    home = trusted_home(tmp_path, repo)
    path = repo / ".codex" / "hooks.json"
    ours = {r.key: r.digest for r in our_hooks(path, json.loads(path.read_text()))}
    assert len(ours) == 2
    assert {k: v[0] for k, v in listed(codex, home, repo).items()} == ours


def test_keys_and_hashes_are_codex_s_own_for_config_toml(codex: Client, tmp_path: Path) -> None:
    """No matcher, no timeout, a status message with non-ASCII text: Codex's defaults."""
    repo = make_user_repo(tmp_path, [])
    command = f"{sys.executable} -m zodyssey hook"
    (repo / ".codex").mkdir()
    path = repo / ".codex" / "config.toml"
    path.write_text(TOML_WIRING.format(command=command), encoding="utf-8")
    home = trusted_home(tmp_path, repo)
    ours = {r.key: r.digest for r in our_hooks(path, tomllib.loads(path.read_text()))}
    assert len(ours) == 2
    assert {k: v[0] for k, v in listed(codex, home, repo).items()} == ours


def test_the_printed_trust_command_makes_codex_run_the_gate(codex: Client, tmp_path: Path) -> None:
    repo = make_user_repo(tmp_path, ["codex"])
    home = tmp_path / "home"
    write_json(home / ".codex" / "probe.json", {})
    refused = start(repo, home)
    assert refused.returncode == 11, refused.stderr
    block = refused.stderr[refused.stderr.index("cat >> ") :]
    block = block[: block.index("\nEOF") + len("\nEOF")] + "\n"
    subprocess.run(["sh", "-c", block], check=True)
    statuses = listed(codex, home, repo)
    assert statuses and all(status == "trusted" for _, status in statuses.values()), statuses
    done = start(repo, home)
    assert done.returncode == 0, done.stderr


def test_a_trusted_then_changed_hook_is_seen_as_codex_sees_it(
    codex: Client, tmp_path: Path
) -> None:
    repo = make_user_repo(tmp_path, ["codex"])
    home = tmp_path / "home"
    write_json(home / ".codex" / "probe.json", {})
    refused = start(repo, home)
    block = refused.stderr[refused.stderr.index("cat >> ") :]
    subprocess.run(["sh", "-c", block[: block.index("\nEOF") + 4] + "\n"], check=True)
    hooks = repo / ".codex" / "hooks.json"
    wiring = json.loads(hooks.read_text(encoding="utf-8"))
    wiring["hooks"]["PreToolUse"][0]["hooks"][0]["command"] += " "  # runs the same, hashes anew
    hooks.write_text(json.dumps(wiring), encoding="utf-8")
    commit(repo, "re-wired")
    statuses = listed(codex, home, repo)
    modified = sorted(k.rsplit(":", 3)[1] for k, (_, s) in statuses.items() if s == "modified")
    assert modified == ["pre_tool_use"], statuses
    done = start(repo, home)
    assert done.returncode == 11 and "pre_tool_use:0:0 changed since it was trusted" in done.stderr
