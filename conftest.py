"""Settings shared by every test session of this repository (tests/ and invariants/).

Property tests are derandomized under CI (`CI` set): CI then replays the very
examples a developer ran, so a green local run predicts a green CI run and a
failure reproduces exactly. Deadlines are off everywhere: a loaded 2-core
machine must not turn a slow example into a failure. Random exploration stays
on for developers, who see new examples on every run.
"""

from __future__ import annotations

import os

try:
    from hypothesis import settings
except ImportError:  # `zodyssey check` collects invariants/ without the test extras
    pass
else:
    settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
    settings.register_profile("dev", deadline=None)
    settings.load_profile("ci" if os.environ.get("CI") else "dev")
