"""`zodyssey.core.records.Fields` behaves like the `typing.NamedTuple`s it replaced
(policy's Effect and Decision, context's GateSettings and PlanView, the plan's
Todo and Criterion), and importing it costs no `typing`."""

from __future__ import annotations

import copy
import pickle
import subprocess
import sys
from typing import Any, NamedTuple

import pytest

from zodyssey.core.plan import Criterion, Todo
from zodyssey.core.records import Fields
from zodyssey.gate.context import GateSettings, PlanView
from zodyssey.gate.policy import Decision, Effect


class Old(NamedTuple):
    allow: bool
    reason: str = ""
    effects: tuple[Any, ...] = ()


class New(Fields):
    allow: bool
    reason: str = ""
    effects: tuple[Any, ...] = ()


CALLS: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
    ((True,), {}),
    ((False, "why"), {}),
    ((), {"allow": True, "effects": (1,)}),
    ((True,), {"reason": "r"}),
]


@pytest.mark.parametrize(("args", "kwargs"), CALLS)
def test_same_values_as_a_named_tuple(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    old, new = Old(*args, **kwargs), New(*args, **kwargs)
    assert tuple(old) == tuple(new) and new == tuple(old) and hash(new) == hash(old)
    assert new._fields == old._fields and new._asdict() == old._asdict()
    assert repr(new) == repr(old).replace("Old(", "New(")
    assert (new.allow, new.reason, new.effects) == (old.allow, old.reason, old.effects)
    assert tuple(new._replace(reason="x")) == tuple(old._replace(reason="x"))
    assert type(new._replace(reason="x")) is New
    assert copy.deepcopy(new) == new and type(copy.copy(new)) is New


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [((), {}), ((True, "", (), 4), {}), ((True,), {"allow": False}), ((True,), {"nope": 1})],
)
def test_the_same_calls_fail(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    with pytest.raises(TypeError):
        Old(*args, **kwargs)
    with pytest.raises(TypeError):
        New(*args, **kwargs)


def test_fields_are_read_only_and_replace_rejects_unknown_names() -> None:
    new = New(True)
    with pytest.raises(AttributeError):
        new.allow = False  # type: ignore[misc]
    with pytest.raises(TypeError):
        new._replace(nope=1)


def test_a_field_without_default_after_one_with_is_refused() -> None:
    with pytest.raises(TypeError):

        class Bad(Fields):
            a: int = 0
            b: int  # type: ignore[misc]


def test_the_gate_records_keep_their_shape() -> None:
    assert Effect("slot") == ("slot", None)
    assert Decision(True) == (True, "", "", ())
    assert Decision(False, "no", "rule").effects == ()
    assert GateSettings().reviewer_agent == "momus"
    assert GateSettings().is_reviewer("momus")
    view = PlanView("p", None, "gone", None)
    assert view.files == frozenset() and view.todo_of == ()
    todo = Todo("F1", "t", False, 3)
    assert todo.final and todo.files == () and todo.criteria == ()
    criterion = Criterion(1, "`x`", "x", 4)
    assert criterion.index == 1 and criterion[0] == 1
    assert pickle.loads(pickle.dumps(todo)) == todo


def test_importing_records_loads_no_typing() -> None:
    code = (
        "import sys\n"
        "import zodyssey.core.records, zodyssey.core.plan\n"
        "print('typing' in sys.modules, 'collections' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", code], capture_output=True, text=True, check=True
    )
    assert done.stdout.split()[0] == "False"
