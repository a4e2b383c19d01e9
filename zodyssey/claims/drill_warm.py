"""One warm pytest process per claim and copy: collect once, fork once per break.

`python -m zodyssey.claims.drill_warm PYTEST-ARGS...` (started by the drill in a
scratch copy, with the environment of the drill's cold runs) collects the
linked tests, says `ready` and then reads one request per line on stdin. For
each it forks; the child runs the collected tests and writes their outcomes to
the request's result file. Before a break's child is forked the drill has
written the broken file into the copy (so subprocesses and lazy imports read
it); the child also gives every function of that module already imported here
the broken version's code (`__code__`), so the tests see the break exactly as a
fresh process would. When that cannot be done soundly (a change outside
function bodies, a function this process cannot find, a closure of another
shape), the child answers `unsupported` and the drill runs the break in a fresh
process instead. Protocol lines (JSON) go to the stdout the drill reads; pytest's
own output goes to a log file per child.

The first request is the unbroken run (no path): when the drill started this
process to record what the run reads (drill_site/sitecustomize.py), its child
writes that record, and the recording stops for every later child.

Request:  {"id": n, "result": PATH, "log": PATH, "path": REL | null, "original": PATH | null}
Answer:   {"ready": [node ids]} once, then {"id": n, "pid": PID} and {"id": n, "status": S}
Result:   {"unsupported": why} | {"cases": [[node id, outcome, message], ...],
                                   "durations": {node id: seconds}}
"""

from __future__ import annotations

import json
import os
import sys
import types
from contextlib import suppress
from pathlib import Path
from typing import Any, TextIO

import pytest

_FUNCTION_FLAGS = 0x0001 | 0x0002  # CO_OPTIMIZED | CO_NEWLOCALS: a function's code


class Unsupported(Exception):
    """The break cannot be given to this process soundly: run it fresh."""


def _shape(code: types.CodeType) -> tuple[Any, ...]:
    """What a code object does, without line numbers: nested code by its own shape."""
    consts = tuple(
        ("code", _shape(c)) if isinstance(c, types.CodeType) else (type(c).__name__, c)
        for c in code.co_consts
    )
    return (
        code.co_code,
        consts,
        code.co_names,
        code.co_varnames,
        code.co_freevars,
        code.co_cellvars,
        code.co_flags,
    )


def _is_function(code: types.CodeType) -> bool:
    return code.co_flags & _FUNCTION_FLAGS == _FUNCTION_FLAGS


def _changed_functions(old: types.CodeType, new: types.CodeType) -> list[types.CodeType]:
    """The outermost function codes of `new` that differ from `old`'s; Unsupported when
    code outside functions (the module's, a class body's) differs."""
    if _is_function(old) != _is_function(new) or old.co_qualname != new.co_qualname:
        raise Unsupported(f"{old.co_qualname} changed shape")
    if _is_function(new):
        return [] if _shape(old) == _shape(new) else [new]
    olds = [c for c in old.co_consts if isinstance(c, types.CodeType)]
    news = [c for c in new.co_consts if isinstance(c, types.CodeType)]
    plain_old = [c for c in old.co_consts if not isinstance(c, types.CodeType)]
    plain_new = [c for c in new.co_consts if not isinstance(c, types.CodeType)]
    same = (old.co_code, old.co_names, repr(plain_old)) == (
        new.co_code,
        new.co_names,
        repr(plain_new),
    )
    if not same or len(olds) != len(news):
        raise Unsupported(f"code outside functions changed ({old.co_qualname})")
    changed: list[types.CodeType] = []
    for a, b in zip(olds, news, strict=True):
        changed += _changed_functions(a, b)
    return changed


def _unwrap(value: Any) -> list[Any]:
    """The plain functions behind a namespace value (methods, properties, wrappers)."""
    found: list[Any] = []
    stack = [value]
    seen: set[int] = set()
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, types.FunctionType):
            found.append(item)
        if isinstance(item, staticmethod | classmethod):
            stack.append(item.__func__)
        elif isinstance(item, property):
            stack += [f for f in (item.fget, item.fset, item.fdel) if f is not None]
        wrapped = getattr(item, "__wrapped__", None) if not isinstance(item, type) else None
        if wrapped is not None:
            stack.append(wrapped)
    return found


def _live_functions(module: types.ModuleType, filename: str) -> dict[str, list[Any]]:
    """Functions of `module` (its classes entered) by qualified name."""
    out: dict[str, list[Any]] = {}
    stack: list[dict[str, Any]] = [vars(module)]
    classes: set[int] = set()
    while stack:
        namespace = stack.pop()
        for value in list(namespace.values()):
            if isinstance(value, type) and value.__module__ == module.__name__:
                if id(value) not in classes:
                    classes.add(id(value))
                    stack.append(dict(vars(value)))
                continue
            for fn in _unwrap(value):
                if fn.__code__.co_filename == filename:
                    out.setdefault(fn.__code__.co_qualname, []).append(fn)
    return out


