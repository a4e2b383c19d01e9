"""`loads` and `dumps`: `json`'s own without importing the `json` package.

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

`dumps` is `json.dumps` for the options the run-state store uses: it runs
json's own encoder module (`json/encoder.py`, loaded without the package
`__init__`, its decoder and `re`: `zodyssey.core.lean`) and falls back to
`json.dumps` if that fails.
"""

TYPE_CHECKING = False
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


_encoder_module: "Any" = None


def _encoder() -> "Any":
    """`json.encoder`, executed on its own (not registered in `sys.modules`)."""
    global _encoder_module
    if _encoder_module is None:
        import sys

        loaded = sys.modules.get("json.encoder")
        if loaded is not None:
            _encoder_module = loaded
        else:
            import _json  # noqa: F401  # what json.encoder imports beside `re`

            from zodyssey.core.lean import load

            _encoder_module = load("json.encoder", ("re",), register=False)
    return _encoder_module


def dumps(
    value: "Any", *, indent: "int | None" = None, ensure_ascii: bool = True, sort_keys: bool = False
) -> str:
    """What `json.dumps(value, indent=..., ensure_ascii=..., sort_keys=...)` returns."""
    try:
        encoder = _encoder().JSONEncoder
    except Exception:
        import json  # anything unusual: json's own import

        encoder = json.JSONEncoder
    text: str = encoder(indent=indent, ensure_ascii=ensure_ascii, sort_keys=sort_keys).encode(value)
    return text
