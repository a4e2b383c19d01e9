"""Settings shared by every test session of this repository (tests/ and invariants/).

Property tests are derandomized under CI (`CI` set): CI then replays the very
examples a developer ran, so a green local run predicts a green CI run and a
failure reproduces exactly. Deadlines are off everywhere: a loaded 2-core
machine must not turn a slow example into a failure. Random exploration stays
on for developers, who see new examples on every run.

The package is byte-compiled once per session, before any test (or xdist
worker) starts: the tests' subprocesses run with PYTHONDONTWRITEBYTECODE (so
they never write beside the sources), and containers and CI often set it for
everything, so without this each of the suite's many `python -m zodyssey` and
hook processes compiled every module it imported from source again.
"""

from __future__ import annotations

import compileall
import importlib.util
import os
import shlex
from typing import Any

try:
    from hypothesis import settings
except ImportError:  # `zodyssey check` collects invariants/ without the test extras
    pass
else:
    settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
    settings.register_profile("dev", deadline=None)
    settings.load_profile("ci" if os.environ.get("CI") else "dev")


def pytest_collection_modifyitems(items: list[Any]) -> None:
    """Slow tests first (a stable sort: the order within each group is kept).

    Started first, the slow tests never begin when the other workers are
    nearly done; the short ones fill the end. Which tests run is unchanged:
    this only orders them.
    """
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def _dist_given(config: Any) -> bool:
    """Whether the command line, PYTEST_ADDOPTS or the ini addopts chose a --dist mode."""
    given = [
        *config.invocation_params.args,
        *shlex.split(os.environ.get("PYTEST_ADDOPTS", "")),
        *config.getini("addopts"),
    ]
    return any(arg == "-d" or arg.startswith("--dist") for arg in given)


def pytest_configure(config: Any) -> None:
    """In the main process only: xdist's work stealing, then byte-compile the `zodyssey`
    that the tests import.

    Python checks a cached file against its source (mtime and size) on every
    import, so an edited module is compiled again and the cache never stands in
    for changed code. Left alone: xdist workers (the main process did it before
    starting them) and the claims drill's runs, which cache bytecode in their
    own scratch directory.
    """
    if hasattr(config, "workerinput"):
        return
    if getattr(config.option, "dist", "no") == "load" and not _dist_given(config):
        # `-n` alone means --dist load: each worker is handed a queue of tests up
        # front and keeps it, so the suite ended with one worker idle for a minute
        # while the other worked through its queue. Work stealing moves queued
        # tests to the idle worker (the same tests, each run once).
        config.option.dist = "worksteal"
    if os.environ.get("ZODYSSEY_DRILL"):
        return
    spec = importlib.util.find_spec("zodyssey")
    for location in (spec.submodule_search_locations or []) if spec else []:
        compileall.compile_dir(location, quiet=2)
