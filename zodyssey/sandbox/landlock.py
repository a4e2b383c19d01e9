"""Landlock through its three system calls, with `_ctypes` (Linux only).

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
    from typing import Any

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
# Where the harness's own write tools also write (the product, bookkeeping): every
# write but making a symbolic link and moving anything in from another directory
# (REFER: a directory moved in would bring its links along). A link swapped in
# there by a process the call left running would steer the harness's next
# native Write (judged at pre-tool) into run state or `.git`; without these
# rights no sandboxed process can make one. `mv` between directories falls back
# to copying, which makes no link either.
NO_LINKS = ALL_WRITES & ~(MAKE_SYM | REFER)
# Write and replace files in a directory (editors' temp file + rename in the same
# directory), no directories made or removed, no links, devices, fifos or sockets.
FILES_IN_DIR = WRITE_FILE | TRUNCATE | MAKE_REG | REMOVE_FILE
# One existing file: write it in place.
ONE_FILE = WRITE_FILE | TRUNCATE
# Terminals and /dev/null: write and ioctl, nothing made or removed.
DEVICES = WRITE_FILE | TRUNCATE | IOCTL_DEV

_LIBC: "list[Any]" = []


class LandlockError(OSError):
    """Landlock is missing, disabled, or a call failed."""


def _libc() -> "Any":
    """libc's `syscall` and `prctl`, and the C types the calls need, built on
    `_ctypes` directly: the `ctypes` package around it costs more at start-up
    than the rest of the sandbox runner (docs/gate.md, performance)."""
    if not _LIBC:
        import _ctypes

        class Long(_ctypes._SimpleCData):  # type: ignore[type-arg]
            _type_ = "l"

        class U64(_ctypes._SimpleCData):  # type: ignore[type-arg]
            _type_ = "Q"

        class I32(_ctypes._SimpleCData):  # type: ignore[type-arg]
            _type_ = "i"

        class Function(_ctypes.CFuncPtr):
            _flags_ = _ctypes.FUNCFLAG_CDECL | _ctypes.FUNCFLAG_USE_ERRNO
            _restype_ = Long

        class Library:
            _handle = _ctypes.dlopen(None, _ctypes.RTLD_LOCAL)  # type: ignore[arg-type]

        class Namespace:
            pass

        lib: Any = Namespace()
        lib.syscall = Function(("syscall", Library()))  # type: ignore[arg-type]
        lib.prctl = Function(("prctl", Library()))  # type: ignore[arg-type]
        lib.Long, lib.U64, lib.I32 = Long, U64, I32
        lib.Structure, lib.byref, lib.get_errno = (
            _ctypes.Structure,
            _ctypes.byref,
            _ctypes.get_errno,
        )
        _LIBC.append(lib)
    return _LIBC[0]


def abi_version() -> int:
    """The kernel's Landlock ABI; 0 when Landlock is absent or disabled (or not Linux)."""
    if os.uname().sysname != "Linux":
        return 0
    try:
        lib = _libc()
        version = int(
            lib.syscall(
                lib.Long(SYS_CREATE_RULESET), None, lib.Long(0), lib.Long(CREATE_RULESET_VERSION)
            )
        )
        return version if version > 0 else 0
    except (OSError, AttributeError, ValueError, TypeError):
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


def _ruleset(lib: "Any", version: int) -> int:
    """A new ruleset handling every write right of this ABI (and the scopes from 6)."""
    handled = handled_writes(version)
    scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if version >= 6 else 0

    class RulesetAttr(lib.Structure):  # type: ignore[misc]
        _fields_ = (("fs", lib.U64), ("net", lib.U64), ("scoped", lib.U64))

    attr = RulesetAttr(handled, 0, scoped)
    # ABI 1-3 know only handled_access_fs, 4-5 also the net field: pass the size they know
    size = 24 if version >= 6 else (16 if version >= 4 else 8)
    fd = int(
        lib.syscall(lib.Long(SYS_CREATE_RULESET), lib.byref(attr), lib.Long(size), lib.Long(0))
    )
    if fd < 0:
        err = lib.get_errno()
        raise LandlockError(err, f"landlock_create_ruleset: {os.strerror(err)}")
    return fd


def _add_rule(lib: "Any", ruleset: int, path: str, rights: int, handled: int) -> None:
    """Grant `rights` beneath `path` (on the file, when it is one); a path that
    cannot be opened is skipped: grants exist on what exists."""
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return
    try:
        allowed = rights & handled
        if not _fd_is_dir(fd):
            allowed &= FILE_RIGHTS
        if not allowed:
            return

        class PathBeneath(lib.Structure):  # type: ignore[misc]
            _pack_ = 1
            _fields_ = (("allowed_access", lib.U64), ("parent_fd", lib.I32))

        rule = PathBeneath(allowed, fd)
        call = (lib.Long(SYS_ADD_RULE), lib.Long(ruleset), lib.Long(RULE_PATH_BENEATH))
        if int(lib.syscall(*call, lib.byref(rule), lib.Long(0))) < 0:
            err = lib.get_errno()
            raise LandlockError(err, f"landlock_add_rule {path}: {os.strerror(err)}")
    finally:
        os.close(fd)


def restrict_writes(grants: "Iterable[tuple[str, int]]", abi: int | None = None) -> int:
    """Restrict this process (and what it executes) to writing only where `grants` say.

    `grants` is (path, rights) pairs; a path that does not exist (or cannot
    be opened) is skipped, and rights a file cannot carry are dropped for a
    file. Sets no_new_privs first (the kernel requires it without
    CAP_SYS_ADMIN). Returns the ABI used; raises LandlockError when the
    kernel refuses, so the caller can fail closed. Called again, it stacks
    one more layer: what is allowed then is what every layer allows.
    """
    version = abi_version() if abi is None else abi
    if version < 1:
        raise LandlockError("Landlock is not available on this kernel")
    lib = _libc()
    ruleset = _ruleset(lib, version)
    try:
        for path, rights in grants:
            _add_rule(lib, ruleset, path, rights, handled_writes(version))
        long = lib.Long
        if int(lib.prctl(long(PR_SET_NO_NEW_PRIVS), long(1), long(0), long(0), long(0))) != 0:
            err = lib.get_errno()
            raise LandlockError(err, f"prctl(PR_SET_NO_NEW_PRIVS): {os.strerror(err)}")
        if int(lib.syscall(long(SYS_RESTRICT_SELF), long(ruleset), long(0))) < 0:
            err = lib.get_errno()
            raise LandlockError(err, f"landlock_restrict_self: {os.strerror(err)}")
    finally:
        os.close(ruleset)
    return version


def _fd_is_dir(fd: int) -> bool:
    import stat

    return stat.S_ISDIR(os.fstat(fd).st_mode)
