"""sed and awk: scripts that can write files or run commands."""

from zodyssey.gate.shell.commands import handles
from zodyssey.gate.shell.records import Arg
from zodyssey.gate.shell.words import value_at

TYPE_CHECKING = False
if TYPE_CHECKING:
    from zodyssey.gate.shell.commands import Walker


_SED_SIMPLE = set("pPdDnNgGhHxz=lFqQ{}!")
# one character the reader steps over: blanks, separators, address characters
# (digits too, `ch.isdigit()`) and the commands that take no argument
_SED_SKIPPED = frozenset(" \t\n;$,~+") | _SED_SIMPLE
# commands after which the readings of sed implementations part (`_parting`)
_SED_PARTING = frozenset("aic:btTrRvL")


def _sed_script_writes(script: str) -> bool:
    """True when a sed script can write files or run commands (w, W, e, s///w, s///e).

    Where sed implementations read the script differently, every reading is
    checked: a label (`:a`, `b a`, `t a`, `T a`) ends at a blank or `;` in GNU
    sed and at the end of the line in POSIX; an `r`/`R` file name and `a`/`i`/`c`
    text run to the end of the line (text lines ending in `\\` continue it).
    Every reading is followed from the positions where they part (each
    position once), so the work stays linear and needs no recursion.
    """
    reader = _SedScript(script)
    pending = [0]
    seen = {0}
    while pending:
        found = reader.scan(pending.pop())
        if found is True:
            return True
        for position in found or ():
            if position not in seen:
                seen.add(position)
                pending.append(position)
    return False


class _SedScript:
    """One sed script, with constant-time look-ups of where a reading ends."""

    def __init__(self, script: str) -> None:
        self.script = script
        self.n = n = len(script)
        # the next newline; the next `;` or newline; the next blank, `;` or newline
        # (one pass from the end, so each look-up is constant time)
        self.next_nl, self.next_semi, self.next_blank = [n] * (n + 1), [n] * (n + 1), [n] * (n + 1)
        nl = semi = blank = n
        for k in range(n - 1, -1, -1):
            ch = script[k]
            if ch == "\n":
                nl = semi = blank = k
            elif ch == ";":
                semi = blank = k
            elif ch in " \t":
                blank = k
            self.next_nl[k], self.next_semi[k], self.next_blank[k] = nl, semi, blank
        self.text_ends: dict[int, int] = {}

    def eol(self, k: int) -> int:
        return self.next_nl[min(k, self.n)]

    def text_end(self, k: int) -> int:
        """End of `a`/`i`/`c` text from k: lines ending in a backslash go on."""
        script, n, text_ends = self.script, self.n, self.text_ends
        seen: list[int] = []
        end = self.eol(k)
        while end not in text_ends and end < n and end > 0 and script[end - 1] == "\\":
            seen.append(end)
            end = self.eol(end + 1)
        result = text_ends.get(end, end)
        for position in seen:
            text_ends[position] = result
        return result

    def _past_blanks(self, k: int) -> int:
        while k < self.n and self.script[k] in " \t":
            k += 1
        return k

    def _past_delimited(self, i: int, delim: str) -> int:
        """Past the next unescaped `delim` from i."""
        script, n = self.script, self.n
        while i < n and script[i] != delim:
            i += 2 if script[i] == "\\" else 1
        return i + 1

    def _regex_address(self, i: int) -> int:
        """Past `/RE/` or `\\cREc` and its I/M flags (-1: a `\\` ends the script)."""
        script, n = self.script, self.n
        ch = script[i]
        if ch == "\\" and i + 1 >= n:
            return -1
        delim = "/" if ch == "/" else script[i + 1]
        i = self._past_delimited(i + (1 if ch == "/" else 2), delim)
        while i < n and script[i] in "IM":
            i += 1
        return i

    def _substitution(self, i: int) -> int:
        """Past `s/A/B/FLAGS` or `y/A/B/`; -1 when it can write or run (flags w, e)."""
        script, n = self.script, self.n
        ch = script[i]
        if i + 1 >= n or script[i + 1] in "\n\\":
            return -1
        delim = script[i + 1]
        i = self._past_delimited(self._past_delimited(i + 2, delim), delim)
        if ch == "s":
            while i < n and script[i] not in ";\n}":
                if script[i] in "we":
                    return -1
                i += 1
        return i

    def _comment(self, i: int) -> int:
        return self.eol(i)

    def _parting(self, i: int) -> "bool | list[int]":
        """A command after which readings part: the positions where each goes on."""
        ch = self.script[i]
        if ch in "aic":
            # one line of text, or more while a line ends in a backslash
            k = self._past_blanks(i + 1)
            if self.script[k : k + 2] == "\\\n":  # `a\` then the text on the next lines
                return [self.text_end(k + 2)]
            return [self.eol(i), self.text_end(i)]
        if ch in ":btT":
            k = self._past_blanks(i + 1)
            return [self.next_blank[k], self.next_semi[k], self.eol(k)]
        k = i + 1  # rRvL
        return [self.next_semi[k], self.eol(k)]

    def scan(self, i: int) -> "bool | list[int]":
        """True when a write is found before the readings part, else the
        positions where each reading goes on (none at the end)."""
        while i < self.n:
            ch = self.script[i]
            if ch in _SED_SKIPPED or ch.isdigit():
                i += 1
                continue
            if ch in _SED_PARTING:
                return self._parting(i)
            step = _SED_STEPS.get(ch)
            if step is None:
                return True  # w, W, e, or an unknown sed command: assume the worst
            i = step(self, i)
            if i < 0:
                return True  # s///w, s///e, or a script ending in a backslash
        return []


