"""Shell classifier: can this command line write, and if so, where?

The command is parsed with tree-sitter-bash and every simple command is
classified, wherever it sits: lists, pipelines, subshells, groups, control
flow, function bodies, `$( )`, backticks, `<( )`/`>( )` and heredoc bodies.
Wrappers (`env`, `nice`, `timeout`, ...) are unwrapped to the real command and
strings that are code (`bash -c`, `eval`, `xargs CMD`, `find -exec CMD`) are
parsed again.

Read-only is decided by an ALLOWLIST with per-command option rules; anything
the classifier does not know, or cannot read statically (a variable as a
command name, a glob as a write target, a parse error), is write-capable with
no target. Targets are reported as written (after unquoting), joined onto the
directory of a preceding `cd DIR &&` or `git -C DIR`; resolution against the
real file system happens in the gate, not here.

Layout:
  records.py   Part, Analysis, Arg (tuples with named fields on one base)
  words.py     unquoting words, GNU-style option splitting, path joining
  tables.py    allowlists, version queries, risky variables, node kinds
  simple.py    simple commands: unwrapping, read-only entries, handlers, allowlists
  walker.py    the syntax-tree walker: node type -> method (extends simple.py)
  commands/    per-command rules by family, imported only when used

Adding a command: write `handler(walker, text, args, cwd) -> cwd` in a family
module under `commands/` (or a new one), decorate it with
`@handles("name", ...)` from `zodyssey.gate.shell.commands`, and add the
names to `MODULES` there (name -> module). `commands/__init__.py` documents
the handler contract; a test checks the map against the registrations.
"""

from zodyssey.gate.shell.records import Analysis, Arg, Part, Target
from zodyssey.gate.shell.simple import Commands, NeedsParser, TooLarge, through_links
from zodyssey.gate.shell.words import plain_words

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["Analysis", "Arg", "Part", "Target", "classify", "classify_parsed"]


def classify(command: str, read_only: "Sequence[Sequence[str]]" = ()) -> "Analysis":
    """Classify one shell command line.

    `read_only` holds user-configured allowlist entries as word sequences
    (`("pytest",)`, `("npm", "test")`): a simple command whose words start with
    one of them is read-only.
    """
    try:
        return _classify(command, read_only, plain=True)
    except RecursionError:
        return Analysis(command, (Part(command, True, (), True, "nested too deeply to classify"),))
    except TooLarge:
        return Analysis(command, (Part(command, True, (), True, "too large to classify"),))


def classify_parsed(command: str, read_only: "Sequence[Sequence[str]]" = ()) -> "Analysis":
    """`classify` always through the parser (tests compare it with the plain-word path)."""
    try:
        return _classify(command, read_only, plain=False)
    except RecursionError:
        return Analysis(command, (Part(command, True, (), True, "nested too deeply to classify"),))
    except TooLarge:
        return Analysis(command, (Part(command, True, (), True, "too large to classify"),))


def _classify(command: str, read_only: "Sequence[Sequence[str]]", plain: bool) -> "Analysis":
    entries = tuple(tuple(entry) for entry in read_only)
    words = plain_words(command) if plain else None
    if words is not None:
        # Plain words only: the shell would split exactly here and expand
        # nothing, so neither the parser nor the walker is needed, unless the
        # command holds code to parse (`eval ...`): then start again below.
        name, args = Arg(words[0], False, words[0]), [Arg(w, False, w) for w in words[1:]]
        commands = Commands(entries)
        try:
            commands.simple(command, name, args, "")
            return Analysis(command, through_links(commands.parts))
        except NeedsParser:
            pass
    from zodyssey.gate.shell.walker import Walker

    walker = Walker(entries)
    if words is not None:
        walker.simple(command, name, args, "")
    else:
        walker.run(command, "", 0)
    return Analysis(command, through_links(walker.parts))
