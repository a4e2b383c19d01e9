"""The hook's start without `os`: its import paths, and its first question, can
this call reach any run state at all?

`paths` is the start-up of the installed command without `site`
(zodyssey/gate/hook_entry.py explains it), here so that it is byte-compiled.

Most tool calls an agent makes happen where no run is active, and there the
hook must say nothing, as fast as an interpreter starts. Importing `os` alone
costs about 14% of `python -S -c pass` (`-S` never loads it), and the full
discovery (zodyssey/gate/hook.py: `discovery`, `workspace`) imports `os` and
four modules more. `nothing_to_guard` answers with `posix` (built into the
interpreter, loaded at start-up), `sys` and the JSON text reader only, and it
answers True only when it is sure: every directory the full discovery would
look at for `.zcode/state` has none. Anything it does not cover exactly says
False, and the hook then runs the full discovery as before:

- the project dir comes from `CLAUDE_PROJECT_DIR` or `ZCODE_PROJECT_DIR`
  (hook.PROJECT_ENV); neither set (another harness's variables, or the call's
  cwd): False;
- the walk up from the project dir must meet a repository (`.git`): a folder
  above repositories (a workspace) is left to the full discovery;
- every directory the full discovery walks up from is walked here too, and
  more: the call's cwd and Cursor's `workspace_roots` (all of them), and every
  word of every string in `tool_input` (workspace.py's separators, at any
  depth, under any key), each from the word itself up to its repository (or
  to `/`). Any `.zcode/state` met (directory or not) says False;
- the full discovery resolves links (`realpath`) before it walks up from a
  word: here a link met below the repository says False, since the walk from
  its target could lead elsewhere; a word starting with `~`, a relative cwd,
  a string over 65,536 characters (the full discovery reads a prefix of it),
  more than MAX_WORDS words, stdin that is not a JSON object or over the size
  the hook decodes, or any error: False.

tests/gate/test_gate_norun.py holds it to the full discovery's answer on
nested repositories, links, workspaces, environment overrides and payload
paths, and checks that the separators and variables are the same as theirs.
"""

import sys

from zodyssey.core.vocabulary import STATE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# hook.PROJECT_ENV, as the bytes keys of `posix.environ` (the test checks they agree)
PROJECT_ENV = (b"CLAUDE_PROJECT_DIR", b"ZCODE_PROJECT_DIR")
# workspace._SEPARATORS (the test checks they agree)
SEPARATORS = " \t\n\r'\"`=,;:()[]{}<>|&"
MAX_WORDS = 256
MAX_STRING = 65536  # workspace._words reads this much of each string
MAX_STDIN = 16 * 1024 * 1024  # more is left to the full hook (hook.MAX_STDIN)
POSIX = "posix" in sys.builtin_module_names
_S_IFMT = 0o170000
_S_IFLNK = 0o120000


PARSER_PACKAGES = ("tree_sitter", "tree_sitter_bash")


def paths(package_root: str) -> None:
    """Put this package and the interpreter's site-packages on `sys.path` when the
    parser's packages are found there; else run `site.main()` and add the
    package after what `site` added. `package_root` is on `sys.path` already
    (the entry needed it to import this module), at its end."""
    purelib = _purelib()
    places = [package_root] if purelib == package_root else [package_root, purelib]
    if all(any(_isdir(place, name) for place in places) for name in PARSER_PACKAGES):
        sys.path.extend(place for place in places if place not in sys.path)
        return
    if sys.path[-1:] == [package_root]:
        sys.path.pop()
    import site

    site.main()
    if package_root not in sys.path:  # this file's own package, after site's paths
        sys.path.append(package_root)


def _plain(path: str, depth: int) -> bool:
    """An absolute POSIX path of more than `depth` components that
    `os.path.abspath` leaves as it is (no empty, `.` or `..` component)."""
    parts = path.split("/")
    return (
        parts[0] == ""
        and len(parts) > depth + 1
        and all(p not in ("", ".", "..") for p in parts[1:])
    )


def _purelib() -> str:
    """The interpreter's site-packages (its venv's, when it runs in one). With
    plain POSIX paths by string operations and `posix.stat`; else with `os`."""
    exe = sys.executable
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    if POSIX and _plain(exe, 2) and _plain(sys.prefix, 0):
        # `site` is also what reads pyvenv.cfg and points sys.prefix at a venv
        prefix = exe.rsplit("/", 2)[0]
        if not _is_kind(prefix + "/pyvenv.cfg", 0o100000):
            prefix = sys.prefix
        return f"{prefix}/lib/{version}/site-packages"
    import os

    prefix = os.path.dirname(os.path.dirname(os.path.abspath(exe)))
    if not os.path.isfile(os.path.join(prefix, "pyvenv.cfg")):
        prefix = sys.prefix
    if os.name == "nt":
        return os.path.join(prefix, "Lib", "site-packages")
    return os.path.join(prefix, "lib", version, "site-packages")


