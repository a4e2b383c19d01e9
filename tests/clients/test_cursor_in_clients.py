"""Cursor in the clients suite: there is no Cursor agent CLI to install from npm.

Cursor's command-line agent installs with `curl https://cursor.com/install`
(a shell script that downloads a binary), not from npm, and the npm package
named `cursor-agent` is an unrelated tool; the suite installs clients only
from npm (tests/clients/install.py), so Cursor is not driven. Its hook
payloads are replayed from fixtures instead
(tests/data/client_payloads/cursor-documented/, the shapes of Cursor's hooks
documentation, in tests/gate/test_client_payloads.py), without npm.
"""

from __future__ import annotations

import pytest

WHY = (
    "no Cursor agent CLI installs from npm (Cursor's installs with `curl "
    "https://cursor.com/install`; npm's `cursor-agent` is another tool): its payloads "
    "are replayed from tests/data/client_payloads/cursor-documented/ instead"
)


@pytest.mark.skip(reason=WHY)
def test_cursor_agent_is_driven_like_the_other_clients() -> None:
    raise AssertionError("unreachable: skipped")
