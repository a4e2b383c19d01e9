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

`dumps` is `json.dumps` for the options the run-state store uses, written
over the same C string escapers `json.dumps` uses (`_json.encode_basestring`
and `encode_basestring_ascii`) and `json`'s own number spellings; anything it
does not take (another type, a cycle) is handed to `json.dumps`, so the text
and the errors are always json's (tests/core/test_core_jsontext.py compares).
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


def _floatstr(value: float) -> str:
    """How `json` spells a float (`allow_nan=True`)."""
    if value != value:
        return "NaN"
    if value == float("inf"):
        return "Infinity"
    if value == float("-inf"):
        return "-Infinity"
    return float.__repr__(value)


def _key(key: "Any") -> str:
    """A dict key as `json` turns it into a string (`skipkeys=False`)."""
    if isinstance(key, str):
        return key
    try:
        return _scalar(key)  # None, a bool, an int or a float: spelled as their values are
    except TypeError:
        raise TypeError(
            f"keys must be str, int, float, bool or None, not {type(key).__name__}"
        ) from None


def _scalar(value: "Any") -> str:
    """The JSON text of None, a bool, an int or a float, as `json.dumps` spells it."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return _floatstr(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


class _Writer:
    """`json.JSONEncoder(indent=..., ensure_ascii=..., sort_keys=...).encode`, in the
    order of its own type checks."""

    def __init__(self, indent: "int | None", ensure_ascii: bool, sort_keys: bool) -> None:
        import _json

        self.string = _json.encode_basestring_ascii if ensure_ascii else _json.encode_basestring
        self.indent = None if indent is None else " " * indent
        self.item = "," if indent is not None else ", "
        self.sort_keys = sort_keys
        self.chunks: list[str] = []

    def value(self, value: "Any", level: int) -> None:
        if isinstance(value, str):
            self.chunks.append(self.string(value))
        elif isinstance(value, (list, tuple)):
            self.items("[", "]", [(None, item) for item in value], level)
        elif isinstance(value, dict):
            pairs = sorted(value.items()) if self.sort_keys else list(value.items())
            self.items("{", "}", [(_key(k), v) for k, v in pairs], level)
        else:
            self.chunks.append(_scalar(value))

    def items(
        self, open_: str, close: str, pairs: "list[tuple[str | None, Any]]", level: int
    ) -> None:
        out = self.chunks.append
        if not pairs:
            out(open_ + close)
            return
        inner = "" if self.indent is None else "\n" + self.indent * (level + 1)
        out(open_ + inner)
        for number, (key, item) in enumerate(pairs):
            if number:
                out(self.item + inner)
            if key is not None:
                out(self.string(key) + ": ")
            self.value(item, level + 1)
        out("" if self.indent is None else "\n" + self.indent * level)
        out(close)


def dumps(
    value: "Any", *, indent: "int | None" = None, ensure_ascii: bool = True, sort_keys: bool = False
) -> str:
    """What `json.dumps(value, indent=..., ensure_ascii=..., sort_keys=...)` returns."""
    try:
        writer = _Writer(indent, ensure_ascii, sort_keys)
        writer.value(value, 0)
        return "".join(writer.chunks)
    except Exception:
        pass  # answered below, by json itself (its text, or its error)
    import json

    return json.dumps(value, indent=indent, ensure_ascii=ensure_ascii, sort_keys=sort_keys)
