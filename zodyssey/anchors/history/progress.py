"""A counting progress bar on stderr, drawn only when stderr is a terminal.

Logs and CI output stay clean: when stderr is not a TTY nothing is written.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

_WIDTH = 28
_MIN_INTERVAL = 0.1  # seconds between redraws; a fast run draws little


class Progress:
    def __init__(self, label: str, total: int, stream: TextIO | None = None) -> None:
        self.label = label
        self.total = total
        self.done = 0
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = total > 0 and _is_tty(self.stream)
        self._last = 0.0
        self._drawn = -1  # the count last drawn

    def advance(self, count: int = 1) -> None:
        self.done += count
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last >= _MIN_INTERVAL or self.done >= self.total:
            self._last = now
            self._draw()

    def _draw(self) -> None:
        filled = _WIDTH * self.done // self.total if self.total else _WIDTH
        bar = "#" * filled + "." * (_WIDTH - filled)
        self._drawn = self.done
        self.stream.write(f"\r{self.label} [{bar}] {self.done}/{self.total}")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            if self._drawn != self.done:
                self._draw()
            self.stream.write("\n")
            self.stream.flush()
            self.enabled = False


def _is_tty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