def _isdir(place: str, name: str) -> bool:
    if POSIX:
        return _is_kind(place + "/" + name, 0o040000)
    import os

    return os.path.isdir(os.path.join(place, name))


def _is_kind(path: str, kind: int) -> bool:
    """Whether `path` exists and is of file type `kind` (stat's S_IFMT bits)."""
    from posix import stat

    try:
        return stat(path).st_mode & _S_IFMT == kind
    except (OSError, ValueError):
        return False


def quiet(argv: "list[str]") -> "tuple[bytes, bool]":
    """(stdin, whether no run state can guard this call): the hook then exits 0."""
    try:
        raw = sys.stdin.buffer.read()
    except BaseException:
        raw = b""
    return raw, POSIX and nothing_to_guard(argv, raw)


class _Unsure(Exception):
    """Something the fast answer does not cover: ask the full discovery."""


def nothing_to_guard(argv: "list[str]", raw: bytes) -> bool:
    """True when no run state can guard this call (the hook exits 0, silent)."""
    if "-h" in argv or "--help" in argv or len(raw) > MAX_STDIN:
        return False
    try:
        return _nothing_to_guard(raw)
    except Exception:
        return False


def _nothing_to_guard(raw: bytes) -> bool:
    start = _project_dir()
    if start is None:
        return False
    seen: set[str] = set()
    if not _clear_up(start, seen):  # no repository met: a workspace folder
        return False
    from zodyssey.core.jsontext import loads

    payload = loads(raw)
    if not isinstance(payload, dict):
        return False
    dirs = _payload_dirs(payload)
    for place in dirs:
        _clear_up(_absolute(place), seen)
    here = dirs[0] if dirs and dirs[0] == payload.get("cwd") else start
    words: list[str] = []
    _words(payload.get("tool_input"), words)
    _clear_words(words, here, seen)
    return True


def _clear_words(words: "list[str]", here: str, seen: "set[str]") -> None:
    """Walk up from every word (a path relative to `here` unless absolute)."""
    for word in words:
        if word.startswith("~"):
            raise _Unsure(word)
        if not word.startswith("-"):
            _clear_up(word if word.startswith("/") else here + "/" + word, seen)


def _payload_dirs(payload: "dict[str, Any]") -> "list[str]":
    """The call's cwd (first, when it names one) and every Cursor workspace root."""
    cwd = payload.get("cwd")
    roots = payload.get("workspace_roots")
    dirs = [cwd] if isinstance(cwd, str) and cwd else []
    if isinstance(roots, list):
        dirs.extend(r for r in roots if isinstance(r, str) and r)
    return dirs


def _project_dir() -> "str | None":
    import posix  # built in and loaded at start-up (the rule: imported where used)

    environ = posix.environ
    for name in PROJECT_ENV:
        value = environ.get(name)
        if value:
            return _absolute(
                value.decode(sys.getfilesystemencoding(), sys.getfilesystemencodeerrors())
            )
    return None


def _absolute(path: str) -> str:
    if not path.startswith("/"):
        raise _Unsure(path)
    return path


def _words(value: "Any", out: "list[str]") -> None:
    """Every word of every string in `value`, at any depth (dict values, list items)."""
    if isinstance(value, str):
        _split(value, out)
    elif isinstance(value, dict):
        for item in value.values():
            _words(item, out)
    elif isinstance(value, list):
        for item in value:
            _words(item, out)


def _split(text: str, out: "list[str]") -> None:
    """The words of `text` between SEPARATORS, as workspace._words splits them."""
    if len(text) > MAX_STRING:
        raise _Unsure("long string")
    token: list[str] = []
    for ch in text + " ":
        if ch not in SEPARATORS:
            token.append(ch)
        elif token:
            out.append("".join(token))
            token = []
    if len(out) > MAX_WORDS:
        raise _Unsure("many words")


def _segments(path: str) -> "list[str]":
    """The components of absolute `path` after `os.path.normpath` (lexical)."""
    out: list[str] = []
    for part in path.split("/"):
        if part == "..":
            if out:
                out.pop()
        elif part and part != ".":
            out.append(part)
    return out


def _clear_up(path: str, seen: "set[str]") -> bool:
    """Walk up from `path`: raise _Unsure at a `.zcode/state` or at a link below the
    repository; True when a repository (`.git`) ends the walk, False at `/`."""
    import posix

    parts = _segments(path)
    for depth in range(len(parts), -1, -1):
        current = "/" + "/".join(parts[:depth])
        if current in seen:
            return True  # walked from here already (its answer was not _Unsure)
        seen.add(current)
        try:
            mode = posix.lstat(current).st_mode
        except OSError:
            mode = 0  # not there: nothing below it either, walk on up
        if mode & _S_IFMT == _S_IFLNK:
            raise _Unsure(current)
        if _exists(current + "/" + STATE):
            raise _Unsure(current)
        if _exists(current + "/.git"):
            return True
    return False


def _exists(path: str) -> bool:
    import posix

    try:
        posix.stat(path)
    except OSError:
        return False
    return True
