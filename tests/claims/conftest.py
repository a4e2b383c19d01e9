"""The drills of these tests share one bytecode store of the session (never the
developer's own under ~/.cache): the interpreter's bytecode is compiled once, not
by the first run of every drill (zodyssey/claims/drill_bytecode.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from zodyssey.claims.drill_bytecode import STORE_ENV


@pytest.fixture(scope="session", autouse=True)
def _drill_bytecode_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(STORE_ENV, str(tmp_path_factory.getbasetemp() / "drill-bytecode"))
        yield