def _file_of(module: object) -> str | None:
    where = getattr(module, "__file__", None)
    return os.path.realpath(where) if isinstance(where, str) else None


def apply_break(path: Path, original: bytes) -> int:
    """Give every function of the module at `path` already imported the code of the
    file now at `path` (the broken one). Returns how many functions changed."""
    real = os.path.realpath(path)
    module = next(
        (m for m in list(sys.modules.values()) if _file_of(m) == real),
        None,
    )
    if module is None:
        return 0  # not imported yet: it will be, from the broken file
    filename = str(module.__file__)
    old = compile(original, filename, "exec", dont_inherit=True)
    new = compile(path.read_bytes(), filename, "exec", dont_inherit=True)
    changed = _changed_functions(old, new)
    live = _live_functions(module, filename)
    for code in changed:
        functions = live.get(code.co_qualname)
        if not functions:
            raise Unsupported(f"{code.co_qualname} is not reachable in {module.__name__}")
        for fn in functions:
            try:
                fn.__code__ = code
            except ValueError as exc:  # a closure of another size
                raise Unsupported(f"{code.co_qualname}: {exc}") from exc
    return len(changed)


class _Recorder:
    """Each linked test's outcome in one child: failed > skipped > passed."""

    def __init__(self) -> None:
        self.cases: dict[str, tuple[str, str]] = {}
        self.seconds: dict[str, float] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[report.nodeid] = self.seconds.get(report.nodeid, 0.0) + report.duration
        outcome, message = self.cases.get(report.nodeid, ("passed", ""))
        if report.failed:
            outcome, message = "failed", report.longreprtext
        elif report.skipped and outcome == "passed":
            outcome, message = "skipped", report.longreprtext
        self.cases[report.nodeid] = (outcome, message)


class WarmServer:
    def __init__(self, proto: TextIO, requests: TextIO) -> None:
        self.proto = proto
        self.requests = requests  # the real stdin (pytest replaces sys.stdin)

    def say(self, message: dict[str, Any]) -> None:
        self.proto.write(json.dumps(message) + "\n")
        self.proto.flush()

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        if session.testsfailed:
            self.say({"error": "collection failed"})
            return True
        self.say({"ready": [item.nodeid for item in session.items]})
        for line in self.requests:
            request = json.loads(line)
            pid = os.fork()
            if pid == 0:
                self._child(session, request)
            self.say({"id": request["id"], "pid": pid})
            _, status = os.waitpid(pid, 0)
            _deps("zodyssey_drill_stop")  # only the first (unbroken) run is recorded
            self.say({"id": request["id"], "status": status})
        return True

    def _child(self, session: pytest.Session, request: dict[str, Any]) -> None:
        code = 0
        try:
            log = os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.dup2(log, 1)
            os.dup2(log, 2)
            result = self._run(session, request)
        except Unsupported as exc:
            result = {"unsupported": str(exc)}
        except BaseException as exc:
            result = {"unsupported": f"{type(exc).__name__}: {exc}"}
            code = 1
        try:
            if not request.get("path"):
                _deps("zodyssey_drill_flush")  # what the unbroken run read
            Path(request["result"]).write_text(json.dumps(result))
        finally:
            os._exit(code)

    def _run(self, session: pytest.Session, request: dict[str, Any]) -> dict[str, Any]:
        if request.get("path"):
            original = Path(request["original"]).read_bytes()
            apply_break(Path(os.getcwd(), request["path"]), original)
        recorder = _Recorder()
        session.config.pluginmanager.register(recorder, "zodyssey-drill-warm-recorder")
        items = session.items
        for index, item in enumerate(items):
            following = items[index + 1] if index + 1 < len(items) else None
            item.config.hook.pytest_runtest_protocol(item=item, nextitem=following)
            if session.shouldfail or session.shouldstop:
                break
        with suppress(Exception):  # the fixtures still set up (a stop after a failure) torn down
            session._setupstate.teardown_exact(None)
        sys.stdout.flush()
        cases = [
            [nodeid, outcome, message] for nodeid, (outcome, message) in recorder.cases.items()
        ]
        return {"cases": cases, "durations": recorder.seconds}


def _deps(name: str) -> None:
    """Call the drill's dependency recorder (drill_site/sitecustomize.py), when this
    process has it."""
    action = getattr(sys.modules.get("sitecustomize"), name, None)
    if callable(action):
        action()


def main(argv: list[str]) -> int:
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    requests = os.fdopen(os.dup(0), "r")
    log = os.open(os.devnull, os.O_WRONLY)
    os.dup2(log, 1)
    os.dup2(log, 0)
    return int(pytest.main(argv, plugins=[WarmServer(proto, requests)]))


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
