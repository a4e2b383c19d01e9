"""What an acceptance criterion asks for: its commands and what each must do.

A criterion is prose around backticked commands (docs/runs.md, "Criteria").
Every command it names runs, and what it states is what is judged:

- `` `A` exits 0 `` / `` `A` `` : exit status 0;
- `` `A` exits 1 `` (``exit 1``, ``exits with 1``, ``exits with code 1``,
  ``exit status is 1``): that status;
- `` `A` exits non-zero `` / `` `A` fails ``: any status but 0;
- `` `A` succeeds `` / `` `A` passes ``: status 0;
- `` `A` prints 0 `` (``outputs``, ``prints `text` ``): its standard output,
  trailing newlines removed, is exactly that; the status is not judged;
- `` `A` and `B` both exit 0 ``, `` `A` exits 0 and `B` exits 1 ``: an
  expectation applies to every command named since the previous one.

Prose that only describes ("and the file is the one the greeting feature
reads") is allowed. Prose that sounds like a judgement the grammar cannot
read (``or``, ``not``, ``returns 200``, ``contains``, a stray number...) is a
problem: plan lint reports it (exit 6), `run verify` refuses to run it, so a
criterion is never silently shortened to what could be parsed.

Not on the gate hook's path (it parses plans without `re`); only `run lint`,
`run verify` and the audit import this module.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

Expect = dict[str, Any]  # {"exit": 0} | {"exit": "nonzero"} | {"stdout": "text"}

DEFAULT_EXPECT: Expect = {"exit": 0}


@dataclass(frozen=True)
class Step:
    command: str
    expect: Expect

    def as_dict(self) -> dict[str, Any]:
        return {"command": self.command, "expect": dict(self.expect)}


@dataclass
class CriterionSpec:
    steps: list[Step] = field(default_factory=list)
    problem: str | None = None  # why the criterion cannot be judged as written


_SPAN = re.compile(r"`([^`]*)`")
_NUMBER = r"(\d+)"
# An expectation phrase, anchored at the start of the (lower-cased, trimmed) prose.
_EXIT_N = re.compile(
    r"^(?:both\s+|all\s+|each\s+)?(?:must\s+|should\s+)?"
    r"(?:exits?|exit(?:s)?\s+with|returns?\s+exit|exit\s+(?:code|status)\s+(?:is|of))"
    r"(?:\s+(?:code|status))?\s+" + _NUMBER + r"\b"
)
_EXIT_CODE_IS = re.compile(r"^(?:with\s+)?exit\s+(?:code|status)\s+" + _NUMBER + r"\b")
_NONZERO = re.compile(
    r"^(?:both\s+|all\s+|each\s+)?(?:must\s+|should\s+)?"
    r"(?:exits?(?:\s+with)?\s+(?:a\s+)?non-?zero(?:\s+(?:code|status))?|fails?)\b"
)
_SUCCEEDS = re.compile(
    r"^(?:both\s+|all\s+|each\s+)?(?:must\s+|should\s+)?(?:succeeds?|pass(?:es)?)\b"
)
_PRINTS = re.compile(
    r"^(?:both\s+|all\s+|each\s+)?(?:must\s+|should\s+)?(?:prints?|outputs?)(?:\s+exactly)?\b"
)
# Words that make the rest of the prose a judgement the grammar did not read.
_JUDGEMENT = re.compile(
    r"\b(?:exits?|exited|exiting|returns?|returned|prints?|printed|outputs?|fails?|failed|"
    r"succeeds?|succeeded|pass(?:es|ed)?|contains?|match(?:es)?|equals?|empty|status|code|"
    r"zero|non-?zero|errors?|or|unless|not|never|no|either|neither|nor|except|only|"
    r"stdout|stderr|output)\b|\d|\|\||&&",
)
_FILLER = re.compile(r"^(?:\s|,|;|\.|and\b|then\b|both\b|all\b|each\b|also\b)+")


def _spans(text: str) -> list[tuple[str, str]]:
    """The criterion as ("cmd", text) / ("prose", text) pieces, in order."""
    out: list[tuple[str, str]] = []
    at = 0
    for match in _SPAN.finditer(text):
        if match.start() > at:
            out.append(("prose", text[at : match.start()]))
        out.append(("cmd", match.group(1)))
        at = match.end()
    if at < len(text):
        out.append(("prose", text[at:]))
    return out


class _Unjudgeable(Exception):
    """What keeps a criterion from being judged (becomes `CriterionSpec.problem`)."""


class _Reader:
    """Reads a criterion's pieces left to right: commands wait for the expectation after them."""

    def __init__(self, pieces: list[tuple[str, str]], spec: CriterionSpec) -> None:
        self.pieces = pieces
        self.spec = spec
        self.at = 0
        self.pending: list[str] = []
        self.seen_command = False

    def read(self) -> None:
        while self.at < len(self.pieces):
            kind, value = self.pieces[self.at]
            self.at += 1
            if kind == "cmd":
                self._command(value)
            elif self.seen_command:
                self._prose(value)
            elif _JUDGEMENT.search(" ".join(value.split()).lower()):
                # Lead-in prose ("Run", "The tests:") may describe, never judge.
                raise _Unjudgeable(
                    f"cannot judge the prose before the first command: {value.strip()!r}"
                )
        self.spec.steps.extend(Step(c, dict(DEFAULT_EXPECT)) for c in self.pending)

    def _command(self, value: str) -> None:
        if not value.strip():
            raise _Unjudgeable("an empty code span")
        self.pending.append(value.strip())
        self.seen_command = True

    def _expect(self, expect: Expect, what: str) -> None:
        """`expect` applies to every command named since the previous expectation."""
        if not self.pending:
            raise _Unjudgeable(f"an expectation{what} that follows no command")
        self.spec.steps.extend(Step(c, expect) for c in self.pending)
        self.pending = []

    def _prose(self, value: str) -> None:
        prose = " ".join(value.split()).lower()
        while prose:
            prose = _FILLER.sub("", prose)
            if not prose:
                return
            matched = _PRINTS.match(prose)
            if matched:
                prose = self._prints(prose[matched.end() :].strip(), value)
                continue
            found = _exit_expectation(prose)
            if found is None:
                if _JUDGEMENT.search(prose):
                    raise _Unjudgeable(
                        f"cannot judge {prose[:80]!r} unambiguously: state each command's "
                        "expected result as `exits N`, `exits non-zero` or `prints VALUE`"
                    )
                return  # descriptive prose: nothing to judge in it
            expect, end = found
            self._expect(expect, f" ({prose[:40]!r})")
            prose = prose[end:]

    def _prints(self, rest: str, value: str) -> str:
        """`prints VALUE` / `prints `VALUE``: the expected output; returns the prose left."""
        left = ""
        if rest:
            # A bare value: the first word of the original prose (case kept).
            original = " ".join(value.split())
            where = original.lower().find(rest)
            word = original[where:].split()[0] if where >= 0 else rest.split()[0]
            word = word.rstrip(",;.")
            expect: Expect = {"stdout": word}
            left = rest[len(word) :]
        elif self.at < len(self.pieces) and self.pieces[self.at][0] == "cmd":
            expect = {"stdout": self.pieces[self.at][1]}
            self.at += 1
        else:
            raise _Unjudgeable("`prints` names no value to compare the output with")
        self._expect(expect, "")
        return left


