"""`zodyssey.core.jsontext.loads` answers exactly what `json.loads` answers."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zodyssey.core.exits import Exit
from zodyssey.core.jsontext import loads

values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def outcome(fn: Any, data: str | bytes) -> tuple[str, Any]:
    try:
        return "ok", fn(data)
    except ValueError as exc:
        return "error", f"{exc.__class__.__name__}: {exc}"


def check(data: str | bytes) -> None:
    mine, theirs = outcome(loads, data), outcome(json.loads, data)
    assert mine[0] == theirs[0], (data, mine, theirs)
    if mine[0] == "ok":
        assert same(mine[1], theirs[1]), (data, mine, theirs)
    else:
        assert mine[1] == theirs[1]


@settings(max_examples=300)
@given(values, st.sampled_from(["", " ", "\n\t ", "\r\n"]), st.booleans(), st.booleans())
def test_documents_decode_as_json_decodes_them(
    value: Any, pad: str, as_bytes: bool, ascii_only: bool
) -> None:
    text = pad + json.dumps(value, ensure_ascii=ascii_only) + pad
    check(text.encode("utf-8") if as_bytes else text)


@settings(max_examples=300)
@given(st.one_of(st.text(max_size=40), st.binary(max_size=40)))
def test_arbitrary_input_gives_the_same_value_or_error(data: str | bytes) -> None:
    check(data)


@pytest.mark.parametrize(
    "data",
    [
        "",
        " ",
        "1 2",
        "[1,]",
        "{'a': 1}",
        "\ufeff{}",
        b"\xef\xbb\xbf{}",
        '{"a": 1}'.encode("utf-16"),
        '{"a": 1}'.encode("utf-32-le"),
        b'{"a": "\xff"}',
        "[NaN, Infinity, -Infinity]",
        '"\\ud800"',
        '{"a": 1, "a": 2}',
        "[" * 100_000 + "]" * 100_000,
        '{"k": "\x01"}',
    ],
)
def test_edge_cases(data: str | bytes) -> None:
    try:
        check(data)
    except RecursionError:
        with pytest.raises(RecursionError):
            json.loads(data)


def test_decoding_does_not_import_json() -> None:
    code = (
        "import sys\n"
        "from zodyssey.core.jsontext import loads\n"
        "assert loads(b'{\"a\": [1, 2.5, null]}') == {'a': [1, 2.5, None]}\n"
        "print('json' in sys.modules, 're' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True
    )
    # -I: no user site; a site-packages .pth may still preload `re`, never `json` here
    assert done.stdout.split()[0] == "False"


# ---------------------------------------------------------------- dumps


@given(values, st.sampled_from([None, 2]), st.booleans(), st.booleans())
def test_documents_encode_as_json_encodes_them(
    value: Any, indent: int | None, ensure_ascii: bool, sort_keys: bool
) -> None:
    from zodyssey.core.jsontext import dumps

    try:
        expected = json.dumps(value, indent=indent, ensure_ascii=ensure_ascii, sort_keys=sort_keys)
    except TypeError:  # sort_keys over keys of mixed types
        with pytest.raises(TypeError):
            dumps(value, indent=indent, ensure_ascii=ensure_ascii, sort_keys=sort_keys)
        return
    assert dumps(value, indent=indent, ensure_ascii=ensure_ascii, sort_keys=sort_keys) == expected


@pytest.mark.parametrize(
    "value",
    [
        {2: "a", 2.5: None, True: [], None: {}, False: -0.0},
        {"s": "\ud800 é \x00"},
        [float("nan"), 1e400, -1e400],
        ("a", (1, [()]), {}),
        {"code": Exit.PROBLEMS, Exit.USAGE: [True, 10**30]},
    ],
)
@pytest.mark.parametrize("indent", [None, 0, 2])
@pytest.mark.parametrize("ensure_ascii", [True, False])
def test_encoding_edge_cases(value: Any, indent: int | None, ensure_ascii: bool) -> None:
    from zodyssey.core.jsontext import dumps

    for sort_keys in (False, True):
        try:
            expected = json.dumps(
                value, indent=indent, ensure_ascii=ensure_ascii, sort_keys=sort_keys
            )
        except TypeError:  # sorting keys of mixed types
            with pytest.raises(TypeError):
                dumps(value, indent=indent, ensure_ascii=ensure_ascii, sort_keys=sort_keys)
            continue
        assert dumps(value, indent=indent, ensure_ascii=ensure_ascii, sort_keys=sort_keys) == (
            expected
        )


def test_a_cycle_fails_as_in_json() -> None:
    from zodyssey.core.jsontext import dumps

    looped: list[Any] = []
    looped.append(looped)
    with pytest.raises(ValueError, match="Circular reference"):
        dumps(looped)


@pytest.mark.parametrize("value", [{"a": object()}, {(1, 2): 1}])
def test_what_json_cannot_encode_fails_as_in_json(value: Any) -> None:
    from zodyssey.core.jsontext import dumps

    with pytest.raises(TypeError):
        json.dumps(value)
    with pytest.raises(TypeError):
        dumps(value)


def test_encoding_does_not_import_json_and_json_still_works_after() -> None:
    code = (
        "import sys\n"
        "from zodyssey.core.jsontext import dumps\n"
        "out = dumps({'a': [1, 'é']}, indent=2, ensure_ascii=False)\n"
        "print('json' in sys.modules, 'json.encoder' in sys.modules, 're' in sys.modules)\n"
        "import json, json.encoder\n"
        "assert json.encoder.JSONEncoder is json.JSONEncoder\n"
        "assert json.dumps({'a': [1, 'é']}, indent=2, ensure_ascii=False) == out\n"
    )
    result = subprocess.run(
        [sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.split() == ["False", "False", "False"]
