"""The drill's cache: a claim's last verdict, keyed by what it depends on.

The key is the sha256 of the drill engine's version, the claim's text, its code
specs and `drill-skip=` fields, the bytes of every span, each break's digest,
the linked tests' node ids, the bytes of their test files (with the
`conftest.py` files above them), what pytest reads of its configuration files,
and what the unbroken run of the tests read (recorded by
drill_site/sitecustomize.py in every Python process of it): the repository files
opened and the repository modules the test process imported, outside the
claimed code's own top-level folder (that code is keyed by its spans: keying
every module of the product would re-drill every claim on any change), the
interpreter's version and the installed distributions of every module imported
from outside the repository. A claim
whose key is unchanged is not drilled again; anything else is, and so is a
claim whose run recorded nothing (what its tests read is not known). The file is JSON
(`invariants/claims.drill.json` by default, `drill_cache` in the
configuration), sorted, 2-space indented, written atomically and only when it
changes; commit it so CI re-drills only what changed:

    {"_comment": "...", "version": 1,
     "claims": {"bash-gate": {"key": "<sha256>", "status": "drilled", "equivalent": 0,
                "deps": {"files": [...], "modules": [...]},
                "breaks": [{"id", "kind", "what", "status", "tests", "cause"}]}}}
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zodyssey.claims.drill import ClaimResult, Deps, Target
from zodyssey.claims.drill_breaks import ENGINE, ENGINE_OTHER
from zodyssey.errors import UsageError

CACHE_VERSION = 1
_COMMENT = (
    "Drill cache written by `zodyssey claims drill`: per claim, the verdict of its "
    "last drill and the key (claim text, code, linked tests) it holds for."
)


def _test_files(root: Path, tests: list[str]) -> list[str]:
    files: set[str] = set()
    for nodeid in tests:
        path = nodeid.split("::", 1)[0]
        files.add(path)
        parent = Path(path).parent
        while True:
            conftest = (parent / "conftest.py").as_posix()
            if (root / conftest).is_file():
                files.add(conftest)
            if parent == parent.parent:
                break
            parent = parent.parent
    return sorted(files)


# pytest's configuration files (`addopts`, plugins, paths), keyed whenever present.
_CONFIG_FILES = ("pyproject.toml", "pytest.ini", "setup.cfg", "tox.ini")


def _pytest_config(name: str, data: bytes | None) -> bytes:
    """What pytest reads of a configuration file: pyproject.toml's `[tool.pytest...]`
    tables (the rest of it is not pytest's), any other file whole."""
    if data is None:
        return b"missing"
    if name != "pyproject.toml":
        return data
    import tomllib

    try:
        tool = tomllib.loads(data.decode("utf-8")).get("tool", {})
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return data
    table = tool.get("pytest", {}) if isinstance(tool, dict) else {}
    return json.dumps(table, sort_keys=True, default=str).encode()


class KeyContext:
    """What every key of one drill shares: the repository's listed files (the
    files a scratch copy holds), the interpreter, installed distributions."""

    def __init__(self, root: Path) -> None:
        from zodyssey.claims.drill import _listed_files

        self.root = root
        listed = _listed_files(root)
        self.listed: set[str] | None = set(listed) if listed is not None else None
        self._versions: dict[str, list[str]] | None = None

    def interpreter(self) -> str:
        version = ".".join(str(n) for n in sys.version_info[:3])
        return f"{sys.implementation.name} {version}"

    def versions(self, module: str) -> str:
        """`module` and the installed distributions (name==version) providing it."""
        import importlib.metadata as metadata

        if self._versions is None:
            self._versions = dict(metadata.packages_distributions())
        found = []
        for dist in sorted(set(self._versions.get(module, []))):
            try:
                found.append(f"{dist}=={metadata.version(dist)}")
            except metadata.PackageNotFoundError:
                found.append(f"{dist}==?")
        return f"{module}:{','.join(found)}"

    def content(self, rel: str) -> bytes | None:
        """A repository file's bytes as a scratch copy has them (None: not in a copy)."""
        if self.listed is not None and rel not in self.listed:
            return None
        try:
            return (self.root / rel).read_bytes()
        except OSError:
            return None


def cache_key(context: KeyContext, target: Target, deps: Deps | None) -> str | None:
    """The claim's key: None when what its tests read is not known (drill again)."""
    if deps is None:
        return None
    root = context.root
    digest = hashlib.sha256()

    def add(label: str, data: bytes) -> None:
        digest.update(f"{label}\0{len(data)}\0".encode())
        digest.update(data)

    add("engine", ENGINE.encode())
    if any(not span.path.endswith(".py") for span in target.spans):
        add("engine", ENGINE_OTHER.encode())  # tree-sitter breaks (other languages)
    add("text", target.claim.text.encode("utf-8"))
    for spec in target.specs:
        add("spec", spec.encode("utf-8"))
    for skipped, reason in target.claim.skips:
        add("skip", f"{skipped}\0{reason}".encode())
    for span in target.spans:
        add("span", f"{span.path}\0{span.kind}\0{span.symbol}".encode())
        add("content", span.content(root))
    for brk in target.breaks:  # each mutant keyed by what it runs
        add("break", f"{brk.id}\0{brk.digest()}".encode())
    for nodeid in target.tests:
        add("test", nodeid.encode("utf-8"))
    code = {span.path.split("/", 1)[0] for span in target.spans if "/" in span.path}
    read = {f for f in deps.files if f.split("/", 1)[0] not in code and f not in _CONFIG_FILES}
    for path in sorted({*_test_files(root, target.tests), *read}):
        data = context.content(path)
        add("file", path.encode("utf-8", "surrogateescape"))
        add("bytes" if data is not None else "missing", data or b"")
    for path in _CONFIG_FILES:
        add("config", path.encode())
        add("pytest", _pytest_config(path, context.content(path)))
    add("python", context.interpreter().encode())
    for module in deps.modules:
        add("module", context.versions(module).encode())
    return digest.hexdigest()


@dataclass(frozen=True)
class CachedBreak:
    id: str
    kind: str
    what: str
    status: str
    tests: tuple[str, ...]
    cause: str


@dataclass(frozen=True)
class CachedClaim:
    key: str
    status: str
    breaks: tuple[CachedBreak, ...]
    equivalent: int = 0  # operator mutants left out as equivalent
    deps: Deps | None = None  # what the unbroken run read (part of the key)


def read_cache(path: Path) -> dict[str, CachedClaim]:
    """The cache at `path` ({} when there is none); exit 2 when it cannot be used."""
    from zodyssey.core.files import read_regular_text

    how = "fix it or delete it (the next drill re-creates it)"
    try:
        data = json.loads(read_regular_text(path, "drill cache"))  # a FIFO: exit 2, no hang
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read drill cache {path}: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise UsageError(f"drill cache {path} is not valid JSON ({exc.msg}); {how}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("claims"), dict):
        raise UsageError(f"drill cache {path} has no `claims` object; {how}")
    out: dict[str, CachedClaim] = {}
    for claim_id, entry in data["claims"].items():
        try:
            breaks = tuple(
                CachedBreak(
                    str(b["id"]),
                    str(b["kind"]),
                    str(b["what"]),
                    str(b["status"]),
                    tuple(str(t) for t in b.get("tests", [])),
                    str(b.get("cause", "")),
                )
                for b in entry["breaks"]
            )
            out[str(claim_id)] = CachedClaim(
                str(entry["key"]),
                str(entry["status"]),
                breaks,
                int(entry.get("equivalent", 0)),
                _deps_of(entry.get("deps")),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise UsageError(f"drill cache {path}: entry {claim_id!r} is malformed; {how}") from exc
    return out


def _deps_of(value: Any) -> Deps | None:
    if not isinstance(value, dict):
        return None
    return Deps(
        tuple(str(p) for p in value.get("files", [])),
        tuple(str(m) for m in value.get("modules", [])),
    )


def entry_of(result: ClaimResult, key: str) -> CachedClaim:
    return CachedClaim(
        key,
        result.status,
        tuple(
            CachedBreak(
                r.brk.id,
                r.brk.kind,
                r.brk.what,
                r.outcome.status,
                tuple(r.outcome.tests),
                r.outcome.cause,
            )
            for r in result.results
        ),
        result.target.equivalent,
        result.deps,
    )


def render_cache(entries: dict[str, CachedClaim]) -> str:
    claims: dict[str, Any] = {}
    for claim_id in sorted(entries):
        entry = entries[claim_id]
        claims[claim_id] = {
            "key": entry.key,
            "status": entry.status,
            "equivalent": entry.equivalent,
            "deps": (
                {
                    "files": list(entry.deps.files),
                    "modules": list(entry.deps.modules),
                }
                if entry.deps is not None
                else None
            ),
            "breaks": [
                {
                    "id": b.id,
                    "kind": b.kind,
                    "what": b.what,
                    "status": b.status,
                    "tests": list(b.tests),
                    "cause": b.cause,
                }
                for b in entry.breaks
            ],
        }
    document = {"_comment": _COMMENT, "version": CACHE_VERSION, "claims": claims}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def write_cache(path: Path, entries: dict[str, CachedClaim]) -> bool:
    """Write when the content changes; True when written."""
    from zodyssey.core.atomic import write_atomic
    from zodyssey.core.files import read_regular_text, require_regular_target

    text = render_cache(entries)
    require_regular_target(path, "drill cache")
    try:
        if read_regular_text(path, "drill cache") == text:
            return False
    except (OSError, UnicodeDecodeError):
        pass
    try:
        write_atomic(os.path.realpath(path), text)  # through a symlink, as the ledger
    except OSError as exc:
        raise UsageError(f"cannot write drill cache {path}: {exc.strerror}") from exc
    return True
