"""What ordinary tools write as by-products: never a violation of the post-call check.

A plan whose criterion is `python -m pytest` runs pytest, which writes bytecode
next to every module it imports, `.pytest_cache/` and coverage data, also in a
repository that does not ignore them. Those are not the agent's product, so
the effect check lets them pass (`is_byproduct`), ignored or not:

* caches whose content decides nothing a run executes: any path inside a
  `.pytest_cache`, `.mypy_cache`, `.ruff_cache` or `.hypothesis` directory,
  and coverage data files (`.coverage`, `.coverage.*`);
* bytecode, `__pycache__/NAME.TAG[.opt-N].pyc`, only when it is what the
  interpreter itself would have written for the source beside it (a `.pyc`
  is code that runs: a planted one shadows its module). It must be
  timestamp-based with the source's mtime and size in its header (or
  hash-based and checked, with the source's hash), so the interpreter
  recompiles it once the source changes; and when its tag is this
  interpreter's, its code must equal the source compiled now. Bytecode of
  another tag (another Python, pytest's rewritten tests) is held to the
  header alone. Removing bytecode is always fine.

Hot path (the hook's post-tool): `os` only at import; `marshal` and
`importlib.util` when a `.pyc` is judged.
"""

import os

CACHE_DIRS = frozenset((".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis"))
MAX_PYC_BYTES = 8 << 20  # larger "bytecode" is not taken for a by-product
# What `run start` checks the ignore rules for (a path of each by-product kind).
SAMPLES = (
    "__pycache__/m.cpython-311.pyc",
    ".pytest_cache/v/cache/lastfailed",
    ".coverage",
    ".mypy_cache/CACHEDIR.TAG",
    ".ruff_cache/CACHEDIR.TAG",
    ".hypothesis/examples/x",
)


def is_byproduct(root: str, rel: str, after: str) -> bool:
    """Whether the change of `rel` (a repository path; `after` its new blob id, or
    "missing") is a tool's by-product (see the module docstring)."""
    parts = rel.split("/")
    if any(part in CACHE_DIRS for part in parts[:-1]):
        return True
    name = parts[-1]
    if name == ".coverage" or name.startswith(".coverage."):
        return True
    if len(parts) < 2 or parts[-2] != "__pycache__" or not name.endswith(".pyc"):
        return False
    if after == "missing":
        return True
    return honest_bytecode(os.path.join(root, rel))


def _source_of(pyc: str) -> "tuple[str, str, int] | None":
    """(source path, tag, optimization level) of `.../__pycache__/NAME.TAG[.opt-N].pyc`
    (NAME holds no dot; TAG may: pytest's `cpython-311-pytest-9.2.0`)."""
    folder, name = os.path.split(pyc)
    module, _, tag = name[: -len(".pyc")].partition(".")
    level = 0
    for opt in (1, 2):
        if tag.endswith(f".opt-{opt}"):
            tag, level = tag[: -len(".opt-1")], opt
    if not module or not tag:
        return None
    return os.path.join(os.path.dirname(folder), module + ".py"), tag, level


def honest_bytecode(pyc: str) -> bool:
    """Whether the `.pyc` at `pyc` is what the interpreter would write for its source."""
    found = _source_of(pyc)
    if found is None:
        return False
    source, tag, level = found
    from zodyssey.core.files import read_regular

    try:
        if os.path.getsize(pyc) > MAX_PYC_BYTES:
            return False
        data = read_regular(pyc)
        code = read_regular(source)
        info = os.stat(source)
    except OSError:
        return False
    if len(data) < 16 or not _header_matches(data, code, info):
        return False
    import sys

    if tag != sys.implementation.cache_tag:
        return True  # another interpreter's (or pytest's rewritten test): the header only
    return _same_code(data, code, source, level)


def _header_matches(data: bytes, source: bytes, info: "os.stat_result") -> bool:
    flags = int.from_bytes(data[4:8], "little")
    if flags == 0:  # timestamp-based: the interpreter checks mtime and size
        mtime = int.from_bytes(data[8:12], "little")
        size = int.from_bytes(data[12:16], "little")
        return mtime == int(info.st_mtime) & 0xFFFFFFFF and size == info.st_size & 0xFFFFFFFF
    if flags == 0b11:  # hash-based, checked: the source's hash must be the one in it
        import _imp
        from importlib.util import MAGIC_NUMBER

        key = int.from_bytes(MAGIC_NUMBER, "little")
        return data[:4] == MAGIC_NUMBER and data[8:16] == _imp.source_hash(key, source)
    return False  # unchecked hash-based: run whatever the source says


def _same_code(data: bytes, source: bytes, path: str, level: int) -> bool:
    """The code object in the `.pyc` equals the source compiled now (this interpreter)."""
    import marshal
    from importlib.util import MAGIC_NUMBER

    if data[:4] != MAGIC_NUMBER:
        return False
    try:
        stored = marshal.loads(data[16:])
        fresh = compile(source, path, "exec", dont_inherit=True, optimize=level)
    except (ValueError, EOFError, TypeError, SyntaxError, MemoryError):
        return False
    return bool(stored == fresh)


def unignored_advice(root: str) -> "str | None":
    """What `run start` says when the repository's ignore rules (as the effect
    check's hermetic git reads them) leave tool by-products unignored: the lines
    to add to `.gitignore`. None when all are ignored, or git cannot tell."""
    from zodyssey import git

    try:
        listed = git.run(root, ["check-ignore", "--no-index", "--", *SAMPLES], hermetic=True)
    except git.GitError as exc:
        if not exc.message.endswith("exited 1"):  # 1 with nothing said: none is ignored
            return None
        listed = b""
    ignored = set(listed.decode("utf-8", "replace").splitlines())
    missing = [line for sample, line in _LINE_OF if sample not in ignored]
    if not missing:
        return None
    return (
        "note: git does not ignore what tests and linters leave behind here; the effect "
        "check lets it pass, but `git status` shows it. Add to .gitignore: "
        + " ".join(dict.fromkeys(missing))
    )


_LINE_OF = (
    (SAMPLES[0], "__pycache__/"),
    (SAMPLES[1], ".pytest_cache/"),
    (SAMPLES[2], ".coverage"),
    (SAMPLES[2], ".coverage.*"),
    (SAMPLES[3], ".mypy_cache/"),
    (SAMPLES[4], ".ruff_cache/"),
    (SAMPLES[5], ".hypothesis/"),
)
