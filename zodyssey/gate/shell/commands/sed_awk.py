"""sed and awk: scripts that can write files or run commands."""

from __future__ import annotations

from zodyssey.gate.shell.commands import handles
from zodyssey.gate.shell.records import Arg

TYPE_CHECKING = False  # mypy treats this as typing.TYPE_CHECKING; no runtime import
if TYPE_CHECKING:
    from zodyssey.gate.shell.walker import Walker


_SED_SIMPLE = set("pPdDnNgGhHxz=lFqQ{}!")


def _sed_script_writes(script: str) -> bool:
    """True when a sed script can write files or run commands (w, W, e, s///w, s///e)."""
    i = 0
    n = len(script)

    def skip_to_eol(k: int) -> int:
        while k < n and script[k] != "\n":
            k += 1
        return k

    while i < n:
        ch = script[i]
        if ch in " \t\n;":
            i += 1
            continue
        if ch == "#":
            i = skip_to_eol(i)
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
            i = skip_to_eol(i)
            continue
        if ch in "rRbtT:vL":
            i += 1
            while i < n and script[i] not in ";\n":
                i += 1
            continue
        if ch in "wWe":
            return True
        if ch in _SED_SIMPLE or (ch.isalpha() and ch in "lqQ"):
            i += 1
            continue
        return True  # an unknown sed command: assume the worst
    return False


@handles("sed", "gsed")
def _sed(w: Walker, text: str, args: list[Arg], cwd: str | None) -> str | None:
    in_place = False
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
    if any(s is None or _sed_script_writes(s) for s in scripts):
        w.unknown(text, "the sed script can write files or run commands")
        return cwd
    if in_place:
        w.write(text, cwd, operands, "sed -i rewrites its files")
        return cwd
    w.read(text)
    return cwd


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
