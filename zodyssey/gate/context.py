"""`RunContext`: what the policy knows about the active run, and how it is found.

Discovery is a handful of `stat`/`listdir` calls and one small JSON read, so
the common case (no run) costs almost nothing. The plan, the dispatch ledger
and the gate settings are loaded only when a rule needs them, then memoised:
a read-only shell command never parses the plan.
"""

import os

from zodyssey.core.allowance import (  # the plan and the configuration, read by the allowance
    MAX_PLAN_BYTES,
    MAX_PLAN_FILES,
    ConfigChanged,
    Layout,
    PlanView,
    check_config,
    load_plan,
    plan_view,
)
from zodyssey.core.records import Fields

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from zodyssey.core.allowance import Allowance

__all__ = [
    "MAX_PLAN_BYTES",
    "MAX_PLAN_FILES",
    "ConfigChanged",
    "PlanView",
    "check_config",
    "load_plan",
    "plan_view",
]

DEFAULT_CAP = 4
DEFAULT_REVIEWER = "momus"
# Plugin namespaces whose packaging of the reviewer is the reviewer.
DEFAULT_REVIEWER_NAMESPACES = ("zodyssey", "odyssey")
# Subagents that only read or plan: allowed in every phase, the plan phase
# included (the reviewer is added). Compared exactly, without a plugin
# namespace: `explore` and `my-plugin:explore` are one name, but `EXPLORE` and
# ` explore` are other agents (a custom executor could take either name).
DEFAULT_READ_ONLY_AGENTS = (
    # Claude Code's built-in agents that only read or plan
    "Explore",
    "Plan",
    "explore",
    "explorer",
    "code-explorer",
    "librarian",
    "oracle",
    "metis",
    "plan",
    "planner",
    "prometheus",
    "architect",
    "code-architect",
    # Gemini CLI's built-in agents that only read
    "codebase_investigator",
    "cli_help",
)


def agent_key(name: str) -> str:
    """How an agent name compares: the part after the last `:` (a harness's plugin
    namespace, `plugin:momus`), exactly as written: no case or space folding."""
    return name.rsplit(":", 1)[-1]


def parse_cap(raw: str) -> int:
    """`ZODYSSEY_PARALLEL_CAP`: a whole number of at least 1, default 4.

    Anything else is a misconfigured gate and fails closed: a cap of 0 or
    less would read as "no dispatch ever" with a misleading reason.
    """
    if not raw.strip():
        return DEFAULT_CAP
    try:
        cap = int(raw)
    except ValueError:
        raise ValueError(f"ZODYSSEY_PARALLEL_CAP={raw!r} is not a number") from None
    if cap < 1:
        raise ValueError(f"ZODYSSEY_PARALLEL_CAP={raw!r} must be at least 1")
    return cap


class GateSettings(Fields):
    read_only: tuple[tuple[str, ...], ...] = ()
    reviewer_agent: str = DEFAULT_REVIEWER
    read_only_agents: frozenset[str] = frozenset(DEFAULT_READ_ONLY_AGENTS)
    reviewer_namespaces: frozenset[str] = frozenset(DEFAULT_REVIEWER_NAMESPACES)
    read_only_tools: tuple[str, ...] = ()  # non-native tools known to only read

    def is_reviewer(self, agent: str) -> bool:
        """The reviewer, bare or packaged by a trusted plugin (`zodyssey:momus`).

        Any other namespace is a lookalike (`evil:momus`): it may run as a
        read-only agent but mints no nonce, since whoever can install a plugin
        could otherwise ship a reviewer that approves everything.
        """
        if not agent:
            return False
        namespace, _, name = agent.rpartition(":")
        if agent_key(name) != agent_key(self.reviewer_agent):
            return False
        if agent == self.reviewer_agent:
            return True
        return not namespace or namespace in self.reviewer_namespaces

    def is_read_only_agent(self, agent: str) -> bool:
        return bool(agent) and agent_key(agent) in {agent_key(a) for a in self.read_only_agents}


DEFAULT_SETTINGS = GateSettings()


