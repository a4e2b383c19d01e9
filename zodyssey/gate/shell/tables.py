"""Tables of the classifier: allowlists, risky variables, node kinds."""

TYPE_CHECKING = False
if TYPE_CHECKING:
    pass


SYSTEM_BIN = (
    "/bin/",
    "/usr/bin/",
    "/usr/local/bin/",
    "/sbin/",
    "/usr/sbin/",
    "/usr/local/sbin/",
    "/opt/homebrew/bin/",
)
DEV_SINKS = frozenset(
    {"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/fd/1", "/dev/fd/2"}
)
AMBIGUOUS = "\0ambiguous"
LEAVES = frozenset(
    {
        "word",
        "raw_string",
        "string_content",
        "heredoc_content",
        "heredoc_start",
        "heredoc_end",
        "number",
        "variable_name",
        "comment",
        "test_operator",
        "file_descriptor",
        "special_variable_name",
        "regex",
        "extglob_pattern",
        "ansi_c_string",
    }
)


ARITHMETIC = frozenset({"arithmetic_expansion", "subscript", "c_style_for_statement"})
ARITHMETIC_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
# a subscript that expands something, inside a string a builtin takes as a name
EVALUATED_SUBSCRIPT = r"\[[^\]]*[$`]"  # compiled on first use
# builtins that take variable names as arguments (and evaluate their subscripts)
NAME_BUILTINS = frozenset(
    [
        "read",
        "mapfile",
        "readarray",
        "unset",
        "declare",
        "typeset",
        "local",
        "export",
        "readonly",
        "test",
        "[",
        "wait",
        "getopts",
        "printf",
    ]
)
# variables bash itself keeps numeric
SHELL_NUMBERS = frozenset(
    ["RANDOM", "SRANDOM", "SECONDS", "LINENO", "BASHPID", "PPID", "UID", "EUID", "EPOCHSECONDS"]
)


# long option (`sort --out=f` is `--output=f`). For the options that change
# what a command writes or runs, a prefix that is not the full name is unknown
# (reading it as the full option could mis-parse the operands).
OPTIONS_THAT_MATTER: dict[str, tuple[str, ...]] = {
    "cp": (
        "--target-directory",
        "--no-target-directory",
        "--symbolic-link",
        "--link",
        "--no-dereference",
        "--archive",
        "--recursive",
        "--preserve",
        "--suffix",
        "--backup",
    ),
    "ln": ("--target-directory", "--no-target-directory", "--symbolic", "--suffix", "--backup"),
    "mv": ("--target-directory", "--no-target-directory", "--suffix", "--backup"),
    "install": (
        "--target-directory",
        "--no-target-directory",
        "--directory",
        "--suffix",
        "--backup",
        "--strip-program",
    ),
    "sort": ("--output", "--compress-program"),
    "shuf": ("--output",),
    "sed": ("--in-place", "--expression", "--file"),
    "gsed": ("--in-place", "--expression", "--file"),
    "date": ("--set",),
    "file": ("--compile",),
    "wget": (
        "--config",
        "--output-document",
        "--output-file",
        "--append-output",
        "--directory-prefix",
        "--execute",
        "--background",
    ),
    "git": (
        "--output",
        "--ext-diff",
        "--upload-pack",
        "--receive-pack",
        "--exec",
        "--open-files-in-pager",
        "--lost-found",
        "--git-dir",
        "--exec-path",
    ),
    "tee": ("--append",),
    "time": ("--output",),
    "xargs": ("--replace", "--arg-file", "--eof", "--max-lines"),
    "hostname": ("--file", "--boot"),
    "man": (
        "--pager",
        "--html",
        "--config-file",
        "--preprocessor",
        "--gxditview",
        "--manpath",
    ),
    "curl": (
        "--output",
        "--output-dir",
        "--remote-name",
        "--remote-name-all",
        "--remote-header-name",
        "--dump-header",
        "--cookie-jar",
        "--trace",
        "--trace-ascii",
        "--stderr",
        "--libcurl",
        "--config",
        "--create-dirs",
        "--etag-save",
        "--hsts",
        "--alt-svc",
        "--write-out",
    ),
}


# ---------------------------------------------------------------- allowlist

READ_ONLY = frozenset(
    [
        "ls",
        "cat",
        "head",
        "tail",
        "wc",
        "grep",
        "egrep",
        "fgrep",
        "echo",
        "printf",
        "pwd",
        "which",
        "whereis",
        "type",
        "stat",
        "du",
        "df",
        "diff",
        "cmp",
        "cut",
        "tr",
        "nl",
        "tac",
        "rev",
        "seq",
        "expr",
        "id",
        "whoami",
        "uname",
        "basename",
        "dirname",
        "realpath",
        "readlink",
        "test",
        "[",
        "true",
        "false",
        ":",
        "jq",
        "yes",
        "sha256sum",
        "sha1sum",
        "sha512sum",
        "sha224sum",
        "sha384sum",
        "md5sum",
        "b2sum",
        "cksum",
        "sum",
        "fold",
        "fmt",
        "column",
        "paste",
        "join",
        "comm",
        "od",
        "hexdump",
        "strings",
        "base64",
        "base32",
        "nproc",
        "printenv",
        "groups",
        "logname",
        "tty",
        "sleep",
        "wait",
        "jobs",
        "exit",
        "return",
        "break",
        "continue",
        "shift",
        "read",
        "local",
        "umask",
        "ulimit",
        "export",
        "declare",
        "typeset",
        "readonly",
        "getconf",
        "arch",
        "locale",
        "look",
        "numfmt",
        "factor",
        "tsort",
        "ps",
        "free",
        "uptime",
        "who",
        "pgrep",
        "pidof",
        "lscpu",
        "lsblk",
        "tput",
        "clear",
        "zcat",
        "bzcat",
        "xzcat",
        "whatis",
        "readelf",
        "nm",
        "objdump",
        "size",
        "c++filt",
        "addr2line",
        "zipinfo",
        "otool",
        "getent",
        "compgen",
        "help",
        "lsb_release",
        "shasum",
        "pstree",
    ]
)

