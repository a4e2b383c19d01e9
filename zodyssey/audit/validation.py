"""Validate untrusted artifacts against the shipped JSON Schemas.

Each violation keeps its JSON path (`$.review.round`) so a person can find the
offending value; messages are built here rather than taken from jsonschema,
whose messages embed the whole offending value (an artifact can hold a
megabyte string).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from zodyssey.audit.model import clip

# A thoroughly broken artifact should not drown the report.
MAX_VIOLATIONS = 25


@dataclass(frozen=True)
class Violation:
    json_path: str
    message: str


@cache
def _validator(name: str) -> Any:
    from jsonschema import Draft202012Validator

    from zodyssey.schemas import load_schema

    return Draft202012Validator(load_schema(name))


def _describe(error: Any) -> str:
    validator = error.validator
    expected = error.validator_value
    value = error.instance
    shown = clip(value if isinstance(value, str) else _type_name(value), 60)
    if validator == "type":
        return f"expected {_join(expected)}, found {_type_name(value)}"
    if validator == "required":
        return clip(error.message, 200)
    if validator in ("enum", "const"):
        choices = expected if isinstance(expected, list) else [expected]
        return f"{shown!r} is not one of {clip(', '.join(map(repr, choices)), 200)}"
    if validator == "pattern":
        return f"{shown!r} does not match {expected}"
    if validator in ("minimum", "maximum", "minLength", "maxLength", "minItems"):
        return f"{validator} is {expected} ({shown!r})"
    if validator == "anyOf":
        return f"{shown!r} matches none of the allowed shapes"
    return f"fails {validator}"


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _join(expected: Any) -> str:
    if isinstance(expected, list):
        return " or ".join(str(e) for e in expected)
    return str(expected)


def validate(instance: Any, schema_name: str) -> tuple[list[Violation], int]:
    """(violations, total count); at most MAX_VIOLATIONS are returned."""
    errors = _validator(schema_name).iter_errors(instance)
    out: list[Violation] = []
    total = 0
    for error in errors:
        total += 1
        if len(out) < MAX_VIOLATIONS:
            out.append(Violation(clip(error.json_path, 300), _describe(error)))
    out.sort(key=lambda v: v.json_path)
    return out, total
