"""The walker: every node of the syntax tree, what the command line can write.

`Walker.walk` looks the node type up in `_BY_KIND` (node type -> method);
simple commands go through `Commands.simple` (simple.py), which this class
extends with the tree: nested code is parsed again (`run`), functions defined
in the script are walked where they are called (`call`).
"""

from zodyssey.gate.shell.records import Arg
from zodyssey.gate.shell.simple import Commands, TooLarge
from zodyssey.gate.shell.tables import (
    AMBIGUOUS,
    ARITHMETIC,
    ARITHMETIC_TESTS,
    EVALUATED_SUBSCRIPT,
    LEAVES,
    SHELL_NUMBERS,
    plain_value,
    refers_or_evaluates,
    risky_variable,
)
from zodyssey.gate.shell.words import (
    to_arg,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any


MAX_DEPTH = 8  # nested `bash -c` / `eval` levels before giving up (fail closed)
# Syntax nodes visited (function calls walk their body again) before giving up:
# a hook that runs into the harness's timeout lets the call through, so the
# classifier must answer, and answer "unknown", on anything built to be slow.
MAX_STEPS = 100_000


# ---------------------------------------------------------------- parser


_PARSER: "Any" = None


def parser() -> "Any":
    global _PARSER
    if _PARSER is None:
        core = _binding("tree_sitter")
        _PARSER = core.Parser(core.Language(_binding("tree_sitter_bash").language()))
    return _PARSER


def _binding(package: str) -> "Any":
    """The compiled module `package._binding`, loaded without the package's
    `__init__` (`zodyssey.core.lean`). Any surprise falls back to the ordinary import."""
    import sys

    name = package + "._binding"
    module = sys.modules.get(name)
    if module is not None:
        return module
    try:
        from zodyssey.core.lean import load

        return load(name)
    except Exception:
        return __import__(name, fromlist=["_binding"])


class Walker(Commands):
    # -- entry points
    def run(self, source: str, cwd: str | None, depth: int, keep_functions: bool = False) -> None:
        if "CDPATH" in source:
            self.cdpath = True  # `cd NAME` may then go anywhere (see commands.builtins)
        if depth > MAX_DEPTH:
            self.unknown(source, "nested too deeply")
            return
        if "\x00" in source:
            # No shell passes a NUL byte through; what runs is not what we read.
            self.unknown(source.replace("\x00", "\\0"), "the command holds a NUL byte")
            return
        # Bash's syntax is all ASCII; any other character is part of a word.
        # The parser sees an ASCII stand-in for each (its external scanner has
        # crashed on some non-BMP text), so byte offsets equal character
        # offsets and every node's text is read back from the real source.
        stand_in = source if source.isascii() else "".join(c if c < "\x80" else "a" for c in source)
        tree = parser().parse(stand_in.encode("ascii"))
        root = tree.root_node
        if root.has_error:
            self.unknown(source, "the shell parser could not read it")
            return
        outer = self.source
        outer_functions, outer_uncalled = self.functions, self.uncalled
        self.source = source
        self.depth = depth
        if not keep_functions:
            self.functions, self.uncalled = {}, {}
        try:
            self.walk(root, cwd)
            # a function never called still shows what it could write
            for definition, defined_in in list(self.uncalled.values()):
                self.function_body(definition, defined_in)
        finally:
            self.source = outer
            self.functions, self.uncalled = outer_functions, outer_uncalled

    def text(self, node: "Any") -> str:
        return self.source[node.start_byte : node.end_byte]

    def walk(self, node: "Any", cwd: str | None) -> str | None:
        """Classify everything under `node`; returns the directory afterwards.

        The node's type picks the method (`_BY_KIND`); a type with no entry
        only matters for the commands and redirections inside it (`inside`)."""
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise TooLarge
        method = _BY_KIND.get(node.type)
        if method is None:
            if node.type == "ERROR" or node.is_missing:
                self.unknown(self.text(node), "the shell parser could not read it")
                return cwd
            return self.inside(node, cwd)
        return method(self, node, cwd)

    def inside(self, node: "Any", cwd: str | None) -> str | None:
        """Walk the named children in order (control flow, tests, expansions).
        A `cd` inside control flow may or may not have run afterwards."""
        current = cwd
        for child in node.children:
            if child.is_named:
                after = self.walk(child, current)
                current = after if after == current else AMBIGUOUS
        return cwd if current == cwd else AMBIGUOUS

    def leaf(self, node: "Any", cwd: str | None) -> str | None:
        return cwd

    def sequence(self, node: "Any", cwd: str | None) -> str | None:
        """A script or `{ ...; }`: each command starts where the previous ended."""
        if node.type == "compound_statement" and self.evaluates_arithmetic(node, node.type):
            self.arithmetic(node)  # `(( ... ))`
        current = cwd
        for child in node.children:
            if not child.is_named:
                continue
            after = self.walk(child, current)
            current = after if after == current else AMBIGUOUS
        return current

    def separate(self, node: "Any", cwd: str | None) -> str | None:
        """Subshells, pipelines and substitutions: a `cd` inside stays inside."""
        current = cwd
        pipeline = node.type == "pipeline"
        for child in node.children:
            if child.is_named:
                current = self.walk(child, cwd if pipeline else current)
        return cwd

    def arithmetic_node(self, node: "Any", cwd: str | None) -> str | None:
        """`$(( ))` and array subscripts evaluate arithmetic."""
        self.arithmetic(node)
        return self.inside(node, cwd)

    def expansion(self, node: "Any", cwd: str | None) -> str | None:
        self.indirection(node)
        self.expansion_operands(node, cwd)
        return self.inside(node, cwd)

    def names_with_subscripts(self, node: "Any") -> None:
        """Builtins that take variable names evaluate a subscript in them."""
        import re

        for child in descendants(node):
            if child.type in ("string", "raw_string", "word", "concatenation"):
                value = to_arg(child, self.source).value
                if value is not None and re.search(EVALUATED_SUBSCRIPT, value):
                    self.unknown(
                        self.text(node), "a subscript in a variable name runs what it holds"
                    )
                    break

    def test_command(self, node: "Any", cwd: str | None) -> str | None:
        if self.evaluates_arithmetic(node, "test_command"):
            self.arithmetic(node)
        if "-v" in self.text(node):
            self.names_with_subscripts(node)
        if node.children and node.children[0].type == "[":
            self.test_redirects(node, cwd)
        return self.inside(node, cwd)

    def test_redirects(self, node: "Any", cwd: str | None) -> None:
        """`[` is a command, not syntax: in `[ "$n" > 10 ]` the `>` redirects
        into a file `10` (tree-sitter-bash reads it as a comparison)."""
        stack = [node]
        while stack:
            current = stack.pop()
            if current.type in ("command_substitution", "process_substitution", "expansion"):
                continue
            children = current.children
            for k, child in enumerate(children):
                if not child.is_named and child.type in _TEST_WRITES:
                    self.write(
                        self.text(node),
                        cwd,
                        [self.test_target(children[k + 1 :])],
                        f"{child.type} inside [ ] is a redirection",
                        append=child.type == ">>",
                    )
            stack.extend(c for c in children if c.is_named)

    def test_target(self, following: "list[Any]") -> "Arg":
        """The word a `>` inside `[ ]` writes: the next node, or the first word inside it."""
        target = following[0] if following else None
        while target is not None and target.type not in _WORD_NODES and target.children:
            target = next((c for c in target.children if c.is_named), None)
        return to_arg(target, self.source) if target is not None else Arg(None)

    def declaration(self, node: "Any", cwd: str | None) -> str | None:
        self.names_with_subscripts(node)
        words = [self.text(c) for c in node.children if c.type == "word"]
        keyword = node.children[0].type if node.children else ""
        # (`export -n` only takes the export away)
        if keyword != "export" and any(refers_or_evaluates(w) for w in words):
            self.unknown(self.text(node), "declare -n/-i makes assignments refer or evaluate")
        # `export 'PATH=x'`, `export P\ATH=x`, `export {PATH,X}=x`: the builtin
        # sees NAME=VALUE after quote removal and expansion, whatever the spelling
        for child in node.children:
            if child.type in _WORD_NODES:
                self.declared(self.text(node), to_arg(child, self.source))
        return self.inside(node, cwd)

    def declared(self, text: str, arg: "Arg") -> None:
        """One argument of export/declare/typeset/local/readonly."""
        value = arg.value
        if value is not None and value.startswith("-"):
            return  # an option (or `--`)
        if value is None or arg.multi:
            self.unknown(text, "a variable name that is not static")
            return
        name, eq, assigned = value.partition("=")
        self.sets(name.split("[", 1)[0], assigned if eq else None)
        if eq and risky_variable(name, assigned):
            self.unknown(text, f"setting {name} changes what later commands run")

    def sets(self, name: str, value: str | None) -> None:
        """Note that this command line assigns `name` (value None: unknown)."""
        if name == "CDPATH":
            self.cdpath = True
        if value is not None and plain_value(value):
            self.safe_vars.add(name)
        else:
            self.safe_vars.discard(name)

    def unset(self, node: "Any", cwd: str | None) -> str | None:
        self.names_with_subscripts(node)
        for child in node.children:
            if child.type in ("word", "variable_name"):
                self.functions.pop(self.text(child), None)
            elif child.is_named:
                self.functions.clear()  # a dynamic name may unset any function
        return self.inside(node, cwd)

    def function_definition(self, node: "Any", cwd: str | None) -> str | None:
        name_node = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        name = self.text(name_node) if name_node is not None else None
        parent = node.parent
        if name and body is not None and parent is not None and parent.type == "program":
            self.functions[name] = (node, cwd)
            self.uncalled[node.id] = (node, cwd)
            return cwd
        if name:
            self.functions.pop(name, None)  # it may or may not be redefined
        self.function_body(node, cwd)
        return cwd

    def variable_assignment(self, node: "Any", cwd: str | None) -> str | None:
        self.assignment(node)
        for child in node.children:
            if child.is_named:
                self.walk(child, cwd)
        return cwd

    def loop(self, node: "Any", cwd: str | None) -> str | None:
        """`for`/`select` loops: the loop variable is set to each value."""
        if node.type == "c_style_for_statement":
            self.arithmetic(node)
        variable = node.child_by_field_name("variable")
        if variable is not None:
            self.loop_variable(node, self.text(variable))
        return self.inside(node, cwd)

    def loop_variable(self, node: "Any", name: str) -> None:
        """The loop sets `name`: to plain values only, it stays safe in arithmetic."""
        if risky_variable(name, None):
            self.unknown(self.text(node)[:200], f"the loop sets {name}")
        values = [to_arg(c, self.source) for c in node.children_by_field_name("value")]
        if node.type == "for_statement" and values and all(_plain_arg(v) for v in values):
            self.safe_vars.add(name)
        else:
            self.safe_vars.discard(name)

    def file_redirect(self, node: "Any", cwd: str | None) -> str | None:
        self.redirect(node, cwd)
        return cwd

    def heredoc_redirect(self, node: "Any", cwd: str | None) -> str | None:
        quoted = any(
            c.type == "heredoc_start" and any(q in self.text(c) for q in "'\"\\")
            for c in node.children
        )
        for child in node.children:
            if child.type == "heredoc_body":
                if not quoted:
                    self.heredoc_body(child, cwd)
            elif child.is_named:
                self.walk(child, cwd)
        return cwd

    def heredoc_body(self, node: "Any", cwd: str | None) -> None:
        """An unquoted heredoc body expands like a double-quoted string.

        tree-sitter-bash leaves some substitutions in a body unparsed (after
        `<<-` tabs, backticks), so the body is parsed again as a string."""
        self.expand_again(self.text(node), cwd)

    def expansion_operands(self, node: "Any", cwd: str | None) -> None:
        """The words inside `${x:-WORD}`, `${x#PATTERN}`, `${x/A/B}` expand too;
        tree-sitter-bash keeps some of them as plain text (backticks, `$( )`
        in a pattern), so text that can expand is parsed again."""
        for child in node.children:
            if child.type in ("word", "regex", "string_content"):
                self.expand_again(self.text(child), cwd)

    def expand_again(self, body: str, cwd: str | None) -> None:
        """Classify `body` as the inside of a double-quoted string, `: "BODY"`.

        A `"` in it must be escaped for that, which can change how words
        inside a substitution split: writes found then are unbounded."""
        if "$" not in body and "`" not in body:
            return
        out: list[str] = []
        escaped = False
        i = 0
        while i < len(body):
            ch = body[i]
            if ch == "\\":
                out.append(body[i : i + 2])
                i += 2
                continue
            if ch == '"':
                out.append('\\"')
                escaped = True
            else:
                out.append(ch)
            i += 1
        before = len(self.parts)
        depth = getattr(self, "depth", 0)
        self.run(': "' + "".join(out) + '"', cwd, depth + 1, keep_functions=True)
        self.depth = depth
        if escaped:
            for k in range(before, len(self.parts)):
                part = self.parts[k]
                if part.write and not part.unbounded:
                    self.parts[k] = part._replace(
                        unbounded=True, why=f"{part.why} (in a heredoc body holding quotes)"
                    )

    def redirected_statement(self, node: "Any", cwd: str | None) -> str | None:
        body = node.child_by_field_name("body")
        result = cwd
        # tree-sitter-bash hangs a trailing redirection on a whole `a && b`
        # list, but bash gives it to the last command only: it opens in the
        # directory that command starts in (`cd src && echo x > f` writes src/f).
        where = cwd
        for child in node.children:
            if child is not None and body is not None and child.id == body.id:
                result = self.walk(child, cwd)
                if child.type == "list":
                    where = self.last_start
            elif child.is_named:
                self.walk(child, where)
        return result

    def walk_list(self, node: "Any", cwd: str | None) -> str | None:
        current = cwd
        operator = None
        start = cwd
        for child in node.children:
            if not child.is_named:
                operator = child.type
                continue
            if operator == "||":
                start = cwd if current == cwd else AMBIGUOUS
            elif operator == "&&" or operator is None:
                start = current
            else:
                start = current if current == cwd else AMBIGUOUS
            current = self.walk(child, start)
        self.last_start = start  # where the list's last command started
        return current

    def assignment(self, node: "Any") -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None:
            return
        value_node = node.child_by_field_name("value")
        value = to_arg(value_node, self.source).value if value_node is not None else ""
        name = self.text(name_node)
        self.sets(name, value if name_node.type != "subscript" else None)
        if risky_variable(name, value):
            self.unknown(self.text(node), f"setting {name} changes what later commands run")

    def redirect(self, node: "Any", cwd: str | None) -> None:
        operator, destination = _operator_and_destination(node)
        text = self.text(node)
        if destination is not None:
            # substitutions inside the destination run too
            self.walk_words([destination], cwd)
        if self.opens_no_file(operator, destination):
            return
        if destination is None:
            self.unknown(text, "redirection without a file")
            return
        append = operator in (">>", "&>>")
        self.write(
            text, cwd, [to_arg(destination, self.source)], f"redirection {operator}", append=append
        )

    def opens_no_file(self, operator: str, destination: "Any") -> bool:
        """Input redirections, and descriptor copies and closes (`2>&1`, `>&-`)."""
        if operator in ("<", "<&", "<<<", ">&-", "<&-"):
            return True
        if not operator.endswith("&") or destination is None:  # (`&>` names a file)
            return False
        if destination.type == "number":
            return True
        value = to_arg(destination, self.source).value
        return value is not None and (value.isdigit() or value == "-")

    def walk_words(self, nodes: "Iterable[Any]", cwd: str | None) -> None:
        """Classify substitutions hidden inside words."""
        for node in nodes:
            stack = [node]
            while stack:
                current = stack.pop()
                if current.type in ("command_substitution", "process_substitution"):
                    self.walk(current, cwd)
                    continue
                if current.type in ARITHMETIC:
                    self.arithmetic(current)
                elif current.type == "expansion":
                    self.indirection(current)
                    self.expansion_operands(current, cwd)
                stack.extend(c for c in current.children if c.is_named)

    def evaluates_arithmetic(self, node: "Any", kind: str) -> bool:
        if kind in ARITHMETIC:
            return True
        first = node.children[0].type if node.children else ""
        if kind == "compound_statement":
            return first == "(("
        if kind == "test_command" and first == "[[":
            return any(
                c.type == "test_operator" and self.text(c) in ARITHMETIC_TESTS
                for c in descendants(node)
            )
        return False

    def indirection(self, node: "Any") -> None:
        """`${!v}` expands the variable named by v's value and `${v@P}` expands
        v's value like a prompt: both run a command substitution held there."""
        import re  # lazily: the hot path (plain words) needs no regex

        text = self.text(node)
        assigns = re.match(r"^\$\{([A-Za-z_][A-Za-z_0-9]*)(\[[^\]]*\])?:?=", text)
        if assigns is not None:
            # `${NAME:=value}` / `${NAME=value}` assign NAME
            self.sets(assigns.group(1), None)
            if risky_variable(assigns.group(1), None):
                self.unknown(text, f"setting {assigns.group(1)} changes what later commands run")
        self.substring(node)
        match = re.match(r"^\$\{(!?)([A-Za-z_][A-Za-z_0-9]*)", text)
        if match is None:
            return
        indirect = match.group(1) == "!" and not text.endswith(("*}", "@}", "@]}", "*]}"))
        if (indirect or text.endswith("@P}")) and match.group(2) not in self.safe_vars:
            self.unknown(text, f"expands the value of {match.group(2)} as a name or prompt")

    def substring(self, node: "Any") -> None:
        """`${s:offset:length}`: offset and length are arithmetic."""
        children = node.children
        for k, child in enumerate(children[:-1]):
            if child.type == ":" and k > 0 and children[k - 1].is_named:
                rest = [c for c in children[k + 1 :] if c.is_named]
                self.check_arithmetic(node, rest)
                return
            if not child.is_named and child.type != "${":
                return  # another operator (`:-`, `#`, `/`, ...): no arithmetic

    def arithmetic(self, node: "Any") -> None:
        """Arithmetic evaluates a variable's value as an expression, and an
        array subscript in that value (`a[$(cmd)]`) runs the command: only
        variables this command set to plain values are safe to evaluate."""
        stack = [node]
        if node.type == "subscript":
            stack = node.children_by_field_name("index")  # not the array's own name
        elif node.type == "c_style_for_statement":
            initializers = [
                c
                for c in node.children_by_field_name("initializer")
                if c.type == "variable_assignment"
            ]
            for child in initializers:
                self.assignment(child)
            stack = [
                *node.children_by_field_name("condition"),
                *node.children_by_field_name("update"),
                *[c.child_by_field_name("value") for c in initializers],
            ]
            stack = [c for c in stack if c is not None]
        self.check_arithmetic(node, stack)

    def check_arithmetic(self, node: "Any", stack: "list[Any]") -> None:
        names = self.arithmetic_names(stack)
        unsafe = [n for n in names if n not in self.safe_vars and n not in SHELL_NUMBERS]
        if unsafe:
            self.unknown(
                self.text(node)[:200],
                f"arithmetic on {unsafe[0]} runs any command substitution stored in its value",
            )

    def arithmetic_names(self, stack: "list[Any]") -> list[str]:
        """The variable names under the nodes of `stack` (substitutions are commands of their own)."""
        import re  # lazily: the hot path (plain words) needs no regex

        names: list[str] = []
        while stack:
            current = stack.pop()
            if current.type in ("variable_name", "word"):
                text = self.text(current)
                if re.match(r"^[A-Za-z_0-9]+$", text) and not text.isdigit():
                    names.append(text)
            elif current.type in ("command_substitution", "process_substitution"):
                continue  # walked as commands of their own
            stack.extend(c for c in current.children if c.is_named)
        return names

    # -- simple commands
    def command(self, node: "Any", cwd: str | None) -> str | None:
        name_node = None
        args: list[Arg] = []
        word_nodes: list[Any] = []
        for child in node.children:
            if not child.is_named:
                continue
            if child.type == "command_name":
                name_node = child
                word_nodes.append(child)
            elif child.type == "variable_assignment" or child.type in (
                "file_redirect",
                "heredoc_redirect",
                "herestring_redirect",
            ):
                self.walk(child, cwd)
            else:
                args.append(to_arg(child, self.source))
                word_nodes.append(child)
        self.walk_words(word_nodes, cwd)
        text = self.text(node)
        if name_node is None:
            return cwd
        name_arg = to_arg(name_node.children[0], self.source) if name_node.children else Arg(None)
        return self.simple(text, name_arg, args, cwd)

    def function_body(self, definition: "Any", cwd: str | None) -> str | None:
        """What running a function does: its redirections (`f(){ ...; } > out`
        applies on every call), then its body; returns the directory after."""
        for redirect in definition.children_by_field_name("redirect"):
            self.walk(redirect, cwd)
        body = definition.child_by_field_name("body")
        return self.walk(body, cwd) if body is not None else cwd

    def call(self, text: str, name: str, definition: "Any", cwd: str | None) -> str | None:
        """A call of a shell function: its body runs here, in this directory."""
        if name in self.calling:
            self.unknown(text, f"the function {name} calls itself")
            return cwd
        self.uncalled.pop(definition.id, None)
        self.calling.add(name)
        try:
            self.read(text)
            return self.function_body(definition, cwd)
        finally:
            self.calling.discard(name)


def _operator_and_destination(node: "Any") -> "tuple[str, Any]":
    """A redirection's operator (`>`, `2>&1`'s `>&`, ...) and the node it names."""
    operator = ""
    destination: Any = None
    for child in node.children:
        if not child.is_named:
            operator = child.type
        elif child.type != "file_descriptor":
            destination = child
    return operator, destination


def _plain_arg(arg: "Arg") -> bool:
    """A static word, no pattern, nothing that a later arithmetic would expand."""
    return arg.value is not None and not arg.multi and plain_value(arg.value)


_TEST_WRITES = frozenset({">", ">>", ">|", "&>", "&>>"})
_WORD_NODES = frozenset({"word", "string", "raw_string", "number", "concatenation"})

# node type -> the Walker method that classifies it (others: Walker.inside)
_BY_KIND: "dict[str, Callable[[Walker, Any, str | None], str | None]]" = {
    "command": Walker.command,
    "program": Walker.sequence,
    "compound_statement": Walker.sequence,
    "list": Walker.walk_list,
    "subshell": Walker.separate,
    "pipeline": Walker.separate,
    "command_substitution": Walker.separate,
    "process_substitution": Walker.separate,
    "arithmetic_expansion": Walker.arithmetic_node,
    "subscript": Walker.arithmetic_node,
    "expansion": Walker.expansion,
    "test_command": Walker.test_command,
    "declaration_command": Walker.declaration,
    "unset_command": Walker.unset,
    "function_definition": Walker.function_definition,
    "variable_assignment": Walker.variable_assignment,
    "for_statement": Walker.loop,
    "c_style_for_statement": Walker.loop,
    "select_statement": Walker.loop,
    "file_redirect": Walker.file_redirect,
    "heredoc_redirect": Walker.heredoc_redirect,
    "redirected_statement": Walker.redirected_statement,
    **dict.fromkeys(LEAVES, Walker.leaf),
}


def descendants(node: "Any") -> "Iterable[Any]":
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(current.children)
