"""The per-line discovery grammar: examples of every dialect, and properties."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from zodyssey.anchors.grammar import scan_line


def accept_all(token: str) -> bool:
    return True


def accept_py(token: str) -> bool:
    return token.endswith(".py")


def found(line: str, accept=accept_py) -> list[tuple[str, int, int, str]]:  # type: ignore[no-untyped-def]
    return [(r.cited, r.start, r.end, r.dialect) for r in scan_line(line, accept)]


def test_single_line_and_ranges() -> None:
    assert found("see a.py:12") == [("a.py", 12, 12, "path")]
    assert found("see a.py:12-14") == [("a.py", 12, 14, "path")]
    assert found("see a.py:12 – 14") == [("a.py", 12, 14, "path")]
    assert found("see a.py:12 - 14") == [("a.py", 12, 14, "path")]


def test_chains_comma_slash_and_colon() -> None:
    assert found("h.py:88,62") == [("h.py", 88, 88, "path"), ("h.py", 62, 62, "chain")]
    assert found("h.py:69-70,19,128-131") == [
        ("h.py", 69, 70, "path"),
        ("h.py", 19, 19, "chain"),
        ("h.py", 128, 131, "chain"),
    ]
    assert found("C.py:671/:771") == [("C.py", 671, 671, "path"), ("C.py", 771, 771, "chain")]
    assert found("C.py:671 / 772") == [("C.py", 671, 671, "path"), ("C.py", 772, 772, "chain")]


def test_bare_continuations_bind_to_nearest_earlier_path() -> None:
    line = "a.py:1 then b.py:2 and later :30-31,40"
    assert found(line) == [
        ("a.py", 1, 1, "path"),
        ("b.py", 2, 2, "path"),
        ("b.py", 30, 31, "bare"),
        ("b.py", 40, 40, "chain"),
    ]


def test_bare_without_antecedent_is_not_a_citation() -> None:
    assert found("at :30 before a.py:2") == [("a.py", 2, 2, "path")]
    assert found("only :30 here") == []


def test_non_citations() -> None:
    assert found("meet at 12:30") == []  # `12` is offered as a token; `accept` refuses it
    assert found("impl/05:162 and md:65,63") == []  # no `.py` token: rejected by accept
    assert found("--a.py:3") == []  # preceded by `-`: not a token start
    assert found("x-a.py:3") == [("x-a.py", 3, 3, "path")]
    assert found("v/a.py:3") == [("v/a.py", 3, 3, "path")]


def test_leading_dot_and_odd_extensions() -> None:
    assert found(".zcode-plugin/plugin.json:44", accept_all) == [
        (".zcode-plugin/plugin.json", 44, 44, "path")
    ]
    assert found("cmd/main.go:7-9", accept_all) == [("cmd/main.go", 7, 9, "path")]


def test_rejected_token_resumes_after_its_colon() -> None:
    # `foo` is not a file, but the digits after its colon start a token of their own.
    assert found("foo:12.py:5") == [("12.py", 5, 5, "path")]


def test_number_spans_point_at_the_written_numbers() -> None:
    line = "x `src/a.py:7-12, 30` y"
    refs = scan_line(line, accept_py)
    assert [line[s:e] for r in refs for s, e in r.number_spans] == ["7", "12", "30"]
    assert all(line[r.path_span[0] : r.path_span[1]] == "src/a.py" for r in refs)


# ---------------------------------------------------------------- properties

segment = st.from_regex(r"[A-Za-z0-9_][A-Za-z0-9_\-]{0,8}", fullmatch=True)
paths = st.builds(
    lambda parts, ext: "/".join(parts) + "." + ext,
    st.lists(segment, min_size=1, max_size=4),
    st.sampled_from(["py", "md", "go", "rs", "tsx"]),
)
numbers = st.integers(min_value=0, max_value=99999)
spans = st.tuples(numbers, st.one_of(st.none(), numbers))
separators = st.sampled_from([",", ", ", "/", "/:", " , ", ",:"])
dashes = st.sampled_from(["-", "\u2013", " - ", " \u2013 "])
prose = st.text(alphabet=st.sampled_from(list("abc XYZ()[]`*")), max_size=12)


def render(span: tuple[int, int | None], dash: str) -> str:
    a, b = span
    return str(a) if b is None else f"{a}{dash}{b}"


@given(prose, paths, st.lists(spans, min_size=1, max_size=5), separators, dashes, prose)
def test_every_number_of_a_chain_is_its_own_citation(
    before: str,
    path: str,
    chain: list[tuple[int, int | None]],
    sep: str,
    dash: str,
    after: str,
) -> None:
    text = sep.join(render(s, dash) for s in chain)
    line = f"{before} {path}:{text} {after}"
    refs = [r for r in scan_line(line, accept_all) if r.cited == path]
    assert len(refs) >= len(chain)
    assert [r.start for r in refs[: len(chain)]] == [a for a, _ in chain]
    assert [r.end for r in refs[: len(chain)]] == [a if b is None else b for a, b in chain]


@given(st.text(max_size=80))
def test_arbitrary_lines_never_crash_and_spans_are_digits(line: str) -> None:
    for ref in scan_line(line, accept_all):
        assert ref.cited
        written = [line[s:e] for s, e in ref.number_spans]
        assert all(w.isdigit() and w.isascii() for w in written)
        assert int(written[0]) == ref.start
        if len(written) == 2:
            assert int(written[1]) == ref.end


@given(st.text(alphabet=st.sampled_from(list("ab :0123456789,-/")), max_size=40))
def test_no_path_token_means_no_citation(line: str) -> None:
    # Without a token that `accept` takes, nothing on the line is a citation.
    assert scan_line(line, lambda token: False) == []


@given(paths, numbers, st.sampled_from(["\n", "\r\n"]))
def test_citations_never_cross_lines(path: str, n: int, newline: str) -> None:
    text = f"{path}{newline}:{n}"
    refs = [r for part in text.split("\n") for r in scan_line(part, accept_all)]
    assert refs == []


def _bare_reference(line: str) -> list[tuple[str, int, int]]:
    """Bare continuations bound the slow, obvious way: every anchor looked at for every one.

    An independent statement of the rule the bisection in scan_line implements
    (issue 23 item 9: 16,000 continuations on one line took 16.5 s).
    """
    import re

    from zodyssey.anchors import grammar

    refs = scan_line(line, lambda token: True)
    anchors: list[tuple[int, int, str]] = []
    pos = 0
    while (m := grammar.PATH_FORM.search(line, pos)) is not None:
        end = m.end()
        while (c := grammar.CHAIN_ELEMENT.match(line, end)) is not None:
            end = c.end()
        anchors.append((m.start(), end, m.group(2)))  # group 1: an opening backtick
        pos = end
    out = [(r.cited, r.start, r.end) for r in refs if r.dialect in ("path", "chain")]
    for bare in re.finditer(grammar.BARE, line):
        where = bare.start()
        if any(s <= where < e for s, e, _ in anchors):
            continue
        earlier = [cited for s, _, cited in anchors if s < where]
        if earlier:
            a = int(bare.group(1))
            b = int(bare.group(2)) if bare.group(2) else a
            out.append((earlier[-1], a, b))
    return out


pieces = st.lists(
    st.sampled_from(
        ["a.py:3", "b/c.go:7-9", " and ", ":12", " :4-5", ", 6", "/:8", "x", " ", "12:30", "-"]
    ),
    max_size=25,
)


@given(pieces)
def test_bare_continuations_bind_as_the_plain_rule_says(parts: list[str]) -> None:
    line = "".join(parts)
    refs = scan_line(line, lambda token: True)
    wanted = set(_bare_reference(line))
    assert wanted <= {(r.cited, r.start, r.end) for r in refs}
    assert {(r.cited, r.start, r.end) for r in refs if r.dialect == "bare"} <= wanted


def test_many_continuations_on_one_line_are_all_bound() -> None:
    line = " ".join(f"src/a.py:{i} and :{i + 1}" for i in range(1, 3001))
    refs = scan_line(line, lambda token: True)
    assert len(refs) == 6000
    assert all(r.cited == "src/a.py" for r in refs)
    assert [r.start for r in refs if r.dialect == "bare"] == list(range(2, 3002))
