"""sed and awk: scripts that can write files or run commands."""

from __future__ import annotations

from zodyssey.gate.shell.commands import handles
from zodyssey.gate.shell.records import Arg

TYPE_CHECKING = False  # mypy treats this as typing.TYPE_CHECKING; no runtime import
if TYPE_CHECKING:
    from zodyssey.gate.shell.walker import Walker


_SED_SIMPLE = set("pPdDnNgGhHxz=lFqQ{}!")


def _sed_script_writes(script: str) -> bool:
    """True when a sed script can write files or run commands (w, W, e, s///w, s///e).

    Where sed implementations read the script differently, every reading is
    checked: a label (`:a`, `b a`, `t a`, `T a`) ends at a blank or `;` in GNU
    sed and at the end of the line in POSIX; an `r`/`R` file name and `a`/`i`/`c`
    text run to the end of the line (text lines ending in `\\` continue it).
    The scan from a position is remembered, so the alternatives stay linear.
    """
    n = len(script)
    memo: dict[int, bool] = {}

    def eol(k: int) -> int:
        while k < n and script[k] != "\n":
            k += 1
        return k

    def upto(k: int, stops: str) -> int:
        while k < n and script[k] not in stops:
            k += 1
        return k

    def from_(i: int) -> bool:
        if i not in memo:
            memo[i] = scan(i)
        return memo[i]

    def scan(i: int) -> bool:
        while i < n:
            ch = script[i]
            if ch in " \t\n;":
                i += 1
                continue
            if ch == "#":
                i = eol(i)
                continue
            # addresses
            if ch.isdigit() or ch in "$,~+":
                i += 1
                continue
            if ch == "/" or (ch == "\\" and i + 1 < n):
                delim = "/" if ch == "/" else script[i + 1]
                i += 1 if ch == "/" else 2
                while i < n and script[i] != delim:
                    i += 2 if script[i] == "\\" else 1
                i += 1
                while i < n and script[i] in "IM":
                    i += 1
                continue
            if ch in ("s", "y"):
                if i + 1 >= n:
                    return True
                delim = script[i + 1]
                if delim in "\n\\":
                    return True
                i += 2
                for _ in range(2):
                    while i < n and script[i] != delim:
                        i += 2 if script[i] == "\\" else 1
                    i += 1
                if ch == "s":
                    while i < n and script[i] not in ";\n}":
                        if script[i] in "we":
                            return True
                        i += 1
                continue
            if ch in "aic":
                # one line of text, or more while a line ends in a backslash
                one = eol(i)
                more = one
                while more < n and more > 0 and script[more - 1] == "\\":
                    more = eol(more + 1)
                return from_(one) or from_(more)
            if ch in ":btT":
                k = i + 1
                while k < n and script[k] in " \t":
                    k += 1
                return from_(upto(k, " \t\n;")) or from_(upto(k, "\n;")) or from_(eol(k))
            if ch in "rRvL":
                k = i + 1
                return from_(upto(k, "\n;")) or from_(eol(k))
            if ch in "wWe":
                return True
            if ch in _SED_SIMPLE:
                i += 1
                continue
            return True  # an unknown sed command: assume the worst
        return False

    return from_(0)


@handles("sed", "gsed")
def _sed(w: Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    in_place = False
    suffix = ""  # -iSUF / --in-place=SUF: the original is kept as a backup
    scripts: list[str | None] = []
    operands: list[Arg] = []
    i = 0
    only_operands = False
    while i < len(args):
        arg = args[i]
        value = arg.value
        i += 1
        if only_operands or value is None or not value.startswith("-") or value == "-":
            operands.append(arg)
            continue
        if value == "--":
            only_operands = True
        elif value.startswith("--"):
            name, eq, attached = value.partition("=")
            if name == "--in-place":
                in_place = True
                suffix = attached
            elif name == "--expression":
                scripts.append(attached if eq else (args[i].value if i < len(args) else None))
                i += 0 if eq else 1
            elif name == "--file":
                scripts.append(None)
                i += 0 if eq else 1
            elif name in ("--line-length",):
                i += 0 if eq else 1
        else:
            j = 1
            while j < len(value):
                flag = value[j]
                if flag == "i":
                    in_place = True
                    suffix = value[j + 1 :]
                    break  # the rest is a backup suffix
                if flag in "ef":
                    rest = value[j + 1 :]
                    script = rest if rest else (args[i].value if i < len(args) else None)
                    if not rest:
                        i += 1
                    scripts.append(script if flag == "e" else None)
                    break
                if flag == "l":
                    if not value[j + 1 :]:
                        i += 1
                    break
                j += 1
    if not scripts and operands:
        scripts.append(operands[0].value)
        operands = operands[1:]
    # each -e alone, and all of them as sed joins them (one per line)
    if any(s is None or _sed_script_writes(s) for s in scripts) or (
        len(scripts) > 1 and _sed_script_writes("\n".join(s or "" for s in scripts))
    ):
        w.unknown(text, "the sed script can write files or run commands")
        return cwd
    if in_place:
        w.write(text, cwd, [*operands, *_backups(operands, suffix)], "sed -i rewrites its files")
        return cwd
    w.read(text)
    return cwd


def _backups(operands: list[Arg], suffix: str) -> list[Arg]:
    """GNU sed's backup names: each `*` in the suffix is the file name as given
    (`-i'bak/*'`), else the suffix is appended (`-i.bak`)."""
    if not suffix:
        return []
    out: list[Arg] = []
    for arg in operands:
        if arg.value is None or arg.multi:
            out.append(Arg(None, False, arg.text))
        elif "*" in suffix:
            out.append(Arg(suffix.replace("*", arg.value)))
        else:
            out.append(Arg(arg.value + suffix))
    return out


_AWK_STRING = r'"(?:[^"\\]|\\.)*"'
_AWK_REGEX = r"(?:^|(?<=[(,~!&|{};\s]))/(?:[^/\\\n]|\\.)+/"


def _awk_program_writes(program: str) -> bool:
    import re  # lazily: the hot path (plain words) needs no regex

    code = re.sub(_AWK_STRING, '""', program)
    code = re.sub(_AWK_REGEX, "//", code)
    if "system" in code or "|" in code.replace("||", "") or "@" in code:
        return True
    # `print ... > file` within one statement; per statement, so a long run of
    # `print`s without a `;` stays linear (one regex over all was quadratic)
    for statement in re.split(r"[;}\n]", code):
        found = re.search(r"\bprintf?\b", statement)
        if found is not None and ">" in statement[found.end() :]:
            return True
    return False


@handles("awk", "gawk", "mawk", "nawk")
def _awk(w: Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    i = 0
    program: str | None = None
    while i < len(args):
        value = args[i].value
        if value is None:
            w.unknown(text, "awk with a non-static argument")
            return cwd
        if value == "--":
            i += 1
            break
        if value in ("-F", "-v"):
            i += 2
            continue
        if value.startswith(("-F", "-v")) and len(value) > 2:
            i += 1
            continue
        if value.startswith("-"):
            w.unknown(text, f"awk option {value} (program file, include or in-place)")
            return cwd
        break
    if i < len(args):
        program = args[i].value
    if program is None or _awk_program_writes(program):
        w.unknown(text, "the awk program can write files or run commands")
    else:
        w.read(text)
    return cwd
