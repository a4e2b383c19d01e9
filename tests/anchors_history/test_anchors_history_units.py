"""The pure parts: span location, porcelain and name-status parsers, rename chains."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from zodyssey.anchors.history.compare import locate_span, map_old_to_new
from zodyssey.anchors.history.plumbing import (
    FirstParentChain,
    PathChange,
    merge_ranges,
    parse_blame_porcelain,
    parse_chain_log,
    parse_name_status_z,
)

# Distinct file lines: the tests insert text that cannot be confused with them.
files = st.integers(min_value=3, max_value=60).map(lambda n: [f"line {i}" for i in range(n)])


@st.composite
def file_and_span(draw: st.DrawFn) -> tuple[list[str], int, int]:
    lines = draw(files)
    start = draw(st.integers(min_value=1, max_value=len(lines)))
    end = draw(st.integers(min_value=start, max_value=min(len(lines), start + 4)))
    return lines, start, end


@given(file_and_span(), st.integers(min_value=1, max_value=5), st.data())
def test_lines_inserted_above_move_the_span_by_their_count(
    case: tuple[list[str], int, int], count: int, data: st.DataObject
) -> None:
    lines, start, end = case
    at = data.draw(st.integers(min_value=0, max_value=start - 1))
    now = lines[:at] + [f"inserted {k}" for k in range(count)] + lines[at:]
    place = locate_span(lines, start, end, now, same_place=True)
    assert (place.kind, place.start, place.end) == ("moved", start + count, end + count)


@given(file_and_span(), st.data())
def test_edits_below_the_span_leave_it_ok(
    case: tuple[list[str], int, int], data: st.DataObject
) -> None:
    lines, start, end = case
    now = list(lines)
    if end < len(lines):
        at = data.draw(st.integers(min_value=end, max_value=len(lines) - 1))
        now[at] = "edited below"
    now.append("appended")
    assert locate_span(lines, start, end, now, same_place=True).kind == "ok"


@given(file_and_span(), st.data())
def test_an_edited_span_line_is_drift(
    case: tuple[list[str], int, int], data: st.DataObject
) -> None:
    lines, start, end = case
    at = data.draw(st.integers(min_value=start - 1, max_value=end - 1))
    now = list(lines)
    now[at] = "rewritten"
    place = locate_span(lines, start, end, now, same_place=True)
    assert (place.kind, place.start, place.end) == ("drift", start, end)


def test_reindented_span_is_ok_and_a_moved_block_is_found_by_search() -> None:
    then = ["a", "def f():", "    return 1", "b", "c"]
    assert (
        locate_span(then, 2, 3, ["a", "def f():", "  return   1", "b", "c"], same_place=True).kind
        == "ok"
    )
    # The block moved with the line above it: the diff keeps the longer run
    # and loses the block; the search finds it, unique and with its neighbour.
    then = ["a", "def f():", "    return 1", "b", "c", "d", "e"]
    now = ["b", "c", "d", "e", "a", "def f():", "    return 1", "z"]
    place = locate_span(then, 2, 3, now, same_place=True)
    assert (place.kind, place.start, place.end, place.how) == ("moved", 6, 7, "search")


def test_a_block_found_elsewhere_without_its_neighbours_is_only_possibly_there() -> None:
    # Unique text, but neither neighbour came along: the lock calls that drift
    # ("possibly at"), and so does history (issue 23, item 1).
    then = ["a", "def f():", "    return 1", "b", "c", "d", "e"]
    now = ["a", "b", "c", "d", "e", "def f():", "    return 1"]
    place = locate_span(then, 2, 3, now, same_place=True)
    assert (place.kind, place.possibly) == ("drift", (6,))


def test_fully_rewritten_span_reports_where_its_place_is_now() -> None:
    then = ["head", "old 1", "old 2", "tail"]
    now = ["new top", "head", "brand new", "tail"]
    place = locate_span(then, 2, 3, now, same_place=True)
    assert place.kind == "drift"
    assert place.nearby == (3, 3)


@given(
    st.lists(st.sampled_from(["x", "y", "", "z"]), max_size=30),
    st.lists(st.sampled_from(["x", "y", "", "w"]), max_size=30),
)
def test_line_mapping_is_monotonic_and_maps_equal_lines(old: list[str], new: list[str]) -> None:
    mapping = map_old_to_new(old, new)
    targets = [(i, m) for i, m in enumerate(mapping) if m is not None]
    assert all(old[i] == new[m] for i, m in targets)
    assert [m for _, m in targets] == sorted({m for _, m in targets})


@given(st.sets(st.integers(min_value=1, max_value=200), max_size=40))
def test_merged_ranges_cover_exactly_the_numbers(numbers: set[int]) -> None:
    ranges = merge_ranges(numbers)
    covered = {n for first, last in ranges for n in range(first, last + 1)}
    assert covered == numbers
    assert all(a[1] + 1 < b[0] for a, b in itertools.pairwise(ranges))


line_text = st.text(
    alphabet=st.characters(exclude_categories=["Cs"], exclude_characters="\n"), max_size=30
)


@settings(max_examples=60)
@given(
    st.lists(
        st.tuples(st.sampled_from(["a" * 40, "b" * 40, "0" * 40]), st.integers(1, 500), line_text),
        min_size=1,
        max_size=15,
    )
)
def test_porcelain_parser_recovers_every_line_origin(entries: list[tuple[str, int, str]]) -> None:
    chunks: list[str] = []
    seen: set[str] = set()
    for final, (commit, orig, text) in enumerate(entries, start=1):
        chunks.append(f"{commit} {orig} {final}" + (" 1" if commit not in seen else ""))
        if commit not in seen:
            seen.add(commit)
            chunks += ["author Someone", "summary " + text, "filename docs/a b.md"]
        chunks.append("\t" + text)  # a line's text can look like anything, even a header
    parsed = parse_blame_porcelain(("\n".join(chunks) + "\n").encode())
    assert {n: (o.commit, o.orig_line) for n, o in parsed.items()} == {
        n: (c, o) for n, (c, o, _) in enumerate(entries, start=1)
    }


def test_name_status_parser_reads_renames_adds_and_deletes() -> None:
    raw = b"R087\0old/a.py\0new/a.py\0A\0fresh.py\0D\0gone.py\0M\0same.py\0"
    changes = parse_name_status_z(raw)
    assert changes.forward("old/a.py") == "new/a.py"
    assert changes.backward("new/a.py") == "old/a.py"
    assert changes.forward("gone.py") is None
    assert changes.backward("fresh.py") is None
    assert changes.forward("same.py") == "same.py"


def test_chain_log_parser_and_rename_walks() -> None:
    # Newest first: c3 renames b -> c, c2 deletes x, c1 renames a -> b, c0 adds a and x.
    raw = (
        b"\x01" + b"3" * 40 + b"\0\nR100\0b.py\0c.py\0"
        b"\x01" + b"2" * 40 + b"\0\nD\0x.py\0"
        b"\x01" + b"1" * 40 + b"\0\nR090\0a.py\0b.py\0"
        b"\x01" + b"0" * 40 + b"\0\nA\0a.py\0A\0x.py\0"
    )
    commits = parse_chain_log(raw)
    assert [c for c, _ in commits] == ["3" * 40, "2" * 40, "1" * 40, "0" * 40]
    assert commits[2][1] == [PathChange("R", "a.py", "b.py")]
    chain = FirstParentChain(commits)
    assert chain.backward("0" * 40, "c.py") == "a.py"
    assert chain.backward("1" * 40, "c.py") == "b.py"
    assert chain.forward("0" * 40, "a.py") == ("c.py", None)
    assert chain.forward("0" * 40, "x.py") == (None, "2" * 40)
    assert chain.forward("2" * 40, "b.py") == ("c.py", None)


@given(st.lists(st.booleans(), min_size=1, max_size=30))
def test_chain_walks_are_inverse_for_renamed_files(renames: list[bool]) -> None:
    # One file, renamed at the commits marked True; the oldest commit adds it.
    commits: list[tuple[str, list[PathChange]]] = []
    names = ["f0.py"]
    for index, renamed in enumerate(renames, start=1):
        if renamed:
            names.append(f"f{index}.py")
    name_index = len(names) - 1
    for index in range(len(renames), 0, -1):  # newest first
        changes = []
        if renames[index - 1]:
            changes = [PathChange("R", names[name_index - 1], names[name_index])]
            name_index -= 1
        commits.append((f"{index:040d}", changes))
    commits.append(("0" * 40, [PathChange("A", "f0.py")]))
    chain = FirstParentChain(commits)
    head_name = names[-1]
    for commit, _ in commits:
        then = chain.backward(commit, head_name)
        assert then is not None
        assert chain.forward(commit, then) == (head_name, None)
