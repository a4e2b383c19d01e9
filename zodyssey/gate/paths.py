"""The gate's path vocabulary, now in `zodyssey.core.allowance` (the one rule for
what a run may write, below the gate and the sandbox); kept under its old name
for readers outside the hook."""

from zodyssey.core.allowance import (
    GATE_CONFIG_FILES,
    GATE_PACKAGE_DIR,
    HARNESS_CONFIG_PATHS,
    MAX_PATH,
    NOWHERE,
    PROTECTED_CONFIG,
    SYSTEM_CONFIG_FILES,
    Layout,
    PathTooLong,
    installed_gate,
    is_test_file,
    relative,
    resolve,
    within,
    written,
)

__all__ = [
    "GATE_CONFIG_FILES",
    "GATE_PACKAGE_DIR",
    "HARNESS_CONFIG_PATHS",
    "MAX_PATH",
    "NOWHERE",
    "PROTECTED_CONFIG",
    "SYSTEM_CONFIG_FILES",
    "Layout",
    "PathTooLong",
    "installed_gate",
    "is_test_file",
    "relative",
    "resolve",
    "within",
    "written",
]
