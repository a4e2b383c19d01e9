"""Every citation form a reader reads as one is found and pinned whole (issue 23, item 7).

For each form: pin it, edit a line only that citation covers, and the check
must fail naming it (it stayed green before). Plus a hypothesis test: random
documents mixing every supported form with prose decoys (times, versions,
ports, ratios, URLs); every real citation is found whole, no decoy is.
"""

from __future__ import annotations

import json
import random
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.helpers.anchors import make_repo, run_cli, write
from zodyssey.anchors.discover import discover
from zodyssey.config import load_config

LINES = [f"def step_{i}(value):  return value + {i}" for i in range(1, 41)]
SOURCE = "\n".join(LINES) + "\n"

# (the form as written in docs/guide.md, the key it pins, a line only it covers)
FORMS = [
    ("see ./../src/a.py:5 here", "src/a.py:5", 5),
    ("see ../src/a.py:6 here", "src/a.py:6", 6),
    ("route app/[id]/page.ts:2 here", "app/[id]/page.ts:2", 2),
    ("route app/(shop)/page.ts:3 here", "app/(shop)/page.ts:3", 3),
    ("the file `src/a.py`:7 here", "src/a.py:7", 7),
    ("GitHub style src/a.py:L8 here", "src/a.py:8", 8),
    ("range with an em dash src/a.py:10\u201412", "src/a.py:10-12", 12),
    ("figure dash src/a.py:13\u201215", "src/a.py:13-15", 15),
    ("minus sign src/a.py:16\u221218", "src/a.py:16-18", 18),
    ("two dots src/a.py:19..21", "src/a.py:19-21", 21),
    ('an HTML anchor <a href="../src/a.py#L22">here</a>', "src/a.py:22", 22),
    ("reStructuredText `two <../src/a.py#L23>`_ link", "src/a.py:23", 23),
    ("AsciiDoc link:../src/a.py#L24[two] link", "src/a.py:24", 24),
    ("zero width src/a\u200b.py:25 inside", "src/a.py:25", 25),
    ("an entity src/a.py&#58;26 inside", "src/a.py:26", 26),
    ("an entity dash src/a.py:27&ndash;29", "src/a.py:27-29", 29),
]


def _repo(tmp_path: Path, text: str) -> Path:
    return make_repo(
        tmp_path / "repo",
        {
            "src/a.py": SOURCE,
            "app/[id]/page.ts": SOURCE,
            "app/(shop)/page.ts": SOURCE,
            "docs/guide.md": text,
        },
    )


@pytest.mark.parametrize(
    ("written", "key", "line"), FORMS, ids=[f[1] + "@" + str(i) for i, f in enumerate(FORMS)]
)
def test_each_form_is_pinned_whole_and_an_edit_fails_the_check(
    tmp_path: Path, written: str, key: str, line: int
) -> None:
    root = _repo(tmp_path, f"# Guide\n\n{written}\n")
    update = run_cli(root, "--update", "--json")
    assert update.returncode == 0, update.stdout + update.stderr
    lock = json.loads((root / "anchors/anchors.lock.json").read_text())
    assert list(lock["citations"]) == [key]
    target = key.rsplit(":", 1)[0]
    edited = list(LINES)
    edited[line - 1] += "  # edited"
    write(root, target, "\n".join(edited) + "\n")
    done = run_cli(root, "--json")
    payload = json.loads(done.stdout)
    assert done.returncode == 9
    assert [(p["kind"], p["key"]) for p in payload["problems"]] == [("drift", key)]


def test_reference_style_links_are_read_where_the_definition_is(tmp_path: Path) -> None:
    root = _repo(tmp_path, "# Guide\n\nSee [the step][two].\n\n[two]: ../src/a.py#L5\n")
    assert run_cli(root, "--update").returncode == 0
    lock = json.loads((root / "anchors/anchors.lock.json").read_text())
    assert list(lock["citations"]) == ["src/a.py:5"]


# --------------------------------------------------------------------------
# Random documents: every real citation found whole, no decoy taken for one
# --------------------------------------------------------------------------

DECOYS = [
    "at 12:30 sharp",
    "version 1.2.3 and v2.0:1",
    "listen on localhost:8080",
    "a ratio of 3:4",
    "see https://example.com:443/path",
    "http://host/a.py:3 is a URL",
    "time 09:15–10:30",
    "build 2024-01-02T03:04:05",
    "note: 5 things",
    "the ratio 16:9 screen",
]


# Non-ASCII paths (issue 35, item 4): cited in NFC or NFD, stored on disk in NFD.
NFD_NAME = unicodedata.normalize("NFD", "src/café/données.py")
NON_ASCII = [unicodedata.normalize("NFC", NFD_NAME), NFD_NAME]


def _stored(path: str) -> str:
    return NFD_NAME if path in NON_ASCII else path


