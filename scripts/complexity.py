"""The package's function complexity against its bar: `python scripts/complexity.py [DIR]`.

Cyclomatic complexity (CC) per function and method, measured with radon (the
tool the house review measured with): radon gives every function's CC, so the
share of functions at CC >= 11 can be checked, which ruff's C901 (a per-function
maximum only) cannot.

The bar (issue 28): no function above CC 25 and at most 8% of functions at
CC >= 11. Until the package meets it, the measured figures below are a ratchet:
more functions above 25, or a larger share at >= 11, fails; lower figures pass
(and should be written here, so they cannot rise again).

Exit 0 when the package is within the bar or the ratchet, 1 when it is worse
(the offending functions are listed), 2 when DIR holds no function.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from radon.visitors import Class, ComplexityVisitor

TARGET_ABOVE_25 = 0
TARGET_SHARE_11 = 0.08
# The ratchet: what the package measured when it was last tightened (main, 00:45:
# 1,501 functions, 221 = 14.7% at CC >= 11, 12 above 25, highest 60; tightened at
# 1,637 functions, 212 = 13.0%, 1 above 25: hook.main, 42; then at 1,659
# functions, 203 = 12.2%; hook.main split: none above 25; then at 1,753
# functions, 169 = 9.6%, gate/shell at none; then at 1,787 functions,
# 151 = 8.4%, runs/ (but review.py) at none; then at 1,848 functions,
# 134 = 7.3%, claims/ at 6 of 232: within the bar, so the ratchet is the bar).
RATCHET_ABOVE_25 = 0
RATCHET_SHARE_11 = 0.08


def _functions(blocks: list[Any]) -> Iterator[Any]:
    for block in blocks:
        if isinstance(block, Class):  # its methods (and inner classes) one by one
            yield from _functions([*block.methods, *block.inner_classes])
        else:
            yield block
            yield from _functions(block.closures)


def measure(root: Path) -> list[tuple[int, str]]:
    """(CC, "path:line name") of every function, method and closure under `root`."""
    return [
        (item.complexity, f"{path}:{item.lineno} {item.fullname}")
        for path in sorted(root.rglob("*.py"))
        for item in _functions(_top_level(path.read_text(encoding="utf-8")))
    ]


def _top_level(source: str) -> list[Any]:
    visitor = ComplexityVisitor.from_code(source)
    return [*visitor.functions, *visitor.classes]


def main(argv: list[str]) -> int:
    root = Path(argv[0] if argv else "zodyssey")
    functions = measure(root)
    if not functions:
        print(f"complexity: no function under {root}", file=sys.stderr)
        return 2
    above = sorted((f for f in functions if f[0] > 25), reverse=True)
    high = [f for f in functions if f[0] >= 11]
    share = len(high) / len(functions)
    meets = len(above) <= TARGET_ABOVE_25 and share <= TARGET_SHARE_11
    limit_above = TARGET_ABOVE_25 if meets else RATCHET_ABOVE_25
    limit_share = TARGET_SHARE_11 if meets else RATCHET_SHARE_11
    print(
        f"complexity of {root}: {len(functions)} functions, {len(high)} at CC >= 11 "
        f"({share:.1%}; allowed {limit_share:.1%}), {len(above)} above 25 (allowed "
        f"{limit_above}), highest {max(functions)[0]}"
        + ("" if meets else f"; the bar is {TARGET_ABOVE_25} and {TARGET_SHARE_11:.0%}")
    )
    worse = len(above) > limit_above or share > limit_share
    if worse:
        for complexity, where in above:
            print(f"  CC {complexity:>3}  {where}")
        print("complexity: worse than allowed; split the functions above", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