class RunContext:
    """One active run as the policy sees it (loaders make the heavy parts lazy)."""

    def __init__(
        self,
        layout: "Layout",
        slug: str,
        state: "dict[str, Any]",
        *,
        plan: "PlanView | Callable[[], PlanView]",
        inflight: "list[dict[str, Any]] | Callable[[], list[dict[str, Any]]]" = (lambda: []),
        settings: "GateSettings | Callable[[], GateSettings]" = DEFAULT_SETTINGS,
        now: float = 0.0,
        home: str = "/nonexistent-home",
        ungated: bool = False,
        cap: int = DEFAULT_CAP,
        exists: "Callable[[str], bool]" = os.path.lexists,
        sandboxed: bool = False,
    ) -> None:
        self.layout = layout
        self.root = layout.root
        self.slug = slug
        self.state = state
        self._plan = plan
        self._inflight = inflight
        self._settings = settings
        self.now = now
        self.home = home
        self.ungated = ungated
        self.cap = cap
        self.exists = exists
        # The shell call will run under the Landlock write sandbox (zodyssey/sandbox/):
        # what it writes without naming is contained by the kernel, not guessed.
        self.sandboxed = sandboxed

    @property
    def phase(self) -> str:
        phase = self.state.get("phase")
        return phase if isinstance(phase, str) else ""

    @property
    def review(self) -> "dict[str, Any]":
        review = self.state.get("review")
        return review if isinstance(review, dict) else {}

    @property
    def verdict(self) -> str | None:
        verdict = self.review.get("verdict")
        return verdict if isinstance(verdict, str) else None

    def plan(self) -> "PlanView":
        if callable(self._plan):
            self._plan = self._plan()
        return self._plan

    def inflight(self) -> "list[dict[str, Any]]":
        if callable(self._inflight):
            self._inflight = self._inflight()
        return self._inflight

    def settings(self) -> "GateSettings":
        if callable(self._settings):
            self._settings = self._settings()
        return self._settings

    def allowance(self) -> "Allowance":
        """What the run may write now (zodyssey/core/allowance.py), from the state as
        it is: made afresh on each call, the plan and settings loaded once."""
        from zodyssey.core.allowance import Allowance

        return Allowance(
            self.layout,
            self.slug,
            self.state,
            self.plan,
            now=self.now,
            reviewer=lambda: self.settings().reviewer_agent,
            exists=self.exists,
        )


# ---------------------------------------------------------------- loaders


def load_inflight(layout: "Layout", slug: str) -> "list[dict[str, Any]]":
    import json  # only once a dispatch ledger exists

    from zodyssey.core.files import open_regular
    from zodyssey.core.paths import inflight_path

    path = inflight_path(layout.root, slug)
    try:  # a FIFO or device as the ledger raises NotRegularFile: the call blocks
        with os.fdopen(open_regular(path, "the dispatch ledger"), encoding="utf-8") as handle:
            value = json.load(handle)
    except FileNotFoundError:
        return []
    if not isinstance(value, list):
        raise ValueError(f"{path} does not hold a JSON list")
    return [entry for entry in value if isinstance(entry, dict)]


def _strings(section: "Any", key: str, default: "list[str]") -> "list[str]":
    """`[tool.zodyssey.gate] key`: a list of strings, else one clear error."""
    value = section.get(key, default)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"[tool.zodyssey.gate] {key} must be a list of strings")
    return value


def load_settings(root: str) -> "GateSettings":
    """`[tool.zodyssey.gate]`: read_only, reviewer_agent, read_only_agents."""
    # Parsing TOML costs milliseconds; skip it when no config file mentions the gate.
    from zodyssey.core.files import open_regular

    mentions = False
    for name in (".zodyssey.toml", "pyproject.toml"):
        try:  # a FIFO or device as the configuration raises NotRegularFile: blocks
            with os.fdopen(open_regular(os.path.join(root, name), name), "rb") as handle:
                if b"gate" in handle.read():
                    mentions = True
        except OSError:
            continue
    if not mentions:
        return GateSettings()
    from zodyssey.config import load_config

    section = load_config(root).section("gate")
    read_only_raw = _strings(section, "read_only", [])
    reviewer = section.get("reviewer_agent", DEFAULT_REVIEWER)
    if not isinstance(reviewer, str) or not reviewer:
        raise ValueError("[tool.zodyssey.gate] reviewer_agent must be a non-empty string")
    agents_raw = _strings(section, "read_only_agents", list(DEFAULT_READ_ONLY_AGENTS))
    spaces = _strings(section, "reviewer_namespaces", list(DEFAULT_REVIEWER_NAMESPACES))
    tools = _strings(section, "read_only_tools", [])
    return GateSettings(
        tuple(tuple(entry.split()) for entry in read_only_raw if entry.split()),
        reviewer,
        frozenset(agents_raw),
        frozenset(spaces),
        tuple(tools),
    )