def _real(path: str, a: int, b: int, style: int) -> tuple[str, str]:
    """One citation of lines a..b written in form `style`, and the key it must pin."""
    key = f"{path}:{a}" if a == b else f"{path}:{a}-{b}"
    span = str(a) if a == b else f"{a}-{b}"
    rel = "../" + path
    dash = "\u2014" if style % 2 else "\u2013"
    written = {
        0: f"{path}:{span}",
        1: f"`{path}`:{span}",
        2: f"{rel}:{span}",
        3: f"{path}:L{a}" if a == b else f"{path}:L{a}-L{b}",
        4: f"[x]({rel}#L{a})" if a == b else f"[x]({rel}#L{a}-L{b})",
        5: f'<a href="{rel}#L{a}">x</a>' if a == b else f'<a href="{rel}#L{a}-L{b}">x</a>',
        6: f"link:{rel}#L{a}[x]" if a == b else f"link:{rel}#L{a}-L{b}[x]",
        7: f"{path}:{a}" if a == b else f"{path}:{a}{dash}{b}",
    }[style % 8]
    return written, key


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.integers(min_value=0, max_value=2**32 - 1))
@example(seed=592590)  # a Markdown link whose href an earlier <a> in its paragraph also holds
def test_random_documents_find_every_citation_whole_and_no_decoy(
    tmp_path_factory: pytest.TempPathFactory, seed: int
) -> None:
    rng = random.Random(seed)
    root = tmp_path_factory.mktemp("forms")
    write(root, "src/a.py", SOURCE)
    write(root, "app/[id]/page.ts", SOURCE)
    write(root, NFD_NAME, SOURCE)
    lines: list[str] = []
    wanted: list[tuple[int, str]] = []
    for number in range(1, rng.randint(2, 12)):
        parts: list[str] = []
        for _ in range(rng.randint(1, 3)):
            if rng.random() < 0.5:
                parts.append(rng.choice(DECOYS))
            else:
                path = rng.choice(["src/a.py", "app/[id]/page.ts", *NON_ASCII])
                a = rng.randint(1, 38)
                b = a if rng.random() < 0.5 else a + rng.randint(1, 2)
                written, key = _real(path, a, b, rng.randrange(8))
                parts.append(f"see {written} here")
                # A name in either normal form resolves to the file as stored (NFD).
                wanted.append((number + 2, key.replace(path, _stored(path))))
        lines.append(", and ".join(parts))
    write(root, "docs/gen.md", "# Generated\n\n" + "\n".join(lines) + "\n")
    found = discover(root, load_config(root))
    got = sorted((c.site.line, c.key or "?" + c.cited_as) for c in found.citations)
    assert got == sorted(wanted), "\n".join(lines)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_random_notebooks_find_every_citation_in_both_source_forms(
    tmp_path_factory: pytest.TempPathFactory, seed: int
) -> None:
    # A cell's source is one string (lines joined by `\n` escapes in the JSON) or a
    # list of lines; each citation is found whole in both, on the JSON line holding it.
    rng = random.Random(seed)
    root = tmp_path_factory.mktemp("notebook")
    write(root, "src/a.py", SOURCE)
    write(root, NFD_NAME, SOURCE)
    write(root, "pyproject.toml", '[tool.zodyssey]\ndocuments = ["**/*.ipynb"]\n')
    cells: list[dict[str, object]] = []
    wanted: list[str] = []
    for _ in range(rng.randint(1, 4)):
        cell_lines: list[str] = []
        for _ in range(rng.randint(1, 4)):
            if rng.random() < 0.4:
                cell_lines.append(rng.choice(DECOYS))
                continue
            path = rng.choice(["src/a.py", *NON_ASCII])
            a = rng.randint(1, 38)
            written, key = _real(path, a, a, rng.choice([0, 1, 3, 7]))
            cell_lines.append(f"see {written}")
            wanted.append(key.replace(path, _stored(path)))
        source: object = (
            "\n".join(cell_lines)
            if rng.random() < 0.5
            else [line + "\n" for line in cell_lines[:-1]] + cell_lines[-1:]
        )
        kind = rng.choice(["markdown", "code"])
        cells.append({"cell_type": kind, "metadata": {}, "source": source})
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    write(root, "tour.ipynb", json.dumps(notebook, indent=1, ensure_ascii=False))
    found = discover(root, load_config(root))
    got = sorted(c.key or "?" + c.cited_as for c in found.citations)
    assert got == sorted(wanted), json.dumps(notebook, ensure_ascii=False)


_LINE_ALPHABET = [*"aAbLh:#&;`/.-_0123456789 ,<>[]()\"'=x", "\u2013", "\u200b", "é"]


@settings(max_examples=400, deadline=None)
@given(
    st.one_of(
        st.text(alphabet=st.sampled_from(_LINE_ALPHABET), max_size=60),
        st.text(max_size=40),
        st.builds(
            lambda a, b, c: a + b + c,
            st.text(alphabet=st.sampled_from(_LINE_ALPHABET), max_size=12),
            st.sampled_from(
                [
                    "src/a.py:5",
                    "`src/a.py`:L5",
                    "a.py::f",
                    "x#L5",
                    "link:a.py#L5[",
                    "a.py&#58;5",
                    "a.py:\u200b5",
                    "https://github.com/o/r/blob/main/a.py#L5",
                ]
            ),
            st.text(alphabet=st.sampled_from(_LINE_ALPHABET), max_size=12),
        ),
    )
)
def test_the_line_prefilter_never_hides_a_citation(line: str) -> None:
    # Discovery scans only lines MAYBE_CITATION matches: every line any scanner
    # reads a citation in (a blob URL included) must match it.
    from zodyssey.anchors import forms, grammar

    found = forms.scan(line, lambda token: True) or grammar.BLOB_URL.search(line)
    if found:
        assert forms.MAYBE_CITATION.search(line) is not None, line
