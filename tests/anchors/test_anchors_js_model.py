"""Compatibility with the JavaScript checker, judged against an independent model of it.

The model below re-states, rule by rule, what the reference
(`shared/reference/anchors-lock.md`) says the JavaScript checker does: its
document walk, its fixed-extension grammar with chains and bare
continuations, the CHANGELOG window, its resolution order, its fingerprint
and the lock it writes. It shares no code with zodyssey.anchors on purpose:
a bug copied into both would otherwise pass.

Each case builds a real repository, writes the lock the JavaScript tool would
have written (`scripts/anchors.lock.json`), and asserts that ours
- discovers every key the model discovers, on the same lines;
- reports zero problems with `--lock scripts/anchors.lock.json`.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import run_zodyssey
from tests.helpers.anchors import git, make_repo, write
from zodyssey.anchors import grammar
from zodyssey.anchors.check import Checker, set_aside_unseen
from zodyssey.anchors.discover import discover, js_grammar_accepts
from zodyssey.anchors.fingerprint import fingerprint, is_contentless
from zodyssey.anchors.lock import read_lock
from zodyssey.config import load_config

# --------------------------------------------------------------------------
# The model (literal, slow, obviously-correct Python; no sharing with ours)
# --------------------------------------------------------------------------

# ECMAScript WhiteSpace + LineTerminator: what `\s` and String.prototype.trim() use.
MODEL_JS_SPACE = set(
    "\t\n\v\f\r \u00a0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
)
MODEL_EXTENSIONS = (
    "mjs",
    "md",
    "json",
    "jsonl",
    "js",
    "cjs",
    "yml",
    "yaml",
    "sh",
    "py",
    "toml",
    "ts",
)
MODEL_SKIPPED = {"node_modules", ".git", ".zcode", "dist", "build", "coverage"}
MODEL_HIDDEN_WALKED = {".github", ".zcode-plugin"}
MODEL_IGNORE = "<!-- anchor-lock: ignore -->"


def is_word(ch: str) -> bool:  # JavaScript's \w: ASCII only
    return ch.isascii() and (ch.isalnum() or ch == "_")


def is_digit(ch: str) -> bool:  # JavaScript's \d: ASCII only
    return "0" <= ch <= "9"


def is_space(ch: str) -> bool:
    return ch in MODEL_JS_SPACE


def model_walk(root: Path) -> list[str]:
    out: list[str] = []

    def visit(directory: Path, prefix: str) -> None:
        for name in sorted(os.listdir(directory)):
            if name.startswith(".") and name not in MODEL_HIDDEN_WALKED:
                continue  # hidden files as well as hidden directories
            if name in MODEL_SKIPPED:
                continue
            full = directory / name
            if full.is_symlink():
                continue
            if full.is_dir():
                visit(full, prefix + name + "/")
            elif full.is_file():
                out.append(prefix + name)

    visit(root, "")
    return out


def read_number(line: str, i: int) -> tuple[int, int] | None:
    """Digits at i: (value, index after)."""
    j = i
    while j < len(line) and is_digit(line[j]):
        j += 1
    return (int(line[i:j]), j) if j > i else None


def skip_spaces(line: str, i: int) -> int:
    while i < len(line) and is_space(line[i]):
        i += 1
    return i


def read_span(line: str, i: int) -> tuple[int, int | None, int] | None:
    """`N` optionally followed by spaces, `-` or en dash, spaces, `M`: (a, b, end)."""
    first = read_number(line, i)
    if first is None:
        return None
    a, after = first
    j = skip_spaces(line, after)
    if j < len(line) and line[j] in "-\u2013":
        second = read_number(line, skip_spaces(line, j + 1))
        if second is not None:
            return a, second[0], second[1]
    return a, None, after


def read_chain_element(line: str, i: int) -> tuple[int, int | None, int] | None:
    j = skip_spaces(line, i)
    if j >= len(line) or line[j] not in ",/":
        return None
    j = skip_spaces(line, j + 1)
    if j < len(line) and line[j] == ":":
        j += 1
    return read_span(line, skip_spaces(line, j))


PATH_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-")


def path_form_at(line: str, s: int) -> tuple[str, int, int | None, int] | None:
    """A path-form citation starting exactly at s: (cited, a, b, end), leftmost-longest like a regex."""
    if s > 0 and (is_word(line[s - 1]) or line[s - 1] in "/.-"):
        return None
    i = s
    if i < len(line) and line[i] == ".":
        i += 1
    if i >= len(line) or not (is_word(line[i])):
        return None
    j = i + 1
    while j < len(line) and line[j] in PATH_CHARS:
        j += 1
    # Greedy token with backtracking: the longest prefix that ends in `.ext` followed by `:N`.
    for stop in range(j, i, -1):
        token = line[s:stop]
        if not any(
            token.endswith("." + ext) and len(token) > len(ext) + 1 for ext in MODEL_EXTENSIONS
        ):
            continue
        # the part before `.ext` must itself match the token shape (at least one char after the lead)
        if stop < len(line) and line[stop] == ":":
            span = read_span(line, stop + 1)
            if span is not None:
                return token, span[0], span[1], span[2]
    return None


@dataclass
class ModelCitation:
    cited: str
    a: int
    b: int | None
    doc: str
    line: int  # 1-based


def model_scan_line(line: str, doc: str, number: int) -> list[ModelCitation]:
    out: list[ModelCitation] = []
    anchors: list[tuple[int, int, str]] = []
    pos = 0
    while pos <= len(line):
        hit = None
        for s in range(pos, len(line)):
            hit = path_form_at(line, s)
            if hit is not None:
                start = s
                break
        if hit is None:
            break
        cited, a, b, end = hit
        out.append(ModelCitation(cited, a, b, doc, number))
        while (element := read_chain_element(line, end)) is not None:
            out.append(ModelCitation(cited, element[0], element[1], doc, number))
            end = element[2]
        anchors.append((start, end, cited))
        pos = end
    if not anchors:
        return out
    pos = 0
    while pos < len(line):
        found = None
        for s in range(pos, len(line)):
            if line[s] != ":" or (s > 0 and (is_word(line[s - 1]) or line[s - 1] in ".-")):
                continue
            span = read_span(line, s + 1)
            if span is not None:
                found = (s, span)
                break
        if found is None:
            break
        s, (a, b, end) = found
        pos = end
        if any(lo <= s < hi for lo, hi, _ in anchors):
            continue
        earlier = [cited for lo, _hi, cited in anchors if lo < s]
        if not earlier:
            continue
        cited = earlier[-1]
        out.append(ModelCitation(cited, a, b, doc, number))
        while (element := read_chain_element(line, end)) is not None:
            out.append(ModelCitation(cited, element[0], element[1], doc, number))
            end = element[2]
        pos = end
    return out


def model_window(doc: str, lines: list[str]) -> int:
    if doc != "CHANGELOG.md":
        return len(lines)
    headings = 0
    fenced = False
    for i, line in enumerate(lines):
        k = 0
        while k < 3 and k < len(line) and is_space(line[k]):
            k += 1
        if line[k : k + 3] == "```" or line[:3] == "```":
            fenced = not fenced
            continue
        if fenced:
            continue
        if line.startswith("## ["):
            headings += 1
            if headings == 2:
                return i
    return len(lines)


def model_resolve(cited: str, files: list[str]) -> tuple[str | None, list[str]]:
    if cited in files:
        return cited, []
    suffix = [f for f in files if f.endswith("/" + cited)]
    if len(suffix) == 1:
        return suffix[0], []
    if suffix:
        return None, suffix
    if "/" not in cited:
        base = [f for f in files if f.rsplit("/", 1)[-1].endswith(cited)]
        if len(base) == 1:
            return base[0], []
        return None, base
    return None, []


def model_norm(text: str) -> str:
    out: list[str] = []
    in_space = False
    for ch in text:
        if is_space(ch):
            in_space = True
            continue
        if in_space and out:
            out.append(" ")
        in_space = False
        out.append(ch)
    return "".join(out)


def model_hash(lines: list[str]) -> str:
    joined = "\n".join(model_norm(x) for x in lines)
    return hashlib.sha256(joined.encode("utf-8")).hexdigest()[:12]


def model_contentless(line: str) -> bool:
    core = model_norm(line)
    return core == "" or bool(re.fullmatch(r"//+|#+|\*+|/\*|\*/|<!--|-->|-{3,}|={3,}", core))


@dataclass
class ModelRun:
    files: list[str]
    keys: dict[str, list[tuple[str, int]]] = field(default_factory=dict)  # key -> sites
    lock: dict[str, str] = field(default_factory=dict)
    problems: dict[str, str] = field(default_factory=dict)  # key -> kind


def model_run(root: Path, exempt: set[str] = frozenset()) -> ModelRun:  # type: ignore[assignment]
    files = model_walk(root)
    run = ModelRun(files)
    first: dict[str, ModelCitation] = {}
    for doc in files:
        if not doc.endswith(".md"):
            continue
        body = (root / doc).read_bytes().decode("utf-8", errors="replace")
        if MODEL_IGNORE in body:
            continue
        lines = body.split("\n")
        for i in range(model_window(doc, lines)):
            for c in model_scan_line(lines[i], doc, i + 1):
                path, _ = model_resolve(c.cited, files)
                tail = f"{c.a}-{c.b}" if c.b else f"{c.a}"
                key = f"{path}:{tail}" if path else f"?{c.cited}:{c.a}"
                first.setdefault(key, c)
                run.keys.setdefault(key, []).append((doc, i + 1))
    for key, c in first.items():
        if f"{c.cited}:{c.a}" + (f"-{c.b}" if c.b else "") in exempt:
            continue
        path, candidates = model_resolve(c.cited, files)
        if path is None:
            run.problems[key] = "ambiguous" if candidates else "unresolved"
            continue
        if c.b is not None and c.b < c.a:
            run.problems[key] = "backwards-range"
            continue
        target = (root / path).read_bytes().decode("utf-8", errors="replace").split("\n")
        hi = c.b or c.a
        if c.a < 1 or hi > len(target):
            run.problems[key] = "out-of-range"
            continue
        span = target[c.a - 1 : hi]
        if all(model_contentless(x) for x in span):
            run.problems[key] = "contentless"
            continue
        run.lock[key] = model_hash(span)
    return run


def write_js_lock(root: Path, run: ModelRun, exempt: list[str] | None = None) -> Path:
    data = {
        "_comment": "Content fingerprints for every `file:line` citation in tracked docs. "
        "Generated by scripts/check-anchors.mjs --update.",
        "exempt": sorted(exempt or []),
        "citations": dict(sorted(run.lock.items())),
    }
    return write(root, "scripts/anchors.lock.json", json.dumps(data, indent=2) + "\n")


# --------------------------------------------------------------------------
# Comparing ours with the model
# --------------------------------------------------------------------------


def line_at(root: Path, site: tuple[str, int]) -> str:
    return (root / site[0]).read_text(encoding="utf-8", errors="replace").split("\n")[site[1] - 1]


def ours(
    root: Path, lock: Path
) -> tuple[
    dict[str, list[tuple[str, int]]], list[tuple[str, str]], list[str], set[tuple[str, int]]
]:
    config = load_config(root)
    found = discover(root, config)
    keys: dict[str, list[tuple[str, int]]] = {}
    for c in found.citations:
        key = c.key if c.key is not None else "?" + c.cited_as
        keys.setdefault(key, []).append((c.site.doc, c.site.line))
    legacy = read_lock(lock)
    assert legacy.legacy, "a lock without our marks reads as the JavaScript checker's"
    result = Checker(root, config, found, legacy).run()
    set_aside_unseen(result, found, root)  # what the command line does under a JavaScript lock
    wider = {(c.site.doc, c.site.line) for c in found.citations if not found.js_visible(root, c)}
    return keys, [(p.kind, p.key) for p in result.problems], result.stale, wider


def assert_compatible(root: Path, exempt: list[str] | None = None) -> ModelRun:
    model = model_run(root, set(exempt or []))
    lock = write_js_lock(root, model, exempt)
    keys, problems, stale, wider = ours(root, lock)
    for key, sites in model.keys.items():
        if key.startswith("?") or key in model.problems:
            continue
        # Two deliberate differences. Ours does not read inside HTML comments
        # (`<!-- a.py:4 -->`), and on a line where ours also reads a path the JS
        # checker could not (`main.go:10, :12`), a bare continuation binds to that
        # nearer path. The JS pin is then merely stale, which fails only --strict.
        # Ours also reads forms the JS checker could not (an em-dash range pinned whole,
        # `./a.py:3`): such a site, unseen by it, is a note under its lock, never a pin.
        ours_sites = {s for s in keys.get(key, []) if s in sites or s not in wider}
        excused = {
            site
            for site in set(sites) - ours_sites
            if "<!--" in line_at(root, site) or site in wider
        }
        assert sorted(set(sites) - excused) == sorted(ours_sites), f"{key} cited at {sites}"
        if not ours_sites:
            assert key in stale
    # Unresolved keys: the JavaScript tool wrote `?<cited>:<a>` (no range end), ours `?<cited as>`.
    failing = [
        (kind, key)
        for kind, key in problems
        if (re.sub(r"-[0-9]+$", "", key) if key.startswith("?") else key) not in model.problems
    ]
    assert failing == [], failing
    return model


def repo_with(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "repo"
    make_repo(root, files)
    return root


SOURCE = "".join(f"line {i} of the source\n" for i in range(1, 61))

# --------------------------------------------------------------------------
# Model sanity: it must agree with the reference's own examples
# --------------------------------------------------------------------------


def test_model_grammar_matches_the_reference_examples() -> None:
    def scan(line: str) -> list[tuple[str, int, int | None]]:
        return [(c.cited, c.a, c.b) for c in model_scan_line(line, "d.md", 1)]

    assert scan("see harness.mjs:88,62") == [("harness.mjs", 88, None), ("harness.mjs", 62, None)]
    assert scan("x.py:69-70,19,128-131") == [
        ("x.py", 69, 70),
        ("x.py", 19, None),
        ("x.py", 128, 131),
    ]
    assert scan("CHANGELOG.md:671/:771") == [
        ("CHANGELOG.md", 671, None),
        ("CHANGELOG.md", 771, None),
    ]
    assert scan("pre-tool.mjs:875 and :905-930,42") == [
        ("pre-tool.mjs", 875, None),
        ("pre-tool.mjs", 905, 930),
        ("pre-tool.mjs", 42, None),
    ]
    assert scan("at 12:30 and :40") == []
    assert scan(".zcode-plugin/plugin.json:44") == [(".zcode-plugin/plugin.json", 44, None)]
    assert scan("x/a.py:3") == [("x/a.py", 3, None)]
    assert scan("-a.py:3 /a.py:3 .a.py:3") == [(".a.py", 3, None)]
    assert model_hash(["hello   world "]) == hashlib.sha256(b"hello world").hexdigest()[:12]


# --------------------------------------------------------------------------
# Hand-written tricky lines
# --------------------------------------------------------------------------

TRICKY_LINES = [
    "| table | `src/a.py:3` | src/b.py:4-5 |",
    "[see src/a.py:3](https://example.com) and [b.py:4](b.py)",
    "inline `a.py:3` and fenced below",
    "```",
    "a.py:7 inside a fence",
    "```",
    "url http://x.com/a.py:3 and https://x.com/src/a.py:4",
    r"C:\path\a.py:3 windows",
    "time 12:30, port localhost:8080, ratio 3:4",
    "zero a.py:0 and a.py:3- and a.py:-3",
    "spaces a.py:3 - 5 and a.py:3\u20135 and a.py:3 \u2013 6",
    "em dash a.py:3\u20145 is not a range",
    "chain a.py:10,20,30-40/50 and a.py:11/:12",
    "a.py:1, 2 versus a.py:1,x",
    "(see a.py:3) a.py:3. a.py:3) **a.py:3** a.py:3:4",
    "./a.py:3 ../a.py:3 and src/./a.py:5",
    "x/y.py:3 /x/y.py:3 -x/y.py:3 .x/y.py:3 _x/y.py:3 x/y.py:4",
    "bare first :5 then a.py:6 then :7, :8-9 and b.py:10 then :11",
    "a.py:3\ttab\ta.py:4\t-\t6",
    "a.py:3\u00a0-\u00a05 no-break spaces around the dash",
    "caf\u00e9/z.py:3 and \u00e9a.py:4 and \u00fcber.py:5 and \u00e9z.py:6",
    "a.py:3 <!-- a.py:4 --> a.py:5",
    "mixed src/a.py:3,b.py:4",
    "a.py:3-2 backwards is its own problem",
    "a.py:03 and a.py:3-05",
    "v1.2.3.py:3 and a.b.py:4",
    "deep/nested/dir/c.ts:2 and c.ts:2",
    "a.pyx:3 a.py.bak:3 a.json5:3 a.jsonl:3",
    "https://github.com/o/r/blob/main/src/a.py#L3 and [l](src/a.py#L4-L5)",
    "a.py:" + "9" * 3 + " " + "x" * 3000 + " a.py:12",
]


def tricky_repo(tmp_path: Path, doc_text: str, extra: dict[str, str] | None = None) -> Path:
    files = {
        "src/a.py": SOURCE,
        "src/b.py": SOURCE,
        "src/c.ts": SOURCE,
        "deep/nested/dir/c.ts": SOURCE,
        "src/a.pyx": SOURCE,
        "src/v1.2.3.py": SOURCE,
        "src/a.b.py": SOURCE,
        "src/a.jsonl": SOURCE,
        "x/y.py": SOURCE,
        "caf\u00e9/z.py": SOURCE,
        "src/\u00fcber.py": SOURCE,
        "docs/guide.md": doc_text,
    }
    files.update(extra or {})
    return repo_with(tmp_path, files)


@pytest.mark.parametrize("line", TRICKY_LINES)
def test_tricky_line_is_read_as_the_javascript_tool_read_it(tmp_path: Path, line: str) -> None:
    root = tricky_repo(tmp_path, f"# Guide\n\n{line}\n")
    assert_compatible(root)


def test_all_tricky_lines_in_one_document_with_crlf_and_bom(tmp_path: Path) -> None:
    text = "\ufeff" + "\r\n".join(TRICKY_LINES) + "\r\n"
    root = tricky_repo(tmp_path, text)
    assert_compatible(root)


def test_fingerprints_with_unusual_whitespace_and_encodings(tmp_path: Path) -> None:
    odd = (
        "\ufeffdef first():\u00a0 return 1\r\n"
        "\tx\u2028=\u20031\x0b\n"
        "y = 2\x1c\x1d3\n"  # Python-only spaces: JavaScript keeps them
        "z = '\u0085'\n"  # NEL: not JavaScript whitespace either
        "\u200b zero width stays \u200b\n"
        "\u3000ideographic\u3000\n"
        "last line without newline"
    )
    root = tmp_path / "repo"
    make_repo(root, {"docs/x.md": "src/odd.py:1 src/odd.py:2-4 src/odd.py:5,6,7 src/bin.py:1\n"})
    write(root, "src/odd.py", "")
    (root / "src/odd.py").write_bytes(odd.encode("utf-8"))
    (root / "src/bin.py").write_bytes(b"ok \xff\xfe bad bytes \xc3\n")
    assert_compatible(root)


def test_document_walk_and_windows(tmp_path: Path) -> None:
    cite = "src/a.py:3\n"
    files = {
        "src/a.py": SOURCE,
        "README.md": cite,
        ".github/PULL_REQUEST_TEMPLATE.md": "src/a.py:4\n",
        ".zcode-plugin/notes.md": "src/a.py:5\n",
        ".hidden/notes.md": "src/a.py:6\n",
        "docs/.draft.md": "src/a.py:7\n",
        "node_modules/pkg/README.md": "src/a.py:8\n",
        "build/out.md": "src/a.py:9\n",
        "dist/out.md": "src/a.py:10\n",
        "coverage/out.md": "src/a.py:11\n",
        "docs/skipped.md": "<!-- anchor-lock: ignore -->\nsrc/a.py:12\n",
        "docs/UPPER.MD": "src/a.py:13\n",
        "docs/notes.markdown": "src/a.py:14\n",
        "CHANGELOG.md": (
            "# Changelog\n## [Unreleased]\nsrc/a.py:15\n```\n## [9.9.9] in a fence\n```\n"
            "src/a.py:16\n## [1.0.0]\nsrc/a.py:17\n"
        ),
        "docs/CHANGELOG.md": "## [2]\n## [1]\nsrc/a.py:18\n",
    }
    root = repo_with(tmp_path, files)
    model = assert_compatible(root)
    assert set(model.lock) == {f"src/a.py:{n}" for n in (3, 4, 5, 15, 16, 18)}


def test_ignore_marker_in_a_code_span_still_skips_the_document(tmp_path: Path) -> None:
    # The JavaScript tool skipped any document containing the marker text, even in backticks.
    doc = "Mention `<!-- anchor-lock: ignore -->` here.\n\nsrc/a.py:3 and main.go:2\n"
    root = repo_with(
        tmp_path,
        {"src/a.py": SOURCE, "main.go": SOURCE, "docs/m.md": doc, "README.md": "src/a.py:4\n"},
    )
    assert_compatible(root)


def test_resolution_order_and_hidden_files(tmp_path: Path) -> None:
    files = {
        "src/a.py": SOURCE,
        "skills/odyssey/references/scripts.md": SOURCE,
        "hooks/pre-tool.trusted-invoke.test.mjs": SOURCE,
        "web/.eslintrc.json": SOURCE,  # hidden: invisible to the JavaScript tool
        "web/eslintrc.json": SOURCE,
        "conf/.settings.yml": SOURCE,
        "conf/app.settings.yml": SOURCE,
        "docs/r.md": (
            "references/scripts.md:3 scripts.md:4 trusted-invoke.test.mjs:5 "
            "eslintrc.json:6 settings.yml:7 skills/odyssey/references/scripts.md:8\n"
        ),
    }
    root = repo_with(tmp_path, files)
    model = assert_compatible(root)
    assert "web/eslintrc.json:6" in model.lock and "conf/app.settings.yml:7" in model.lock


def test_exempt_entries_as_written(tmp_path: Path) -> None:
    files = {
        "src/a.py": SOURCE,
        "docs/t.md": "src/auth.ts:42 and src/a.py:3-4 and a.py:9\n",
        # The JS checker exempted a whole key when its first citation was written as exempt.
        "docs/u.md": "a.py:10 here, and the same lines again as src/a.py:10\nsrc/a.py:11-11 a.py:11-11\n",
    }
    root = repo_with(tmp_path, files)
    model = assert_compatible(root, exempt=["src/auth.ts:42", "a.py:9", "a.py:10", "a.py:11-11"])
    assert "src/a.py:10" not in model.lock and "src/a.py:11-11" in model.lock


def test_extra_dialects_do_not_fail_a_javascript_lock(tmp_path: Path) -> None:
    """Citations the JavaScript tool could not see are unlocked under its lock: not failures."""
    files = {
        "src/a.py": SOURCE,
        "cmd/server/main.go": SOURCE,
        "Makefile": SOURCE,
        "docs/g.md": (
            "src/a.py:3 and main.go:4 and cmd/server/main.go:5 and Makefile:6\n"
            "[link](../src/a.py#L7-L8) <!-- a comment -->\n"
        ),
    }
    root = repo_with(tmp_path, files)
    model = assert_compatible(root)
    assert set(model.lock) == {"src/a.py:3"}
    # Through the real command line, too: exit 0, and the extra citations are named.
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "zodyssey",
            "anchors",
            "check",
            "--root",
            str(root),
            "--lock",
            "scripts/anchors.lock.json",
            "--json",
        ],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    assert report["problems"] == []
    assert {n["key"] for n in report["notes"]} == {
        "cmd/server/main.go:4",
        "cmd/server/main.go:5",
        "Makefile:6",
        "src/a.py:7-8",
    }
    # Our own lock (re-baselined) pins them, and then they are checked like any other.
    git(root, "status")
    proc = run_zodyssey("anchors", "check", "--root", str(root), "--update", cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lock = json.loads((root / "anchors/anchors.lock.json").read_text())
    assert "cmd/server/main.go:5" in lock["citations"]


# --------------------------------------------------------------------------
# Generated documents
# --------------------------------------------------------------------------

PATHS = st.sampled_from(
    [
        "src/a.py",
        "a.py",
        "b.py",
        "c.ts",
        "dir/c.ts",
        "x/y.py",
        "y.py",
        "./src/a.py",
        "src/a.pyx",
        "a.b.py",
        ".a.py",
    ]
)
NUMBER = st.integers(min_value=0, max_value=70).map(str)
DASH = st.sampled_from(["-", "\u2013", " - ", "\u00a0\u2013 ", "\u2014", "--"])
SEP = st.sampled_from([",", ", ", "/", "/:", " ,", ", :", ";", " and :", " :", ":"])
PROSE = st.sampled_from(
    [
        "see",
        "(",
        ")",
        "**",
        "`",
        " ",
        "\t",
        "12:30",
        "http://h.com/",
        "x",
        "-",
        "/",
        ".",
        "\u00e9",
        "[",
        "](",
        "#L3",
    ]
)


@st.composite
def citation_text(draw: st.DrawFn) -> str:
    out = draw(PATHS) + ":" + draw(NUMBER)
    if draw(st.booleans()):
        out += draw(DASH) + draw(NUMBER)
    for _ in range(draw(st.integers(0, 3))):
        out += draw(SEP) + draw(NUMBER)
        if draw(st.booleans()):
            out += draw(DASH) + draw(NUMBER)
    return out


LINE = st.lists(st.one_of(citation_text(), PROSE), min_size=1, max_size=8).map("".join)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(lines=st.lists(LINE, min_size=1, max_size=6), crlf=st.booleans())
def test_generated_documents(
    tmp_path_factory: pytest.TempPathFactory, lines: list[str], crlf: bool
) -> None:
    base = tmp_path_factory.mktemp("gen")
    text = ("\r\n" if crlf else "\n").join(lines) + "\n"
    root = base / "repo"
    root.mkdir()
    for rel in ("src/a.py", "b.py", "dir/c.ts", "x/y.py", "src/a.pyx", "src/a.b.py"):
        write(root, rel, SOURCE)
    write(root, "docs/gen.md", text)
    assert_compatible(root)


def _ours_with_js_extensions(line: str) -> list[tuple[str, int, int]]:
    refs = grammar.scan_line(line, js_grammar_accepts, js=True)
    return [(r.cited, r.start, r.end if r.ranged else 0) for r in refs]


def _model_line(line: str) -> list[tuple[str, int, int]]:
    # JavaScript's key drops a `-0` end (0 is falsy); ours records the same as "not ranged".
    return [(c.cited, c.a, c.b or 0) for c in model_scan_line(line, "d.md", 1)]


@pytest.mark.parametrize(
    "line", [*TRICKY_LINES, ".py:3 _.py:4 x/.py:5 ..py:6 .a.py:7 .json:8 a.py:9-0"]
)
def test_js_grammar_mode_reads_lines_exactly_like_the_model(line: str) -> None:
    """With the JavaScript checker's extensions, our line grammar finds exactly its citations."""
    assert sorted(_ours_with_js_extensions(line)) == sorted(_model_line(line))


