"""Only regular files are read or written: a FIFO, socket, device or directory is refused.

A FIFO given where a state, evidence, plan, review, lock, ledger or report
file belongs would block `open()` forever (reading waits for a writer,
writing for a reader); a device would feed the reader anything. Every reader
of those files opens them here: `open_regular` opens without blocking
(`O_NONBLOCK`), checks what it opened with `fstat` (so the check and the read
see the same file, a symlink followed), and returns the descriptor in
blocking mode again. Writers check their target with `require_regular_target`
before `write_atomic` would silently rename a regular file over a FIFO.

The refusal is `NotRegularFile`: one line, exit 2 (`Exit.USAGE`). A missing
file is `FileNotFoundError`, as `open()` would say, for the caller to decide.

Hook-safe (core/__init__.py): `os` and `zodyssey.core`/`errors` only.
"""

import os

from zodyssey.core.exits import Exit
from zodyssey.errors import ZodysseyError

_S_IFMT = 0o170000
_KINDS = {
    0o010000: "a FIFO (named pipe)",
    0o140000: "a socket",
    0o020000: "a character device",
    0o060000: "a block device",
    0o040000: "a directory",
}
_S_IFREG = 0o100000


class NotRegularFile(ZodysseyError):
    """A path that must be a regular file is a FIFO, socket, device or directory."""

    exit_code = Exit.USAGE


def _kind(mode: int) -> str | None:
    """None for a regular file, else what it is instead."""
    kind = mode & _S_IFMT
    if kind == _S_IFREG:
        return None
    return _KINDS.get(kind, "not a regular file")


def _refusal(path: "str | os.PathLike[str]", what: str, kind: str) -> NotRegularFile:
    return NotRegularFile(
        f"{what} {os.fspath(path)} is {kind}, not a regular file: give a regular file "
        "(nothing is read from or written to anything else)"
    )


def open_regular(path: "str | os.PathLike[str]", what: str = "file") -> int:
    """A read-only, blocking descriptor of `path`, which must be a regular file
    (symlinks followed).

    Raises FileNotFoundError when it does not exist, NotRegularFile when it is
    anything but a regular file, OSError otherwise. Never blocks on a FIFO.
    The descriptor may be handed on (a child's stdin, a file object), so it is
    made blocking again as a caller expects.
    """
    fd = _open_regular(path, what)
    os.set_blocking(fd, True)
    return fd


_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def _open_regular(path: "str | os.PathLike[str]", what: str) -> int:
    """`open_regular` without clearing O_NONBLOCK: for a descriptor read here and
    closed (a regular file's reads never wait; the fcntl calls cost on every
    document the citation check reads)."""
    return _open_sized(path, what)[0]


def _open_sized(path: "str | os.PathLike[str]", what: str) -> "tuple[int, int]":
    """(descriptor, size when opened) of the regular file `path`, O_NONBLOCK left set."""
    fd = os.open(path, _FLAGS)
    try:
        status = os.fstat(fd)
        kind = _kind(status.st_mode)
        if kind is not None:
            raise _refusal(path, what, kind)
        # Only a regular file gets here, and O_NONBLOCK means nothing for one (its
        # reads never wait): no fcntl calls to clear it (two per document read).
    except BaseException:
        os.close(fd)
        raise
    return fd, status.st_size


def read_regular(path: "str | os.PathLike[str]", what: str = "file") -> bytes:
    """The bytes of the regular file `path` (errors as `open_regular`).

    Read with `os.read` on the descriptor, sized by the `fstat` the kind check
    made: the citation check reads tens of thousands of files, and a buffered
    file object per file cost more than the reading.
    """
    fd, size = _open_sized(path, what)
    try:
        data = os.read(fd, size + 1)
        if len(data) == size and size:
            return data  # all of it (a file that grew since is read as it was)
        # Short (a file that shrank or a partial read) or longer (it grew): read to the end.
        parts = [data]
        while chunk := os.read(fd, 1 << 20):
            parts.append(chunk)
        return b"".join(parts)
    finally:
        os.close(fd)


def read_regular_text(path: "str | os.PathLike[str]", what: str = "file") -> str:
    """The UTF-8 text of the regular file `path` (UnicodeDecodeError when it is not)."""
    return read_regular(path, what).decode("utf-8")


def require_regular_target(path: "str | os.PathLike[str]", what: str = "file") -> None:
    """Refuse to write `path` when it exists as anything but a regular file.

    A missing path is fine (the writer creates it); a symlink is followed (a
    linked file is written through by the caller, or replaced, as it does).
    """
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    except OSError:
        return  # the write itself reports what is wrong with the path
    kind = _kind(mode)
    if kind is not None:
        raise _refusal(path, what, kind)
