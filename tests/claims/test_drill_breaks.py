"""The drill's specs and breaks on real files: what each break does to the code."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from zodyssey.claims.drill_breaks import SpecError, breaks_for, resolve
from zodyssey.claims.drill_report import build_report
from zodyssey.claims.markers import parse_document
from zodyssey.formats import render

GATE = '''"""A gate."""
import enum


class Verdict(enum.Enum):
    ALLOW = 1


def block(why):
    return ("block", why)


def decide(command: str) -> tuple[str, str]:
    """Decide."""
    if command.startswith("rm"):
        return block("writes")
    if not command:
        raise ValueError("empty")
    return ("allow", "")


def flag(x) -> bool: return x > 1


def names(xs: list[str]) -> list[str]:
    for x in xs:
        yield x


class Box:
    def size(self) -> int:
        return 3
'''


def _load(source: bytes) -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    exec(compile(source, "gate.py", "exec"), namespace)
    return namespace


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "gate.py").write_text(GATE)
    (tmp_path / "run.sh").write_text("set -e\nguard\nrun\n")
    return tmp_path


def test_marker_code_field_is_not_an_id() -> None:
    doc = "- Gate. <!-- claim: a-b, c code=x.py::f,y.sh:3-4 code=z/ -->\n"
    claims = parse_document(doc, "README.md").claims
    assert [c.id for c in claims] == ["a-b", "c"]
    assert claims[0].code == ("x.py::f", "y.sh:3-4", "z/")
    assert claims[0].text == "Gate."


def test_function_breaks_keep_the_module_importable_and_bite(root: Path) -> None:
    breaks = breaks_for(root, resolve(root, "pkg/gate.py::decide")[0])
    kinds = [b.kind for b in breaks]
    assert kinds.count("body-raise") == 1 and kinds.count("body-return") == 1
    assert kinds.count("negate-guard") == 2 and kinds.count("drop-guard") == 2
    for brk in breaks:
        decide = _load(brk.source)["decide"]  # importable
        if brk.col:
            continue  # an operator mutant (invariants/test_drill_operators.py): may be subtle
        outcomes = []
        for command in ("rm x", "ls", ""):
            try:
                outcomes.append(decide(command))
            except (NotImplementedError, ValueError) as exc:
                outcomes.append(type(exc).__name__)
        assert outcomes != [("block", "writes"), ("allow", ""), "ValueError"], brk.kind
    body_return = next(b for b in breaks if b.kind == "body-return")
    assert b"return ()" in body_return.source  # the tuple annotation's default
    assert b'"""Decide."""' in body_return.source  # the docstring kept
    # Nothing outside the function changed.
    original = GATE.encode()
    assert body_return.source.startswith(original[: original.index(b"def decide")])
    assert body_return.source.endswith(original[original.index(b"def flag") :])


def test_one_line_generator_method_and_class_specs(root: Path) -> None:
    flag = breaks_for(root, resolve(root, "pkg/gate.py::flag")[0])
    assert {b.kind for b in flag if not b.col} == {"body-raise", "body-return"}
    assert _load(next(b for b in flag if b.kind == "body-return").source)["flag"](5) is False
    gen = breaks_for(root, resolve(root, "pkg/gate.py::names")[0])
    assert all(list(_load(b.source)["names"](["a"])) == [] for b in gen if b.kind == "body-return")
    box = breaks_for(root, resolve(root, "pkg/gate.py::Box")[0])
    assert box[0].what.startswith("Box.size")
    assert _load(box[1].source)["Box"]().size() == 0


def test_line_span_and_other_languages(root: Path) -> None:
    span = resolve(root, "pkg/gate.py:15-16")[0]
    breaks = breaks_for(root, span)
    assert breaks[0].kind == "delete-span"
    assert _load(breaks[0].source)["decide"]("rm x") == ("allow", "")
    shell = breaks_for(root, resolve(root, "run.sh:2")[0])
    assert [b.source for b in shell] == [b"set -e\n\nrun\n"]


@pytest.mark.parametrize(
    "spec, why",
    [
        ("pkg/gate.py::nope", "no function or class nope"),
        ("pkg/missing.py::f", "cannot read"),
        ("run.sh:9", "outside run.sh"),
        ("nowhere/", "no such file"),
    ],
)
def test_specs_that_name_no_code(root: Path, spec: str, why: str) -> None:
    with pytest.raises(SpecError, match=why):
        resolve(root, spec)


def test_a_directory_is_every_python_file(root: Path) -> None:
    assert [s.path for s in resolve(root, "pkg/")] == ["pkg/gate.py"]


def test_sarif_annotates_the_claim_and_the_span(tmp_path: Path) -> None:
    from zodyssey.claims.drill import BreakResult, ClaimResult, Outcome, Target
    from zodyssey.claims.model import Claim

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "gate.py").write_text(GATE)
    brk = breaks_for(tmp_path, resolve(tmp_path, "pkg/gate.py::decide")[0])[0]
    claim = Claim("gate", "README.md", 7, "Gate.", "paragraph", 7, ("pkg/gate.py::decide",))
    result = ClaimResult(
        Target(claim, claim.code, ["t.py::test"]),
        results=[BreakResult(brk, Outcome("survived", ["t.py::test"]))],
    )
    report, code = build_report(tmp_path, [result])
    assert code == 9
    sarif = json.loads(render(report, "sarif"))["runs"][0]["results"][0]
    assert sarif["ruleId"] == "drill/survived"
    assert sarif["locations"][0]["physicalLocation"]["region"]["startLine"] == 7
    related = sarif["relatedLocations"][0]["physicalLocation"]
    assert related["artifactLocation"]["uri"] == "pkg/gate.py"
    assert related["region"]["startLine"] == brk.line
    junit = render(report, "junit")
    assert "<failure" in junit and "gate (README.md:7)" in junit
    for fmt in ("markdown", "html", "github", "text"):
        assert "survived" in render(report, fmt, colour=False)
