"""Atomic file replacement: temp file in the same directory, fsync, rename.

Readers see the old content or the new content, never a truncated file, even
when the writing process is killed half way.
"""

import os

# Standard library `os` only (no tempfile, pathlib or contextlib): the gate hook
# writes state through here on every allowed write and pays for every import.


def _temp_name(directory: str, name: str) -> tuple[int, str]:
    # O_EXCL makes the name ours; a collision (vanishingly rare) just retries.
    while True:
        candidate = os.path.join(directory, f".{name}.{os.getpid()}.{os.urandom(6).hex()}.tmp")
        try:
            return os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), candidate
        except FileExistsError:
            continue


def write_atomic(path: "str | os.PathLike[str]", data: str | bytes, *, mode: int = 0o644) -> None:
    target = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(target))
    os.makedirs(directory, exist_ok=True)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = _temp_name(directory, os.path.basename(target))
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        try:  # noqa: SIM105 - contextlib would cost the gate an import
            mode = os.stat(target).st_mode & 0o7777
        except FileNotFoundError:
            pass
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:  # noqa: SIM105 - as above
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    _fsync_dir(directory)


def _fsync_dir(directory: str) -> None:
    # The rename is durable only once the directory entry is on disk.
    try:
        dir_fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)
