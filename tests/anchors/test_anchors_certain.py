"""`moved` only when certain: repeated lines, uniform shifts, JavaScript locks, --fix."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers.anchors import check_json, commit, git, kinds, make_repo, run_cli, write

# Two functions that both end in `return None`; unique lines around them.
TWIN = (
    "def first(value):\n"  # 1
    "    total = value + 1\n"  # 2
    "    return None\n"  # 3
    "\n"  # 4
    "def second(value):\n"  # 5
    "    other = value * 2\n"  # 6
    "    return None\n"  # 7
    "\n"  # 8
    "def third():\n"  # 9
    "    print('third')\n"  # 10
)


def pinned_repo(tmp_path: Path, source: str, doc: str) -> Path:
    repo = make_repo(tmp_path / "repo", {"src/mod.py": source, "docs/a.md": doc})
    proc = run_cli(repo, "--update")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    commit(repo, "pin")
    return repo


def test_changed_line_is_not_moved_to_a_twin(tmp_path: Path) -> None:
    """The cited `return None` changed; the other `return None` is not where it went."""
    repo = pinned_repo(tmp_path, TWIN, "See src/mod.py:3 for the early exit.\n")
    write(
        repo,
        "src/mod.py",
        TWIN.replace(
            "    total = value + 1\n    return None", "    total = value + 1\n    return total"
        ),
    )
    code, payload = check_json(repo)
    assert code == 9
    assert kinds(payload) == {"drift": ["src/mod.py:3"]}, payload["problems"]
    problem = payload["problems"][0]
    assert problem["moved_to"] is None
    assert "possibly now at src/mod.py:7" in problem["detail"]
    before = (repo / "docs/a.md").read_bytes()
    fixed = run_cli(repo, "--fix")
    assert fixed.returncode == 9
    assert (repo / "docs/a.md").read_bytes() == before, "--fix must not act on a guess"
    assert run_cli(repo).returncode == 9, "the next check still fails"


def test_unique_line_changed_and_a_copy_appears_elsewhere_is_drift(tmp_path: Path) -> None:
    """Unique when pinned, one copy now, but not in the same place: not certain."""
    source = "def f():\n    x = 1\n    return None\n\ndef g():\n    y = 2\n    print(y)\n"
    repo = pinned_repo(tmp_path, source, "See src/mod.py:3.\n")
    changed = source.replace("    x = 1\n    return None", "    x = 1\n    return x")
    write(repo, "src/mod.py", changed + "\ndef h():\n    z = 3\n    return None\n")
    code, payload = check_json(repo)
    assert code == 9
    assert kinds(payload) == {"drift": ["src/mod.py:3"]}


def test_moved_with_its_neighbours_is_moved(tmp_path: Path) -> None:
    repo = pinned_repo(tmp_path, TWIN, "See src/mod.py:2-3 and src/mod.py:10.\n")
    write(repo, "src/mod.py", "import os\n\n" + TWIN)
    code, payload = check_json(repo)
    assert code == 9
    moved = {p["key"]: p["moved_to"]["key"] for p in payload["problems"]}
    assert moved == {"src/mod.py:2-3": "src/mod.py:4-5", "src/mod.py:10": "src/mod.py:12"}
    assert set(kinds(payload)) == {"moved"}


REPEATED = "".join(
    f"def step_{i}(x):\n    if x:\n        return None\n    return {i}\n" for i in range(40)
)


def repeated_doc() -> str:
    # Cite the repeated `return None` lines (3, 7, 11, ...) and a unique line of each function.
    lines = [f"- src/mod.py:{4 * i + 3} and src/mod.py:{4 * i + 1}" for i in range(0, 40, 3)]
    return "\n".join(lines) + "\n"


def test_uniform_shift_moves_repeated_one_liners_too(tmp_path: Path) -> None:
    """Two lines inserted at the top: every citation moved, none 'changed'."""
    repo = pinned_repo(tmp_path, REPEATED, repeated_doc())
    write(repo, "src/mod.py", "# one\n# two\n" + REPEATED)
    code, payload = check_json(repo)
    assert code == 9
    assert set(kinds(payload)) == {"moved"}, payload["counts"]
    for problem in payload["problems"]:
        assert problem["moved_to"]["start"] == problem["lines"][0] + 2
    assert run_cli(repo, "--fix").returncode == 0
    assert run_cli(repo).returncode == 0


def js_lock(repo: Path, keys: dict[str, str]) -> None:
    write(
        repo,
        "scripts/anchors.lock.json",
        json.dumps({"_comment": "js", "exempt": [], "citations": keys}, indent=2) + "\n",
    )


def pins_of(repo: Path) -> dict[str, str]:
    """Pins of our lock, copied into the JavaScript shape (no evidence, no spans)."""
    return dict(json.loads((repo / "anchors/anchors.lock.json").read_text())["citations"])


def test_javascript_lock_uses_git_for_evidence(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"src/mod.py": REPEATED, "docs/a.md": repeated_doc()})
    assert run_cli(repo, "--update").returncode == 0
    js_lock(repo, pins_of(repo))
    (repo / "anchors/anchors.lock.json").unlink()
    commit(repo, "js lock")
    # Uncommitted insertion: git's HEAD version is the pinned one.
    write(repo, "src/mod.py", "# one\n# two\n" + REPEATED)
    code, payload = check_json(repo, "--lock", "scripts/anchors.lock.json")
    assert code == 9
    assert set(kinds(payload)) == {"moved"}, payload["counts"]
    # Committed insertion: the version at the lock's last commit still says where it was.
    commit(repo, "insert")
    code, payload = check_json(repo, "--lock", "scripts/anchors.lock.json")
    assert set(kinds(payload)) == {"moved"}, payload["counts"]


def test_javascript_lock_without_git_moves_repeated_lines_with_the_unique_pins(
    tmp_path: Path,
) -> None:
    # Issue 35, item 8: no evidence, but the unique pins (`def step_N(x):`) agree on +2,
    # and each repeated `return None` stands at exactly that offset: all moved, each by
    # +2 (the rule before kept every pin drift here). Anything less stays drift:
    # tests/anchors/test_anchors_uniform_shift.py.
    repo = make_repo(tmp_path / "repo", {"src/mod.py": REPEATED, "docs/a.md": repeated_doc()})
    assert run_cli(repo, "--update").returncode == 0
    js_lock(repo, pins_of(repo))
    git(repo, "rev-parse", "HEAD")
    import shutil

    shutil.rmtree(repo / ".git")
    write(repo, "src/mod.py", "# one\n# two\n" + REPEATED)
    code, payload = check_json(repo, "--lock", "scripts/anchors.lock.json")
    assert code == 9
    assert set(kinds(payload)) == {"moved"}, payload["counts"]
    for problem in payload["problems"]:
        assert problem["moved_to"]["start"] == problem["lines"][0] + 2


def test_fix_never_creates_a_problem_in_cross_citing_documents(tmp_path: Path) -> None:
    """--fix rewrites a line another document cites; that citation must stay green."""
    source = "".join(f"def f{i}():\n    return {i}\n" for i in range(10))
    repo = make_repo(
        tmp_path / "repo",
        {
            "src/mod.py": source,
            "docs/a.md": "# A\nThe loop is src/mod.py:3-4 here.\n",
            "docs/b.md": "As docs/a.md:2 says, and src/mod.py:7.\n",
            "docs/c.md": "B's claim is at docs/b.md:1.\n",
        },
    )
    assert run_cli(repo, "--update").returncode == 0
    commit(repo, "pin")
    write(repo, "src/mod.py", "import os\n" + source)
    code, payload = check_json(repo)
    assert set(kinds(payload)) == {"moved"}
    before_lock = json.loads((repo / "anchors/anchors.lock.json").read_text())
    fixed = run_cli(repo, "--fix")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "src/mod.py:4-5" in (repo / "docs/a.md").read_text()
    assert "src/mod.py:8" in (repo / "docs/b.md").read_text()
    code, payload = check_json(repo, "--strict")
    assert code == 0, payload["problems"]
    after_lock = json.loads((repo / "anchors/anchors.lock.json").read_text())
    assert after_lock["citations"]["docs/a.md:2"] != before_lock["citations"]["docs/a.md:2"]
    assert "docs/a.md:2" in after_lock["evidence"]


def test_fix_keeps_a_javascript_lock_in_its_shape(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"src/mod.py": REPEATED, "docs/a.md": repeated_doc()})
    assert run_cli(repo, "--update").returncode == 0
    js_lock(repo, pins_of(repo))
    (repo / "anchors/anchors.lock.json").unlink()
    commit(repo, "js lock")
    write(repo, "src/mod.py", "# one\n" + REPEATED)
    fixed = run_cli(repo, "--lock", "scripts/anchors.lock.json", "--fix")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    lock = json.loads((repo / "scripts/anchors.lock.json").read_text())
    assert set(lock) == {"_comment", "exempt", "citations"}
    assert run_cli(repo, "--lock", "scripts/anchors.lock.json").returncode == 0