# Tools whose version query (the one argument) only prints a version. A dict of
# constant tuples: building frozensets here cost more than the rest of the module.
VERSION_QUERY: dict[str, tuple[str, ...]] = {
    "R": ("--version",),
    "Rscript": ("--version",),
    "bash": ("--version",),
    "black": ("--version",),
    "bun": ("--version", "-v"),
    "cargo": ("--version",),
    "cc": ("--version", "-v"),
    "clang": ("--version", "-v"),
    "clang++": ("--version", "-v"),
    "cmake": ("--version",),
    "dash": ("--version",),
    "deno": ("--version", "-V"),
    "docker": ("--version",),
    "dotnet": ("--info", "--version"),
    "elixir": ("--version",),
    "emacs": ("--version",),
    "g++": ("--version", "-v"),
    "gcc": ("--version", "-v"),
    "gh": ("--version",),
    "ghc": ("--version",),
    "git": ("--version",),
    "go": ("version",),
    "gradle": ("--version", "-v"),
    "java": ("--version", "-version"),
    "javac": ("--version", "-version"),
    "julia": ("--version", "-v"),
    "kotlin": ("--version", "-version"),
    "kubectl": ("--version",),
    "make": ("--version", "-v"),
    "mvn": ("--version", "-v", "-version"),
    "mypy": ("--version",),
    "nano": ("--version",),
    "node": ("--version", "-v"),
    "nox": ("--version",),
    "npm": ("--version",),
    "npx": ("--version",),
    "nvim": ("--version",),
    "perl": ("--version", "-V", "-v"),
    "php": ("--version", "-v"),
    "pip": ("--version",),
    "pip3": ("--version",),
    "pnpm": ("--version",),
    "poetry": ("--version",),
    "pytest": ("--version",),
    "python": ("--version", "-V"),
    "python2": ("--version", "-V"),
    "python3": ("--version", "-V"),
    "ruby": ("--version", "-v"),
    "ruff": ("--version",),
    "rustc": ("--version", "-V"),
    "rustup": ("--version",),
    "scala": ("--version", "-version"),
    "sh": ("--version",),
    "swift": ("--version",),
    "terraform": ("--version", "-v", "-version", "version"),
    "tox": ("--version",),
    "tsc": ("--version", "-v"),
    "uv": ("--version",),
    "vim": ("--version",),
    "yarn": ("--version",),
    "zig": ("--version", "version"),
    "zsh": ("--version",),
}


# IFS is not here: it only splits what expansions produce, and a word holding an
# expansion is already unknown as a command name or target.
RISKY_VARIABLES = frozenset(
    [
        "PATH",
        "CDPATH",
        "HOME",
        "PWD",
        "OLDPWD",
        "ENV",
        "BASH_ENV",
        "SHELLOPTS",
        "BASHOPTS",
        "PS0",
        "PS1",
        "PS2",
        "PS3",
        "PS4",
        "PROMPT_COMMAND",
        "EXECIGNORE",
        "SHELL",
        "EDITOR",
        "VISUAL",
        "BROWSER",
        "LESSOPEN",
        "LESSCLOSE",
        "LESSKEY",
        "NODE_OPTIONS",
        "PERL5OPT",
        "PERL5LIB",
        "PERLLIB",
        "RUBYOPT",
        "RUBYLIB",
        "PYTHONPATH",
        "PYTHONSTARTUP",
        "PYTHONHOME",
        "RIPGREP_CONFIG_PATH",
        "TAR_OPTIONS",
        "SSH_ASKPASS",
        "SUDO_ASKPASS",
        "AWKPATH",
        "BASH_CMDS",
        "BASH_ALIASES",
        "BASH_LOADABLES_PATH",
        "GCONV_PATH",
        "XDG_CONFIG_HOME",
        "MANOPT",
        "MANPATH",
        "MANROFFOPT",
        "UNZIP",
        "UNZIPOPT",
        "ZIPINFO",
        "ZIPINFOOPT",
        "WGETRC",
        "CURL_HOME",
    ]
)
RISKY_PREFIXES = ("LD_", "DYLD_", "GIT_", "BASH_FUNC_", "PIP_")
# Pagers with no keyboard commands. `less` and `more` run `!cmd` typed at
# them, and an interactive session (Codex `exec_command` with `tty`, then
# `write_stdin`, which reaches no hook) types what it likes: write-capable.
PAGER_VALUES = frozenset(["", "cat"])


def risky_variable(name: str, value: str | None) -> bool:
    """True when assigning `value` (None: any value) to `name` can change what runs."""
    name = name.split("[", 1)[0]  # `BASH_CMDS[ls]=...` sets BASH_CMDS
    if name.endswith("PAGER"):
        return value is None or value not in PAGER_VALUES
    return name in RISKY_VARIABLES or name.startswith(RISKY_PREFIXES)


def plain_value(value: str) -> bool:
    """A value with nothing arithmetic would expand again (`$`, a backtick, a subscript)."""
    return not any(c in value for c in "$`[")


def refers_or_evaluates(option: str) -> bool:
    """`declare -n` (a name reference) or `-i` (integer: assignments are arithmetic)."""
    return option.startswith("-") and ("n" in option or "i" in option)