@settings(max_examples=400, deadline=None)
@given(line=LINE)
def test_js_grammar_mode_on_generated_lines(line: str) -> None:
    assert sorted(_ours_with_js_extensions(line)) == sorted(_model_line(line))


NODE = shutil.which("node")
JS_HASHER = """
const {createHash} = require("node:crypto");
const spans = JSON.parse(require("node:fs").readFileSync(0, "utf8"));
const norm = (s) => s.replace(/\\s+/g, " ").trim();
console.log(JSON.stringify(spans.map((lines) =>
  createHash("sha256").update(lines.map(norm).join("\\n")).digest("hex").slice(0, 12))));
"""
ODD_CHARS = "ab #/*-=\t\r\x0b\x0c\x1c\x1f\x85\u00a0\u1680\u2000\u200a\u200b\u2028\u2029\u202f"
ODD_TEXT = st.text(
    alphabet=st.sampled_from([*ODD_CHARS, "\u205f", "\u3000", "\ufeff", "\u00e9", "\U0001f600"]),
    max_size=12,
)


@pytest.mark.skipif(NODE is None, reason="node is not installed")
@settings(max_examples=5, deadline=None)
@given(spans=st.lists(st.lists(ODD_TEXT, min_size=1, max_size=3), min_size=1, max_size=80))
def test_fingerprints_agree_with_node_itself(spans: list[list[str]]) -> None:
    """Ours, the model and real JavaScript hash the same spans the same way."""
    assert NODE is not None
    proc = subprocess.run(
        [NODE, "-e", JS_HASHER], input=json.dumps(spans), capture_output=True, text=True, check=True
    )
    expected = json.loads(proc.stdout)
    assert [model_hash(lines) for lines in spans] == expected
    assert [fingerprint(lines, 1, len(lines)) for lines in spans] == expected
    assert [is_contentless(lines) for lines in spans] == [
        all(model_contentless(x) for x in lines) for lines in spans
    ]
