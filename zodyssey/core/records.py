"""Tuples with named fields, without `typing` (the gate hook's import path).

A `typing.NamedTuple` costs the hook `typing` (with `contextlib` and
`warnings`) plus a class built through `exec`. Two bases replace it:

- `Record`: what a NamedTuple gives an instance (`_fields`, `_asdict`,
  `_replace`, a readable repr). Subclasses list `_fields` and write a typed
  `__new__` and accessors by hand (the shell classifier's records do).
- `Fields`: a `Record` whose fields come from the class body, as in a
  NamedTuple: annotated names in order, a class value is the default. It
  builds the constructor and the accessors when the class is created; mypy
  reads the class body as it would a dataclass's (`dataclass_transform`).

Instances are plain tuples underneath: they compare, hash, unpack, index and
copy like the NamedTuples they replace.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Self, dataclass_transform
else:

    def dataclass_transform(**_: object) -> object:
        return lambda cls: cls


try:  # the C accessor `collections.namedtuple` uses; a property otherwise
    _getter: "Any" = __import__("_collections")._tuplegetter
except (ImportError, AttributeError):  # pragma: no cover - CPython has it

    def _getter(index: int, doc: str | None) -> "Any":
        return property(lambda self: self[index], doc=doc)


__all__ = ["Fields", "Record"]


class Record(tuple["Any", ...]):
    """Base of the records: a tuple whose positions have the names in `_fields`."""

    __slots__ = ()
    _fields: tuple[str, ...] = ()

    def _asdict(self) -> "dict[str, Any]":
        return dict(zip(self._fields, self, strict=True))

    def _replace(self, **changes: "Any") -> "Self":
        values = [changes.pop(name, old) for name, old in zip(self._fields, self, strict=True)]
        if changes:
            raise TypeError(f"{type(self).__name__} has no field {next(iter(changes))!r}")
        return tuple.__new__(type(self), values)

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in zip(self._fields, self, strict=True))
        return f"{type(self).__name__}({shown})"

    def __getnewargs__(self) -> "tuple[Any, ...]":
        return tuple(self)  # copy and pickle call __new__ with the fields


_MISSING = object()


@dataclass_transform(frozen_default=True)  # fields are read-only, as in a tuple
class Fields(Record):
    """A `Record` declared like a NamedTuple: `class Effect(Fields): kind: str; data: Any = None`."""

    __slots__ = ()
    _defaults: "tuple[Any, ...]" = ()  # per field, _MISSING when it has none

    def __init_subclass__(cls, **kwargs: "Any") -> None:
        super().__init_subclass__(**kwargs)
        # the class body's own annotations (inspect would cost the hook an import)
        own = cls.__dict__.get("__annotations__", {})  # noqa: RUF063
        fields = cls._fields + tuple(name for name in own if name not in cls._fields)
        defaults = list(cls._defaults) + [_MISSING] * (len(fields) - len(cls._defaults))
        for index, name in enumerate(fields):
            if name in own and name in cls.__dict__:
                defaults[index] = cls.__dict__[name]
            elif name in own:
                defaults[index] = _MISSING
            if defaults[index] is _MISSING and any(d is not _MISSING for d in defaults[:index]):
                raise TypeError(f"{cls.__name__}: field {name!r} without a default follows one")
            setattr(cls, name, _getter(index, f"Alias for field number {index}"))
        cls._fields = fields
        cls._defaults = tuple(defaults)

    def __new__(cls, *args: "Any", **kwargs: "Any") -> "Self":
        fields = cls._fields
        if len(args) > len(fields):
            raise TypeError(f"{cls.__name__} takes {len(fields)} fields, {len(args)} were given")
        values = list(args)
        for name, default in zip(fields[len(args) :], cls._defaults[len(args) :], strict=True):
            value = kwargs.pop(name, default)
            if value is _MISSING:
                raise TypeError(f"{cls.__name__} is missing field {name!r}")
            values.append(value)
        if kwargs:
            name = next(iter(kwargs))
            how = "twice" if name in fields else "that it does not have"
            raise TypeError(f"{cls.__name__} got field {name!r} {how}")
        return tuple.__new__(cls, values)
