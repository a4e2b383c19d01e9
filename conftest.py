"""Settings shared by every test session of this repository (tests/ and invariants/).

Property tests are derandomized under CI (`CI` set): CI then replays the very
examples a developer ran, so a green local run predicts a green CI run and a
failure reproduces exactly. Deadlines are off everywhere: a loaded 2-core
machine must not turn a slow example into a failure. Random exploration stays
on for developers, who see new examples on every run.
"""

from __future__ import annotations

import os
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

    Under pytest-xdist the workers take tests in collection order; a slow test
    collected last makes one worker finish minutes after the other. Started
    first, the slow tests run side by side and the short ones fill the end.
    Which tests run is unchanged: this only orders them.
    """
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