def _exit_expectation(prose: str) -> tuple[Expect, int] | None:
    """An exit-status phrase at the start of `prose`: (expectation, where it ends)."""
    matched = _EXIT_N.match(prose) or _EXIT_CODE_IS.match(prose)
    if matched:
        return {"exit": int(matched.group(1))}, matched.end()
    if matched := _NONZERO.match(prose):
        return {"exit": "nonzero"}, matched.end()
    if matched := _SUCCEEDS.match(prose):
        return dict(DEFAULT_EXPECT), matched.end()
    return None


def parse_criterion(text: str) -> CriterionSpec:
    """The steps of a criterion, or the problem that keeps it from being judged."""
    spec = CriterionSpec()
    if text.count("`") % 2:
        spec.problem = "an unclosed backtick: which part is the command is ambiguous"
        return spec
    try:
        _Reader(_spans(" ".join(text.split("\n"))), spec).read()
    except _Unjudgeable as problem:
        spec.problem = str(problem)
        return spec
    if not spec.steps:
        spec.problem = "no backticked command"
    return spec


def step_passed(step: dict[str, Any]) -> bool:
    """Whether one recorded step did what its `expect` says (no signal, no timeout)."""
    if step.get("timed_out") or step.get("signal") is not None:
        return False
    expect = step.get("expect")
    expect = expect if isinstance(expect, dict) else DEFAULT_EXPECT
    code = step.get("exit_code")
    if "stdout" in expect:
        text = _whole_output(step.get("stdout"))
        return code is not None and text is not None and text == expect["stdout"]
    if isinstance(code, bool) or not isinstance(code, int):
        return False
    wanted = expect.get("exit", 0)
    return code != 0 if wanted == "nonzero" else code == wanted


def _whole_output(out: object) -> str | None:
    """A recorded stream's text without its final line end, None unless the kept
    tail is the whole output (a longer output is not the expected value)."""
    if not isinstance(out, dict) or not isinstance(out.get("tail"), str):
        return None
    size = out.get("size")
    tail: str = out["tail"]
    if not isinstance(size, int) or size != len(tail.encode("utf-8")):
        return None
    return tail.rstrip("\r\n")


def describe(expect: Expect) -> str:
    if "stdout" in expect:
        return f"prints {expect['stdout']!r}"
    wanted = expect.get("exit", 0)
    return "exits non-zero" if wanted == "nonzero" else f"exits {wanted}"
