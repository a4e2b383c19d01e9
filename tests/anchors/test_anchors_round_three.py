"""Round-three leftovers of the citation lock (issue 35, item 7).

Each is a real git repository whose expectation was decided before the run:
a range written in words, a line fragment in prose, permalinks written as
HTML, reStructuredText or AsciiDoc links, a sentence moved to another
document (`--history`), and our lock rewritten by the JavaScript checker's
`--update`, committed, then the cited code edited.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.anchors import SOURCE, check_json, commit, git, kinds, make_repo, run_cli, write

LINES = SOURCE.splitlines(keepends=True)


def _edit(root: Path, number: int) -> None:
    lines = list(LINES)
    lines[number - 1] = lines[number - 1].rstrip("\n") + "  # edited\n"
    write(root, "src/app.py", "".join(lines))


def _keys(root: Path, lock: str = "anchors/anchors.lock.json") -> list[str]:
    return sorted(json.loads((root / lock).read_text())["citations"])


@pytest.mark.parametrize(
    ("written", "key", "edited"),
    [
        ("the loop is `src/app.py:2 to 5` here", "src/app.py:2-5", 4),
        ("the loop is src/app.py:2 to 5 here", "src/app.py:2-5", 5),
        ("the loop is src/app.py:L2 to L5 here", "src/app.py:2-5", 3),
        ("the step is src/app.py#L5 here", "src/app.py:5", 5),
        ("the steps are src/app.py#L6-L8 here", "src/app.py:6-8", 7),
        ("the step is app.py#L9, as said", "src/app.py:9", 9),
    ],
)
def test_words_and_prose_fragments_are_pinned_whole(
    tmp_path: Path, written: str, key: str, edited: int
) -> None:
    # Old code: `2 to 5` pinned line 2 only (an edit of line 4 passed); `src/app.py#L5`
    # in prose was no citation at all.
    root = make_repo(tmp_path / "repo", {"src/app.py": SOURCE, "docs/a.md": f"# A\n\n{written}\n"})
    done = run_cli(root, "--update")
    assert done.returncode == 0, done.stdout + done.stderr
    assert _keys(root) == [key]
    _edit(root, edited)
    code, payload = check_json(root)
    assert code == 9
    assert kinds(payload) == {"drift": [key]}


def test_a_prose_fragment_is_rewritten_by_fix(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "repo", {"src/app.py": SOURCE, "docs/a.md": "# A\n\nsee src/app.py#L5-L6.\n"}
    )
    assert run_cli(root, "--update").returncode == 0
    commit(root, "pin")
    write(root, "src/app.py", "# header\n" + SOURCE)
    assert run_cli(root, "--fix").returncode == 0
    assert (root / "docs/a.md").read_text() == "# A\n\nsee src/app.py#L6-L7.\n"


def test_permalinks_in_html_rst_and_asciidoc_links_are_judged_at_their_commit(
    tmp_path: Path,
) -> None:
    # Old code: each of these also read as a link relative to the document, so
    # every one was `unresolved` besides its permalink (a false red).
    root = make_repo(tmp_path / "repo", {"src/app.py": SOURCE, "docs/.keep": ""})
    git(root, "remote", "add", "origin", "https://github.com/o/r.git")
    sha = git(root, "rev-parse", "HEAD").strip()
    url = f"https://github.com/o/r/blob/{sha}/src/app.py"
    write(
        root,
        "docs/a.md",
        f'# A\n\nhtml <a href="{url}#L5">five</a>\n\n'
        f"rst `six <{url}#L6>`_\n\nadoc link:{url}#L7[seven]\n",
    )
    commit(root, "doc")
    done = run_cli(root, "--update")
    assert done.returncode == 0, done.stdout + done.stderr
    assert _keys(root) == [f"src/app.py@{sha}:{n}" for n in (5, 6, 7)]
    for number in (5, 6, 7):
        _edit(root, number)
    assert run_cli(root).returncode == 0  # the commit's lines did not change


@pytest.mark.parametrize("where", ["new-document", "existing-document"])
def test_history_follows_a_sentence_moved_to_another_document(tmp_path: Path, where: str) -> None:
    # Old code: blame's -C needs 40 letters and digits to follow a line into another
    # file; the citing sentence was dated to the move and judged `ok`.
    root = make_repo(
        tmp_path / "repo",
        {
            "src/app.py": SOURCE,
            "docs/a.md": "# A\n\nIntro.\n\nStep five is src/app.py:5 here.\n\nOutro.\n",
            "docs/b.md": "# B\n\nOther things.\n",
        },
    )
    _edit(root, 5)
    commit(root, "edit the cited line")
    write(root, "docs/a.md", "# A\n\nIntro.\n\nOutro.\n")
    target = "docs/c.md" if where == "new-document" else "docs/b.md"
    before = (root / target).read_text() if where == "existing-document" else "# C\n"
    write(root, target, before + "\nStep five is src/app.py:5 here.\n")
    commit(root, "move the sentence")
    code, payload = check_json(root, "--history")
    assert code == 9, payload
    assert payload["counts"]["drift"] == 1 and payload["counts"]["ok"] == 0


def test_our_lock_rewritten_by_the_javascript_checker_then_edited_fails(tmp_path: Path) -> None:
    # Our lock at the JavaScript checker's place pins main.go:4, which that checker
    # cannot see. Its --update rewrites the lock in its own shape (dropping that pin);
    # committed, the lock then reads as the JavaScript checker's and the Go citation
    # became a note: an edit of main.go passed (old code). It fails now, naming the
    # commit whose lock pinned it.
    root = make_repo(
        tmp_path / "repo",
        {
            "app.py": SOURCE,
            "main.go": "package main\n\nfunc main() {\n\tprintln(1)\n}\n",
            "README.md": "# Doc\n\nSee app.py:3 and main.go:4.\n",
        },
    )
    lock = "scripts/anchors.lock.json"
    assert run_cli(root, "--lock", lock, "--update").returncode == 0
    ours = json.loads((root / lock).read_text())
    assert "format" in ours and "main.go:4" in ours["citations"]
    commit(root, "our lock")
    rewritten = {
        "_comment": "Content fingerprints ... Generated by scripts/check-anchors.mjs --update",
        "exempt": [],
        "citations": {"app.py:3": ours["citations"]["app.py:3"]},
    }
    (root / lock).write_text(json.dumps(rewritten, indent=2) + "\n")
    write(root, "main.go", "package main\n\nfunc main() {\n\tprintln(2)\n}\n")
    commit(root, "npm test rewrote the lock; main.go edited")
    code, payload = check_json(root, "--lock", lock)
    assert code == 9, payload
    problem = next(p for p in payload["problems"] if p["key"] == "main.go:4")
    assert "pinned" in problem["detail"] and "--update" in problem["detail"]
