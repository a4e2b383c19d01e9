"""`zodyssey claims drill --shard K/N` and `--merge FILE...`: one drill over CI jobs.

Every break of every claim the cache does not answer is numbered in one order
(claim id, then break id and digest), and shard K of N runs those whose number
is K-1 modulo N: the same split on every machine that plans the same breaks.
A shard runs the unbroken tests of each claim it has breaks of, reports that
claim with only its own breaks and the plan's total (`shard` in the JSON claim),
and never writes the cache. `--merge` reads the shards' JSON reports and
judges the union: a claim is drilled only when every break of its plan is
there and killed; a missing shard leaves its claims not judged.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from zodyssey.claims.drill import (
    BreakResult,
    ClaimResult,
    Outcome,
    Target,
)
from zodyssey.claims.drill_breaks import Break
from zodyssey.claims.model import Claim
from zodyssey.errors import UsageError


def parse_shard(value: str) -> tuple[int, int]:
    index, _, total = value.partition("/")
    try:
        k, n = int(index), int(total)
    except ValueError:
        raise UsageError(f"--shard {value}: expected K/N, e.g. 2/4") from None
    if not 1 <= k <= n:
        raise UsageError(f"--shard {value}: K must be between 1 and N")
    return k, n


def select(targets: list[Target], shard: tuple[int, int]) -> list[Target]:
    """The targets with breaks in shard K of N, each holding only those breaks
    (`planned` keeps the plan's total)."""
    k, n = shard
    order = sorted(
        (((t.claim.id, b.id, b.digest()), b) for t in targets for b in t.breaks),
        key=lambda pair: pair[0],
    )
    mine = {id(b) for number, (_, b) in enumerate(order) if number % n == k - 1}
    kept: list[Target] = []
    for target in targets:
        target.planned = len(target.breaks)
        target.shard = shard
        if not target.breaks:
            kept.append(target)  # bad or no code: every shard reports it
            continue
        target.breaks = [b for b in target.breaks if id(b) in mine]
        if target.breaks:
            kept.append(target)
    return kept


def _load(path: str) -> dict[str, Any]:
    from zodyssey.core.files import read_regular_text

    try:
        data = json.loads(read_regular_text(Path(path), "drill report"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise UsageError(f"cannot read drill report {path}: {exc}") from exc
    if (
        not isinstance(data, dict)
        or data.get("tool") != "drill"
        or not isinstance(data.get("claims"), list)
    ):
        raise UsageError(f"{path} is not a JSON report of `zodyssey claims drill`")
    return data


def _break_of(entry: dict[str, Any]) -> BreakResult:
    brk = Break(
        "",
        str(entry["file"]),
        int(entry["line"]),
        str(entry["kind"]),
        str(entry["what"]),
        b"",
        int(entry.get("col", 0)),
        str(entry["cause"]) if entry["status"] == "skipped" else "",
    )
    outcome = Outcome(str(entry["status"]), list(entry.get("tests", [])), str(entry["cause"]))
    return BreakResult(brk, outcome)


def merge(paths: list[str]) -> list[ClaimResult]:
    """One result per claim from the shards' reports."""
    claims: dict[str, dict[str, Any]] = {}
    breaks: dict[str, dict[str, BreakResult]] = {}
    shards: dict[str, set[int]] = {}
    totals: dict[str, set[int]] = {}
    for path in paths:
        for entry in _load(path)["claims"]:
            cid = str(entry["id"])
            claims.setdefault(cid, entry)
            for b in entry.get("breaks", []):
                breaks.setdefault(cid, {}).setdefault(str(b["id"]), _break_of(b))
            shard = entry.get("shard")
            if isinstance(shard, dict):
                shards.setdefault(cid, set()).add(int(shard["index"]))
                totals.setdefault(cid, set()).add(int(shard["total"]))
    return [
        _merged(entry, breaks.get(cid, {}), shards.get(cid), totals.get(cid))
        for cid, entry in claims.items()
    ]


def _merged(
    entry: dict[str, Any],
    found: dict[str, BreakResult],
    indices: set[int] | None,
    totals: set[int] | None,
) -> ClaimResult:
    claim = Claim(
        str(entry["id"]),
        str(entry["doc"]),
        int(entry["line"]),
        "",
        "",
        int(entry["line"]),
        tuple(str(s) for s in entry.get("code", [])),
    )
    target = Target(claim, claim.code, [str(t) for t in entry.get("tests", [])])
    target.problems = [str(p) for p in entry.get("problems", [])]
    mutants = entry.get("mutants") or {}
    target.equivalent = int(mutants.get("equivalent", 0) or 0)
    result = ClaimResult(target, cached=bool(entry.get("cached")))
    result.results = list(found.values())
    planned = (entry.get("shard") or {}).get("breaks")
    if planned is not None and len(found) < int(planned):
        missing = _missing(indices or set(), totals or set())
        why = f"{int(planned) - len(found)} break(s) in no merged report ({missing})"
        brk = Break("", "", 0, "missing", why, b"")
        result.results.append(BreakResult(brk, Outcome("not-judged", cause=why)))
    return result


def _missing(indices: set[int], totals: set[int]) -> str:
    if len(totals) != 1:
        return "the reports were made with different shard counts"
    [total] = totals
    absent = sorted(set(range(1, total + 1)) - indices)
    return (
        "missing shard(s) " + ", ".join(f"{k}/{total}" for k in absent)
        if absent
        else "a shard without them"
    )
