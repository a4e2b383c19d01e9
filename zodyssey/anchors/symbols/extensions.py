"""Which files hold citable definitions: extension to grammar name (standard library only)."""

from __future__ import annotations

# File extensions whose definitions can be cited, and the grammar that reads them.
EXTENSIONS: dict[str, str] = {
    "py": "python",
    "pyi": "python",
    "go": "go",
    "rs": "rust",
    "js": "javascript",
    "mjs": "javascript",
    "cjs": "javascript",
    "jsx": "javascript",
    "ts": "typescript",
    "mts": "typescript",
    "cts": "typescript",
    "tsx": "tsx",
    "java": "java",
    "c": "c",
    "h": "cpp",  # C++ reads C headers too, and headers are often shared
    "cc": "cpp",
    "cpp": "cpp",
    "cxx": "cpp",
    "hpp": "cpp",
    "hh": "cpp",
    "hxx": "cpp",
}


def language_of(path: str) -> str | None:
    """The grammar that reads `path` (by extension), or None for an unsupported file."""
    name = path.rsplit("/", 1)[-1]
    if "." not in name:
        return None
    return EXTENSIONS.get(name.rsplit(".", 1)[-1].lower())
