"""The claims ledger (`invariants/claims.lock.json` by default) and the comparison
of what the documents and the tests say now with what it records.

Lock format (2-space indentation, trailing newline, claims sorted by id):

    {
      "_comment": "...",
      "version": 1,
      "claims": {
        "bash-gate": {
          "doc": "README.md",
          "line": 12,
          "fingerprint": "<sha256 hex of the normalised text>",
          "text": "<the normalised text, so a reviewer sees what was promised>",
          "tests": ["invariants/test_gate.py::test_blocks_tee"]
        }
      }
    }

Standard library only (the pytest plugin uses it in strict mode).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zodyssey.claims.model import Claim, ClaimSet, LinkedTest, fingerprint
from zodyssey.errors import UsageError
from zodyssey.findings import Finding

LEDGER_VERSION = 1
_COMMENT = (
    "Claims ledger written by `zodyssey claims update`: per claim, where it is "
    "promised, the fingerprint of its text and the tests that defend it. Review "
    "changes to this file like code."
)


@dataclass(frozen=True)
class LedgerEntry:
    doc: str
    line: int
    fingerprint: str
    text: str
    tests: tuple[str, ...]


@dataclass
class Ledger:
    entries: dict[str, LedgerEntry] = field(default_factory=dict)


def read_ledger(path: Path) -> Ledger | None:
    """The ledger at `path`, None when there is none; exit 2 when it cannot be used:
    not JSON, an unknown version, a claim id twice, an entry whose fingerprint is
    not the one of its own text (edited by hand)."""
    how = "fix it or delete it and run `zodyssey claims update`"
    raw = _ledger_text(path, how)
    if raw is None:
        return None
    data = _ledger_json(path, raw, how)
    if not isinstance(data, dict) or not isinstance(data.get("claims"), dict):
        raise UsageError(f"claims ledger {path} has no `claims` object; {how}")
    version = data.get("version")
    if version != LEDGER_VERSION or isinstance(version, bool):
        raise UsageError(
            f"claims ledger {path} has version {version!r}; this zodyssey reads version "
            f"{LEDGER_VERSION} only; {how}"
        )
    ledger = Ledger()
    for claim_id, value in data["claims"].items():
        entry = _entry(value)
        if entry is None:
            raise UsageError(f"claims ledger {path}: entry {claim_id!r} is malformed; {how}")
        if entry.fingerprint != fingerprint(entry.text):
            raise UsageError(
                f"claims ledger {path}: entry {claim_id!r} has a fingerprint that is not the "
                f"one of its recorded text (edited by hand?); {how}"
            )
        ledger.entries[str(claim_id)] = entry
    return ledger


def _ledger_text(path: Path, how: str) -> str | None:
    from zodyssey.core.files import NotRegularFile, read_regular_text

    try:
        # A FIFO or a device would block or never end: only regular files are read.
        return read_regular_text(path, "claims ledger")
    except FileNotFoundError:
        return None
    except NotRegularFile as exc:
        raise UsageError(f"{exc}; {how}") from exc
    except OSError as exc:
        raise UsageError(f"cannot read claims ledger {path}: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise UsageError(f"claims ledger {path} is not UTF-8 text; {how}") from exc


class _Duplicate(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Duplicate(key)
        out[key] = value
    return out


def _ledger_json(path: Path, raw: str, how: str) -> Any:
    try:
        return json.loads(raw, object_pairs_hook=_unique_keys)
    except _Duplicate as exc:
        raise UsageError(
            f"claims ledger {path} records the key {exc.args[0]!r} twice (JSON would keep "
            f"only the last); {how}"
        ) from exc
    except json.JSONDecodeError as exc:
        raise UsageError(
            f"claims ledger {path} is not valid JSON ({exc.msg}, line {exc.lineno}); {how}"
        ) from exc
    except RecursionError as exc:
        raise UsageError(
            f"claims ledger {path} is not valid JSON (nested too deeply); {how}"
        ) from exc


def _entry(value: Any) -> LedgerEntry | None:
    if not isinstance(value, dict):
        return None
    doc, line, fp = value.get("doc"), value.get("line"), value.get("fingerprint")
    tests = value.get("tests", [])
    text = value.get("text", "")
    if not isinstance(doc, str) or not isinstance(fp, str) or not isinstance(text, str):
        return None
    if not isinstance(line, int) or isinstance(line, bool):
        return None
    if not isinstance(tests, list) or not all(isinstance(t, str) for t in tests):
        return None
    return LedgerEntry(doc, line, fp, text, tuple(tests))


def render_ledger(ledger: Ledger) -> str:
    claims: dict[str, Any] = {}
    for claim_id in sorted(ledger.entries):
        entry = ledger.entries[claim_id]
        claims[claim_id] = {
            "doc": entry.doc,
            "line": entry.line,
            "fingerprint": entry.fingerprint,
            "text": entry.text,
            "tests": sorted(entry.tests),
        }
    document = {"_comment": _COMMENT, "version": LEDGER_VERSION, "claims": claims}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def write_ledger(path: Path, ledger: Ledger) -> None:
    """Atomically; through a symlink (the link stays, its target gets the new text)."""
    import os

    from zodyssey.core.atomic import write_atomic
    from zodyssey.core.files import require_regular_target

    require_regular_target(path, "claims ledger")
    write_atomic(os.path.realpath(path), render_ledger(ledger))


def links_by_claim(links: list[LinkedTest]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for link in links:
        for claim_id in link.claims:
            out.setdefault(claim_id, [])
            if link.nodeid not in out[claim_id]:
                out[claim_id].append(link.nodeid)
    return out


def build_ledger(claims: ClaimSet, links: list[LinkedTest]) -> Ledger:
    """The ledger that records the present state (what `update` writes)."""
    linked = links_by_claim(links)
    ledger = Ledger()
    for claim_id, claim in claims.claims.items():
        ledger.entries[claim_id] = LedgerEntry(
            claim.doc,
            claim.line,
            claim.fingerprint,
            claim.text,
            tuple(sorted(linked.get(claim_id, []))),
        )
    return ledger


def _f(rule: str, message: str, file: str | None, line: int | None, **extra: Any) -> Finding:
    severity: Any = (
        "note" if rule == "new-test" else "warning" if rule == "collection-error" else "error"
    )
    return Finding("claims", rule, severity, message, file, line, extra)


def marker_findings(claims: ClaimSet) -> list[Finding]:
    """Problems of the documents alone: bad markers and duplicate ids."""
    findings = [_f("bad-marker", why, doc, line) for doc, line, why in claims.marker_problems]
    for claim_id, places in claims.duplicates().items():
        where = ", ".join(f"{c.doc}:{c.marker_line}" for c in places)
        for place in places[1:]:
            findings.append(
                _f(
                    "duplicate-id",
                    f"claim id `{claim_id}` is marked {len(places)} times ({where}); ids must be unique",
                    place.doc,
                    place.marker_line,
                    id=claim_id,
                )
            )
    return findings


def compare(
    claims: ClaimSet,
    links: list[LinkedTest],
    ledger: Ledger | None,
    ledger_path: str,
) -> list[Finding]:
    """Findings of the documents and collected test links against the ledger.

    `links` must list every collected test (deselected ones included): a
    locked test id that is absent from it is reported as missing.
    """
    findings = marker_findings(claims)
    linked = links_by_claim(links)
    entries = ledger.entries if ledger is not None else {}
    findings.extend(_unknown_claims(claims, links))
    for claim_id, claim in claims.claims.items():
        findings.extend(
            _claim_against_ledger(
                claim, linked.get(claim_id, []), entries.get(claim_id), ledger_path
            )
        )
    findings.extend(
        _removed(claim_id, entry, ledger_path)
        for claim_id, entry in entries.items()
        if claim_id not in claims.claims
    )
    return findings


def _unknown_claims(claims: ClaimSet, links: list[LinkedTest]) -> list[Finding]:
    return [
        _f(
            "unknown-claim",
            f"test {link.nodeid} names claim `{claim_id}`, which no claims document marks",
            link.file,
            link.line,
            id=claim_id,
            test=link.nodeid,
        )
        for link in links
        for claim_id in link.claims
        if claim_id not in claims.claims
    ]


def _claim_against_ledger(
    claim: Claim, tests: list[str], entry: LedgerEntry | None, ledger_path: str
) -> list[Finding]:
    """uncovered, unlocked, changed, missing-test and new-test of one claim."""
    claim_id = claim.id
    findings: list[Finding] = []
    if not tests:
        findings.append(
            _f(
                "uncovered",
                f"claim `{claim_id}` has no linked test (mark one with "
                f'@pytest.mark.claim("{claim_id}")): "{_short(claim.text)}"',
                claim.doc,
                claim.line,
                id=claim_id,
            )
        )
    if entry is None:
        findings.append(
            _f(
                "unlocked",
                f"claim `{claim_id}` is not in the ledger {ledger_path}; review its tests and "
                "run `zodyssey claims update`",
                claim.doc,
                claim.line,
                id=claim_id,
            )
        )
        return findings
    if entry.fingerprint != claim.fingerprint:
        findings.append(_changed(claim, entry))
    findings.extend(
        _f(
            "missing-test",
            f"claim `{claim_id}`: locked test {nodeid} no longer exists or no longer "
            "links this claim",
            claim.doc,
            claim.line,
            id=claim_id,
            test=nodeid,
        )
        for nodeid in entry.tests
        if nodeid not in tests
    )
    findings.extend(
        _f(
            "new-test",
            f"claim `{claim_id}`: linked test {nodeid} is not in the ledger yet",
            claim.doc,
            claim.line,
            id=claim_id,
            test=nodeid,
        )
        for nodeid in tests
        if nodeid not in entry.tests
    )
    return findings


def _changed(claim: Claim, entry: LedgerEntry) -> Finding:
    was, now = text_difference(entry.text, claim.text)
    return _f(
        "changed",
        f"claim `{claim.id}` text changed since the ledger was written; re-read its "
        f'tests, then run `zodyssey claims update`. was: "{was}" now: "{now}"',
        claim.doc,
        claim.line,
        id=claim.id,
        locked=entry.fingerprint,
        current=claim.fingerprint,
        was=was,
        now=now,
    )


def _removed(claim_id: str, entry: LedgerEntry, ledger_path: str) -> Finding:
    return _f(
        "removed",
        f"the ledger records claim `{claim_id}` ({entry.doc}:{entry.line}) but no "
        "document marks it any more; if the promise was dropped on purpose, run "
        "`zodyssey claims update`",
        ledger_path,
        None,
        id=claim_id,
    )


def _short(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def text_difference(old: str, new: str, context: int = 30, limit: int = 120) -> tuple[str, str]:
    """The part of `old` and `new` that differs, with a little context on each side.

    Two long texts edited near their end must not both be cut before the edit
    (they would read the same): the window starts just before the first
    differing character and ends just after the last one; "…" marks a cut.
    """
    prefix = 0
    for a, b in zip(old, new, strict=False):
        if a != b:
            break
        prefix += 1
    suffix = 0
    room = min(len(old), len(new)) - prefix
    while suffix < room and old[len(old) - 1 - suffix] == new[len(new) - 1 - suffix]:
        suffix += 1
    start = max(0, prefix - context)
    # Do not start in the middle of a word when a space is near.
    space = old.find(" ", start, prefix)
    if start > 0 and space != -1:
        start = space + 1

    def window(text: str) -> str:
        end = min(len(text), len(text) - suffix + context)
        part = text[start:end]
        if len(part) > limit:
            part, end = part[: limit - 1], start + limit - 1
        return ("…" if start > 0 else "") + part + ("…" if end < len(text) else "")

    return window(old), window(new)


def describe_changes(old: Ledger | None, new: Ledger) -> list[str]:
    """Human lines saying what an update changes in the ledger."""
    before = old.entries if old is not None else {}
    lines: list[str] = []
    for claim_id in sorted(set(before) | set(new.entries)):
        was, now = before.get(claim_id), new.entries.get(claim_id)
        if was is None and now is not None:
            lines.append(f"+ {claim_id} ({now.doc}:{now.line}), tests: {len(now.tests)}")
        elif now is None and was is not None:
            lines.append(f"- {claim_id} ({was.doc}:{was.line}) dropped")
        elif was is not None and now is not None:
            lines.extend(_entry_changes(claim_id, was, now))
    return lines


def _entry_changes(claim_id: str, was: LedgerEntry, now: LedgerEntry) -> list[str]:
    lines: list[str] = []
    if was.fingerprint != now.fingerprint:
        old_part, new_part = text_difference(was.text, now.text, limit=80)
        lines.append(f"~ {claim_id} text: {old_part!r} -> {new_part!r}")
    if (was.doc, was.line) != (now.doc, now.line):
        lines.append(f"~ {claim_id} moved {was.doc}:{was.line} -> {now.doc}:{now.line}")
    lines += [f"~ {claim_id} + test {n}" for n in sorted(set(now.tests) - set(was.tests))]
    lines += [f"~ {claim_id} - test {n}" for n in sorted(set(was.tests) - set(now.tests))]
    return lines
