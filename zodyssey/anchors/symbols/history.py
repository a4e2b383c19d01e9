"""`check-anchors --history` for a symbol citation: the symbol then against the symbol now.

History dates the citing line (git blame) as for any citation; a symbol
citation then compares the definition as it was at that commit with the one
now, wherever each sits in its file: the same text (whitespace-normalised) is
`ok` even when it moved (nothing to fix), a different text `drift` with the
diff, a symbol no longer defined `gone`, and one not yet defined when the
citing line was written `unknown` (history cannot judge it).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from zodyssey.anchors.fingerprint import normalise
from zodyssey.anchors.symbols import evidence
from zodyssey.anchors.symbols.resolve import parse_source

if TYPE_CHECKING:
    from zodyssey.anchors.history.traced import Trace


def compare_symbol(
    base: Trace,
    blob: bytes,
    then_rel: str,
    now_lines: list[str] | None,
    now_rel: str,
    short: str,
) -> Trace:
    citation = base.citation
    symbol = citation.symbol
    assert symbol is not None
    then = parse_source(then_rel, blob)
    matches = then.lookup(symbol) if then is not None else []
    if len(matches) != 1:
        how = "several times" if matches else "not"
        return replace(
            base,
            reason=f"`{symbol}` was {how} defined in {then_rel} at {short}, when the citing "
            "line was written, so history has nothing to compare",
        )
    assert then is not None
    then_text = tuple(then.lines[matches[0].start - 1 : matches[0].end])
    if now_lines is None:
        return replace(
            base,
            kind="gone",
            reason=f"{now_rel} cannot be read from the work tree",
            then_text=then_text,
        )
    if citation.start < 1 or citation.end > len(now_lines):
        return replace(
            base,
            kind="gone",
            reason=f"`{symbol}` is no longer defined (uniquely) in {now_rel}",
            then_text=then_text,
            now_path=now_rel,
        )
    now_text = tuple(now_lines[citation.start - 1 : citation.end])
    return _judged(
        replace(base, then_text=then_text, now_path=now_rel, now_text=now_text), symbol, short
    )


def _judged(compared: Trace, symbol: str, short: str) -> Trace:
    """The symbol's lines then and now (in `compared`): unchanged (ok, or unknown at a
    shallow boundary), else drift with the diff."""
    then_text, now_text = compared.then_text, compared.now_text
    if [normalise(x) for x in then_text] != [normalise(x) for x in now_text]:
        shown = evidence.diff(
            list(then_text), list(now_text), f"{symbol} @ {short}", f"{symbol} now"
        )
        return replace(compared, kind="drift", reason=f"`{symbol}` changed since {short}:\n{shown}")
    if compared.shallow:
        return replace(
            compared,
            reason=f"unchanged since {short}, the shallow boundary; the citing line may be "
            "older than the history this clone holds (fetch more with git fetch --deepen)",
        )
    return replace(
        compared,
        kind="ok",
        reason=f"`{symbol}` unchanged since {short} (found by name, wherever it is)",
    )
