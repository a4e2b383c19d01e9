"""Errors a user can cause, each carrying the exit code the CLI returns for it."""

from zodyssey.core.exits import Exit


class ZodysseyError(Exception):
    """A failure with a message meant for the user and a documented exit code."""

    exit_code = Exit.USAGE

    def __init__(self, message: str, exit_code: int | None = None) -> None:
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else ""


class UsageError(ZodysseyError):
    """Bad arguments or unreadable configuration (exit 2)."""

    exit_code = Exit.USAGE
