"""sed and awk: scripts that can write files or run commands."""

from zodyssey.gate.shell.commands import handles
from zodyssey.gate.shell.records import Arg

TYPE_CHECKING = False  # mypy treats this as typing.TYPE_CHECKING; no runtime import
if TYPE_CHECKING:
    from zodyssey.gate.shell.commands import Walker


_SED_SIMPLE = set("pPdDnNgGhHxz=lFqQ{}!")


def _sed_script_writes(script: str) -> bool:
    """True when a sed script can write files or run commands (w, W, e, s///w, s///e).

    Where sed implementations read the script differently, every reading is
    checked: a label (`:a`, `b a`, `t a`, `T a`) ends at a blank or `;` in GNU
    sed and at the end of the line in POSIX; an `r`/`R` file name and `a`/`i`/`c`
    text run to the end of the line (text lines ending in `\\` continue it).
    Every reading is followed from the positions where they part (each
    position once), so the work stays linear and needs no recursion.
    """
    n = len(script)

    # the next newline; the next `;` or newline; the next blank, `;` or newline
    # (one pass from the end, so each look-up is constant time)
    next_nl, next_semi, next_blank = [n] * (n + 1), [n] * (n + 1), [n] * (n + 1)
    nl = semi = blank = n
    for k in range(n - 1, -1, -1):
        ch = script[k]
        if ch == "\n":
            nl = semi = blank = k
        elif ch == ";":
            semi = blank = k
        elif ch in " \t":
            blank = k
        next_nl[k], next_semi[k], next_blank[k] = nl, semi, blank

    def eol(k: int) -> int:
        return next_nl[min(k, n)]

    text_ends: dict[int, int] = {}

    def text_end(k: int) -> int:
        """End of `a`/`i`/`c` text from k: lines ending in a backslash go on."""
        seen: list[int] = []
        end = eol(k)
        while end not in text_ends and end < n and end > 0 and script[end - 1] == "\\":
            seen.append(end)
            end = eol(end + 1)
        result = text_ends.get(end, end)
        for position in seen:
            text_ends[position] = result
        return result

    def scan(i: int) -> bool | list[int]:
        """True when a write is found before the readings part, else the
        positions where each reading goes on (none at the end)."""
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
                k = i + 1
                while k < n and script[k] in " \t":
                    k += 1
                if script[k : k + 2] == "\\\n":  # `a\` then the text on the next lines
                    return [text_end(k + 2)]
                return [eol(i), text_end(i)]
            if ch in ":btT":
                k = i + 1
                while k < n and script[k] in " \t":
                    k += 1
                return [next_blank[k], next_semi[k], eol(k)]
            if ch in "rRvL":
                k = i + 1
                return [next_semi[k], eol(k)]
            if ch in "wWe":
                return True
            if ch in _SED_SIMPLE:
                i += 1
                continue
            return True  # an unknown sed command: assume the worst
        return []

    pending = [0]
    seen = {0}
    while pending:
        found = scan(pending.pop())
        if found is True:
            return True
        for position in found or ():
            if position not in seen:
                seen.add(position)
                pending.append(position)
    return False


@handles("sed", "gsed")
def _sed(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
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


def _backups(operands: "list[Arg]", suffix: str) -> "list[Arg]":
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
def _awk(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
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
