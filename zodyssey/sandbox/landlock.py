"""Landlock through its three system calls, with `ctypes` (Linux only).

The sandbox restricts WRITES only: the ruleset handles every write-like right
the running kernel knows and none of the read rights (read file, read
directory, execute), so reads stay unrestricted. A rule grants rights beneath
a directory (or on one file) that exists when the rule is added; whatever is
not granted is denied by the kernel with EACCES (EXDEV for a rename or link
across directories the process may not "refer" between).

What each ABI level adds (docs/gate.md has the table):
1 (5.13) write file, remove file/dir, make reg/dir/sym/fifo/sock/char/block;
  a rename or link to another directory is always denied;
2 (5.19) REFER: renames and links between granted directories;
3 (6.2)  TRUNCATE: truncate(2), ftruncate, open(O_TRUNC) (before: not restricted);
4 (6.7)  TCP bind/connect (not used: the sandbox restricts files);
5 (6.10) IOCTL_DEV: ioctl on device files;
6 (6.12) scopes: abstract unix sockets and signals to processes outside;
7 (6.15) audit logging flags.
"""

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

# System call numbers: the same on every architecture (the unified table).
SYS_CREATE_RULESET = 444
SYS_ADD_RULE = 445
SYS_RESTRICT_SELF = 446
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38

EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13  # ABI 2
TRUNCATE = 1 << 14  # ABI 3
IOCTL_DEV = 1 << 15  # ABI 5

SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
SCOPE_SIGNAL = 1 << 1  # ABI 6

# Every write-like right of ABI 1.
_WRITES_V1 = (
    WRITE_FILE
    | REMOVE_DIR
    | REMOVE_FILE
    | MAKE_CHAR
    | MAKE_DIR
    | MAKE_REG
    | MAKE_SOCK
    | MAKE_FIFO
    | MAKE_BLOCK
    | MAKE_SYM
)
# The rights a rule on a file (not a directory) may carry.
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV

# What a grant means, as rights (masked by what the kernel handles).
ALL_WRITES = _WRITES_V1 | REFER | TRUNCATE | IOCTL_DEV
# Write and replace files in a directory (editors' temp file + rename), no
# directories made or removed, no devices, fifos or sockets.
FILES_IN_DIR = WRITE_FILE | TRUNCATE | MAKE_REG | REMOVE_FILE | MAKE_SYM | REFER
# One existing file: write it in place.
ONE_FILE = WRITE_FILE | TRUNCATE
# Terminals and /dev/null: write and ioctl, nothing made or removed.
DEVICES = WRITE_FILE | TRUNCATE | IOCTL_DEV

_LIBC: list[object] = []


class LandlockError(OSError):
    """Landlock is missing, disabled, or a call failed."""


def _libc() -> "object":
    if not _LIBC:
        import ctypes

        _LIBC.append(ctypes.CDLL(None, use_errno=True))
    return _LIBC[0]


def abi_version() -> int:
    """The kernel's Landlock ABI; 0 when Landlock is absent or disabled (or not Linux)."""
    if os.uname().sysname != "Linux":
        return 0
    try:
        import ctypes

        libc = _libc()
        version = int(libc.syscall(SYS_CREATE_RULESET, None, 0, CREATE_RULESET_VERSION))  # type: ignore[attr-defined]
        if version < 0:
            ctypes.get_errno()
            return 0
        return version
    except (OSError, AttributeError, ValueError):
        return 0


def sandbox_status() -> str:
    """One line for `zodyssey run start`: whether shell commands can be sandboxed here."""
    abi = abi_version()
    if abi >= 1:
        return (
            f"write sandbox: Landlock ABI {abi}; shell commands of this run can run under "
            f"`zodyssey sandbox --run SLUG`"
        )
    return (
        "write sandbox: Landlock is not available here (an old kernel, not Linux, or disabled), "
        "so shell commands are not sandboxed: the gate relies on its parser and on the "
        "post-call check of what each call changed"
    )


def handled_writes(abi: int) -> int:
    """The write rights a ruleset handles at this ABI (so denies unless granted)."""
    rights = _WRITES_V1
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    if abi >= 5:
        rights |= IOCTL_DEV
    return rights


def restrict_writes(grants: "Iterable[tuple[str, int]]", abi: int | None = None) -> int:
    """Restrict this process (and what it executes) to writing only where `grants` say.

    `grants` is (path, rights) pairs; a path that does not exist (or cannot
    be opened) is skipped, and rights a file cannot carry are dropped for a
    file. Sets no_new_privs first (the kernel requires it without
    CAP_SYS_ADMIN). Returns the ABI used; raises LandlockError when the
    kernel refuses, so the caller can fail closed.
    """
    import ctypes

    version = abi_version() if abi is None else abi
    if version < 1:
        raise LandlockError("Landlock is not available on this kernel")
    libc = _libc()
    handled = handled_writes(version)
    scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if version >= 6 else 0

    class RulesetAttr(ctypes.Structure):
        _fields_ = [
            ("handled_access_fs", ctypes.c_uint64),
            ("handled_access_net", ctypes.c_uint64),
            ("scoped", ctypes.c_uint64),
        ]

    class PathBeneath(ctypes.Structure):
        _pack_ = 1
        _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]

    attr = RulesetAttr(handled, 0, scoped)
    # ABI 1-3 know only handled_access_fs, 4-5 also the net field: pass the size they know
    size = 24 if version >= 6 else (16 if version >= 4 else 8)
    syscall = libc.syscall  # type: ignore[attr-defined]
    ruleset = int(syscall(SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), 0))
    if ruleset < 0:
        err = ctypes.get_errno()
        raise LandlockError(err, f"landlock_create_ruleset: {os.strerror(err)}")
    try:
        for path, rights in grants:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue  # grants exist on what exists; the caller said what that means
            try:
                is_dir = _fd_is_dir(fd)
                allowed = rights & handled
                if not is_dir:
                    allowed &= FILE_RIGHTS
                if not allowed:
                    continue
                rule = PathBeneath(allowed, fd)
                if (
                    int(syscall(SYS_ADD_RULE, ruleset, RULE_PATH_BENEATH, ctypes.byref(rule), 0))
                    < 0
                ):
                    err = ctypes.get_errno()
                    raise LandlockError(err, f"landlock_add_rule {path}: {os.strerror(err)}")
            finally:
                os.close(fd)
        if int(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) != 0:  # type: ignore[attr-defined]
            err = ctypes.get_errno()
            raise LandlockError(err, f"prctl(PR_SET_NO_NEW_PRIVS): {os.strerror(err)}")
        if int(syscall(SYS_RESTRICT_SELF, ruleset, 0)) < 0:
            err = ctypes.get_errno()
            raise LandlockError(err, f"landlock_restrict_self: {os.strerror(err)}")
    finally:
        os.close(ruleset)
    return version


def _fd_is_dir(fd: int) -> bool:
    import stat

    return stat.S_ISDIR(os.fstat(fd).st_mode)
