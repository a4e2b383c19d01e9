"""What the repository's root conftest.py does to every test session.

`-n N` alone distributes by work stealing (a worker that runs out of tests takes
queued ones from the other), while a `--dist` the caller chose is kept; and the
package is byte-compiled before the tests start, so the suite's subprocesses
(which run with PYTHONDONTWRITEBYTECODE) read compiled modules.

How this could pass while broken: a session that only looked at its own
`--dist` would see whatever the test's command line said, so the mode is read
inside real pytest runs started with and without `--dist`, under the very
conftest.py this repository runs with; the compiled files are checked against
each module's source (size and mtime, as the interpreter checks them).
"""

from __future__ import annotations

import importlib.util
import struct
from pathlib import Path

import pytest

import zodyssey
from tests.helpers import REPO_ROOT

# Appended to the root conftest.py: the main process writes the mode it schedules with
# (xdist workers see their own, always "no").
PROBE = """


def pytest_sessionfinish(session):
    if not hasattr(session.config, "workerinput"):
        with open(os.environ["DIST_OUT"], "w", encoding="utf-8") as out:
            out.write(session.config.option.dist)
"""


@pytest.mark.parametrize(
    ("args", "want"),
    [
        (("-n", "1"), "worksteal"),
        (("-n", "1", "--dist", "load"), "load"),
        ((), "no"),
    ],
)
def test_workers_steal_work_unless_a_dist_mode_is_given(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, args: tuple[str, ...], want: str
) -> None:
    pytester.makeconftest((REPO_ROOT / "conftest.py").read_text(encoding="utf-8") + PROBE)
    pytester.makepyfile(test_probe="def test_one():\n    pass\n")
    out = pytester.path / "dist.txt"
    monkeypatch.setenv("DIST_OUT", str(out))
    monkeypatch.delenv("PYTEST_ADDOPTS", raising=False)
    done = pytester.runpytest_subprocess("-p", "no:cacheprovider", *args)
    done.assert_outcomes(passed=1)
    assert out.read_text(encoding="utf-8") == want


def test_every_module_of_the_package_is_compiled_before_the_tests() -> None:
    package = Path(zodyssey.__file__).parent
    sources = sorted(package.rglob("*.py"))
    assert len(sources) > 50, sources
    stale = []
    for source in sources:
        cached = Path(importlib.util.cache_from_source(str(source)))
        if not cached.is_file():
            stale.append(str(source))
            continue
        header = cached.read_bytes()[:16]
        flags, mtime, size = struct.unpack("<3I", header[4:16])
        info = source.stat()
        if flags == 0 and (mtime, size) != (int(info.st_mtime) & 0xFFFFFFFF, info.st_size):
            stale.append(str(source))
    assert not stale, stale
