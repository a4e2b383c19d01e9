"""Repository configuration: `[tool.zodyssey]` in pyproject.toml or `.zodyssey.toml`.

`.zodyssey.toml` (top-level keys, or a `[tool.zodyssey]` table) wins when both
exist, so repositories that are not Python need no pyproject.toml. Standard
library only: the gate hook reads this on its hot path.
"""

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zodyssey.core.files import NotRegularFile, read_regular_text
from zodyssey.errors import UsageError

DEFAULT_LOCK = "anchors/anchors.lock.json"
DEFAULT_CLAIMS_LOCK = "invariants/claims.lock.json"
DEFAULT_EXCLUDE = (
    ".git",
    ".zcode",
    "node_modules",
    "dist",
    "build",
    "coverage",
    ".venv",
    "venv",
    ".nox",
    ".tox",
    "__pycache__",
)


@dataclass
class Config:
    root: "Path"
    source: "Path | None" = None
    documents: list[str] = field(default_factory=lambda: ["**/*.md", "**/*.mdx"])
    exclude: list[str] = field(default_factory=lambda: list(DEFAULT_EXCLUDE))
    lock: str = DEFAULT_LOCK
    windows: dict[str, str] = field(default_factory=lambda: {"CHANGELOG.md": "top-section"})
    exempt: list[str] = field(default_factory=list)
    claims_lock: str = DEFAULT_CLAIMS_LOCK
    claims_documents: list[str] = field(
        default_factory=lambda: ["README.md", "DESIGN.md", "docs/**/*.md"]
    )
    raw: "dict[str, Any]" = field(default_factory=dict)
    # True: the keys sit in a `[tool.zodyssey]` table; False: at the top of .zodyssey.toml.
    nested: bool = True

    def section(self, name: str) -> "dict[str, Any]":
        """A sub-table such as `[tool.zodyssey.checks]` or `[tool.zodyssey.gate]`."""
        value = self.raw.get(name, {})
        return value if isinstance(value, dict) else {}

    def where(self, section: str = "") -> str:
        """Where a key of `section` ('' for the top) is written, in the spelling of the
        file in use: `[anchors] in .zodyssey.toml`, `[tool.zodyssey.anchors] in
        pyproject.toml`. Advice that prints configuration says this, so pasting it
        into the file keeps every other key (issue 36)."""
        if self.source is not None:
            name, nested = self.source.name, self.nested
        elif (self.root / "pyproject.toml").is_file():
            name, nested = "pyproject.toml", True
        else:
            name, nested = ".zodyssey.toml", False
        if nested:
            return f"[tool.zodyssey{'.' + section if section else ''}] in {name}"
        return f"[{section}] in {name}" if section else f"the top of {name}"


def _read_toml(path: "Path") -> "dict[str, Any]":
    # Opened through core/files: a FIFO or device here is refused at once (never
    # waited on), and the check and the read see the same file.
    try:
        return tomllib.loads(read_regular_text(path, "configuration"))
    except NotRegularFile as exc:
        raise UsageError(exc.message) from exc
    except OSError as exc:
        raise UsageError(f"cannot read configuration {path}: {exc.strerror}") from exc
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(
            f"configuration {path} is not valid TOML ({exc}); fix the file or remove it"
        ) from exc
    except RecursionError as exc:
        raise UsageError(
            f"configuration {path} is not valid TOML (nested too deeply); fix the file or remove it"
        ) from exc


def _str_list(table: "dict[str, Any]", key: str, source: "Path") -> list[str] | None:
    if key not in table:
        return None
    value = table[key]
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UsageError(f"{source}: `{key}` must be a string or a list of strings")
    return list(value)


def _located(base: Path) -> "Path | None":
    """The configuration file of `base`: `.zodyssey.toml`, else pyproject.toml, else None.

    Whatever stands at the first of those paths is taken, regular or not: a
    directory, FIFO or dangling link where the configuration belongs must not
    silently fall back to the defaults (the check would pass on the wrong
    settings); the reader refuses it.
    """
    for candidate in (base / ".zodyssey.toml", base / "pyproject.toml"):
        if candidate.is_symlink() or candidate.exists():
            return candidate
    return None


def _table(base: Path) -> "tuple[dict[str, Any], Path | None, bool]":
    """The zodyssey table of the repository at `base`, the file holding it, and whether
    it is a `[tool.zodyssey]` table (else the top-level keys of .zodyssey.toml)."""
    source = _located(base)
    if source is None:
        return {}, None, True
    if source.is_symlink() and not source.exists():
        raise UsageError(f"configuration {source} is not a readable file")
    data = _read_toml(source)
    tool = data.get("tool")
    nested = tool.get("zodyssey") if isinstance(tool, dict) else None
    if source.name == ".zodyssey.toml":
        dropped = sorted(k for k in data if k != "tool")
        if isinstance(nested, dict) and dropped:
            # One spelling per file: reading the table alone would silently drop the
            # top-level keys (`documents`, `lock`, ...), and the check would pass on
            # settings nobody wrote.
            raise UsageError(
                f"configuration {source} mixes two spellings: top-level keys and a "
                f"[tool.zodyssey] table; the table alone would be read and "
                f"{', '.join(dropped)} dropped. Write every key at the top of the file "
                "(sub-tables as [anchors], [gate], ...) or every key under [tool.zodyssey]"
            )
    if isinstance(nested, dict):
        return nested, source, True
    if source.name == ".zodyssey.toml":  # top-level keys
        return data, source, False
    return {}, None, True


def _windows(table: "dict[str, Any]", where: Path) -> "dict[str, str] | None":
    if "windows" not in table:
        return None
    windows = table["windows"]
    if not isinstance(windows, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in windows.items()
    ):
        raise UsageError(f'{where}: `windows` must map document paths to "top-section" or "all"')
    return dict(windows)


def load_config(root: "str | Path") -> "Config":
    """Load the configuration of the repository at `root` (defaults when none)."""
    base = Path(root)
    table, source, nested = _table(base)
    config = Config(root=base, source=source, raw=table, nested=nested)
    where = source or base
    for key in ("documents", "exclude", "exempt", "claims_documents"):
        value = _str_list(table, key, where)
        if value is not None:
            setattr(config, key, value)
    for key in ("lock", "claims_lock"):
        if key in table:
            if not isinstance(table[key], str) or not table[key]:
                raise UsageError(f"{where}: `{key}` must be a non-empty path string")
            setattr(config, key, table[key])
    windows = _windows(table, where)
    if windows is not None:
        config.windows = windows
    return config


def config_digest(root: "str | Path") -> tuple[str, str]:
    """(sha256 hex of the gate's configuration, the file it came from or "").

    The gate's part of the configuration (`[tool.zodyssey.gate]`: read_only,
    read_only_agents, reviewer settings, read_only_tools) is hashed as
    canonical JSON, so an edit elsewhere in pyproject.toml keeps the digest and
    any change to what the gate allows (in whatever TOML spelling) changes it.
    A configuration that cannot be read hashes as such.
    """
    import hashlib
    import json

    try:
        config = load_config(root)
        body = json.dumps(config.raw.get("gate"), sort_keys=True, default=str, ensure_ascii=True)
        source = config.source.name if config.source is not None else ""
    except UsageError as exc:
        body = "unreadable: " + str(exc)
        source = "unreadable"
    return hashlib.sha256(body.encode("utf-8")).hexdigest(), source
