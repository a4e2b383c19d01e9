"""core: the hook-safe vocabulary of runs, shared by the gate, `zodyssey run` and the audit.

The gate hook is a fresh process on every tool call of a coding agent, so what
it imports is most of what it costs. One rule keeps its path light, and
tests/core/test_import_rule.py checks it by reading the source (no import
runs) of `core/`, of every module of `gate/` but its CI side (`wiring`,
`install`, and `probe`, which `zodyssey check` and `run start` use to try the
wired hook command), of `sandbox/` (the kernel grants, the wrapped command's
runner, the post-call effect check) but `contain` (`run start|verify` only),
and of the two root modules they load (`zodyssey/__init__.py`, `errors.py`):

- At import time a module imports only `os`, `sys`, `fcntl`, `time`, `stat`
  (which `os` loads) and `_json`, `zodyssey.core.*`, `zodyssey.errors` and, in
  `gate/` and `sandbox/`, their own package's modules. `core/` never imports
  the gate, at any level (the one rule for what a run may write,
  `core/allowance.py`, is below both the gate and the sandbox).
- Anything else (`re`, `json`, `typing`, `pathlib`, `tomllib`, the shell
  parser) is imported inside the function that needs it, so only the calls
  that need it pay for it.
- Annotations cost nothing: a module sets `TYPE_CHECKING = False`, which mypy
  reads as `typing.TYPE_CHECKING`, imports its types under
  `if TYPE_CHECKING:` and quotes the annotations that name them (no
  `from __future__ import annotations`).
- Records are `core.records.Fields` subclasses, not dataclasses or
  `typing.NamedTuple`s (each would cost `typing` or `dataclasses`).
"""
