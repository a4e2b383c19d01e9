"""zodyssey: keep a repository honest in CI while AI coding agents work on it."""

__version__ = "0.1.0"
