"""Promises about the hook-safe core (docs/gate.md): its import rule holds for
every hot module, read from the source of this checkout."""

from __future__ import annotations

import pytest

from tests.core.test_import_rule import hot_modules, violations


@pytest.mark.claim("hook-import-rule")
def test_every_hot_module_imports_only_what_the_rule_allows() -> None:
    modules = hot_modules()
    names = {path.name for path in modules}
    assert {"hook.py", "policy.py", "store.py", "jsontext.py", "errors.py"} <= names
    assert not [problem for path in modules for problem in violations(path)]
