"""`loads`: `json.loads` without importing the `json` package on success.

`import json` costs about 3 ms, most of it `re` and `enum` (json.decoder
compiles its pure-Python fallback's patterns at import), on a hook budget of
a few milliseconds. The decoding itself is done by the same C scanner that
`json.loads` uses (`_json.make_scanner`), configured exactly as
`json.JSONDecoder()` configures it; this module only does what
`JSONDecoder.decode` does around it (skip JSON whitespace, reject extra data).

Anything unusual (a byte order mark, UTF-16/32 input, invalid UTF-8, any
decoding error, an interpreter without `_json`) is handed to `json.loads`
itself, so errors carry json's own messages and the result is always what
`json.loads` returns (tests/gate/test_gate_jsontext.py compares the two).
"""

TYPE_CHECKING = False  # mypy treats this as typing.TYPE_CHECKING; no runtime import
if TYPE_CHECKING:
    from typing import Any

_WHITESPACE = " \t\n\r"  # json.decoder.WHITESPACE


class _Context:
    """The attributes `_json.make_scanner` reads, as `json.JSONDecoder()` sets them."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    memo: "dict[Any, Any]"

    @staticmethod
    def parse_constant(name: str) -> float:
        return {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}[name]

    def __init__(self) -> None:
        self.memo = {}


_scanner: "Any" = None


def _scan(text: str) -> "Any":
    global _scanner
    if _scanner is None:
        from _json import make_scanner

        context: Any = _Context()  # typeshed types the argument as a scanner
        _scanner = make_scanner(context)
    start = len(text) - len(text.lstrip(_WHITESPACE))
    value, end = _scanner(text, start)
    if text[end:].strip(_WHITESPACE):
        raise ValueError("extra data")
    return value


def loads(data: "str | bytes") -> "Any":
    """The value `json.loads(data)` returns; raises what it raises (ValueError)."""
    try:
        if isinstance(data, bytes):
            # json.detect_encoding picks UTF-8 unless a BOM or NUL bytes say otherwise
            if data[:3] == b"\xef\xbb\xbf" or data[:2] in (b"\xff\xfe", b"\xfe\xff"):
                raise ValueError("not plain UTF-8")
            if b"\x00" in data[:4]:
                raise ValueError("not plain UTF-8")
            text = data.decode("utf-8", "surrogatepass")
        else:
            text = data
            if text[:1] == "\ufeff":
                raise ValueError("byte order mark")
        return _scan(text)
    except Exception:
        pass  # answered below, by json itself
    import json  # the slow path: json's own answer and error messages

    return json.loads(data)
