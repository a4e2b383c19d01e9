"""The classifier package's layout: lazy command families, and a light plain read."""

from __future__ import annotations

import ast
import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

from zodyssey.gate import shell
from zodyssey.gate.shell import commands
from zodyssey.gate.shell.records import Analysis, Arg, Part, Record

REPO = Path(__file__).resolve().parents[3]
COMMANDS_DIR = Path(commands.__file__).parent


def _registered_by_source() -> dict[str, str]:
    """Command name -> module, read from the family modules' source: every
    `@handles(...)`, `register(handler, ...)` and `HANDLERS[...] =`."""
    found: dict[str, str] = {}
    for path in sorted(COMMANDS_DIR.glob("*.py")):
        if path.name == "__init__.py":
            continue
        module = path.stem
        # importing it must register exactly what the source says (no import side doors)
        importlib.import_module(f"zodyssey.gate.shell.commands.{module}")
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names: list[ast.expr] = []
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                if node.func.id == "handles":
                    names = list(node.args)
                elif node.func.id == "register":
                    names = list(node.args[1:])
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if (
                        isinstance(target, ast.Subscript)
                        and isinstance(target.value, ast.Name)
                        and target.value.id == "HANDLERS"
                    ):
                        names.append(target.slice)
            for name in names:
                if isinstance(name, ast.Constant) and isinstance(name.value, str):
                    assert found.setdefault(name.value, module) == module, name.value
                elif isinstance(name, ast.Name):
                    pass  # a loop variable or parameter: checked through HANDLERS below
                else:
                    raise AssertionError(f"{path.name}: a registration the test cannot read")
    return found


def test_name_map_matches_what_the_families_register() -> None:
    by_source = _registered_by_source()
    # every registration seen in the source is in the map, under its own module
    for name, module in by_source.items():
        assert commands.MODULES.get(name) == module, (name, module)
    # after importing every family, the registry and the map have the same names,
    # and each name's handler is defined by the family the map names
    for info in pkgutil.iter_modules([str(COMMANDS_DIR)]):
        importlib.import_module(f"zodyssey.gate.shell.commands.{info.name}")
    assert set(commands.HANDLERS) == set(commands.MODULES)
    for name, handler in commands.HANDLERS.items():
        assert handler.__module__ == f"zodyssey.gate.shell.commands.{commands.MODULES[name]}", name


def test_every_mapped_family_exists() -> None:
    modules = {info.name for info in pkgutil.iter_modules([str(COMMANDS_DIR)])}
    assert set(commands.MODULES.values()) == modules


def _fresh(code: str, site: bool = False) -> list[str]:
    """Run `code` in a fresh interpreter, by default without site (nothing preloaded)."""
    flags = [] if site else ["-S"]
    result = subprocess.run(
        [sys.executable, *flags, "-c", f"import sys; sys.path.insert(0, {str(REPO)!r})\n{code}"],
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout.split()


HEAVY = (
    "typing",
    "re",
    "json",
    "tree_sitter",
    "tree_sitter_bash",
    "zodyssey.gate.shell.walker",  # plain words need no syntax tree
)


@pytest.mark.parametrize("command", ["ls", "cat f", "ls -la src", "head -n 5 README.md"])
def test_a_plain_read_imports_no_typing_re_json_or_parser(command: str) -> None:
    out = _fresh(
        "from zodyssey.gate.shell import classify\n"
        f"assert not classify({command!r}).is_write\n"
        f"print(*[m for m in {HEAVY!r} if m in sys.modules])\n"
        "print('families:', *sorted(m for m in sys.modules if '.commands.' in m))"
    )
    assert out[: out.index("families:")] == [], out
    assert out[out.index("families:") + 1 :] == [], "a plain read loaded a command family"


@pytest.mark.parametrize("command", ["eval rm x", "bash -c ls", "xargs sh -c ls", "time eval ls"])
def test_plain_words_holding_code_go_to_the_walker(command: str) -> None:
    # `Commands` alone cannot read code in a string: it hands the command to
    # the walker, which must come to the parser's answer (not a partial one).
    assert shell.classify(command) == shell.classify_parsed(command)
    out = _fresh(
        "from zodyssey.gate.shell import classify\n"
        f"print(classify({command!r}).is_write)\n"
        "print('zodyssey.gate.shell.walker' in sys.modules)",
        site=True,  # the parser lives in site-packages
    )
    assert out == [str(shell.classify(command).is_write), "True"], out


def test_the_baseline_interpreter_does_not_preload_them() -> None:
    # otherwise the test above could not fail
    assert _fresh(f"print(*[m for m in {HEAVY!r} if m in sys.modules])") == []


def test_a_command_loads_only_its_own_family() -> None:
    out = _fresh(
        "from zodyssey.gate.shell import classify\n"
        "assert classify('git log > out.txt').is_write\n"
        "print(*sorted(m.rsplit('.', 1)[1] for m in sys.modules if '.commands.' in m))",
        site=True,  # the parser lives in site-packages
    )
    assert out == ["git"]


def test_records_share_one_base_and_behave_like_named_tuples() -> None:
    part = Part("rm a", True)
    assert isinstance(part, Record) and isinstance(Analysis("x", ()), Record)
    assert isinstance(Arg("a"), Record)
    assert part._replace(why="w").why == "w" and part._replace(why="w").text == "rm a"
    assert part._asdict()["write"] is True
    assert repr(Arg("a")) == "Arg(value='a', multi=False, text='')"
    with pytest.raises(TypeError):
        part._replace(nope=1)
    text, write, *_ = part
    assert (text, write) == ("rm a", True)


def test_public_names() -> None:
    assert shell.classify("ls").command == "ls"
    assert {"classify", "classify_parsed", "Analysis"} <= set(dir(shell))


def test_a_parsed_command_loads_the_parser_without_its_packages_imports() -> None:
    # tree_sitter's __init__ imports typing, tree_sitter_bash's importlib.resources:
    # the classifier loads the two compiled modules directly
    probe = "print(*[m for m in ('typing', 'importlib.resources') if m in sys.modules])"
    if _fresh(probe, site=True):
        pytest.skip("site preloads typing or importlib.resources: nothing to check")
    out = _fresh(
        "from zodyssey.gate.shell import classify\n"
        "assert classify('echo x > f').targets[0].path == 'f'\n"
        "print(*[m for m in ('typing', 'importlib.resources', 'tree_sitter') if m in sys.modules])\n"
        "print('binding', 'tree_sitter._binding' in sys.modules)",
        site=True,
    )
    assert out == ["binding", "True"], out


def test_the_parser_still_works_after_an_ordinary_import_of_tree_sitter() -> None:
    out = _fresh(
        "import tree_sitter, tree_sitter_bash\n"
        "from zodyssey.gate.shell import classify\n"
        "print(classify('echo x > f && rm g').as_record()['targets'])",
        site=True,
    )
    assert out == ["['f',", "'g']"], out