# character -> the reader step past what starts there (-1: it can write or run)
_SED_STEPS = {
    "#": _SedScript._comment,
    "/": _SedScript._regex_address,
    "\\": _SedScript._regex_address,
    "s": _SedScript._substitution,
    "y": _SedScript._substitution,
}


class _SedArgs:
    """sed's words read as sed reads them: its scripts (None: from a file or not
    static), whether and with which backup suffix it edits in place, its files."""

    __slots__ = ("args", "i", "in_place", "operands", "scripts", "suffix")

    def __init__(self, args: "list[Arg]") -> None:
        self.args = args
        self.i = 0
        self.in_place = False
        self.suffix = ""  # -iSUF / --in-place=SUF: the original is kept as a backup
        self.scripts: list[str | None] = []
        self.operands: list[Arg] = []
        only_operands = False
        while self.i < len(args):
            arg = args[self.i]
            value = arg.value
            self.i += 1
            if only_operands or value is None or not value.startswith("-") or value == "-":
                self.operands.append(arg)
            elif value == "--":
                only_operands = True
            elif value.startswith("--"):
                self._long(value)
            else:
                self._short(value)

    def _next(self) -> str | None:
        """The next word, taken as the value of an option."""
        value = self.args[self.i].value if self.i < len(self.args) else None
        self.i += 1
        return value

    def _long(self, value: str) -> None:
        name, eq, attached = value.partition("=")
        if name == "--in-place":
            self.in_place = True
            self.suffix = attached
        elif name == "--expression":
            self.scripts.append(attached if eq else self._next())
        elif name == "--file":
            self.scripts.append(None)
            self.i += 0 if eq else 1
        elif name == "--line-length":
            self.i += 0 if eq else 1

    def _short(self, value: str) -> None:
        for j in range(1, len(value)):
            flag = value[j]
            rest = value[j + 1 :]
            if flag == "i":
                self.in_place = True
                self.suffix = rest  # the rest is a backup suffix
                return
            if flag in "ef":
                script = rest if rest else self._next()
                self.scripts.append(script if flag == "e" else None)
                return
            if flag == "l":
                self.i += 0 if rest else 1
                return


@handles("sed", "gsed")
def _sed(w: "Walker", text: str, args: "list[Arg]", cwd: str | None) -> str | None:
    parsed = _SedArgs(args)
    scripts, operands = parsed.scripts, parsed.operands
    if not scripts and operands:
        scripts.append(operands[0].value)
        operands = operands[1:]
    if _sed_scripts_write(scripts):
        w.unknown(text, "the sed script can write files or run commands")
        return cwd
    if parsed.in_place:
        w.write(
            text, cwd, [*operands, *_backups(operands, parsed.suffix)], "sed -i rewrites its files"
        )
        return cwd
    w.read(text)
    return cwd


def _sed_scripts_write(scripts: "list[str | None]") -> bool:
    """Each -e alone, and all of them as sed joins them (one per line); a
    script from a file or not static (None) may do anything."""
    return any(s is None or _sed_script_writes(s) for s in scripts) or (
        len(scripts) > 1 and _sed_script_writes("\n".join(s or "" for s in scripts))
    )


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
    i = _awk_program_at(w, text, args)
    if i is None:
        return cwd
    program = value_at(args, i)
    if program is None or _awk_program_writes(program):
        w.unknown(text, "the awk program can write files or run commands")
    else:
        w.read(text)
    return cwd


def _awk_program_at(w: "Walker", text: str, args: "list[Arg]") -> int | None:
    """Where awk's program is, past -F SEP and -v NAME=VALUE; None once decided."""
    i = 0
    while i < len(args):
        value = args[i].value
        if value is None:
            w.unknown(text, "awk with a non-static argument")
            return None
        if value == "--":
            return i + 1
        if value in ("-F", "-v"):
            i += 2
        elif value.startswith(("-F", "-v")) and len(value) > 2:
            i += 1
        elif value.startswith("-"):
            w.unknown(text, f"awk option {value} (program file, include or in-place)")
            return None
        else:
            break
    return i
